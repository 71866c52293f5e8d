"""A write through an index list stays refused, and the refusal names the list."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text

_TEXT = """
void f(double *ss, const int *list, const double *v, int len) {
  for (int i = 0; i < len; i++) {
    BODY
  }
}
"""


@pytest.mark.parametrize(
    ("body", "listed"),
    [
        ("int ielem = list[i]; ss[ielem] = 2.0 * v[i];", "list `list[i]` (`ielem`"),
        ("ss[list[i]] = v[i];", "list `list[i]`"),
    ],
)
def test_a_scatter_names_its_index_list(body: str, listed: str) -> None:
    text = dedent(_TEXT).replace("BODY", body)
    fact = analyze_text(text, options=AnalysisOptions(assume_no_alias=True)).facts[0]
    assert not fact.parallel
    why = " | ".join(o.message for o in fact.obstacles)
    assert f"is written through the index {listed}" in why, why
    assert "a scatter" in why
