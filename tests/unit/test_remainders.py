"""Subscripts with `e % m`: rows that stay apart, and the dependences that remain."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis.dependence import nest_dependences
from accls.analysis.model import Dependence
from accls.analysis.nest_views import nest_views
from accls.frontend import Loop, parse_source
from accls.frontend.exprs import remainder_poly

PARAMS = "int n, int m, double *a, double *b"


def nest_of(body: str) -> Loop:
    source = parse_source(f"void f({PARAMS}) {{\n{dedent(body)}\n}}\n")
    return source.nests[0]


def found(body: str, constants: dict[str, int] | None = None) -> list[Dependence]:
    root = nest_of(body)
    return list(nest_dependences(root, known=nest_views(root, constants)))


def carriers(body: str, constants: dict[str, int] | None = None) -> set[int]:
    """The levels (0 outermost) that carry some dependence."""
    out = set()
    for dep in found(body, constants):
        if dep.carrier is not None:
            out.add(dep.loops.index(dep.carrier))
    return out


def test_rows_of_a_constant_width_are_apart_across_the_outer_loop() -> None:
    body = """
    for (int x = 0; x < n; x++)
        for (int y = 0; y < m; y++)
            a[x*5 + (y % 5)] = b[y];
    """
    # Different y of one x write one element: the y loop carries it, x does not.
    assert carriers(body) == {1}
    assert all(dep.exact for dep in found(body))


def test_rows_of_a_symbol_width_are_apart_when_the_loop_proves_it_positive() -> None:
    body = """
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2*m; j++)
            a[i*m + (j % m)] = b[j];
    """
    assert carriers(body) == {1}
    turned = """
    for (int i = 0; i < m; i++)
        for (int k = 0; k < 3*n; k++)
            a[(k % n) + n*i] += b[k];
    """
    assert carriers(turned) == {1}


def test_a_macro_modulus_splits_rows_of_the_macro() -> None:
    body = """
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i*W + (j % W)] = b[j];
    """
    assert carriers(body, {"W": 8}) == {1}
    wide = """
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i*W + (j % 5)] = b[j];
    """
    assert carriers(wide, {"W": 5}) == {1}
    assert 0 in carriers(wide, {"W": 4})  # rows of 4, remainders up to 4


def test_a_remainder_wider_than_the_row_spills_into_the_next_row() -> None:
    body = """
    for (int x = 0; x < n; x++)
        for (int y = 0; y < m; y++)
            a[x*5 + (y % 7)] = b[y];
    """
    assert 0 in carriers(body)


def test_a_wraparound_neighbour_is_a_dependence() -> None:
    assert 0 in carriers("for (int i = 0; i < n; i++)\n    a[(i + 1) % n] = a[i % n];")


def test_a_constant_modulus_gives_exact_distances() -> None:
    body = "for (int i = 0; i < 8; i++)\n    a[(i + 1) % 8] = a[i % 8] + 1.0;"
    seen = {(d.kind.value, d.distance, d.exact) for d in found(body) if d.carrier}
    # a[i+1] is read one iteration later; a[0], written last, was read first.
    assert seen == {("flow", (1,), True), ("anti", (7,), True)}
    assert carriers("for (int i = 0; i < 4; i++)\n    a[i % 4] = b[i];") == set()


def test_a_symbol_modulus_only_bounds_the_remainder_so_is_not_exact() -> None:
    deps = found("for (int i = 0; i < n; i++)\n    a[(i + 1) % n] = a[i % n];")
    assert deps
    assert not any(dep.exact for dep in deps)
    assert all("remainder" in dep.reason for dep in deps)


def test_a_macro_modulus_of_known_value_gives_exact_distances() -> None:
    body = "for (int i = 0; i < n; i++)\n    a[i % NT] = b[i];"
    deps = [d for d in found(body, {"NT": 4}) if d.carrier]
    # `#define NT 4`: iterations i and i + 4 write one element, surely.
    assert deps
    assert all(dep.exact for dep in deps)
    assert not any(dep.exact for dep in found(body) if dep.carrier)  # NT unknown


def test_a_dividend_that_may_be_negative_is_refused() -> None:
    body = """
    for (int x = 0; x < n; x++)
        for (int y = -4; y < 5; y++)
            a[x*5 + (y % 5)] = b[y + 4];
    """
    deps = found(body)
    assert 0 in carriers(body)
    assert any("remainder" in dep.reason for dep in deps)
    moved = """
    for (int x = 0; x < n; x++)
        for (int y = 0; y < m; y++)
            a[x*5 + ((y - 2) % 5)] = b[y];
    """
    assert 0 in carriers(moved)


def test_a_modulus_that_moves_in_the_nest_is_refused() -> None:
    body = """
    for (int x = 1; x < n; x++)
        for (int y = 0; y < m; y++)
            a[x*5 + (y % x)] = b[y];
    """
    assert 0 in carriers(body)


def test_remainder_terms_become_fresh_symbols() -> None:
    found = remainder_poly("x*5 + (y % 5)")
    assert found is not None
    poly, parts = found
    assert poly.coeff("%0") == 1
    assert poly.coeff("x") == 5
    assert [(top.names(), bottom.constant) for top, bottom in parts] == [
        (frozenset({"y"}), 5)
    ]
    assert remainder_poly("a % b % c") is None  # a remainder of a remainder
    assert remainder_poly("f(i) % 3") is None
    assert remainder_poly("i + 1") is None
