"""Loops that may end the program (`exit`, `abort`, `std::exit`, `throw`) say so."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, ObstacleCode, analyze
from accls.frontend import parse_source


def _obstacles(text: str, path: str) -> list[tuple[str, str]]:
    source = parse_source(dedent(text), path)
    analysis = analyze(source, AnalysisOptions(assume_no_alias=True))
    (facts,) = analysis.facts
    return [(str(o.code), o.message) for o in facts.obstacles]


def test_exit_in_c_may_end_the_program_and_is_no_unknown_call() -> None:
    found = _obstacles(
        """\
        #include <stdlib.h>
        void f(double *a, int n) {
          for (int i = 0; i < n; i++) {
            if (a[i] < 0) abort();
            a[i] = 2 * a[i];
          }
        }
        """,
        "k.c",
    )
    assert found == [
        (
            str(ObstacleCode.EXIT),
            "`abort()` at line 4 may end the program: run in parallel, other "
            "threads' iterations, past the one that ends it, may already have run "
            "(their writes and output), where the loop in order stops there",
        )
    ]


def test_std_exit_in_cpp_is_an_exit() -> None:
    found = _obstacles(
        """\
        #include <cstdlib>
        void f(double *a, int n) {
          for (int i = 0; i < n; i++) {
            if (a[i] < 0) std::exit(1);
            a[i] = 2 * a[i];
          }
        }
        """,
        "k.cpp",
    )
    assert [code for code, _ in found] == [str(ObstacleCode.EXIT)]
    assert found[0][1].startswith("`std::exit()` at line 4 may end the program")


def test_a_throw_leaving_the_loop_may_end_the_program() -> None:
    found = _obstacles(
        """\
        void f(double *a, int n) {
          for (int i = 0; i < n; i++) {
            if (a[i] < 0) throw 1;
            a[i] = 2 * a[i];
          }
        }
        """,
        "k.cpp",
    )
    assert any("`throw` at line 3 may end the program" in m for _, m in found)


def test_a_function_of_the_file_named_exit_stays_a_call() -> None:
    found = _obstacles(
        """\
        static int fails = 0;
        void exit(int code) { fails += code; }
        void f(double *a, int n) {
          for (int i = 0; i < n; i++) {
            if (a[i] < 0) exit(1);
          }
        }
        """,
        "k.c",
    )
    assert str(ObstacleCode.CALL) in {code for code, _ in found}
