"""Subscripts with `e / d`, and remainders by a divisor that is itself a quotient."""

from __future__ import annotations

from accls.analysis.dependence import nest_dependences
from accls.analysis.model import Dependence, DepKind
from accls.analysis.nest_views import nest_views
from accls.frontend import parse_source
from accls.frontend.exprs import division_poly

PARAMS = "int n, int m, double *a, double *b"


def found(body: str) -> list[Dependence]:
    source = parse_source(f"void f({PARAMS}) {{\n{body}\n}}\n")
    root = source.nests[0]
    return list(nest_dependences(root, known=nest_views(root)))


def carriers(body: str) -> set[int]:
    """The levels (0 outermost) that carry some dependence."""
    return {d.loops.index(d.carrier) for d in found(body) if d.carrier is not None}


def test_a_quotient_by_a_constant_is_exact() -> None:
    # Two iterations write each element: the loop carries an exact output dependence.
    deps = found("for (int i = 0; i < n; i++)\n    a[i / 2] = b[i];")
    assert {(d.kind, d.exact) for d in deps if d.carrier} == {(DepKind.OUTPUT, True)}
    # `(2*i + 1) / 2` is `i`: one element per iteration.
    odd = "for (int i = 0; i < n; i++)\n    a[(2*i + 1) / 2] = b[i];"
    assert carriers(odd) == set()


def test_a_quotient_stays_below_what_the_loop_writes() -> None:
    body = "for (int i = 0; i < n; i++)\n    a[i + n] = a[i / 2] + 1.0;"
    assert found(body) == []
    # Reading the elements the loop writes is a dependence.
    assert carriers("for (int i = 0; i < n; i++)\n    a[i] = a[i / 2] + 1.0;") == {0}


def test_a_remainder_by_a_quotient_of_an_invariant_is_modelled() -> None:
    # Atomic histograms of the OpenACC V&V suite: `totals[x % (n/10 + 1)]`.
    deps = found("for (int x = 0; x < n; x++)\n    a[x % (n/10 + 1)] += b[x];")
    assert deps
    assert not any("not affine" in d.reason for d in deps)
    assert not any(d.exact for d in deps)  # a symbol modulus only bounds it
    # Every element below the histogram's is left alone.
    apart = "for (int x = 0; x < n; x++)\n    a[n + x % (n/10 + 1)] = a[x % 1] + 1.0;"
    assert carriers(apart) == {0}  # the writes still collide among themselves
    assert not any(d.kind == DepKind.FLOW for d in found(apart) if d.carrier)


def test_colliding_writes_through_a_remainder_stay_dependences() -> None:
    body = "for (int x = 0; x < n; x++)\n    a[x % (n/10 + 1)] = b[x];"
    assert carriers(body) == {0}
    assert carriers("for (int i = 0; i < n; i++)\n    a[(i*3) % 7] = b[i];") == {0}


def test_a_divisor_that_moves_or_may_be_zero_is_refused() -> None:
    moving = """
    for (int x = 0; x < n; x++)
        for (int y = 0; y < m; y++)
            a[x*m + y / (x + 1)] = b[y];
    """
    assert 0 in carriers(moving)
    assert any("not affine" in d.reason for d in found(moving))
    unknown = "for (int i = 0; i < n; i++)\n    a[n + i / m] = a[i];"
    assert any("not affine" in d.reason for d in found(unknown))
    negative = """
    for (int i = -8; i < n; i++)
        a[n + 8 + i / 2] = a[i + 8];
    """
    assert any("not affine" in d.reason for d in found(negative))


def test_division_terms_refuse_floating_values() -> None:
    found_terms = division_poly("x % (n/10 + 1)")
    assert found_terms is not None
    poly, parts = found_terms
    assert poly.coeff("%1") == 1
    assert [op for _, _, op in parts] == ["/", "%"]
    assert parts[1][1].coeff("%0") == 1  # the modulus uses the quotient
    assert division_poly("(int)(d / 2)") is None  # `d` may be a double
    assert division_poly("i / 2.5") is None
    assert division_poly("i + 1") is None


def test_a_quotient_by_a_symbol_is_only_bounded() -> None:
    body = "for (int i = 0; i < n; i++)\n    a[n + i / (n/4 + 1)] = a[i] + 1.0;"
    deps = found(body)
    # The writes collide (a quotient by a symbol of at least 1), never the reads.
    assert {d.kind for d in deps if d.carrier} == {DepKind.OUTPUT}
    assert not any(d.exact for d in deps)
    assert all("quotient" in d.reason for d in deps)
