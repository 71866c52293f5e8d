"""A mask `e & (M - 1)` in a subscript: the remainder by M, when M is a power of two."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.analysis.dependence import nest_dependences
from accls.analysis.model import Dependence
from accls.analysis.nest_views import nest_views
from accls.frontend import parse_source

_LOOP = """\
    #define N {n}
    #define B 8
    int count[B];
    void f(void) {{
    #pragma omp parallel for
      for (int i = 0; i < N; i++) {{
        {stmt};
      }}
    }}
"""


def found(body: str) -> list[Dependence]:
    text = (
        f"void f(int n, int m, double *a, double *b) {{\n{textwrap.dedent(body)}\n}}\n"
    )
    root = parse_source(text).nests[0]
    return list(nest_dependences(root, known=nest_views(root, None)))


def carriers(body: str) -> set[int]:
    """The levels (0 outermost) that carry some dependence."""
    return {d.loops.index(d.carrier) for d in found(body) if d.carrier is not None}


def _errors(n: int, stmt: str) -> list[tuple[str, int]]:
    src = textwrap.dedent(_LOOP.format(n=n, stmt=stmt))
    return [
        (f.code, f.span.line) for f in check_file(src, "t.c") if f.level.name == "ERROR"
    ]


def test_a_masked_write_repeats_with_the_mask_period() -> None:
    # (7i) & 7 is (7i) % 8 for i >= 0: iterations i and i + 8 write one element.
    assert _errors(6000, "count[(i * 7) & (B - 1)] = i") == [("ACC101", 7)]


def test_a_masked_update_takes_at_most_mask_plus_one_values() -> None:
    # Whatever the dividend, `e & 7` lies in [0, 7]: 6000 updates meet.
    assert _errors(6000, "count[(i * 7) & (B - 1)]++") == [("ACC101", 7)]
    assert _errors(6000, "count[(i * i) & 7]++") == [("ACC101", 7)]


def test_a_mask_over_no_more_iterations_than_its_values_is_race_free() -> None:
    # 8 iterations, (7i) & 7 a permutation of 0..7.
    assert _errors(8, "count[(i * 7) & (B - 1)] = i") == []
    assert _errors(8, "count[(i * 7) & (B - 1)]++") == []


def test_a_mask_of_a_power_of_two_minus_one_keeps_rows_apart() -> None:
    # `y & 7` lies in [0, 7]: rows of 8 never meet across `x`.
    body = """
    for (int x = 0; x < n; x++)
        for (int y = 0; y < m; y++)
            a[x*8 + (y & 7)] = b[y];
    """
    assert 0 not in carriers(body)
    assert 0 in carriers(body.replace("& 7", "& 15"))  # 16 values overlap rows


def test_a_mask_that_is_no_power_of_two_minus_one_is_not_exact() -> None:
    # `x & 5` is no remainder (0, 1, 4, 5 repeat): no exact period is claimed.
    deps = list(found("for (int x = 0; x < n; x++)\n  a[x & 5] = b[x];"))
    assert not any(d.exact for d in deps if d.carrier)
    exact = found("for (int x = 0; x < n; x++)\n  a[x & 7] = b[x];")
    assert any(d.exact for d in exact if d.carrier)
