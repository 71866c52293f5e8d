"""ACC101 for a data-indexed update of more iterations than the array has elements."""

from __future__ import annotations

import textwrap

import pytest
from accls.analysis.checks import check_file

_SRC = """\
    #define NB 16
    typedef struct { double sum[NB]; long count; } hist_t;
    void tally(hist_t *h, const double *e, const int *bin, int n) {
      #pragma omp parallel for
      for (int i = 0; i < {trips}; i++) {
        {guard}{atomic}
        h->sum[bin[i]] += e[i];
      }
    }
"""


def _codes(trips: str, guard: str = "", atomic: str = "") -> dict[str, str]:
    src = textwrap.dedent(_SRC).replace("{trips}", trips)
    src = src.replace("{guard}", guard).replace("{atomic}", atomic)
    return {f.code: f.level.name for f in check_file(src, "t.c")}


def test_more_updates_than_elements_race() -> None:
    assert _codes("1000") == {"ACC101": "ERROR"}


@pytest.mark.parametrize(
    ("trips", "guard"),
    [
        ("NB", ""),  # one update per element possible
        ("n", ""),  # how many iterations is not known
        ("1000", "if (e[i] > 0.0)"),  # may not update in every iteration
    ],
)
def test_an_index_that_may_stay_apart_is_a_warning(trips: str, guard: str) -> None:
    assert _codes(trips, guard).get("ACC109") == "WARNING"
    assert "ACC101" not in _codes(trips, guard)


def test_an_atomic_update_is_clean() -> None:
    assert _codes("1000", atomic="#pragma omp atomic") == {}
