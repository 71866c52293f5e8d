"""Causes found by the fourteenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_TASKLOOP_SUM = """\
    double total(const double *v, int n) {
      double sum = 0.0;
      #pragma omp parallel
      #pragma omp single
      #pragma omp taskgroup task_reduction(+: sum)
      {
        #pragma omp taskloop grainsize(64){clause}
        for (int i = 0; i < n; i++)
          sum += v[i];
      }
      return sum;
    }
"""


def test_a_taskloop_in_reduction_item_is_a_reduction_of_the_loop() -> None:
    assert _errors(_TASKLOOP_SUM.replace("{clause}", " in_reduction(+: sum)")) == []


def test_a_taskloop_sum_without_in_reduction_still_races() -> None:
    assert [c for c, _ in _errors(_TASKLOOP_SUM.replace("{clause}", ""))] != []


_HOST_TEAMS = """\
    double total(const double *v, int n) {
      double mass = 0.0;
      #pragma omp teams num_teams(4){clause}
      {
        double part = 0.0;
        #pragma omp distribute parallel for reduction(+: part)
        for (int i = 0; i < n; i++)
          part += v[i];
        mass += part;
      }
      return mass;
    }
"""


def test_host_teams_share_a_local_declared_before_them() -> None:
    # no `target`: `mass` is not firstprivate, every team adds into it
    assert _errors(_HOST_TEAMS.replace("{clause}", "")) == [("ACC125", 9)]


def test_host_teams_reducing_the_local_do_not_race() -> None:
    assert _errors(_HOST_TEAMS.replace("{clause}", " reduction(+: mass)")) == []


def test_target_teams_keep_an_unmapped_scalar_firstprivate() -> None:
    src = _HOST_TEAMS.replace("omp teams num_teams(4){clause}", "omp target teams")
    assert _errors(src) == []
