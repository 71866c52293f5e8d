"""Whether two array names of a loop may refer to overlapping memory."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from accls.analysis.access_paths import Target, member_var, target_of
from accls.analysis.alias_pairs import (
    is_array_object,
    pair_may_alias,
    pointer_apart_from,
    shared_union,
)
from accls.analysis.based_sources import based_source
from accls.analysis.buffer_offsets import buffer_apart
from accls.analysis.call_site_apart import calls_pending, proved_apart
from accls.analysis.call_site_same import same_or_apart
from accls.analysis.field_alias import fields_apart, told_overlap
from accls.analysis.field_sets import FieldSets
from accls.analysis.global_sources import GlobalLink, shared_source
from accls.analysis.member_rows import member_rows_apart
from accls.analysis.model import Obstacle, ObstacleCode
from accls.analysis.pointer_casts import cast_assigned
from accls.analysis.remote_calls import ProgramCalls
from accls.analysis.scalars import is_scalar_ref
from accls.analysis.sealed_blocks import sealed_apart
from accls.analysis.shared_members import shared_member
from accls.frontend import (
    Function,
    Loop,
    Ref,
    SourceFile,
    Span,
    Var,
)

__all__ = ["AliasCheck", "alias_obstacles", "array_decl", "string_literal"]

_WORD = re.compile(r"[A-Za-z_]\w*")
_LITERAL = re.compile(r'(?:u8|[LuU])?"')


def string_literal(name: str) -> bool:
    """`name` is a string literal subscripted (`"ACGT"[k]`), not a variable.

    Writing one is undefined, so no defined program overlaps it with memory a
    loop writes; an offloaded loop finds it in the device code, never mapped.
    """
    return bool(_LITERAL.match(name))


def array_decl(name: str, fn: Function | None, globals_: tuple[Var, ...]) -> Var | None:
    """The declaration of an array name, looking at the function then globals."""
    base = name.split("->")[0].split(".")[0].split("[")[0].strip()
    found = fn.lookup(base) if fn is not None else None
    if found is None:
        found = next((g for g in globals_ if g.name == base), None)
    return found


def _varies(texts: tuple[str, ...], moving: set[str]) -> bool:
    return any(set(_WORD.findall(t)) & moving for t in texts)


def _row_obstacle(
    name: str, refs: list[Ref], targets: dict[Span, Target], loop: Loop
) -> Obstacle | None:
    """Refs of one table whose rows may be different pointers into one buffer."""
    loaded = [r for r in refs if targets[r.span].kind == "loaded"]
    picks = {
        tuple(s.text for s in r.subscripts[: targets[r.span].selectors])
        for r in loaded
        if targets[r.span].selectors
    }
    if not picks:
        return None
    root = targets[loaded[0].span].root
    if root is not None and (root.fresh_rows or root.restrict_rows):
        return None  # every row is an allocation of its own, or promised apart
    moving = {x.var for x in loop.walk() if x.var}
    moving |= {r.name for r in loop.refs if r.is_write and is_scalar_ref(r)}
    if len(picks) == 1 and not _varies(next(iter(picks)), moving):
        return None  # one pointer, the same in every iteration
    shown = sorted(f"`{name}[{']['.join(p)}]`" for p in picks)[:2]
    what = " and ".join(shown) if len(shown) > 1 else f"{shown[0]} across iterations"
    write = next((r for r in refs if r.is_write), refs[0])
    element = root.type if root is not None else "double"
    return Obstacle(
        code=ObstacleCode.ALIAS,
        line=write.span.line,
        variable=name,
        message=f"{what} are pointers read from `{name}`, and nothing shows they "
        "point to disjoint memory: two rows of one buffer may overlap; allocate each "
        f"row on its own (`malloc`), declare the rows `restrict` (`{element} "
        f"*restrict *{name}`) or set assume-no-alias if they never overlap",
        assumption=True,
    )


@dataclass(frozen=True, slots=True)
class AliasCheck:
    """Pairs that may overlap, and the call-site facts that ruled others out."""

    obstacles: tuple[Obstacle, ...]
    proofs: tuple[str, ...] = ()
    # The (written, other) names of each pair obstacle; a table's rows are not.
    pairs: tuple[tuple[str, str], ...] = ()
    rows: bool = False  # some obstacle is about the rows of a pointer table


def _distinct(found: Iterable[Target]) -> list[Target]:
    """The targets once each: a long loop body reaches the same few objects."""
    seen: dict[tuple[int, str, str, int, str, bool], Target] = {}
    for t in found:
        key = (id(t.root), t.kind, t.path, t.selectors, t.element, t.union)
        seen.setdefault(key, t)
    return list(seen.values())


def _union_obstacle(written: str, other: str, line: int) -> Obstacle:
    """Two members of one union: one storage, so no promise can set them apart."""
    return Obstacle(
        code=ObstacleCode.ALIAS,
        line=line,
        variable=written,
        message=f"`{written}` (written at line {line}) and `{other}` are members "
        "of one object through a union: they may share storage, so a write to "
        "one may change the other",
    )


def _based_obstacle(written: str, other: str, based: str, line: int) -> Obstacle:
    """Two pointers set from one object: no promise about arguments sets them apart."""
    return Obstacle(
        code=ObstacleCode.ALIAS,
        line=line,
        variable=written,
        message=f"`{written}` (written at line {line}) and `{other}` may overlap: "
        f"both are set from `{based}`, so they point into one object (assume-no-alias "
        "and `restrict` promise nothing about pointers based on one another)",
    )


def _broken_restrict(
    a: Target,
    b: Target,
    fn: Function | None,
    source: SourceFile,
    links: tuple[GlobalLink, ...],
) -> bool:
    """A `restrict` pointer the program sets from the other (`gq = g + 1`).

    Its promise (no other pointer reaches its object) is broken by the
    program itself: the serial run may work, a parallel loop races.
    """
    if a.root is None or b.root is None or not (a.root.restrict or b.root.restrict):
        return False
    if a.kind not in ("pointee", "object") or b.kind not in ("pointee", "object"):
        return False
    return bool(shared_source(a.root, b.root, fn, source, links))


def alias_obstacles(
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
    unseen: str = "",
    fields: FieldSets | None = None,
    links: tuple[GlobalLink, ...] = (),
    calls: ProgramCalls | None = None,
) -> AliasCheck:
    """Pairs of arrays where one is written and the two may overlap.

    `unseen` says why some declarations may be missing (a header not found);
    `fields`, the whole program's field points-to, `links`, what its files set
    global pointers from, and `calls`, their calls, when an index gave them.
    """
    proofs: list[str] = []
    arrays: dict[str, bool] = {}
    first_line: dict[str, int] = {}
    by_name: dict[str, list[Ref]] = {}
    targets: dict[Span, Target] = {}
    pointer_fields: set[str] = set()  # `p->next`: fields that hold a pointer
    for ref in loop.refs:
        if is_scalar_ref(ref) and not shared_member(ref, fn, source, loop):
            continue
        if string_literal(ref.name):
            continue
        arrays[ref.name] = arrays.get(ref.name, False) or ref.is_write
        first_line.setdefault(ref.name, ref.span.line)
        by_name.setdefault(ref.name, []).append(ref)
        targets[ref.span] = target_of(ref, fn, source.globals, source.types)
        if is_scalar_ref(ref):  # the field itself, not what it points to
            field = member_var(ref.name, fn, source.globals, source.types)
            if field is not None and field.shape == "*" * field.pointers != "":
                pointer_fields.add(ref.name)
    out: list[Obstacle] = []
    blocked: list[tuple[str, str]] = []
    names = sorted(arrays)
    for name in names:
        if arrays[name]:
            row = _row_obstacle(name, by_name[name], targets, loop)
            if row is not None:
                out.append(row)
    for written in names:
        if not arrays[written]:
            continue
        wdecl = array_decl(written, fn, source.globals)
        wtargets = _distinct(targets[r.span] for r in by_name[written])
        for other in names:
            if other == written or (arrays[other] and other < written):
                continue
            odecl = array_decl(other, fn, source.globals)
            split = ""
            otargets = _distinct(targets[r.span] for r in by_name[other])
            if wdecl is None or odecl is None:
                # A declaration we cannot see (a header, a struct member) may be a
                # pointer into the other array; only two visible arrays are safe.
                may = not (is_array_object(wdecl) or is_array_object(odecl))
            else:
                pairs = []
                for a in wtargets:
                    for b in otargets:
                        typed = not (
                            cast_assigned(a.root, fn, source)
                            or cast_assigned(b.root, fn, source)
                        )
                        if not pair_may_alias(
                            a, b, fn, source.types, typed
                        ) and not _broken_restrict(a, b, fn, source, links):
                            continue
                        if typed and (
                            (
                                other in pointer_fields
                                and pointer_apart_from(a.element, source.types)
                            )
                            or (
                                written in pointer_fields
                                and pointer_apart_from(b.element, source.types)
                            )
                        ):
                            continue
                        apart = None
                        if fields is not None:
                            apart = fields_apart(a, b, fn, source, fields)
                        if apart is None:
                            pairs.append((a, b))
                        else:
                            proofs.append(apart)
                may = bool(pairs)
                proof = proved_apart(pairs, fn, source, loop, calls, fields)
                if may and proof is None:
                    proof = same_or_apart(written, other, pairs, fn, source, loop)
                if may and proof is None:
                    proof = sealed_apart(pairs, fn, source)
                if may and proof is None:
                    proof = member_rows_apart(pairs, fn, source)
                # Pointers into one buffer: apart when their ranges are.
                carved = buffer_apart(written, other, loop, fn, source) if may else None
                if carved is not None and carved[0]:
                    proof = carved[1]
                elif carved is not None:
                    split = carved[1]
                if proof is not None:
                    proofs.append(proof)
                    may = False
            if not may:
                continue
            blocked.append((written, other))
            if any(shared_union(a, b) for a in wtargets for b in otargets):
                out.append(_union_obstacle(written, other, first_line[written]))
                continue
            based = based_source(wtargets, otargets, fn, source, links, loop)
            if based and not split:
                out.append(_based_obstacle(written, other, based, first_line[written]))
                continue
            hidden = [n for n, d in ((written, wdecl), (other, odecl)) if d is None]
            loaded = [
                n
                for n, ts in ((written, wtargets), (other, otargets))
                if any(t.kind == "loaded" for t in ts)
            ]
            if hidden:
                why = (
                    f"the declaration of `{hidden[0]}` is not visible here{unseen}, "
                    "so it may point into the other"
                )
            elif (
                loaded
                and fields is not None
                and (told := told_overlap(wtargets, otargets, fn, source, fields))
            ):
                why = told
            elif loaded:
                why = (
                    f"`{loaded[0]}` reaches memory through a pointer read from "
                    "memory, which may point anywhere"
                )
            elif split:
                why = split
            elif cast := [
                n
                for n, d in ((written, wdecl), (other, odecl))
                if cast_assigned(d, fn, source)
            ]:
                why = (
                    f"`{cast[0]}` is set from a pointer cast, so its element type "
                    "does not keep it apart from the other"
                )
            else:
                why = "they are pointers that may point to overlapping memory"
                why += calls_pending(fn, calls)
            # Fortran has no `restrict`: a dummy that is neither `pointer` nor
            # `target` may not overlap another (the standard's rule).
            fix = (
                "pass them as dummy arrays without `pointer`/`target`"
                if source.language == "fortran"
                else "declare them `restrict`"
            )
            out.append(
                Obstacle(
                    code=ObstacleCode.ALIAS,
                    line=first_line[written],
                    variable=written,
                    message=f"`{written}` (written at line {first_line[written]}) and "
                    f"`{other}` may overlap: {why}; "
                    + (
                        f"both are set from `{based}`, so no promise sets them apart"
                        if based
                        else f"{fix} or set assume-no-alias if they never do"
                    ),
                    assumption=not based,
                )
            )
    return AliasCheck(
        tuple(out),
        tuple(dict.fromkeys(proofs)),
        pairs=tuple(blocked),
        rows=len(out) > len(blocked),
    )
