"""A local holding a remainder (`b = (i * 7) % B`) substitutes into its subscripts.

The dependence test then reasons on the remainder's period, as it does on
`count[(i * 7) % B]` written out; the race-free twins stay unflagged.
"""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.frontend import parse_source


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_COUNT = """\
    #define N {n}
    #define B 8
    int count[B];
    void f(void) {{
    #pragma omp parallel for
      for (int i = 0; i < N; i++) {{
        int b = {value};
        count[b]++;
      }}
    }}
"""


def test_a_local_remainder_of_an_affine_dividend_is_a_sure_race() -> None:
    # (7i) % 8 repeats every 8 iterations: i and i + 8 update one counter.
    src = _COUNT.format(n=6000, value="(i * 7) % B")
    assert ("ACC101", 8) in _errors(src)


def test_a_local_remainder_by_a_macro_is_a_sure_race() -> None:
    src = _COUNT.format(n=6000, value="i % B")
    assert ("ACC101", 8) in _errors(src)


def test_a_remainder_whose_period_exceeds_the_trip_count_is_race_free() -> None:
    # 8 iterations, (7i) % 8 a permutation of 0..7: no two iterations meet.
    assert _errors(_COUNT.format(n=8, value="(i * 7) % B")) == []


def test_a_remainder_added_to_a_value_is_not_taken_as_the_value() -> None:
    # j = 4i + i % 4 is distinct per iteration; `j += i % 4` is not `j = i % 4`.
    src = """\
    int out[4000];
    void f(void) {
    #pragma omp parallel for
      for (int i = 0; i < 1000; i++) {
        int j = i * 4;
        j += i % 4;
        out[j] = i;
      }
    }
    """
    assert _errors(src) == []


def test_the_substituted_subscript_shows_the_remainder() -> None:
    src = """\
    int count[8];
    void f(int n) {
      for (int i = 0; i < n; i++) {
        int b = (i * 7) % 8;
        count[b] += 1;
      }
    }
    """
    (fn,) = parse_source(textwrap.dedent(src)).functions
    subs = [r.subscripts[0] for r in fn.refs if r.name == "count"]
    assert subs
    assert all(s.text == "(i * 7) % 8" and s.poly is None for s in subs)
    assert all("`b` is (i * 7) % 8" in s.values[0] for s in subs)
