"""Classify the scalars of a loop: private, lastprivate, reduction, shared, carried."""

from __future__ import annotations

from collections import defaultdict

from accls.analysis.branch_cover import always_written
from accls.analysis.inductions import find_induction
from accls.analysis.integer_kinds import declaration_in, signedness
from accls.analysis.model import (
    Induction,
    Obstacle,
    ObstacleCode,
    ScalarClass,
    ScalarFact,
)
from accls.analysis.scalar_pairs import paired_best
from accls.analysis.update_order import order_free
from accls.frontend import Function, Loop, RedOp, Ref, Var
from accls.frontend.scopes import local_members, outer_refs, whole_variable_view

__all__ = ["classify_scalars", "is_scalar_ref"]


def is_scalar_ref(ref: Ref) -> bool:
    """True for a reference to a whole variable (no subscript, no dereference)."""
    return not ref.subscripts and not ref.deref


def _in_header_update(loop: Loop, ref: Ref) -> bool:
    return loop.header.start_byte <= ref.span.start_byte < loop.header.end_byte


def _exposed(refs: list[Ref], two_way: frozenset[tuple[int, int]]) -> list[Ref]:
    """Reads that no earlier write of the same iteration always reaches."""
    exposed: list[Ref] = []
    seen: list[Ref] = []
    for ref in refs:  # evaluation order
        if ref.is_read and not always_written(ref, seen, two_way):
            exposed.append(ref)
        if ref.is_write:
            seen.append(ref)
    return exposed


def _reduction_op(refs: list[Ref]) -> ScalarFact | None:
    ops = {ref.reduction for ref in refs}
    if len(ops) != 1 or None in ops:
        return None
    op = next(iter(ops))
    if op is None or not any(ref.is_write for ref in refs):
        return None
    first = refs[0]
    return ScalarFact(
        name=first.name,
        cls=ScalarClass.REDUCTION,
        op=op,
        line=first.span.line,
        why=(
            f"`{first.name}` only keeps a running {op.value}imum"
            if op in (RedOp.MIN, RedOp.MAX)
            else f"`{first.name}` is only updated as "
            + _update_form(first.name, op.value, first.fortran)
        ),
    )


_FORTRAN_OPERATORS = {"&&": ".and.", "||": ".or."}
_FORTRAN_INTRINSICS = {"&": "iand", "|": "ior", "^": "ieor"}


def _update_form(name: str, op: str, fortran: bool) -> str:
    """`s = s + ...`, or in Fortran `s = s .and. ...`, `s = iand(s, ...)`."""
    if fortran and op in _FORTRAN_INTRINSICS:
        return f"`{name} = {_FORTRAN_INTRINSICS[op]}({name}, ...)`"
    shown = _FORTRAN_OPERATORS.get(op, op) if fortran else op
    return f"`{name} = {name} {shown} ...`"


def _decl(name: str, fn: Function | None, globals_: tuple[Var, ...]) -> Var | None:
    found = fn.lookup(name) if fn is not None else None
    if found is not None:
        return found
    return next((g for g in globals_ if g.name == name), None)


def _kind(name: str, fn: Function | None, globals_: tuple[Var, ...]) -> str:
    decl = declaration_in(name, fn, globals_)
    return signedness(decl) if decl is not None else ""


