"""A flag every setting iteration sets to one constant, from a constant, is a max/min.

harm_blind3 `k07`: `changed = 0; for (v...) { if (ndist[v] != dist[v])
changed = 1; ... }` in a `while (changed)` is what an expert writes with
`reduction(max:changed)` (or `||`): after the loop it is 1 if any iteration
set it, else 0.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.pipeline import check_text, suggest_text
from accls.settings import Settings
from accls.suggest import Dialect


def _pragma(body: str, extra: str = "") -> str | None:
    src = dedent(
        f"""\
        int a[4096], b[4096];
        {extra}
        int sweep(int n) {{
        {dedent(body)}
        }}
        """
    )
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(src, "k.c", settings).suggestions
    first = found[0]
    return first.pragma.render() if first.pragma is not None else None


def test_a_flag_raised_from_zero_is_a_max_reduction() -> None:
    got = _pragma(
        """\
        int changed = 1;
        while (changed) {
          changed = 0;
          for (int v = 0; v < n; v++) {
            if (a[v] != b[v]) changed = 1;
            b[v] = a[v] / 2;
          }
        }
        return 0;
        """
    )
    assert got is not None
    assert "reduction(max:changed)" in got


def test_a_flag_set_before_an_earlier_loop_is_a_max_reduction() -> None:
    got = _pragma(
        """\
        int changed = 1;
        while (changed) {
          changed = 0;
          for (int v = 0; v < n; v++) b[v] = a[v] + 1;
          for (int v = 0; v < n; v++) if (a[v] != b[v]) changed = 1;
        }
        return 0;
        """
    )
    assert got is not None


def test_a_flag_lowered_from_one_is_a_min_reduction() -> None:
    got = _pragma(
        """\
        int ok = 1;
        for (int v = 0; v < n; v++) if (a[v] < 0) ok = 0;
        return ok;
        """
    )
    assert got is not None
    assert "reduction(min:ok)" in got


@pytest.mark.parametrize(
    ("body", "extra"),
    [
        # the value before the loop is not a constant
        ("int ok = a[0];\nfor (int v = 0; v < n; v++) if (a[v] < 0) ok = 0;\n"
         "return ok;", ""),
        # it may come in above or below the value the loop stores
        ("int ok = 2;\nif (n > 3) ok = 0;\n"
         "for (int v = 0; v < n; v++) if (a[v] < 0) ok = 1;\nreturn ok;", ""),
        # a parameter comes in with any value
        ("n = 0;\nfor (int v = 0; v < 99; v++) if (a[v] < 0) n = 1;\nreturn n;", ""),
        # read before any store: an uninitialised value
        ("int ok;\nb[0] = ok;\nfor (int v = 0; v < n; v++) if (a[v] < 0) ok = 0;\n"
         "return ok;", ""),
        # two different values stored
        ("int ok = 1;\nfor (int v = 0; v < n; v++) { if (a[v] < 0) ok = 0; "
         "if (a[v] > 9) ok = 2; }\nreturn ok;", ""),
        # read in the loop
        ("int ok = 1;\nfor (int v = 0; v < n; v++) { if (a[v] < 0) ok = 0; "
         "b[v] = ok; }\nreturn ok;", ""),
        # its address is taken: a callee may read it
        ("int ok = 1;\npeek(&ok);\n"
         "for (int v = 0; v < n; v++) { if (a[v] < 0) ok = 0; b[v] = look(); }\n"
         "return ok;", "void peek(int *p); int look(void);"),
        # a global a callee may read
        ("g = 1;\nfor (int v = 0; v < n; v++) if (a[v] < 0) g = 0;\nreturn g;",
         "int g;"),
        # a static local: a recursive call in the loop would share it
        ("static int ok = 1;\nfor (int v = 0; v < n; v++) if (a[v] < 0) ok = 0;\n"
         "return ok;", ""),
        # a negative value: an unsigned flag would hold it as a large one
        ("unsigned ok = 1;\nfor (int v = 0; v < n; v++) if (a[v] < 0) ok = -1;\n"
         "return (int)ok;", ""),
    ],
)  # fmt: skip
def test_other_conditional_stores_stay_refused(body: str, extra: str) -> None:
    assert _pragma(body, extra) is None


def test_a_cpp_flag_stays_refused() -> None:
    # `bump(changed)` may take it by reference and read it.
    src = dedent(
        """\
        int a[4096];
        void bump(int &x);
        int sweep(int n) {
          int changed = 0;
          for (int v = 0; v < n; v++) { if (a[v]) changed = 1; bump(changed); }
          return changed;
        }
        """
    )
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(src, "k.cpp", settings).suggestions
    assert found[0].pragma is None


def test_check_accepts_the_flag_written_with_or() -> None:
    # `||` of 0/1 copies gives what `max` gives: the checker takes either.
    src = dedent(
        """\
        #include <stdio.h>
        int main(void) {
          int a[1000];
          int found = 0;
          for (int i = 0; i < 1000; i++) a[i] = (i * 13) % 97;
        #pragma omp parallel for reduction(|| : found)
          for (int i = 0; i < 1000; i++)
            if (a[i] == 42) found = 1;
          printf("%d\\n", found);
          return 0;
        }
        """
    )
    assert not check_text(src, "k.c")
