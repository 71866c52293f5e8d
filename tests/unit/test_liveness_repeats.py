"""A scalar a loop writes is live when an enclosing `while` or `do` reads it again.

The harm it caught (harm_blind3 `k07`): `while (changed) { changed = 0; for
(...) if (...) changed = 1; }` got `private(changed)`, so the flag never left
the loop and the search stopped after one sweep.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.frontend import Loop, parse_source
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect


def _inner(body: str) -> Loop:
    src = f"void f(int n, int *a, int *b) {{\n{dedent(body)}\n}}\n"
    return next(loop for loop in parse_source(src).loops() if loop.var == "v")


@pytest.mark.parametrize(
    "body",
    [
        # the condition of an enclosing `while`
        """\
        int changed = 1;
        while (changed) {
          changed = 0;
          for (int v = 0; v < n; v++) if (a[v] != b[v]) changed = 1;
        }
        """,
        # a statement before the loop in the body of an enclosing `do`
        """\
        int changed = 0, sweeps = 0;
        do {
          sweeps += changed;
          for (int v = 0; v < n; v++) if (a[v] != b[v]) changed = 1;
        } while (sweeps < 3);
        """,
        # an enclosing `while` around an enclosing block
        """\
        int changed = 1;
        while (changed) {
          { for (int v = 0; v < n; v++) if (a[v]) changed = 0; }
        }
        """,
    ],
)
def test_a_read_around_the_back_edge_of_a_while_or_do_is_live(body: str) -> None:
    assert "changed" in _inner(body).live_after


def test_a_write_before_any_read_in_the_repeating_body_kills_it() -> None:
    loop = _inner(
        """\
        int t = 0, k = 0;
        while (k < n) {
          t = 0;
          for (int v = 0; v < n; v++) { t = a[v]; b[v] = t; }
          k++;
        }
        """
    )
    assert "t" not in loop.live_after


def test_a_flag_of_a_while_loop_is_not_made_private() -> None:
    src = dedent(
        """\
        int a[4096], b[4096];
        int sweep(int n) {
          int changed = 1, sweeps = 0;
          while (changed) {
            changed = 0;
            for (int v = 0; v < n; v++) {
              if (a[v] != b[v]) changed = 1;
              b[v] = a[v] / 2;
            }
            sweeps++;
          }
          return sweeps;
        }
        """
    )
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(src, "k.c", settings).suggestions
    spelled = [s.pragma.render() for s in found if s.pragma is not None]
    assert not any("private(changed)" in p for p in spelled)


def test_a_fortran_do_while_reads_the_flag_again() -> None:
    text = dedent(
        """\
        subroutine f(a, b, n)
          integer :: n, v
          integer :: a(n), b(n)
          logical :: changed
          changed = .true.
          do while (changed)
            changed = .false.
            do v = 1, n
              if (a(v) /= b(v)) changed = .true.
              b(v) = a(v)
            end do
          end do
        end subroutine
        """
    )
    inner = next(lp for lp in parse_source(text, "k.f90").loops() if lp.line == 8)
    assert "changed" in inner.live_after
