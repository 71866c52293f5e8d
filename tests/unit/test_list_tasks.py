"""ACC122 for one task per list node that touches the next node's field."""

from __future__ import annotations

import textwrap

import pytest
from accls.analysis.checks import check_file

_SRC = """\
    typedef struct node { double val; double aux; struct node *next; } node_t;
    static void relax(node_t *q) {
      double nb = q->next ? q->next->val : 0.0;
      q->{field} = 0.5 * (q->val + nb);
    }
    void relax_list(node_t *head) {
      #pragma omp parallel
      #pragma omp single
      for (node_t *p = head; p; p = p->next) {
        #pragma omp task {clauses}
        {body}
        {after}
      }
    }
"""


def _errors(
    field: str = "val",
    clauses: str = "firstprivate(p)",
    body: str = "relax(p);",
    after: str = "",
) -> list[tuple[str, int]]:
    src = textwrap.dedent(_SRC)
    for key, value in (
        ("field", field),
        ("clauses", clauses),
        ("body", body),
        ("after", after),
    ):
        src = src.replace("{" + key + "}", value)
    found = check_file(src, "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


@pytest.mark.parametrize("clauses", ["firstprivate(p)", ""])
def test_a_callee_writing_the_node_the_previous_task_reads_races(clauses: str) -> None:
    assert _errors(clauses=clauses) == [("ACC122", 3)]


@pytest.mark.parametrize(
    "body",
    [
        "{ p->val = p->next ? p->next->val : 0.0; }",
        "{ if (p->next) p->next->val = p->val; }",  # writes the next node's
    ],
)
def test_the_task_body_itself_races_too(body: str) -> None:
    assert [code for code, _ in _errors(body=body)] == ["ACC122"]


@pytest.mark.parametrize(
    ("field", "clauses", "after"),
    [
        ("aux", "firstprivate(p)", ""),  # no task writes what another reads
        ("val", "firstprivate(p)", "#pragma omp taskwait"),  # one at a time
        ("val", "depend(inout: p->val) depend(in: p->next->val)", ""),
    ],
)
def test_race_free_twins_stay_clean(field: str, clauses: str, after: str) -> None:
    assert _errors(field=field, clauses=clauses, after=after) == []
