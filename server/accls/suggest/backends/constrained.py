"""Grammar-constrained decoding in-process: keep only tokens that stay in the regex.

A completion is allowed to grow by a token only while it is still a prefix of
some string the pragma regular expression matches (the `regex` package's
`partial=True` full match). Token texts sit in a character trie, so a whole
subtree of the vocabulary is pruned by one failed match, and the allowed set
for each completion prefix is cached: decoding many loops repeats prefixes
such as `#pragma acc parallel loop`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accls.suggest.backends.regex_dfa import Dfa, compile_dfa
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Target
from accls.suggest.prompt import pragma_regex

if TYPE_CHECKING:
    import regex

__all__ = ["PrefixConstraint", "TokenTable", "regex_for_prompt"]


_MODELS = frozenset(d.value for d in Dialect)
_TARGETS = frozenset(t.value for t in Target)


def regex_for_prompt(prompt: str) -> str:
    """The pragma regex of the dialect and target a prompt names (`model:` line)."""
    fields = dict(
        line.split(": ", 1) for line in prompt.split("\n")[:3] if ": " in line
    )
    model = fields.get("model", Dialect.OPENACC.value)
    target = fields.get("target", Target.GPU.value)
    options = SuggestOptions(
        dialect=Dialect(model) if model in _MODELS else Dialect.OPENACC,
        target=Target(target) if target in _TARGETS else Target.GPU,
    )
    return pragma_regex(options)


@dataclass(slots=True)
class _Node:
    ids: list[int] = field(default_factory=list)
    kids: dict[str, _Node] = field(default_factory=dict)


@dataclass(slots=True)
class TokenTable:
    """The text each token id adds to a completion, and a trie over those texts."""

    texts: list[str]
    eos_ids: frozenset[int]
    root: _Node = field(default_factory=_Node)

    def __post_init__(self) -> None:
        for token_id, text in enumerate(self.texts):
            if not text or token_id in self.eos_ids:
                continue
            node = self.root
            for char in text:
                node = node.kids.setdefault(char, _Node())
            node.ids.append(token_id)

    @classmethod
    def from_tokenizer(cls, tokenizer: Any, vocab_size: int) -> TokenTable:
        """The table of a Hugging Face tokenizer (byte-level or sentencepiece)."""
        texts = [""] * vocab_size
        special = set(getattr(tokenizer, "all_special_ids", ()) or ())
        pieces = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        for token_id, piece in enumerate(pieces[:vocab_size]):
            if token_id in special or piece is None:
                continue
            text = tokenizer.decode([token_id], clean_up_tokenization_spaces=False)
            if isinstance(piece, str) and piece.startswith("\u2581"):
                text = " " + text.lstrip(" ")  # sentencepiece drops the word space
            texts[token_id] = text
        eos = getattr(tokenizer, "eos_token_id", None)
        return cls(texts, frozenset({eos} if isinstance(eos, int) else set()))

    def text_of(self, ids: Sequence[int]) -> str:
        """The completion text of a sequence of generated token ids."""
        return "".join(self.texts[i] if 0 <= i < len(self.texts) else "" for i in ids)


_CACHE_SIZE = 8192
_FAR = 1 << 16
"""Distance of a state no whole match can be reached from."""


class PrefixConstraint:
    """Which tokens may follow a completion prefix under one regular expression.

    Patterns a DFA can express (ours all are) are answered per DFA state,
    once; anything else by `regex` partial matching, cached per prefix.
    """

    def __init__(self, table: TokenTable) -> None:
        self.table = table
        self._compiled: dict[str, regex.Pattern[str]] = {}
        self._dfas: dict[str, Dfa | None] = {}
        self._by_state: dict[tuple[str, int], tuple[int, ...]] = {}
        self._groups: dict[tuple[str, int], dict[int, list[int]]] = {}
        self._distance: dict[tuple[str, int], int] = {}
        self._alphabet = sorted({t for t in table.texts if len(t) == 1})
        self._cache: OrderedDict[tuple[str, str], tuple[int, ...]] = OrderedDict()
        self.checks = 0  # character tests, for the benchmark

    def _pattern(self, pattern: str) -> regex.Pattern[str]:
        found = self._compiled.get(pattern)
        if found is None:
            # Only patterns outside the DFA subset get here: `regex` (with the
            # `model` extra) is needed for its partial matching alone.
            import regex

            found = self._compiled[pattern] = regex.compile(pattern)
        return found

    def _dfa(self, pattern: str) -> Dfa | None:
        if pattern not in self._dfas:
            self._dfas[pattern] = compile_dfa(pattern)
        return self._dfas[pattern]

    def complete(self, pattern: str, text: str) -> bool:
        """Whether `text` is a whole match: the completion may end here."""
        dfa = self._dfa(pattern)
        if dfa is not None:
            return dfa.accepts(dfa.walk(text))
        return self._pattern(pattern).fullmatch(text) is not None

    def allowed(
        self, pattern: str, text: str, left: int | None = None
    ) -> tuple[int, ...]:
        """Token ids that keep `text` a prefix of a match, plus EOS when complete.

        With `left` (the tokens the row may still add), only tokens after
        which a whole match stays reachable within the budget: a small model
        that loops inside `reduction(` is steered to close the pragma instead
        of running out of tokens mid-clause. The distance counts one-character
        tokens, an upper bound on the tokens needed, so the budget is safe.
        Patterns outside the DFA subset get no budget.
        """
        dfa = self._dfa(pattern)
        if dfa is None:
            return self._allowed_by_regex(pattern, text)
        state = dfa.walk(text)
        if state < 0:
            return tuple(sorted(self.table.eos_ids))
        key = (pattern, state)
        hit = self._by_state.get(key)
        if hit is None:
            groups = self._groups[key] = self._walk_dfa(dfa, state)
            ids = [token for tokens in groups.values() for token in tokens]
            hit = self._by_state[key] = self._finish(ids, dfa.accepts(state))
        if left is None:
            return hit
        return self._within(pattern, dfa, state, left) or hit

    def _within(self, pattern: str, dfa: Dfa, state: int, left: int) -> tuple[int, ...]:
        """The allowed tokens that leave a whole match within `left - 1` more."""
        groups = self._groups[(pattern, state)]
        reach = {end: self._steps_to_accept(pattern, dfa, end) for end in groups}
        fits = [end for end, far in reach.items() if far <= left - 1]
        if not fits and not dfa.accepts(state):
            # Nothing fits: head for the nearest whole match anyway.
            nearest = min(reach.values(), default=_FAR)
            fits = [end for end, far in reach.items() if far == nearest < _FAR]
        if not fits and not dfa.accepts(state):
            return ()
        ids = [token for end in fits for token in groups[end]]
        return self._finish(ids, dfa.accepts(state))

    def _steps_to_accept(self, pattern: str, dfa: Dfa, state: int) -> int:
        """One-character tokens from `state` to a whole match (breadth first)."""
        key = (pattern, state)
        found = self._distance.get(key)
        if found is not None:
            return found
        seen = {state}
        frontier = [state]
        steps = 0
        found = _FAR
        while frontier and steps < _FAR:
            if any(dfa.accepts(at) for at in frontier):
                found = steps
                break
            nxt: list[int] = []
            for at in frontier:
                for char in self._alphabet:
                    moved = dfa.step(at, char)
                    if moved >= 0 and moved not in seen:
                        seen.add(moved)
                        nxt.append(moved)
            frontier = nxt
            steps += 1
        self._distance[key] = found
        return found

    def _walk_dfa(self, dfa: Dfa, state: int) -> dict[int, list[int]]:
        """The tokens that may follow `state`, grouped by the state they reach."""
        out: dict[int, list[int]] = {}
        stack: list[tuple[_Node, int]] = [(self.table.root, state)]
        while stack:
            node, at = stack.pop()
            for char, kid in node.kids.items():
                self.checks += 1
                nxt = dfa.step(at, char)
                if nxt < 0:
                    continue  # no token under this branch can follow
                if kid.ids:
                    out.setdefault(nxt, []).extend(kid.ids)
                if kid.kids:
                    stack.append((kid, nxt))
        return out

    def _finish(self, out: list[int], whole: bool) -> tuple[int, ...]:
        if whole or not out:
            # EOS once the line is whole; also when nothing fits, so that the
            # row ends instead of sampling from an all -inf distribution.
            out.extend(self.table.eos_ids)
        return tuple(sorted(set(out)))

    def _allowed_by_regex(self, pattern: str, text: str) -> tuple[int, ...]:
        key = (pattern, text)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        compiled = self._pattern(pattern)
        out: list[int] = []
        stack: list[tuple[_Node, str]] = [(self.table.root, text)]
        while stack:
            node, prefix = stack.pop()
            for char, kid in node.kids.items():
                grown = prefix + char
                self.checks += 1
                if compiled.fullmatch(grown, partial=True) is None:
                    continue
                out.extend(kid.ids)
                if kid.kids:
                    stack.append((kid, grown))
        result = self._finish(out, compiled.fullmatch(text) is not None)
        self._cache[key] = result
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return result
