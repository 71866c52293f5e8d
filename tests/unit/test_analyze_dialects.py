"""analyze_dialects shares work across dialects but gives each its own facts."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.analysis import AnalysisOptions, analyze, analyze_dialects
from accls.frontend import parse_source

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "c"

_GUARDED = """
void count(int n, int *restrict bins, const int *restrict keys,
           double *restrict out, const double *restrict in) {
  for (int i = 0; i < n; i++) {
#pragma omp critical
    bins[keys[i]] = i;
  }
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += in[i];
    out[i] = s;
  }
}
"""


@pytest.mark.parametrize(
    "name", ["histogram.c", "saxpy_alias.c", "particles_kernel.c", "lu.c"]
)
def test_each_dialect_gets_the_facts_analyze_gives_it(name: str) -> None:
    source = parse_source((FIXTURES / name).read_text(), name)
    both = analyze_dialects(source, AnalysisOptions(), ("acc", "omp"))
    alone = tuple(analyze(source, AnalysisOptions(dialect=d)) for d in ("acc", "omp"))
    assert [a.facts for a in both] == [a.facts for a in alone]


def test_an_omp_atomic_protects_only_the_omp_analysis() -> None:
    source = parse_source(_GUARDED, "guarded.c")
    acc, omp = analyze_dialects(source, AnalysisOptions(), ("acc", "omp"))
    first = source.nests[0]
    assert "bins" in {o.variable for o in acc.of(first).obstacles}
    assert "bins" not in {o.variable for o in omp.of(first).obstacles}
    assert acc.facts[1:] == omp.facts[1:]
