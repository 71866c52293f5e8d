"""Function-like macros: a local helper macro, parenthesised variable arguments."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

from accls.frontend import Preprocessor, header_context, parse_source
from accls.frontend.macros import FunctionMacro

_TRIPLE = """\
typedef double Real_t;
Real_t volume(const Real_t *x, const Real_t *y) {
  Real_t dx = x[1] - x[0];
  Real_t dy = y[1] - y[0];
#define TP(a, b, c) ((a)*((b)*(c) - (c)*(b)))
  Real_t v = TP(dx + dy, dx, dy) + TP(dy, dy, dx);
#undef TP
  return v;
}
"""


def test_a_variable_argument_loses_the_parentheses_of_its_parameter() -> None:
    macro = FunctionMacro(("a", "b"), "(a)*(b) + f(a) + (b)")
    assert (
        macro.expand(["dx", "y[0]"], frozenset({"dx"})) == "dx*(y[0]) + f(dx) + (y[0])"
    )
    assert macro.expand(["dx", "dy"]) == "(dx)*(dy) + f(dx) + (dy)"


def test_a_product_of_parenthesised_variables_is_no_cast_nor_operator_call() -> None:
    source = parse_source(_TRIPLE, "k.cpp")
    fn = source.function("volume")
    assert fn is not None
    assert [c.name for c in fn.call_sites] == []


def test_a_macro_undefined_after_its_uses_stays(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    need("gcc")
    path = str(tmp_path / "k.cpp")
    context = header_context(_TRIPLE, path, Preprocessor())
    assert context.problem is None
    assert "TP" in context.macros.functions


def test_a_macro_whose_name_is_used_after_its_undef_is_gone(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    need("gcc")
    text = _TRIPLE + dedent(
        """\
        Real_t TP(Real_t a, Real_t b, Real_t c);
        Real_t other(Real_t a) { return TP(a, a, a); }
        """
    )
    context = header_context(text, str(tmp_path / "k.cpp"), Preprocessor())
    assert "TP" not in context.macros.functions
