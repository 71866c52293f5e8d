"""Fortran expressions: names (case folded), integer polynomials, the intrinsics."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text
from accls.frontend.poly import Poly

__all__ = ["INTRINSICS", "flat", "fortran_poly", "name_of", "strip"]

MAX_DEPTH = 60

INTRINSICS = frozenset(
    """
    abs achar acos acosh adjustl adjustr aimag aint all allocated anint any asin
    asinh associated atan atan2 atanh bessel_j0 bessel_j1 bit_size btest ceiling
    char cmplx conjg cos cosh count cshift dble digits dim dot_product dprod
    eoshift epsilon erf erfc exp exponent floor fraction huge iachar iand ibclr
    ibits ibset ichar ieor index int ior ishft ishftc kind lbound len len_trim
    lge lgt lle llt log log10 logical matmul max maxloc maxval merge min minloc
    minval mod modulo nearest nint not pack precision present product radix
    range real repeat reshape rrspacing scale scan selected_int_kind
    selected_real_kind set_exponent shape sign sin sinh size spacing spread sqrt
    sum tan tanh tiny transpose trim ubound unpack verify dsqrt dabs dexp dlog
    dsin dcos dtan dmax1 dmin1 amax1 amin1 max0 min0 float sngl idint ifix iabs
    dfloat dimag dconjg dcmplx norm2 popcnt poppar leadz trailz storage_size
    is_contiguous new_line hypot gamma log_gamma
    """.split()
)
"""Elemental or inquiry intrinsics: pure, no side effects, arguments read only."""


def name_of(node: Node) -> str:
    """An identifier's name, lower case (Fortran names are case-insensitive)."""
    return node_text(node).lower()


def flat(node: Node) -> str:
    """The node's text on one line, white space folded, continuations dropped."""
    return " ".join(node_text(node).replace("&", " ").split())


def strip(node: Node) -> Node:
    """The expression inside any parentheses."""
    while node.type == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            break
        node = inner[0]
    return node


def _int(text: str) -> int | None:
    body = text.split("_")[0]
    return int(body) if body.isdigit() else None


def fortran_poly(node: Node, depth: int = 0) -> Poly | None:
    """The polynomial value of an integer expression, or None if not one."""
    if depth > MAX_DEPTH:
        return None
    node = strip(node)
    if node.type == "number_literal":
        value = _int(node_text(node))
        return None if value is None else Poly.const(value)
    if node.type == "identifier":
        return Poly.sym(name_of(node))
    if node.type == "unary_expression":
        parts = [c for c in node.children if c.type != "comment"]
        if len(parts) != 2:
            return None
        inner = fortran_poly(parts[1], depth + 1)
        sign = node_text(parts[0])
        if inner is None or sign not in "+-":
            return None
        return -inner if sign == "-" else inner
    if node.type == "math_expression":
        parts = [c for c in node.children if c.type not in ("comment", "&")]
        if len(parts) != 3:
            return None
        left = fortran_poly(parts[0], depth + 1)
        right = fortran_poly(parts[2], depth + 1)
        if left is None or right is None:
            return None
        op = node_text(parts[1])
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
    return None
