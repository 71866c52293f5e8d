"""Integers that hold addresses: `(double *)addr` makes `addr` a pointer.

A function may take an address as an integer (`intptr_t addr`, `size_t`,
`long`) and read or write through `(double *)addr`. Its declaration shows no
pointer, yet the caller's memory is reached: such a parameter counts as a
pointer parameter of the summary. An integer that is no parameter (a local
or a global holding an address) reaches memory the summary cannot attribute.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import Effect, Function, SourceFile, Var, library_function

__all__ = ["IntegerAddresses", "integer_addresses"]

_NAME = re.compile(r"[A-Za-z_]\w*")
# A cast to a pointer type: `(double *)`, `(const struct s **)`, and C++'s
# `reinterpret_cast<double *>(`; its operand follows. Words are apart by
# blanks, so a long name splits one way only (no backtracking blow-up).
_CAST = re.compile(
    r"\(\s*(?:[A-Za-z_]\w*\s+)*[A-Za-z_]\w*\s*"
    r"(?:\*\s*(?:const\s*|volatile\s*|restrict\s*)*)+\)"
    r"|\b(?:reinterpret|static|const|c)_cast\s*<[^<>;]*\*\s*>"
)
_OPERAND = re.compile(r"\s*[&*!~+\-\s]*([A-Za-z_]\w*)")
# `&x`: the address of `x`, not a value of `x` turned into one.
_ADDRESS = re.compile(r"&\s*[A-Za-z_]\w*")
_SIZEOF = re.compile(r"\bsizeof\s*$")
_ASSIGN = re.compile(rb"\s*=(?!=)\s*([^;{}]*)")
_WORDS = {"sizeof", "const", "volatile", "struct", "union", "unsigned", "signed"}


@dataclass(frozen=True, slots=True)
class IntegerAddresses:
    """The integers a function turns into pointers."""

    params: frozenset[str]  # integer parameters: pointer parameters of the summary
    others: tuple[str, ...]  # integer locals or globals: memory of unknown owner


def _closing(text: str, start: int) -> int:
    """The index after the group that opens at `text[start]`."""
    depth = 0
    for at in range(start, len(text)):
        if text[at] in "([":
            depth += 1
        elif text[at] in ")]":
            depth -= 1
            if depth == 0:
                return at + 1
    return len(text)


def _operand_names(text: str, at: int) -> set[str]:
    """The names whose value the cast at `at` converts (its operand's names)."""
    rest = text[at:]
    stripped = rest.lstrip()
    if stripped.startswith("("):
        start = len(rest) - len(stripped)
        inner = _ADDRESS.sub(" ", rest[start : _closing(rest, start)])
        # `(double *)(base + off)` or a cast of a cast: every name may carry it.
        return set(_NAME.findall(inner)) - _WORDS
    if stripped.startswith("&"):
        return set()  # `(char *)&x`: the bytes of `x` itself, no address it holds
    match = _OPERAND.match(rest)
    if match is None:
        return set()
    name = match.group(1)
    after = rest[match.end() :].lstrip()
    if after.startswith("("):
        known = library_function(name)
        if known is not None and known.effect is Effect.ALLOC:
            return set()  # `(double *)malloc(n)`: a fresh block, `n` is a size
        # A call's result may be an argument turned back into an address.
        close = _closing(after, 0)
        return (set(_NAME.findall(after[:close])) | {name}) - _WORDS
    return {name}


def _assigned(text: str) -> str:
    """The right-hand side that starts `text`, up to its end or a top-level `,`."""
    depth = 0
    for at, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            return text[:at]
    return text


def _by_value(local: Var, fn: Function, source: SourceFile) -> set[str]:
    """The sources of `local` that its own assignments use as values, not `&v`.

    `p = &v` lists `v` among the sources: its address is the pointer. Only the
    texts assigned to `local` tell; an `&v` elsewhere in the function (`z =
    &addr` beside `r = addr`) says nothing of them. When no assignment can be
    read, every source counts.
    """
    texts = []
    for ref in fn.refs:
        if ref.name != local.name or not ref.is_write or ref.subscripts or ref.deref:
            continue
        found = _ASSIGN.match(source.data, ref.span.end_byte)
        if found is not None:
            texts.append(_assigned(found.group(1).decode("utf-8", "replace")))
    if not texts:
        return set(local.sources)
    used = {n for t in texts for n in _NAME.findall(_ADDRESS.sub(" ", t))}
    return used & set(local.sources)


def _integer(var: Var | None) -> bool:
    return var is not None and not var.pointers and not var.dims


def integer_addresses(fn: Function, source: SourceFile) -> IntegerAddresses:
    """The integer parameters, locals and globals `fn` converts to pointers."""
    text = source.data[fn.span.start_byte : fn.span.end_byte].decode(
        "utf-8", errors="replace"
    )
    body = text[text.find("{") :] if "{" in text else ""
    names: set[str] = set()
    for match in _CAST.finditer(body):
        if not _SIZEOF.search(body[max(0, match.start() - 16) : match.start()]):
            names |= _operand_names(body, match.end())
    # `double *p = addr;`: a pointer whose every source is an integer.
    for local in fn.locals:
        if not local.pointers or "()" in local.sources or not local.sources:
            continue
        found = [fn.lookup(s) for s in local.sources]
        if all(_integer(v) for v in found):
            names |= _by_value(local, fn, source)
    globals_ = {g.name: g for g in source.globals}
    params = {p.name for p in fn.params if _integer(p)}
    others: list[str] = []
    for name in sorted(names):
        if name in params:
            continue
        var = fn.lookup(name) or globals_.get(name)
        if _integer(var) and name not in {p.name for p in fn.params}:
            others.append(name)
    return IntegerAddresses(params=frozenset(names & params), others=tuple(others))
