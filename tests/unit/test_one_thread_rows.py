"""ACC124 for per-thread rows counted by `omp_get_num_threads()` outside a region."""

from __future__ import annotations

import textwrap

import pytest
from accls.analysis.checks import check_file
from accls.analysis.one_thread_counts import one_thread_fields
from accls.frontend import parse_source

_SRC = """\
    #include <omp.h>
    #include <stdlib.h>
    #define W 8
    typedef struct { double *rows; int nrows; int width; } scratch_t;
    static void init(scratch_t *s, int nrows) {
      s->nrows = nrows;
      s->width = W;
      s->rows = calloc((size_t)nrows * W, sizeof(double));
    }
    static void fill(double *row, const double *in, int i) {
      for (int k = 0; k < W; k++)
        row[k] = in[i] + k;
    }
    static void apply(scratch_t *s, const double *in, double *out, int n) {
      #pragma omp parallel{team}
      {
        int tid = omp_get_thread_num();
        double *row = s->rows + (size_t)(tid % s->nrows) * s->width;
        #pragma omp for
        for (int i = 0; i < n; i++) {
          fill(row, in, i);
          out[i] = row[0] + row[W - 1];
        }
      }
    }
    int main(void) {
      double in[100] = {0}, out[100];
      scratch_t s;
      {count}
      apply(&s, in, out, 100);
      free(s.rows);
      return 0;
    }
"""

_OUTSIDE = "init(&s, omp_get_num_threads());"


def _source(count: str, team: str = "") -> str:
    src = textwrap.dedent(_SRC).replace("{count}", count)
    return src.replace("{team}", team)


def _errors(count: str, team: str = "") -> list[tuple[str, int]]:
    found = check_file(_source(count, team), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


def test_rows_counted_outside_a_region_are_one_row() -> None:
    assert _errors(_OUTSIDE) == [("ACC124", 21)]


@pytest.mark.parametrize(
    ("count", "team"),
    [
        # one row per thread of a team held to the count
        ("init(&s, omp_get_max_threads());", " num_threads(s->nrows)"),
        # a team of one has nothing to race with
        (_OUTSIDE, " num_threads(1)"),
        # counted inside a region: the team's size
        (
            "#pragma omp parallel\n  #pragma omp single\n  "
            "init(&s, omp_get_num_threads());",
            "",
        ),
    ],
)
def test_rows_of_the_team_stay_clean(count: str, team: str) -> None:
    assert _errors(count, team) == []


def test_a_field_also_set_another_way_is_not_one() -> None:
    src = _source(_OUTSIDE).replace("  apply(&s", "  s.nrows = 4;\n  apply(&s")
    assert one_thread_fields(parse_source(src, "t.c")) == frozenset()
    assert one_thread_fields(parse_source(_source(_OUTSIDE), "t.c")) == {"nrows"}
