"""Data clauses for members of array elements the loop chooses (`b[l].lo`).

`b[l].lo[k]` over `l` is proved element by element (analysis/element_members),
but no data clause can name "member `lo` of every element": `copy(b[l].lo)`
names one element's member with the loop's own variable, and does not compile.
The clause moves the array of structures whole (`copy(b)`): its extent must
be known, a fixed-size array. A pointer to elements, a pointer member (moving
the array copies the pointers, not their blocks), or an array held by an
enclosing data region, is left to the user with the reason. An element the
loop does not choose (`blocks[n].array[i]` in a loop over `i`) keeps its
section, as any other access.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accls.analysis.aliasing import array_decl
from accls.analysis.array_sections import ArrayUse
from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["element_base", "element_clauses", "merge_wholes"]

_ELEMENT = re.compile(r"^([A-Za-z_]\w*)\[([^\]]*)\]\s*(?:\.|->)")
_NAME = re.compile(r"[A-Za-z_]\w*")


def _moving(loop: Loop) -> frozenset[str]:
    """The names the loop changes: its nest's variables and the scalars it sets."""
    names = {r.name for r in loop.refs if r.is_write and not r.subscripts}
    names |= {inner.var for inner in loop.walk() if inner.var}
    return frozenset(names)


def element_base(name: str, loop: Loop) -> str | None:
    """`b` of `b[l].lo` when the loop chooses the element: the array moved whole."""
    match = _ELEMENT.match(name)
    if match is None:
        return None
    if not set(_NAME.findall(match.group(2))) & _moving(loop):
        return None  # one element, the same in every iteration: its own section
    return match.group(1)


def _fixed_array(base: str, fn: Function | None, source: SourceFile) -> Var | None:
    decl = array_decl(base, fn, source.globals)
    if decl is None or decl.pointers or not decl.dims or not all(decl.dims):
        return None
    return decl


def _pointer_member(
    name: str, base: str, fn: Function | None, source: SourceFile
) -> bool:
    """Whether `b[l].a` names a pointer member (or one whose type is unknown)."""
    decl = _fixed_array(base, fn, source)
    fields = source.types.fields_of(decl.type) if decl is not None else None
    member = re.search(r"(?:\.|->)\s*([A-Za-z_]\w*)", name[len(base) :])
    found = fields.get(member.group(1)) if fields and member else None
    return found is None or bool(found.pointers) or found.unknown_shape


def _unsized_member(
    use: ArrayUse, fn: Function | None, source: SourceFile
) -> str | None:
    """Why `s[n].a`, a pointer member with no section, has no clause, if it is one."""
    match = _ELEMENT.match(use.name)
    if match is None or use.section is not None:
        return None
    base = match.group(1)
    decl = array_decl(base, fn, source.globals)
    fields = source.types.fields_of(decl.type) if decl is not None else None
    member = re.search(r"(?:\.|->)\s*([A-Za-z_]\w*)", use.name[len(base) :])
    found = fields.get(member.group(1)) if fields and member else None
    if found is None or not found.pointers:
        return None
    # `copy(s[n].a)` would move the pointer, not the block it points to.
    return (
        f"`{use.name}` is a pointer member whose block's extent is unknown: a "
        "clause naming it moves the pointer, not the block; map a section of it "
        "yourself"
    )


def element_clauses(
    uses: Iterable[ArrayUse],
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
    present: Iterable[str],
) -> tuple[dict[str, tuple[str, str]], str | None]:
    """Each base array's clause kind and reason, or why none can be written."""
    held = set(present)
    written: dict[str, bool] = {}
    named: dict[str, str] = {}
    for use in uses:
        base = element_base(use.name, loop)
        unsized = _unsized_member(use, fn, source) if base is None else None
        if unsized is not None:
            return {}, unsized
        if base is None:
            continue
        if base in held:
            return {}, (
                f"`{use.name}` is a member of the elements of `{base}`, which the "
                "enclosing data region holds: accls cannot tell which of them it "
                "keeps current; map the loop's data yourself"
            )
        if _fixed_array(base, fn, source) is None:
            return {}, (
                f"`{use.name}` is a member of an element the loop chooses, and the "
                f"extent of `{base}` is unknown: no data clause can name the members "
                f"it touches; map `{base}` with a data region first"
            )
        if _pointer_member(use.name, base, fn, source):
            return {}, (
                f"`{use.name}` is a pointer member of the elements of `{base}`: "
                f"moving `{base}` copies the pointers, not the blocks they reach "
                "(a deep copy); map each element's block yourself"
            )
        if base not in named or (use.written and not written[base]):
            named[base] = use.name  # the first write, else the first read
        written[base] = written.get(base, False) or use.written
    out: dict[str, tuple[str, str]] = {}
    for base, example in named.items():
        if written[base]:
            out[base] = (
                "copy",
                f"the loop writes members of `{base}`'s elements (`{example}`), "
                "which a clause can only move whole",
            )
        else:
            out[base] = ("copyin", f"members of `{base}`'s elements are only read")
    return out, None


def merge_wholes(
    wholes: dict[str, tuple[str, str]],
    groups: dict[str, list[str]],
    reasons: list[str],
    chosen: dict[str, tuple[str, str]],
    mapped: list[str],
) -> None:
    """Add the whole arrays' clauses, one per array with its other uses.

    `b[l].x = ..` beside a plain use of `b` (`b[l] = t`): one clause moves `b`,
    `copy` unless both only read or both only write it.
    """
    for base, (kind, why) in wholes.items():
        prior = chosen.get(base)
        if prior is not None:
            old_kind, item = prior
            groups[old_kind].remove(item)
            if not groups[old_kind]:
                del groups[old_kind]
            reasons[:] = [r for r in reasons if not r.startswith(f"{old_kind}({item})")]
            kind = kind if kind == old_kind else "copy"
        else:
            mapped.append(base)
        groups.setdefault(kind, []).append(base)
        reasons.append(f"{kind}({base}): {why}")
        chosen[base] = (kind, base)
