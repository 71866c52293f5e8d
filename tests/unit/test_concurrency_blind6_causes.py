"""Causes found by the sixth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_FINAL = """\
    int x, y;
    void f(void) {
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task final({flag}) shared(x, y)
        {
          #pragma omp task shared(x)
          x = 1;
          y = x + 1;
        }
      }
    }
"""


def test_a_task_made_in_a_final_task_is_included() -> None:
    # final(1): the child runs to its end before its parent goes on.
    assert _errors(_FINAL.replace("{flag}", "1")) == []
    assert _errors(_FINAL.replace("{flag}", "true")) == []


def test_a_task_made_in_a_task_not_final_may_still_run() -> None:
    assert ("ACC122", 10) in _errors(_FINAL.replace("{flag}", "0"))
    assert ("ACC122", 10) in _errors(_FINAL.replace("{flag}", "n > 2"))


def test_final_reaches_grandchildren() -> None:
    src = _FINAL.replace("{flag}", "1").replace(
        "#pragma omp task shared(x)\n      x = 1;",
        "#pragma omp task shared(x)\n      {\n"
        "        #pragma omp task shared(x)\n        x = 1;\n      }",
    )
    assert _errors(src) == []
