"""A callee that reads a shared element in a `critical` and stores it after.

`tally(h, len)`, reached from every iteration of a parallel loop, reads
`h->bin[b]` inside `#pragma omp critical` and stores `h->bin[b] = old + 1`
after the construct: the `critical` says that other threads reach the element
(else it would guard nothing), and the store, outside it, races with their
reads and stores.

Followed, to a small depth, from the loop's call: pointer parameters given
one object in every iteration (a plain name the loop does not move, passed on
unchanged), and the other arguments' origin: an iteration's own value (the
loop variable outside a subscript, or a value computed from one) or data. An
element counts when each name of its subscripts is a macro, or a parameter or
local of the function set at most once there and not the iteration's own:
with `b = i`, each iteration would have its own element and need no
exclusion. A function with OpenMP lock calls or an `atomic`, `ordered`,
`single` or `master` construct is left to the other checks.
"""

from __future__ import annotations

import re

from accls.analysis.findings import Finding
from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.races_exclusion import exclusion_finding
from accls.frontend import Directive, Function, Loop, Ref, SourceFile

__all__ = ["critical_read_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_OTHER = frozenset({"atomic", "ordered", "single", "master", "masked"})
_DEPTH = 3


def critical_read_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC121 when a callee stores outside a `critical` what it reads inside."""
    callee = source.function(name)
    if directive.dialect != "omp" or callee is None or loop.var is None:
        return []
    if callee.span.start_byte <= loop.span.start_byte < callee.span.end_byte:
        return []
    moved = {r.name for r in loop.refs if r.is_write} | {v.name for v in loop.locals}
    for call in loop.calls:
        if call.name != name or _excluded(call.span.start_byte, source, loop):
            continue
        shared: set[str] = set()
        own: set[str] = set()
        for param, arg in zip(callee.params, call.args, strict=False):
            text = arg.strip()
            if param.pointers == 1 and _NAME.fullmatch(text) and text not in moved:
                shared.add(param.name)
            elif _mentions(_shallow(text), {loop.var} | (moved - {text})):
                own.add(param.name)
        found = _walk(callee, shared, own, source, 0, {callee.name})
        if found is not None:
            write, read = found
            rule = (
                f"iterations run on different threads, and `{read.name}` is read "
                f"in a `critical` at line {read.span.line} but stored outside it "
                f"at line {write.span.line}"
            )
            fix = f"store `{write.render()}` inside the same `critical`"
            return [exclusion_finding(write, read, write, directive, loop, rule, fix)]
    return []


def _walk(
    f: Function,
    shared: set[str],
    own: set[str],
    source: SourceFile,
    depth: int,
    seen: set[str],
) -> tuple[Ref, Ref] | None:
    """(store outside, read inside) in `f` or the functions it passes `shared` to."""
    if not shared:
        return None
    if any(c.startswith("omp_") and not c.startswith("omp_get_") for c in f.calls):
        return None
    own_here = own | _own_locals(f, own, source)
    found = _in_function(f, shared, own_here, source)
    if found is not None or depth + 1 >= _DEPTH:
        return found
    for inner in f.call_sites:
        target = source.function(inner.name)
        if target is None or target.name in seen:
            continue
        if any(contains(c, inner.span.start_byte) for c in source.constructs):
            continue  # a call made under a construct: its own rules apply
        if any(r.name in shared and r.is_write for r in f.refs):
            return None  # a parameter moved: which object is unknown
        passed: set[str] = set()
        marked: set[str] = set()
        for param, arg in zip(target.params, inner.args, strict=False):
            text = arg.strip()
            if text in shared and param.pointers == 1:
                passed.add(param.name)
            elif _mentions(_shallow(text), own_here):
                marked.add(param.name)
        found = _walk(target, passed, marked, source, depth + 1, seen | {target.name})
        if found is not None:
            return found
    return None


def _in_function(
    f: Function, shared: set[str], own: set[str], source: SourceFile
) -> tuple[Ref, Ref] | None:
    """(store outside, read inside a `critical`) of one element of `shared`."""
    start, end = f.span.start_byte, f.span.end_byte
    inner = [c for c in source.constructs if start <= c.span.start_byte < end]
    if any(first_word(c) in _OTHER for c in inner):
        return None
    criticals = [c for c in inner if first_word(c) == "critical"]
    if not criticals:
        return None
    refs = [r for r in f.refs if r.member and not r.deref and _root(r) in shared]
    for read in refs:
        if read.is_write or not any(
            contains(c, read.span.start_byte) for c in criticals
        ):
            continue
        if not _chosen_once(read, f, own, source):
            continue
        for write in refs:
            if not write.is_write or write.name != read.name:
                continue
            if _texts(write) != _texts(read):
                continue
            if any(contains(c, write.span.start_byte) for c in criticals):
                continue
            return write, read
    return None


def _chosen_once(ref: Ref, f: Function, own: set[str], source: SourceFile) -> bool:
    """True when every subscript name is a macro or set at most once, not own."""
    macros = {m for m, _ in source.macros}
    for sub in ref.subscripts:
        for name in _NAME.findall(sub.text):
            if name in macros:
                continue
            if name in own or f.lookup(name) is None:
                return False
            if sum(1 for r in f.refs if r.name == name and r.is_write) > 1:
                return False
    return True


def _own_locals(f: Function, own: set[str], source: SourceFile) -> set[str]:
    """`f`'s locals computed from the iteration's own values, to a fixed point."""
    text = source.data[f.span.start_byte : f.span.end_byte].decode(errors="replace")
    sets: dict[str, set[str]] = {}
    for v in f.locals:
        pattern = rf"\b{re.escape(v.name)}\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)\s*([^;,]*)"
        names: set[str] = set()
        for m in re.finditer(pattern, text):
            names |= set(_NAME.findall(_shallow(m.group(1))))
        sets[v.name] = names
    out: set[str] = set()
    grew = True
    while grew:
        grew = False
        for local, names in sets.items():
            if local not in out and names & (own | out):
                out.add(local)
                grew = True
    return out


def _shallow(text: str) -> str:
    """`text` without what its subscripts hold: `idx[i] + j` -> `idx[] + j`."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "]":
            depth -= 1
        out.append(ch if depth <= 0 else " ")
        if ch == "[":
            depth += 1
    return "".join(out)


def _mentions(text: str, names: set[str]) -> bool:
    return bool(set(_NAME.findall(text)) & names)


def _root(ref: Ref) -> str:
    match = _NAME.match(ref.name)
    return match.group(0) if match else ""


def _texts(ref: Ref) -> tuple[str, ...]:
    return tuple("".join(s.text.split()) for s in ref.subscripts)


def _excluded(pos: int, source: SourceFile, loop: Loop) -> bool:
    """True when `pos` sits in a `critical`, `atomic`, ... inside the loop."""
    return any(
        first_word(c) in _OTHER | {"critical"}
        and loop.body.start_byte <= c.span.start_byte
        and contains(c, pos)
        for c in source.constructs
    )
