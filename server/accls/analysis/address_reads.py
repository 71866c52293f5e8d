"""`bp = &blocks[k]` reads `blocks` when nothing is ever written through `bp`.

The front end records `&a[i]` as an update of `a`: the element's address
escapes, and whoever holds it may write the element. When the address goes
into a plain local pointer that, inside the loop, is only read through (its
fields read, pointers loaded from it followed elsewhere), never passed to a
call, copied or stored anywhere, nothing can write `a[i]` through it during the
loop: taking the address is then a read of `a` for the loop's dependences and
aliasing. `bp->array[v][i] = x` writes the memory the pointer field `array`
points to, not the struct `blocks[k]`, so it keeps `blocks` read only; a write
to `bp->level` or `bp->nei[l][0]` (storage inside the struct) does not.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.access_paths import member_levels
from accls.analysis.address_arguments import read_only_argument
from accls.analysis.model import Obstacle, ObstacleCode
from accls.analysis.passed_pointers import passed_read_only
from accls.frontend import AccessKind, Function, Loop, Ref, SourceFile, TypeTable, Var

__all__ = ["read_only_addresses", "shared_elements"]

_BASE = re.compile(r"^\s*([A-Za-z_]\w*)")


def _base(name: str) -> str:
    found = _BASE.match(name)
    return found.group(1) if found else ""


def _writes_pointee(ref: Ref, pointer: str, fn: Function, env: _Env) -> bool:
    """True when `ref` may write the storage `pointer` points to."""
    if not ref.is_write:
        return False
    if ref.name == pointer and not ref.deref and not ref.subscripts:
        return False  # `bp = ...`: the pointer itself, a per-iteration local
    rest = ref.name[len(pointer) :].lstrip()
    if rest.startswith(("->", ".")) and ref.subscripts:
        levels = member_levels(ref.name, fn, env.globals_, env.types)
        # A pointer field followed by a subscript: memory elsewhere.
        return levels is None or not levels.startswith("*")
    return True


class _Env:
    """The declarations a loop's paths are read against, and the file's callees."""

    __slots__ = ("globals_", "pure", "source", "types")

    def __init__(
        self,
        globals_: tuple[Var, ...],
        types: TypeTable,
        source: SourceFile | None = None,
        pure: frozenset[str] = frozenset(),
    ) -> None:
        self.globals_ = globals_
        self.types = types
        self.source = source
        self.pure = pure


def _read_only(pointer: str, loop: Loop, fn: Function, env: _Env) -> bool:
    """True when nothing inside `loop` may write through the local `pointer`."""
    inside = [v for v in loop.locals if v.name == pointer]
    var = inside[0] if len(inside) == 1 else None
    if not inside and fn.declarations(pointer) == 1:
        var = fn.lookup(pointer)
    if (
        var is None
        or var.scope != "local"
        or var.static
        or var.pointers < 1
        or var.dims
        or var.address_taken
    ):
        return False
    if any(pointer in other.sources for other in fn.locals if other is not var):
        return False
    word = re.compile(rf"\b{re.escape(pointer)}\b")
    passed = var.leaves or any(
        word.search(arg) for call in loop.calls for arg in call.args
    )
    # Declared in the loop body: every use of its value is in the loop's refs.
    if passed and not (
        env.source is not None
        and len(inside) == 1
        and passed_read_only(pointer, loop, env.source, env.pure)
    ):
        return False
    return not any(
        _writes_pointee(ref, pointer, fn, env)
        for ref in loop.refs
        if _base(ref.name) == pointer
    )


def _loop_reads(loop: Loop, fn: Function | None, env: _Env) -> Loop:
    children = tuple(_loop_reads(child, fn, env) for child in loop.children)
    refs = loop.refs
    if fn is not None:
        verdicts: dict[str, bool] = {}
        changed: list[Ref] = []
        for ref in refs:
            if ref.into and ref.kind is AccessKind.UPDATE and ref.subscripts:
                if ref.into not in verdicts:
                    verdicts[ref.into] = _read_only(ref.into, loop, fn, env)
                if verdicts[ref.into]:
                    ref = replace(ref, kind=AccessKind.READ)
            elif env.source is not None and read_only_argument(
                ref, loop, env.source, env.pure
            ):
                ref = replace(ref, kind=AccessKind.READ)  # `f(&a[e])`, f reads
            changed.append(ref)
        refs = tuple(changed)
    if refs == loop.refs and children == loop.children:
        return loop
    return replace(loop, refs=refs, children=children)


def read_only_addresses(
    nest: Loop,
    fn: Function | None,
    globals_: tuple[Var, ...],
    types: TypeTable,
    source: SourceFile | None = None,
    pure: frozenset[str] = frozenset(),
) -> Loop:
    """The nest with each `&a[i]` only read through made a read of `a`.

    With `source`, a pointer may also be handed to callees of the file that
    only read through it (`passed_read_only`; `pure`: the pure library names),
    and so may the address itself (`f(&a[e])`, `read_only_argument`).
    """
    return _loop_reads(nest, fn, _Env(globals_, types, source, pure))


def shared_elements(loop: Loop) -> tuple[Obstacle, ...]:
    """Why `bp = &blocks[sorted[k]]` written through may give two iterations one block.

    Run after `read_only_addresses`: an address still taken as an update is
    written through, handed to a call or copied. With an index read from
    memory, nothing shows that the iterations pick distinct elements.
    """
    out: list[Obstacle] = []
    seen: set[str] = set()
    for ref in loop.refs:
        if not (ref.into and ref.kind is AccessKind.UPDATE and ref.subscripts):
            continue
        index = ", ".join(s.text for s in ref.subscripts)
        affine = all(s.poly is not None and not s.indirect for s in ref.subscripts)
        if not re.search(r"\[|->|\.|\(", index) or affine or ref.into in seen:
            continue  # an index of the loop's own variables: the test decides
        seen.add(ref.into)
        out.append(
            Obstacle(
                code=ObstacleCode.DEPENDENCE,
                line=ref.span.line,
                variable=ref.name,
                message=f"`{ref.into}` is `&{ref.render()}` (line {ref.span.line}) "
                "and the loop writes through it or hands it on: the iterations "
                f"reach different elements of `{ref.name}` only if `{index}` "
                "differs in each (a permutation); nothing in the program proves "
                "that",
            )
        )
    return tuple(out)
