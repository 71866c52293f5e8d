"""ACC129: a reduction over an array section the loop's updates reach outside of."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file
from accls.analysis.findings import Severity

TEXT = """\
#define NB 12
void f(int n, int m, int k, const int *restrict v, int *restrict c) {{
  #pragma {pragma} reduction(+:{section})
  for (int i = 0; i < n; i++) {{
    {body}
  }}
}}
"""
INNER = "for (int j = 0; j < 10; j++) c[j] += v[i];"
BIN = "int y = v[i] % 10;\n    c[y] += 1;"


def _levels(section: str, body: str, pragma: str = "omp parallel for") -> set[str]:
    text = TEXT.format(pragma=pragma, section=section, body=body)
    return {f.level.value for f in check_file(text, "t.c") if f.code == "ACC129"}


@pytest.mark.parametrize("pragma", ["omp parallel for", "acc parallel loop"])
@pytest.mark.parametrize(
    ("section", "body", "levels"),
    [
        # The inner loop surely updates c[5..9] (and c[0], c[1]): outside.
        ("c[0:5]", INNER, {"error"}),
        ("c[2:8]", INNER, {"error"}),
        ("c[0:m]", "for (int j = 0; j <= m; j++) c[j] += v[i];", {"error"}),
        ("c[k:1]", "c[k + 1] += v[i];", {"error"}),
        # A bin up to 9 may miss c[0:5]; the analysis cannot bound c[v[i]].
        ("c[0:5]", BIN, {"warning"}),
        ("c[0:5]", "c[v[i] % 10] += 1;", {"warning"}),
        ("c[0:8]", "c[v[i] & 15] += 1;", {"warning"}),
        ("c[0:10]", "c[v[i]] += 1;", {"warning"}),
        # Race-free twins: the section holds every update.
        ("c[0:10]", INNER, set()),
        ("c[0:10]", BIN, set()),
        ("c[:10]", "c[v[i] % 10] += 1;", set()),
        ("c[0:16]", "c[v[i] & 15] += 1;", set()),
        ("c[0:16]", "c[v[i] & 0xf] += 1;", set()),
        ("c[0:8]", "c[v[i] & 017] += 1;", {"warning"}),
        ("c[0:m]", "for (int j = 0; j < m; j++) c[j] += v[i];", set()),
        ("c[0:NB]", "for (int j = 0; j < NB; j++) c[j] += v[i];", set()),
        ("c[0:12]", "for (int j = 0; j < NB; j++) c[j] += v[i];", set()),
        ("c[k:1]", "c[k] += v[i];", set()),
        ("c[3:4]", "for (int j = 2; j <= 5; j++) c[j + 1] += v[i];", set()),
    ],
)
def test_section_against_updated_range(
    pragma: str, section: str, body: str, levels: set[str]
) -> None:
    assert _levels(section, body, pragma) == levels


def test_whole_array_reduction_is_not_judged() -> None:
    text = """\
int g(int n, const int *v) {
  int c[10] = {0};
  #pragma omp parallel for reduction(+:c)
  for (int i = 0; i < n; i++) {
    int y = v[i] % 10;
    c[y] += 1;
  }
  return c[3];
}
"""
    assert not [f for f in check_file(text, "t.c") if f.code == "ACC129"]


def test_message_names_clause_section_and_reach() -> None:
    text = TEXT.format(pragma="omp parallel for", section="c[0:5]", body=INNER)
    (item,) = [f for f in check_file(text, "t.c") if f.code == "ACC129"]
    assert item.level is Severity.ERROR
    assert "`reduction(+:c[0:5])`" in item.message
    assert "`c[0..9]`" in item.message
    assert item.span.line == 5


REGION = """\
void h(int n, const int *v, int *c) {{
  #pragma omp parallel reduction(+:{section})
  {{
    #pragma omp for
    for (int i = 0; i < n; i++)
      for (int j = 0; j < 10; j++)
        c[j] += v[i];
  }}
}}
"""


@pytest.mark.parametrize(("section", "flagged"), [("c[0:5]", True), ("c[0:10]", False)])
def test_reduction_on_the_enclosing_region(section: str, flagged: bool) -> None:
    """`parallel reduction(+:c[0:5])` around the `for`: its updates are judged."""
    found = check_file(REGION.format(section=section), "t.c")
    assert any(f.code == "ACC129" for f in found) is flagged
