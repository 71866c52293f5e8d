"""A pragma that is the unbraced body of a statement is read with that body.

tree-sitter has no pragma statement: under `for (...)`, `if (...)`, `else`,
`while (...)` or `do` it ended the statement with an empty body, so the region
(a task made per iteration, a loop's pragma) seemed to lie after it.
"""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.frontend import parse_source
from accls.frontend.unbraced_pragmas import mask_unbraced_pragmas

_BRANCHES = """\
void f(int c, int *x, int *y) {
  if (c)
#pragma omp task
    (*x)++;
  else
#pragma omp task
    (*y)++;
}
"""


def test_pragmas_under_an_if_and_its_else_govern_the_arms() -> None:
    source = parse_source(_BRANCHES, "t.c")
    assert source.errors == ()
    spans = [r.directive.span for r in source.constructs]
    assert all(s is not None for s in spans)
    tasks = [
        (r.directive.name, s.line, r.span.line)
        for r, s in zip(source.constructs, spans, strict=True)
        if s is not None
    ]
    assert tasks == [("task", 3, 4), ("task", 6, 7)]
    # each arm holds its pragma line: the task is made on that path only
    arms = [b for b in source.branches if b.kind in ("if", "else")]
    pragmas = [s.start_byte for s in spans if s is not None]
    assert [b.kind for b in arms] == ["if", "else"]
    for arm, at in zip(arms, pragmas, strict=True):
        assert arm.span.start_byte <= at < arm.span.end_byte


def test_a_loop_pragma_under_an_unbraced_loop_is_the_inner_loops() -> None:
    source = parse_source(
        textwrap.dedent("""\
        void f(int n, double *a) {
          for (int t = 0; t < 4; t++)
        #pragma omp parallel for
            for (int i = 0; i < n; i++)
              a[i] += t;
        }
        """),
        "t.c",
    )
    assert source.errors == ()
    outer = source.nests[0]
    assert [loop.var for loop in outer.walk()] == ["t", "i"]
    assert [p.name for p in outer.walk()[1].pragmas] == ["parallel for"]


def test_only_pragmas_that_are_a_body_are_masked_and_nothing_moves() -> None:
    data = textwrap.dedent("""\
        void f(int n, double *a) {
        #pragma omp parallel for
          for (int i = 0; i < n; i++)
        #pragma omp simd
            for (int k = 0; k < n; k++) a[k] += i;
          a[0] = 1;
        #pragma omp barrier
        #if X
        #pragma omp task
        #endif
        }
        """).encode()
    masked = mask_unbraced_pragmas(data)
    assert len(masked) == len(data)
    assert masked.count(b"\n") == data.count(b"\n")
    changed = [
        line
        for line, old in zip(masked.split(b"\n"), data.split(b"\n"), strict=True)
        if line != old
    ]
    assert changed == [b"//\x01agma omp simd"]


_CURSOR = """\
    struct node { double val; struct node *next; };
    void f(struct node *nodes) {
      struct node *p;
    #pragma omp parallel num_threads(4)
    #pragma omp single
      for (p = nodes; p != 0; p = p->next)
    #pragma omp task {sharing}(p)
        p->val *= 2.0;
    }
"""


def _errors(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.message) for f in found if f.level.name == "ERROR"]


def test_a_task_per_iteration_of_an_unbraced_loop_reads_the_moving_cursor() -> None:
    found = _errors(_CURSOR.replace("{sharing}", "shared"))
    # the task reads `p` (line 8) while the walk writes it (line 6)
    assert any(
        code == "ACC122" and "`p` (write, line 6)" in msg for code, _, msg in found
    )


def test_a_task_with_its_own_cursor_under_an_unbraced_loop_does_not_race() -> None:
    assert _errors(_CURSOR.replace("{sharing}", "firstprivate")) == []


def test_a_cursor_read_after_each_task_is_waited_for_does_not_race() -> None:
    waited = (
        _CURSOR.replace("{sharing}", "shared")
        .replace("p = p->next)\n", "p = p->next) {\n")
        .replace("*= 2.0;\n", "*= 2.0;\n    #pragma omp taskwait\n      }\n")
    )
    assert "taskwait" in waited
    assert _errors(waited) == []


def test_an_atomic_or_critical_under_an_unbraced_if_guards_its_update() -> None:
    src = """\
        int count;
        void f(int n, const int *a) {
        #pragma omp parallel for
          for (int i = 0; i < n; i++)
            if (a[i] > 0)
        #pragma omp {guard}
              count += a[i];
        }
    """
    for guard in ("atomic", "critical"):
        found = check_file(textwrap.dedent(src.replace("{guard}", guard)), "t.c")
        assert [f.code for f in found] == []


def test_a_spaced_pragma_under_an_unbraced_loop_is_read_too() -> None:
    src = (
        "void f(int n, int *a) {\n  for (int i = 0; i < n; i++)\n"
        "#  pragma omp task\n    a[i]++;\n}\n"
    )
    masked = mask_unbraced_pragmas(src.encode())
    assert len(masked) == len(src.encode())
    source = parse_source(src, "t.c")
    assert source.errors == ()
    assert [(r.directive.name, r.span.line) for r in source.constructs] == [("task", 4)]
