"""Sections of `e % m` subscripts: `a[0:m]` when `e` is never negative."""

from __future__ import annotations

import pytest
from accls.analysis.array_sections import array_uses
from accls.analysis.modulo_sections import dividend, modulo_range, plain_names
from accls.frontend import parse_source

NONE = frozenset[str]()
PARAMS = "int n, int m, const double *restrict a, double *restrict b"


def section(body: str, name: str) -> str | None:
    """The section the first loop of `body` moves `name` with."""
    source = parse_source(f"void f({PARAMS}) {{\n{body}\n}}\n")
    fn = source.functions[0]
    loop = source.nests[0]
    names = {r.name for r in loop.refs if r.subscripts}
    found = array_uses(loop, {n: fn.lookup(n) for n in names})
    return next(use.section for use in found if use.name == name)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("i % n", "i"),
        ("(i + 1) % n", "(i + 1)"),
        ("2 * i % n", "2 * i"),
        ("i % (n / 10 + 1)", "i"),
        ("i % n + 1", None),  # `%` binds tighter: the sum is outermost
        ("k + i % n", None),
        ("i % n * 2", None),
        ("i + 1", None),
    ],
)
def test_only_an_outermost_modulo_is_split(text: str, expected: str | None) -> None:
    assert dividend(text) == expected


def test_the_range_needs_a_nonnegative_dividend_and_an_invariant_modulus() -> None:
    low, high = modulo_range("i % n", True, NONE) or (None, None)
    assert low is not None
    assert high is not None
    assert (low.render(), high.render()) == ("0", "n - 1")
    assert modulo_range("i % n", False, NONE) is None
    assert modulo_range("i % n", True, frozenset({"n"})) is None  # written in the loop
    assert modulo_range("i % f(n)", True, NONE) is None  # a call
    assert modulo_range("i % m[0]", True, NONE) is None  # an element
    assert modulo_range("i % 0", True, NONE) is None


@pytest.mark.parametrize(
    ("body", "name", "expected"),
    [
        ("for (int i = 0; i < n; i++)\n    b[i % m] += a[i];", "b", "b[0:m]"),
        (
            "for (int i = 0; i < n; i++)\n    b[i] = a[(i + 1) % n] - a[i];",
            "a",
            "a[0:n]",
        ),
        (
            "for (int i = 0; i < n; i++)\n    b[i] = a[(i + n - 1) % n];",
            "a",
            "a[0:n]",
        ),
        (
            "for (int i = 0; i < n; i++)\n    b[i % (n / 10 + 1)] += a[i];",
            "b",
            "b[0:(n / 10 + 1)]",
        ),
        # The dividend may be negative: `(0 - 1) % n` is -1 in C.
        ("for (int i = 0; i < n; i++)\n    b[i] = a[(i - 1) % n];", "a", None),
        # The modulus changes in the loop.
        (
            "for (int i = 0; i < n; i++) {\n    m = i + 1;\n    b[i] = a[i % m];\n}",
            "a",
            None,
        ),
    ],
)
def test_sections_of_modulo_subscripts(
    body: str, name: str, expected: str | None
) -> None:
    assert section(body, name) == expected


def test_an_opaque_modulus_stands_for_the_names_in_it() -> None:
    # A lifetime or region must see a write of `n` as a change of the extent.
    assert plain_names({"(n / 10 + 1)", "m"}) == {"n", "m"}


@pytest.mark.parametrize(
    ("body", "name", "expected"),
    [
        # Rows of five: row x, a remainder in [0, 4] inside it.
        (
            "for (int x = 0; x < 5; x++)\n"
            "    for (int y = 0; y < n; y++)\n"
            "        b[x * 5 + y] = a[x * 5 + (y % 5)];",
            "a",
            "a[0:25]",
        ),
        (
            "for (int x = 0; x < n; x++)\n"
            "    for (int y = 0; y < n; y++)\n"
            "        b[y] += a[x * m + y % m];",
            "a",
            "a[0:m*n]",
        ),
        # A remainder of a dividend that may be negative has no range.
        (
            "for (int x = 0; x < 5; x++)\n"
            "    for (int y = 0; y < n; y++)\n"
            "        b[y] = a[x * 5 + (y - 1) % 5];",
            "a",
            None,
        ),
        # The modulus changes in the loop.
        (
            "for (int x = 0; x < 5; x++)\n"
            "    for (int y = 1; y < n; y++)\n"
            "        b[y] = a[x * 5 + y % x];",
            "a",
            None,
        ),
    ],
)
def test_sections_of_remainders_inside_a_polynomial(
    body: str, name: str, expected: str | None
) -> None:
    assert section(body, name) == expected
