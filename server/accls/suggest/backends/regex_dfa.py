"""A lazily built DFA for the plain regular expressions of pragma grammars.

Constrained decoding asks, at every step, which tokens keep a completion a
prefix of a match. A DFA state after the text answers that for every text
that reaches the same state, so the answer is computed once per state and
reused: with the few dozen states of a pragma grammar, decoding stops paying
for regex matching after the first candidates. Only the regular subset is
supported (literals, classes, groups, alternation, repeats); `compile_dfa`
returns None for anything else and the caller falls back to `regex` partial
matching.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["Dfa", "compile_dfa"]

Predicate = Callable[[str], bool]

_MAX_COPIES = 64
"""Bounded repeats are expanded; larger bounds are left to the regex fallback."""
_MAXREPEAT = int(re._constants.MAXREPEAT)  # type: ignore[attr-defined]


class _Unsupported(Exception):
    """The pattern uses a construct a finite automaton cannot express here."""


def _category(name: str) -> Predicate:
    table: dict[str, Predicate] = {
        "CATEGORY_DIGIT": str.isdigit,
        "CATEGORY_NOT_DIGIT": lambda c: not c.isdigit(),
        "CATEGORY_SPACE": str.isspace,
        "CATEGORY_NOT_SPACE": lambda c: not c.isspace(),
        "CATEGORY_WORD": lambda c: c.isalnum() or c == "_",
        "CATEGORY_NOT_WORD": lambda c: not (c.isalnum() or c == "_"),
    }
    if name not in table:
        raise _Unsupported(name)
    return table[name]


def _equal(code: int) -> Predicate:
    return lambda c: ord(c) == code


def _other(code: int) -> Predicate:
    return lambda c: ord(c) != code


def _between(low: int, high: int) -> Predicate:
    return lambda c: low <= ord(c) <= high


def _char_class(items: list[tuple[Any, Any]]) -> Predicate:
    negate = False
    tests: list[Predicate] = []
    for op, arg in items:
        kind = str(op)
        if kind == "NEGATE":
            negate = True
        elif kind == "LITERAL":
            tests.append(_equal(int(arg)))
        elif kind == "RANGE":
            tests.append(_between(int(arg[0]), int(arg[1])))
        elif kind == "CATEGORY":
            tests.append(_category(str(arg)))
        else:
            raise _Unsupported(kind)
    if negate:
        return lambda c: not any(t(c) for t in tests)
    return lambda c: any(t(c) for t in tests)


class _Nfa:
    """Thompson construction: per state, epsilon moves and one character move."""

    def __init__(self) -> None:
        self.eps: list[list[int]] = []
        self.move: list[tuple[Predicate, int] | None] = []

    def state(self) -> int:
        self.eps.append([])
        self.move.append(None)
        return len(self.eps) - 1

    def build(self, items: Any) -> tuple[int, int]:
        """A fragment (start, end) for a parsed sequence."""
        start = end = self.state()
        for op, arg in items:
            first, last = self._item(str(op), arg)
            self.eps[end].append(first)
            end = last
        return start, end

    def _char(self, test: Predicate) -> tuple[int, int]:
        start, end = self.state(), self.state()
        self.move[start] = (test, end)
        return start, end

    def _item(self, op: str, arg: Any) -> tuple[int, int]:
        if op == "LITERAL":
            return self._char(_equal(int(arg)))
        if op == "NOT_LITERAL":
            return self._char(_other(int(arg)))
        if op == "ANY":
            return self._char(lambda c: c != "\n")
        if op == "IN":
            return self._char(_char_class(list(arg)))
        if op == "SUBPATTERN":
            _, add_flags, del_flags, body = arg
            if add_flags or del_flags:
                raise _Unsupported("inline flags")
            return self.build(body)
        if op == "BRANCH":
            start, end = self.state(), self.state()
            for branch in arg[1]:
                first, last = self.build(branch)
                self.eps[start].append(first)
                self.eps[last].append(end)
            return start, end
        if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            return self._repeat(*arg)
        raise _Unsupported(op)

    def _repeat(self, low: int, high: int, body: Any) -> tuple[int, int]:
        copies = low if high == _MAXREPEAT else high
        if copies > _MAX_COPIES:
            raise _Unsupported("repeat bound")
        start = end = self.state()
        for _ in range(low):
            first, last = self.build(body)
            self.eps[end].append(first)
            end = last
        if high == _MAXREPEAT:
            first, last = self.build(body)
            hub = self.state()
            self.eps[end].append(hub)
            self.eps[hub].append(first)
            self.eps[last].append(hub)
            return start, hub
        exit_ = self.state()
        self.eps[end].append(exit_)
        for _ in range(high - low):
            first, last = self.build(body)
            self.eps[end].append(first)
            self.eps[last].append(exit_)
            end = last
        return start, exit_


class Dfa:
    """Subset construction on demand: states are ids of sets of NFA states."""

    def __init__(self, nfa: _Nfa, start: int, accept: int) -> None:
        self._nfa = nfa
        self._accept = accept
        self._sets: list[frozenset[int]] = []
        self._ids: dict[frozenset[int], int] = {}
        self._steps: dict[tuple[int, str], int] = {}
        self.start = self._id(self._closure({start}))

    def _closure(self, states: set[int]) -> frozenset[int]:
        stack = list(states)
        seen = set(states)
        while stack:
            for nxt in self._nfa.eps[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return frozenset(seen)

    def _id(self, states: frozenset[int]) -> int:
        found = self._ids.get(states)
        if found is None:
            found = self._ids[states] = len(self._sets)
            self._sets.append(states)
        return found

    def step(self, state: int, char: str) -> int:
        """The state after `char`, or -1 when no match can continue."""
        key = (state, char)
        found = self._steps.get(key)
        if found is None:
            targets = set()
            for nfa_state in self._sets[state]:
                move = self._nfa.move[nfa_state]
                if move is not None and move[0](char):
                    targets.add(move[1])
            found = self._id(self._closure(targets)) if targets else -1
            self._steps[key] = found
        return found

    def walk(self, text: str, state: int | None = None) -> int:
        """The state after `text` from `state` (default: the start), -1 if dead."""
        current = self.start if state is None else state
        for char in text:
            current = self.step(current, char)
            if current < 0:
                return -1
        return current

    def accepts(self, state: int) -> bool:
        """Whether the text that led to `state` is a whole match."""
        return state >= 0 and self._accept in self._sets[state]


def compile_dfa(pattern: str) -> Dfa | None:
    """A DFA for a full match of `pattern`; None if it uses unsupported syntax."""
    try:
        parsed = re._parser.parse(pattern)  # type: ignore[attr-defined]
        if parsed.state.flags & ~re.UNICODE:
            return None
        nfa = _Nfa()
        start, end = nfa.build(parsed)
    except (_Unsupported, re.error, RecursionError):
        return None
    return Dfa(nfa, start, end)