def classify_scalars(
    loop: Loop, fn: Function | None, globals_: tuple[Var, ...], dialect: str = ""
) -> tuple[tuple[ScalarFact, ...], tuple[Obstacle, ...], tuple[Induction, ...]]:
    """Scalar facts for running `loop` in parallel, what forbids it, and inductions.

    A reduction needs every occurrence of its scalar to be inside its own
    reduction update with the update's value unused (the front end tags only
    those); anything else that reads the running value carries it.
    """
    by_name: dict[str, list[Ref]] = defaultdict(list)
    wholes = {r.name for r in loop.refs if is_scalar_ref(r) and not r.member}
    # A `static` local's initializer runs once, not in every iteration.
    inits = {v.span.start_byte for v in loop.locals if v.static and v.span}
    for ref in loop.refs:
        if is_scalar_ref(ref) and ref.span.start_byte not in inits:
            by_name[ref.name].append(ref)
            # `p = pts[i]; ... p.x`: a member of a struct the loop uses whole
            # is an access of that variable too.
            whole = whole_variable_view(ref)
            if whole is not None and whole.name in wholes:
                by_name[whole.name].append(whole)
    # A name the body declares is its local only within the declaration's scope;
    # its other references are to the outer variable, classified as such. A
    # `static` local is one object for every iteration and thread: not inside.
    inside = set()
    statics = {v.name for v in loop.locals if v.static}
    for name, outer in outer_refs(loop.refs, loop.locals).items():
        if name not in by_name or name in statics:
            continue
        if not outer:
            inside.add(name)
        else:
            by_name[name] = [r for r in outer if is_scalar_ref(r)]
    # `word_t w;` in the body: its members `w.d` are private like `w` itself.
    inside |= local_members(loop.refs, loop.locals) & by_name.keys()
    inner_vars = {inner.var for inner in loop.walk()[1:] if inner.var}
    facts: list[ScalarFact] = []
    obstacles: list[Obstacle] = []
    inductions: list[Induction] = []
    for name, refs in sorted(by_name.items()):
        if name == loop.var:
            # Each thread counts in a private copy: a pointer or a callee that
            # reads the variable through its address sees the original.
            reached = _reached_elsewhere(loop, fn, name)
            if reached is not None:
                obstacles.append(reached)
                continue
            bad = [r for r in refs if r.is_write and not _in_header_update(loop, r)]
            if bad:
                obstacles.append(
                    Obstacle(
                        code=ObstacleCode.INDUCTION,
                        line=bad[0].span.line,
                        variable=name,
                        message=f"the loop variable `{name}` is modified in the body "
                        f"(line {bad[0].span.line})",
                    )
                )
            cls = (
                ScalarClass.LASTPRIVATE
                if name in loop.live_after
                else ScalarClass.INDUCTION
            )
            facts.append(
                ScalarFact(
                    name=name,
                    cls=cls,
                    line=loop.line,
                    why="the loop variable"
                    + (
                        ", used after the loop"
                        if cls is ScalarClass.LASTPRIVATE
                        else ""
                    ),
                    declared_inside=loop.var_declared,
                )
            )
            continue
        writes = [r for r in refs if r.is_write]
        if name == "errno" and writes and _decl(name, fn, globals_) is None:
            obstacles.append(_errno(writes[0]))
            continue
        guarded = dialect and all(r.atomic == dialect for r in refs)
        if writes and guarded and order_free(refs, _kind(name, fn, globals_)):
            facts.append(
                ScalarFact(
                    name=name,
                    cls=ScalarClass.SHARED,
                    line=writes[0].span.line,
                    why=f"`{name}` is only touched inside `atomic`/`critical` "
                    "constructs",
                )
            )
            continue
        if not writes:
            decl = _decl(name, fn, globals_)
            if decl is not None and decl.is_array:
                continue  # an array or pointer used whole (passed, compared)
            facts.append(
                ScalarFact(
                    name=name,
                    cls=ScalarClass.SHARED,
                    line=refs[0].span.line,
                    why=f"`{name}` is only read",
                )
            )
            continue
        if name in inside:
            facts.append(
                ScalarFact(
                    name=name,
                    cls=ScalarClass.PRIVATE,
                    line=writes[0].span.line,
                    why=f"`{name}` is declared inside the loop",
                    declared_inside=True,
                )
            )
            continue
        whole = whole_variable_view(refs[0])
        if whole is not None and whole.name in wholes and "->" not in name:
            continue  # a part of a struct the loop uses whole: classified with it
        if refs[0].member:
            obstacles.append(
                Obstacle(
                    code=ObstacleCode.MEMBER_WRITE,
                    line=writes[0].span.line,
                    variable=name,
                    message=f"`{name}` is a structure member written in every "
                    f"iteration (line {writes[0].span.line}); it cannot be privatized",
                )
            )
            continue
        reached = _reached_elsewhere(loop, fn, name)
        if reached is not None:
            obstacles.append(reached)
            continue
        reduction = _reduction_op(refs)
        if reduction is not None and name not in inner_vars:
            facts.append(reduction)
            continue
        pure_writes = [r for r in refs if r.kind.value == "write"]
        exposed = _exposed(refs, loop.two_way)
        if exposed:
            found = find_induction(loop, refs, _decl(name, fn, globals_), fn)
            if isinstance(found, Obstacle):
                obstacles.append(found)
                continue
            if found is not None:
                inductions.append(found)
                obstacles.append(_induction_obstacle(loop, found))
                continue
            read = exposed[0]
            obstacles.append(
                Obstacle(
                    code=ObstacleCode.SCALAR_CARRIED,
                    line=read.span.line,
                    variable=name,
                    message=f"`{name}` is read at line {read.span.line} before it is "
                    f"written in the same iteration (written at line "
                    f"{writes[0].span.line}): its value flows between iterations",
                )
            )
            continue
        if name in loop.live_after:
            body_ctx = (*refs[0].context[: _loop_depth(loop, refs[0])], loop.id)
            always = [r for r in pure_writes if r.context == body_ctx]
            if not always:
                obstacles.append(
                    Obstacle(
                        code=ObstacleCode.CONDITIONAL_LAST,
                        line=writes[0].span.line,
                        variable=name,
                        message=f"`{name}` is written only under a condition "
                        f"(line {writes[0].span.line}) and used after the loop: "
                        "its final value depends on which iteration wrote it last",
                    )
                )
                continue
            facts.append(
                ScalarFact(
                    name=name,
                    cls=ScalarClass.LASTPRIVATE,
                    line=writes[0].span.line,
                    why=f"`{name}` is written in every iteration and used after the "
                    "loop",
                )
            )
            continue
        later = next(
            (r for r in refs if not r.is_write and r.span.line != writes[0].span.line),
            None,
        )
        facts.append(
            ScalarFact(
                name=name,
                cls=ScalarClass.PRIVATE,
                line=writes[0].span.line,
                why=f"`{name}` is written before it is read in each iteration"
                + (f" (read at line {later.span.line})" if later else "")
                + (" (an inner loop variable)" if name in inner_vars else ""),
            )
        )
    if loop.refs:
        first = loop.refs[0]
        body = (*first.context[: _loop_depth(loop, first)], loop.id)
        obstacles = paired_best(obstacles, by_name, body)
    return tuple(facts), tuple(obstacles), tuple(inductions)


