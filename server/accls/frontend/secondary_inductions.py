"""Secondary inductions: `for (ii = 0, iOff = start; ii < n; ii++, iOff++)`.

A variable advanced by a constant exactly once in every iteration, beside the
loop variable (in the header's increment, or as a whole statement of the body
that runs on every path), is an affine function of the loop variable: in
iteration `k` it holds `start + step*k`. Its uses in subscripts are rewritten
so, as a compiler does before its dependence test: `p[iOff]` becomes
`p[start + ii]`, and the loops around see which rows each iteration touches.
The variable's own references stay as they are, so its classification (a
scalar each iteration advances) does not change.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tree_sitter import Node

from accls.frontend.exprs import identifiers, node_text, operands, strip_parens, to_poly
from accls.frontend.model import Ref, Subscript, Var
from accls.frontend.poly import Poly

__all__ = [
    "Secondary",
    "SecondaryLoop",
    "comma_parts",
    "header_inits",
    "header_steps",
    "step_of",
    "substitute",
]

_ATOM = re.compile(r"-?\w+")


def comma_parts(node: Node | None) -> list[Node]:
    """Split a comma expression into its parts."""
    if node is None:
        return []
    node = strip_parens(node)
    if node.type == "comma_expression":
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        return [*comma_parts(left), *comma_parts(right)]
    return [node]


def header_inits(init: Node | None) -> dict[str, tuple[Node, bool]]:
    """Each variable a `for` initializer sets: its value, and whether declared there."""
    inits: dict[str, tuple[Node, bool]] = {}
    if init is not None and init.type == "declaration":
        for decl in init.children_by_field_name("declarator"):
            name = decl.child_by_field_name("declarator")
            value = decl.child_by_field_name("value")
            if (
                decl.type == "init_declarator"
                and name is not None
                and value is not None
            ):
                inits[node_text(name)] = (value, True)
        return inits
    for part in comma_parts(init):
        parts = operands(part) if part.type == "assignment_expression" else None
        if parts is None:
            continue
        left, op, right = parts
        if op == "=" and strip_parens(left).type == "identifier":
            inits[node_text(strip_parens(left))] = (right, False)
    return inits


def _flat(node: Node) -> str:
    return " ".join(node_text(node).split())


def step_of(part: Node) -> tuple[str, int | None, str] | None:
    """(variable, step, step text) for `i++`, `i += 2`, `i = i - 1`, ..."""
    if part.type == "update_expression":
        arg = part.child_by_field_name("argument")
        op = part.child_by_field_name("operator")
        if arg is None or op is None or strip_parens(arg).type != "identifier":
            return None
        step = 1 if node_text(op) == "++" else -1
        return node_text(strip_parens(arg)), step, str(step)
    parts = operands(part) if part.type == "assignment_expression" else None
    if parts is None:
        return None
    left, oper, right = parts
    left = strip_parens(left)
    if left.type != "identifier":
        return None
    name = node_text(left)
    value = to_poly(right)
    if oper in ("+=", "-="):
        sign = 1 if oper == "+=" else -1
        if value is not None and value.is_constant:
            return name, sign * value.constant, str(sign * value.constant)
        return name, None, (_flat(right) if sign > 0 else f"-({_flat(right)})")
    if oper == "=" and value is not None:
        delta = value - Poly.sym(name)
        if delta.is_constant:
            return name, delta.constant, str(delta.constant)
        if name not in delta.names():
            return name, None, delta.render()
    return name, None, ""


def header_steps(node: Node) -> list[tuple[str, int | None, str]]:
    """The steps of a `for` header's increment, the loop variable's first.

    The loop variable is the one the condition tests: in
    `for (jg = jj, j = 0; jg < n; j++, jg++)` it is `jg`, and `j` advances
    beside it. When the first step's variable is not tested but a later one,
    that the initializer sets to a polynomial, is, the later one leads (the
    other then has a closed form over it).
    """
    steps = [
        s
        for s in (step_of(p) for p in comma_parts(node.child_by_field_name("update")))
        if s is not None
    ]
    cond = node.child_by_field_name("condition")
    if len(steps) < 2 or cond is None:
        return steps
    tested = identifiers(cond)
    if steps[0][0] in tested:
        return steps
    inits = header_inits(node.child_by_field_name("initializer"))
    for k, step in enumerate(steps[1:], start=1):
        start = inits.get(step[0])
        if step[0] not in tested or start is None or not isinstance(step[1], int):
            continue
        if to_poly(start[0]) is not None:
            return [step, *steps[:k], *steps[k + 1 :]]
    return steps


@dataclass(frozen=True, slots=True)
class Secondary:
    """A variable the loop advances by `step` each iteration, from `start`."""

    name: str
    start: Subscript  # its value on entry (the header's initializer)
    step: int
    line: int
    after: int = -1  # a body advance: refs from this index on see the next value
    # The header does not set it: `start` is the variable itself until the value
    # that reaches the loop (`elm = row*n;` before it) is substituted.
    entry: bool = False


@dataclass(frozen=True, slots=True)
class SecondaryLoop:
    """One loop's secondary inductions and what their closed form needs."""

    var: str  # the loop variable
    lower: Poly  # its initial value
    step: int  # its constant step
    ref_start: int
    ref_end: int
    update_start: int  # the first reference of the header's increment
    items: tuple[Secondary, ...]
    # Variables the header declares (their scope is the loop), and the names
    # declared inside the loop (which may shadow them).
    declared: tuple[Var, ...] = ()
    inner: frozenset[str] = frozenset()


