"""Loop bounds that are not one polynomial: min/max, `?:`, `floord`/`ceild`.

Polyhedral code generators emit bounds such as `max(0, t - 4)`,
`(a > b ? a : b)` and `floord(n - 1, 32)`. A lower bound that is a maximum, or
an upper bound that is a minimum, is a conjunction of affine limits, and
`v <= floord(p, d)` is `d*v <= p`: each is exact in integers. Function-like
macros count only when evaluating their definition shows what they compute.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import ceil, floor

from tree_sitter import Node

from accls.frontend.exprs import (
    MAX_DEPTH,
    int_literal,
    node_text,
    strip_parens,
    to_poly,
)
from accls.frontend.loop_model import Limit
from accls.frontend.macros import FunctionMacro, MacroTable
from accls.frontend.poly import Poly
from accls.frontend.tsparser import parse_snippet

__all__ = ["limits"]


@dataclass(frozen=True, slots=True)
class _Term:
    """`floor(poly / div)` (or `ceil`); div 1 is the plain polynomial."""

    poly: Poly
    div: int = 1
    ceil: bool = False


_Pieces = tuple[str, tuple[_Term, ...]]
"""("max" | "min" | "", terms): one term needs no kind."""

_MAX_MACRO_DEPTH = 4


def _combine(kind: str, parts: list[_Pieces | None]) -> _Pieces | None:
    terms: list[_Term] = []
    for part in parts:
        if part is None:
            return None
        sub_kind, sub_terms = part
        if sub_kind and sub_kind != kind:
            return None  # min inside max: not convex
        terms.extend(sub_terms)
    return kind, tuple(terms)


def _same(a: Node, b: Node) -> bool:
    return "".join(node_text(strip_parens(a)).split()) == "".join(
        node_text(strip_parens(b)).split()
    )


def _conditional(node: Node, macros: MacroTable, depth: int) -> _Pieces | None:
    cond = node.child_by_field_name("condition")
    yes = node.child_by_field_name("consequence")
    no = node.child_by_field_name("alternative")
    if cond is None or yes is None or no is None:
        return None
    cond = strip_parens(cond)
    if cond.type != "binary_expression":
        return None
    left, op, right = (
        cond.child_by_field_name("left"),
        cond.child_by_field_name("operator"),
        cond.child_by_field_name("right"),
    )
    if left is None or op is None or right is None:
        return None
    oper = node_text(op)
    if oper not in ("<", "<=", ">", ">="):
        return None
    if _same(left, yes) and _same(right, no):
        kind = "max" if oper[0] == ">" else "min"
    elif _same(left, no) and _same(right, yes):
        kind = "min" if oper[0] == ">" else "max"
    else:
        return None
    return _combine(
        kind, [_pieces(yes, macros, depth + 1), _pieces(no, macros, depth + 1)]
    )


def _call(node: Node, macros: MacroTable, depth: int) -> _Pieces | None:
    func = node.child_by_field_name("function")
    args_node = node.child_by_field_name("arguments")
    if func is None or args_node is None or depth > _MAX_MACRO_DEPTH:
        return None
    macro = macros.functions.get(node_text(func))
    args = [a for a in args_node.named_children if a.type != "comment"]
    if macro is None or len(args) != 2 or len(macro.params) != 2:
        return None
    meaning = _meaning(macro.body, macro.params)
    if meaning in ("max", "min"):
        parts = [_pieces(a, macros, depth + 1) for a in args]
        return _combine(meaning, parts)
    if meaning in ("floord", "ceild"):
        num, den = to_poly(args[0]), to_poly(args[1])
        if num is None or den is None or not den.is_constant or den.constant <= 0:
            return None
        return "", (_Term(num, den.constant, meaning == "ceild"),)
    return None


def _pieces(node: Node, macros: MacroTable, depth: int = 0) -> _Pieces | None:
    """The bound as a max or min of terms, or None."""
    if depth > MAX_DEPTH:
        return None
    node = strip_parens(node)
    poly = to_poly(node)
    if poly is not None:
        return "", (_Term(poly),)
    if node.type == "conditional_expression":
        return _conditional(node, macros, depth)
    if node.type == "call_expression":
        return _call(node, macros, depth)
    return None


def limits(
    node: Node, macros: MacroTable, *, lower: bool, op: str = ""
) -> tuple[Limit, ...] | None:
    """Limits `scale*v >= poly` (lower) or `scale*v <= poly` of `v OP bound`.

    `op` is the comparison for a condition (`<`, `<=`, `>`, `>=`), empty for
    the initial value. None when the bound is not a conjunction of limits.
    """
    found = _pieces(node, macros)
    if found is None:
        return None
    kind, terms = found
    if len(terms) > 1 and kind != ("max" if lower else "min"):
        return None
    strict = op in ("<", ">")
    out: list[Limit] = []
    for term in terms:
        d, p = term.div, term.poly
        if lower:
            # v >= floor(p/d) iff d*v >= p - d + 1; v >= ceil(p/d) iff d*v >= p
            base = p if term.ceil or d == 1 else p - Poly.const(d - 1)
            shift = d if strict else 0  # v > X iff v - 1 >= X
            out.append(Limit(poly=base + Poly.const(shift), scale=d, upper=False))
        else:
            # v <= floor(p/d) iff d*v <= p; v <= ceil(p/d) iff d*v <= p + d - 1
            base = p + Poly.const(d - 1) if term.ceil and d > 1 else p
            shift = d if strict else 0  # v < X iff v + 1 <= X
            out.append(Limit(poly=base - Poly.const(shift), scale=d, upper=True))
    return tuple(out)


# --- what a two-argument macro computes, by evaluating its definition ---------

_Value = tuple[Fraction, bool]  # value, is floating


def _truncate(a: Fraction, b: Fraction) -> Fraction:
    q = abs(a.numerator * b.denominator) // abs(b.numerator * a.denominator)
    return Fraction(q if (a < 0) == (b < 0) else -q)


_BINARY: dict[str, Callable[[Fraction, Fraction], Fraction]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "<": lambda a, b: Fraction(a < b),
    ">": lambda a, b: Fraction(a > b),
    "<=": lambda a, b: Fraction(a <= b),
    ">=": lambda a, b: Fraction(a >= b),
    "==": lambda a, b: Fraction(a == b),
    "!=": lambda a, b: Fraction(a != b),
    "&&": lambda a, b: Fraction(bool(a) and bool(b)),
    "||": lambda a, b: Fraction(bool(a) or bool(b)),
}


def _eval(node: Node, depth: int = 0) -> _Value:
    """The value of an arithmetic C expression on literals; raises if unsupported."""
    if depth > 64:
        raise ValueError("too deep")
    node = strip_parens(node)
    kind = node.type
    if kind == "number_literal":
        text = node_text(node)
        literal = int_literal(text)
        if literal is not None:
            return Fraction(literal), False
        return Fraction(text.rstrip("fFlL")), True
    if kind == "unary_expression":
        arg, op = (
            node.child_by_field_name("argument"),
            node.child_by_field_name("operator"),
        )
        if arg is None or op is None:
            raise ValueError("unary")
        value, flt = _eval(arg, depth + 1)
        sign = node_text(op)
        if sign in ("-", "+"):
            return (-value if sign == "-" else value), flt
        if sign == "!":
            return Fraction(not value), False
        raise ValueError(sign)
    if kind == "cast_expression":
        typ, value_node = (
            node.child_by_field_name("type"),
            node.child_by_field_name("value"),
        )
        if typ is None or value_node is None:
            raise ValueError("cast")
        value, _ = _eval(value_node, depth + 1)
        if any(w in node_text(typ) for w in ("double", "float")):
            return value, True
        return _truncate(value, Fraction(1)), False
    if kind == "conditional_expression":
        cond = node.child_by_field_name("condition")
        yes = node.child_by_field_name("consequence")
        no = node.child_by_field_name("alternative")
        if cond is None or yes is None or no is None:
            raise ValueError("?:")
        return _eval(yes if _eval(cond, depth + 1)[0] else no, depth + 1)
    if kind == "call_expression":
        func = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        name = node_text(func) if func is not None else ""
        if args is None or args.named_child_count != 1 or name not in _ROUND:
            raise ValueError(name)
        inner = args.named_children[0]
        value, _ = _eval(inner, depth + 1)
        return Fraction(_ROUND[name](value)), True
    if kind == "binary_expression":
        left, op, right = (
            node.child_by_field_name("left"),
            node.child_by_field_name("operator"),
            node.child_by_field_name("right"),
        )
        if left is None or op is None or right is None:
            raise ValueError("binary")
        (a, fa), (b, fb) = _eval(left, depth + 1), _eval(right, depth + 1)
        oper = node_text(op)
        if oper == "/":
            if b == 0:
                raise ZeroDivisionError
            return (a / b, True) if fa or fb else (_truncate(a, b), False)
        if oper == "%" and not (fa or fb) and b != 0:
            return a - b * _truncate(a, b), False
        if oper in _BINARY:
            flt = (fa or fb) and oper in "+-*"
            return _BINARY[oper](a, b), flt
        raise ValueError(oper)
    raise ValueError(kind)


_ROUND: dict[str, Callable[[Fraction], int]] = {
    "floor": floor,
    "floorf": floor,
    "ceil": ceil,
    "ceilf": ceil,
}

_MEANINGS: dict[str, Callable[[int, int], int]] = {
    "max": max,
    "min": min,
    "floord": lambda n, d: floor(Fraction(n, d)),
    "ceild": lambda n, d: ceil(Fraction(n, d)),
}


def _apply(body: str, params: tuple[str, ...], a: int, b: int) -> Fraction:
    text = FunctionMacro(params, body).expand([f"({a})", f"({b})"]) or ""
    root = parse_snippet(f"void __f(void){{({text});}}")
    if root.has_error:
        raise ValueError("parse")
    fn = root.named_children[0]
    body_node = fn.child_by_field_name("body") if fn is not None else None
    stmt = body_node.named_children[0] if body_node is not None else None
    if stmt is None or not stmt.named_children:
        raise ValueError("empty")
    return _eval(stmt.named_children[0])[0]


@lru_cache(maxsize=256)
def _meaning(body: str, params: tuple[str, ...]) -> str | None:
    """Which of max, min, floord or ceild the body computes, if any."""
    found: str | None = None
    for name, want in _MEANINGS.items():
        div = name in ("floord", "ceild")
        grid = (
            [(n, d) for n in range(-13, 14) for d in range(1, 6)]
            if div
            else [(a, b) for a in range(-6, 7) for b in range(-6, 7)]
        )
        try:
            if all(_apply(body, params, a, b) == want(a, b) for a, b in grid):
                found = name
                break
        except (ValueError, ZeroDivisionError):
            break
    return found