def _reached_elsewhere(loop: Loop, fn: Function | None, name: str) -> Obstacle | None:
    """Why a private copy of `name` would not be seen, or None.

    When the address of `name` is taken outside the loop (`gp = &t`), a call
    in the body or a read through a pointer may reach the original, not the
    iteration's private copy.
    """
    if fn is None:
        return None
    inside = {r.span for r in loop.refs}
    taken = next(
        (r for r in fn.refs if r.name == name and r.escapes and r.span not in inside),
        None,
    )
    if taken is None:
        return None
    calls = [c for inner in loop.walk() for c in inner.calls]
    through = any(r.deref for r in loop.refs)
    if not calls and not through:
        return None
    what = f"`{calls[0].name}()`" if calls else "a read through a pointer"
    return Obstacle(
        code=ObstacleCode.ALIAS,
        line=taken.span.line,
        variable=name,
        message=f"the address of `{name}` is taken at line {taken.span.line}: "
        f"{what} in the loop may reach it, and would not see a private copy",
    )


def _errno(write: Ref) -> Obstacle:
    """`errno` (the C library's, not declared by the program) is thread-local.

    Every thread has its own (C11) and a clause cannot name it (it is a macro);
    after the loop, the program (or a caller) would read the first thread's, not
    the last iteration's.
    """
    return Obstacle(
        code=ObstacleCode.CONDITIONAL_LAST,
        line=write.span.line,
        variable="errno",
        message=f"writes `errno` (line {write.span.line}): each thread has its own, "
        "so after the loop it would hold the first thread's value, not the last "
        "iteration's",
    )


def _induction_obstacle(loop: Loop, found: Induction) -> Obstacle:
    return Obstacle(
        code=ObstacleCode.INDUCTION_VARIABLE,
        line=found.line,
        variable=found.name,
        message=f"`{found.name}` advances by {found.step} in every iteration "
        f"(line {found.line}): an induction variable; rewriting its uses in "
        f"closed form (`{found.name}` + {found.step} per iteration of "
        f"`{loop.var}`) makes the loop parallel",
    )


def _loop_depth(loop: Loop, ref: Ref) -> int:
    """How many context entries come before `loop` in `ref`'s context."""
    try:
        return ref.context.index(loop.id)
    except ValueError:
        return len(ref.context)
