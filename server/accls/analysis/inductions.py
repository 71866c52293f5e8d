"""Induction variables: scalars that advance by a constant in every iteration.

`re[i] = tmp[t++]; im[i] = tmp[t++];` reads the running value of `t`, so `t` is
neither private nor a reduction: each iteration needs the value the earlier ones
left. When every advance is unconditional and constant, that value has a closed
form, `t0 + 2*k (+ 1)` in iteration k, and the loop becomes parallel once its
uses are rewritten so (an expert's standard transformation).
"""

from __future__ import annotations

from accls.analysis.model import Induction, InductionUse, Obstacle, ObstacleCode
from accls.frontend import Function, Loop, Ref, Var

__all__ = ["find_induction", "header_advances"]

# Types whose arithmetic the closed form reproduces: as wide as int or wider, so
# `t + 2*i` wraps (unsigned) or overflows (signed: undefined) as `t += 2` does.
_WIDE_INTEGERS = frozenset(
    {
        "int",
        "signed",
        "signed int",
        "unsigned",
        "unsigned int",
        "long",
        "long int",
        "signed long",
        "unsigned long",
        "unsigned long int",
        "long long",
        "long long int",
        "unsigned long long",
        "unsigned long long int",
        "size_t",
        "ssize_t",
        "ptrdiff_t",
        "intptr_t",
        "uintptr_t",
        "int32_t",
        "uint32_t",
        "int64_t",
        "uint64_t",
    }
)


def _unconditional(loop: Loop, ref: Ref) -> bool:
    """True when `ref` runs exactly once in every iteration of `loop`."""
    if loop.id not in ref.context or ref.guarded:
        return False
    return ref.context[-1] == loop.id and ref.loops[-1:] == (loop.id,)


def _header_advance(loop: Loop, ref: Ref) -> Obstacle:
    """The reason a variable advanced beside the loop variable blocks a pragma."""
    line = loop.line
    return Obstacle(
        code=ObstacleCode.SHAPE,
        line=line,
        variable=ref.name,
        message=f"`{ref.name}` advances with `{loop.var}` in the loop header "
        f"(line {line}): OpenMP and OpenACC accept only the loop variable's "
        f"increment there; compute `{ref.name}` from `{loop.var}` in the body "
        "to put a pragma on this loop",
    )


def _in_update(loop: Loop, ref: Ref) -> bool:
    inside = loop.header.start_byte <= ref.span.start_byte < loop.header.end_byte
    return inside and ref.is_write and ref.loops[-1:] == (loop.id,)


def header_advances(loop: Loop) -> tuple[Obstacle, ...]:
    """Variables other than the loop variable that the header's increment writes."""
    out: dict[str, Obstacle] = {}
    for ref in loop.refs:
        scalar = not ref.subscripts and not ref.deref
        if scalar and ref.name != loop.var and _in_update(loop, ref):
            out.setdefault(ref.name, _header_advance(loop, ref))
    return tuple(out.values())


def find_induction(
    loop: Loop, refs: list[Ref], decl: Var | None, fn: Function | None
) -> Induction | Obstacle | None:
    """The induction `refs` (one scalar's, in evaluation order) form, if any.

    Returns an Obstacle when the scalar steps by constants but not in every
    iteration (under a condition, after a `continue`, in an inner loop): such a
    counter has no closed form, and the reason says so.
    """
    steps = [r for r in refs if r.advance is not None]
    if not steps or not refs or loop.var is None or loop.step is None:
        return None
    name = refs[0].name
    if decl is None or decl.is_array or decl.scope == "global":
        return None  # a global may be read by callees: its running value matters
    if decl.type not in _WIDE_INTEGERS:
        return None
    header = loop.header
    if name != loop.var:
        advanced = next((r for r in refs if _in_update(loop, r)), None)
        if advanced is not None:
            return _header_advance(loop, advanced)
    if any(header.start_byte <= r.span.start_byte < header.end_byte for r in refs):
        return None
    if any(r.escapes for r in (*refs, *(fn.refs if fn is not None else ()))):
        return None  # its address is taken: a pointer may change it
    if any(r.is_write and r.advance is None for r in refs):
        return None  # assigned or updated by a non-constant: not an induction
    conditional = next((r for r in steps if not _unconditional(loop, r)), None)
    if conditional is not None:
        line = conditional.span.line
        where = (
            "inside an inner loop"
            if conditional.loops[-1:] != (loop.id,)
            else "only in some iterations"
        )
        return Obstacle(
            code=ObstacleCode.CONDITIONAL_INDUCTION,
            line=line,
            variable=name,
            message=f"`{name}` advances {where} (line {line}): it is not an "
            "induction variable, so each iteration needs the value the earlier "
            "ones left",
        )
    uses: list[InductionUse] = []
    offset = 0
    for ref in refs:
        step = ref.advance
        if step is None:
            uses.append(InductionUse(span=ref.span, offset=offset, discarded=False))
            continue
        value = offset if step.yields_old else offset + step.amount
        offset += step.amount
        uses.append(
            InductionUse(
                span=step.span,
                offset=value,
                discarded=step.statement is not None or ref.reduction is not None,
                statement=step.statement,
            )
        )
    if offset == 0:
        return None
    return Induction(name=name, step=offset, line=steps[0].span.line, uses=tuple(uses))
