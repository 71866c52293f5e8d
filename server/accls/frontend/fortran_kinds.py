"""The precision of a Fortran `real`, read from its kind selector as a compiler does.

`real` alone is single precision, `double precision` and `real*8` double; a
kind is a number (`real(4)`, `real(kind=8)`), an inquiry (`kind(1.0d0)`,
`selected_real_kind(15, 307)`), a named constant of the file
(`integer, parameter :: dp = kind(1.0d0)`), or one of the standard modules'
(`real64` of `iso_fortran_env`, `c_double` of `iso_c_binding`). A name the file
does not define (a module in a file not read) is double precision only when
its spelling says so (`dp`, `r8`): a working precision (`wp`, `rk`) is often
single in some build, and `kind(x)` of a variable is not read, so such a kind
is taken as single, whose totals are refused (a guess there changed results
in the seventh digit). Only the C type's name is kept: "float" or "double",
as the analysis reads C declarations.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tree_sitter import Node

from accls.frontend.exprs import node_text

__all__ = ["kind_parameters", "real_precision"]

_DOUBLE = frozenset({"real64", "real128", "c_double", "c_long_double"})
# Names of kinds from another file whose spelling states double precision.
_SPELLED_DOUBLE = frozenset({"dp", "r8", "dbl", "real8", "double"})
_MAX_DEPTH = 4  # `wp = dp`, `dp = kind(1.0d0)`: parameters naming parameters
_INQUIRY = re.compile(r"^(kind|selected_real_kind)\((.*)\)$")
# A real literal's exponent letter or kind suffix: `1.0d0`, `1d-3`, `1.0_dp`.
_LITERAL = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:([edq])[+-]?\d+)?(?:_(\w+))?$")


def _squeezed(node: Node) -> str:
    return "".join(node_text(node).lower().split())


def kind_parameters(root: Node) -> dict[str, str]:
    """Every named constant the file declares (`dp` -> `kind(1.0d0)`), lower case."""
    found: dict[str, str] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type != "variable_declaration":
            stack.extend(node.named_children)
            continue
        qualifiers = [_squeezed(c) for c in node.children if c.type == "type_qualifier"]
        if "parameter" not in qualifiers:
            continue
        for child in node.named_children:
            if child.type != "init_declarator" or len(child.named_children) < 2:
                continue
            name, value = child.named_children[0], child.named_children[-1]
            if name.type == "identifier":
                found.setdefault(_squeezed(name), _squeezed(value))
    return found


def real_precision(kind: Node | None, kinds: Mapping[str, str]) -> str:
    """The precision a `real` with selector `kind` has: "float" or "double"."""
    if kind is None:
        return "float"
    value = next((c for c in kind.named_children), None)
    if value is None:
        return "float"
    if value.type == "keyword_argument":
        value = value.named_children[-1] if value.named_children else value
    return _evaluate(_squeezed(value), kinds, 0)


def _evaluate(text: str, kinds: Mapping[str, str], depth: int) -> str:
    if text.isdigit():
        return "float" if int(text) <= 4 else "double"
    inquiry = _INQUIRY.match(text)
    if inquiry is not None:
        function, argument = inquiry.groups()
        if function == "kind":
            return _literal(argument, kinds, depth)
        first = argument.split(",")[0].removeprefix("p=")
        first = kinds.get(first, first)
        if first.isdigit():
            return "float" if int(first) <= 6 else "double"
        return "float"  # a precision not read here: maybe single
    if text in kinds and depth < _MAX_DEPTH:
        return _evaluate(kinds[text], kinds, depth + 1)
    return "double" if text in _DOUBLE | _SPELLED_DOUBLE else "float"


def _literal(text: str, kinds: Mapping[str, str], depth: int) -> str:
    """The precision of the real literal `text` (`1.0d0`, `0.0`, `1.0_dp`)."""
    match = _LITERAL.match(text)
    if match is None:
        return "float"  # `kind(x)` of a variable: not read here, maybe single
    letter, suffix = match.groups()
    if suffix is not None:
        return _evaluate(suffix, kinds, depth + 1)
    return "double" if letter in ("d", "q") else "float"
