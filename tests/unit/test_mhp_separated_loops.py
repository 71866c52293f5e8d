"""A `single nowait` in a loop races with its next instance only without a barrier."""

from __future__ import annotations

import textwrap

import pytest
from accls.analysis.checks import check_file

_STEPS = """\
    int steps;
    double a[1000], b[1000];
    void run(void) {
      #pragma omp parallel
      for (int t = 0; t < 10; t++) {
        #pragma omp single nowait
        steps++;
        {between}
      }
    }
"""

_FOR = "#pragma omp for\n        for (int i = 0; i < 1000; i++) a[i] = b[i] * t;"


def _errors(between: str) -> list[tuple[str, int]]:
    src = textwrap.dedent(_STEPS).replace("{between}", between)
    found = check_file(src, "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


@pytest.mark.parametrize(
    "between",
    [
        _FOR,
        "#pragma omp barrier",
        "a[0] = 1.0;\n        #pragma omp barrier\n        b[0] = a[1];",
    ],
    ids=["loop-barrier", "barrier", "barrier-mid-body"],
)
def test_a_barrier_every_iteration_passes_separates_the_instances(
    between: str,
) -> None:
    assert [e for e in _errors(between) if e[1] == 7] == []


@pytest.mark.parametrize(
    "between",
    [
        "",
        _FOR.replace("omp for", "omp for nowait"),
        "if (t % 2) continue;\n        " + _FOR,
        "if (t > 0) {\n        #pragma omp barrier\n        }",
        "for (int k = 0; k < t; k++) {\n        #pragma omp barrier\n        }",
    ],
    ids=["nothing", "nowait-loop", "continue", "barrier-under-if", "inner-loop"],
)
def test_instances_a_barrier_may_miss_race(between: str) -> None:
    assert ("ACC120", 7) in _errors(between)


def test_a_read_in_the_same_phase_still_races() -> None:
    between = "#pragma omp for\n        for (int i = 0; i < 1000; i++) a[i] = steps;"
    assert _errors(between) != []
