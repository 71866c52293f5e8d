"""`Release(&p)`: a callee that only frees or fills `*p` is no escape of `p`."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source

INIT = """\
    #include <stdlib.h>
    static void init(double *a, double *b, int n) {
      for (int i = 0; i < n; i++) { a[i] = 1.0; b[i] = a[i] * 2.0; }
    }
    """


def _run(helper: str, body: str, name: str = "k.c") -> tuple[bool, dict[str, bool]]:
    """Whether init's loop is parallel, and which locals of `run` escape."""
    text = dedent(INIT) + dedent(helper) + dedent(body)
    source = parse_source(text, name)
    run = source.function("run")
    assert run is not None
    taken = {v.name: v.address_taken for v in run.locals if v.pointers}
    [fact] = [f for f in analyze(source).facts if f.loop.function == "init"]
    return fact.parallel, taken


RUN = """\
    void run(int n) {
      double *a = malloc(n * sizeof *a);
      double *b = malloc(n * sizeof *b);
      init(a, b, n);
      release(&a);
      release(&b);
    }
    """


def test_a_release_that_frees_and_nulls_is_no_escape() -> None:
    parallel, taken = _run(
        """\
        static void release(double **p) {
          if (*p != NULL) {
            free(*p);
            *p = NULL;
          }
        }
        """,
        RUN,
    )
    assert taken == {"a": False, "b": False}
    assert parallel


def test_a_filler_that_stores_a_fresh_block_makes_the_pointer_fresh() -> None:
    parallel, taken = _run(
        """\
        static void make(double **p, int n) { *p = malloc(n * sizeof **p); }
        """,
        """\
        void run(int n) {
          double *a;
          double *b;
          make(&a, n);
          make(&b, n);
          init(a, b, n);
          free(a);
          free(b);
        }
        """,
    )
    assert taken == {"a": False, "b": False}
    assert parallel


def test_a_callee_that_keeps_the_pointer_is_an_escape() -> None:
    parallel, taken = _run(
        """\
        static double *kept;
        static void release(double **p) { kept = *p; *p = NULL; }
        """,
        RUN,
    )
    assert taken == {"a": True, "b": True}
    assert not parallel


def test_a_callee_that_stores_another_pointer_is_an_escape() -> None:
    _, taken = _run(
        """\
        static double buffer[64];
        static void release(double **p) { *p = buffer; }
        """,
        RUN,
    )
    assert taken == {"a": True, "b": True}


def test_the_lulesh_template_release_in_cpp() -> None:
    parallel, taken = _run(
        """\
        template <typename T> void release(T **ptr) {
          if (*ptr != NULL) { free(*ptr); *ptr = NULL; }
        }
        template <typename T> T *allocate(size_t n) {
          return static_cast<T *>(malloc(sizeof(T) * n));
        }
        """,
        """\
        void run(int n) {
          double *a = allocate<double>(n);
          double *b = allocate<double>(n);
          init(a, b, n);
          release(&a);
          release<double>(&b);
        }
        """,
        "k.cpp",
    )
    assert taken == {"a": False, "b": False}
    assert parallel


def test_two_definitions_of_one_name_are_not_trusted() -> None:
    source = parse_source(
        dedent(
            """\
            #include <stdlib.h>
            namespace x { void release(double **p) { free(*p); *p = 0; } }
            namespace y { double *kept; void release(double **p) { kept = *p; } }
            """
        ),
        "k.cpp",
    )
    assert source.pointer_slots == frozenset()