def _value(item: Secondary, loop: SecondaryLoop, later: bool) -> tuple[Poly, str]:
    """`start + step*k` over the loop variable, as a poly and as C text."""
    ratio = item.step // loop.step
    k = Poly.sym(loop.var) - loop.lower
    poly = item.start.poly
    assert poly is not None
    value = poly + k * Poly.const(ratio) + Poly.const(item.step if later else 0)
    start = " ".join(item.start.text.split())
    offset = (Poly.sym(loop.var) - loop.lower) * Poly.const(ratio)
    if later:
        offset = offset + Poly.const(item.step)
    shown = start if _ATOM.fullmatch(start) else f"({start})"
    text = f"{shown} + {offset.render()}" if offset.render() != "0" else shown
    return value, text


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\.)(?<!->)\b{re.escape(name)}\b")


def substitute(refs: Sequence[Ref], loops: Sequence[SecondaryLoop]) -> list[Ref]:
    """`refs` with each secondary induction's uses in subscripts in closed form."""
    out = list(refs)
    for loop in loops:
        for item in loop.items:
            if item.start.poly is None or loop.step == 0 or item.step % loop.step:
                continue
            word = _word(item.name)
            for index in range(loop.ref_start, loop.update_start):
                ref = out[index]
                if not ref.subscripts:
                    continue
                later = 0 <= item.after <= index
                value, text = _value(item, loop, later)
                note = (
                    f"`{item.name}` is {text} here: it advances by {item.step} with "
                    f"`{loop.var}` (line {item.line})"
                )
                subs = tuple(
                    _rewritten(s, item.name, word, value, text, note)
                    for s in ref.subscripts
                )
                if subs != ref.subscripts:
                    out[index] = replace(ref, subscripts=subs)
    return out


def _rewritten(
    sub: Subscript, name: str, word: re.Pattern[str], value: Poly, text: str, note: str
) -> Subscript:
    if sub.poly is None or sub.indirect or name not in sub.poly.names():
        return sub
    if not word.search(sub.text):
        return sub  # it comes from a macro's body: the text could not show it
    shown = text if sub.text.strip() == name else f"({text})"
    return Subscript(
        text=word.sub(shown, sub.text),
        poly=sub.poly.substitute({name: value}),
        indirect=False,
        values=(*sub.values, note),
    )
