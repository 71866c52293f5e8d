"""The table of library effects, and arrays each iteration owns."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.iteration_arrays import iteration_arrays
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.frontend import Effect, library_function, parse_source
from accls.frontend.allocator_calls import DEVICE_ALLOCATORS
from accls.frontend.library import _entries, library, names_with
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

PROLOGUE = """\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <assert.h>
double g[64];
"""


def loop_facts(body: str, setup: str = "", line: int = 0) -> tuple[bool, list[str]]:
    """Parallel? and the obstacle messages of the loop of `run`."""
    text = PROLOGUE + dedent(
        f"""\
        void run(int n, double *restrict a, double *restrict b, char **restrict s) {{
          {setup}
          for (int i = 0; i < n; i++) {{
            {body}
          }}
        }}
        """
    )
    analysis = analyze_text(text, "t.c")
    loops = [f for f in analysis.facts if f.loop.function == "run"]
    chosen = loops[line]
    return chosen.parallel, [o.message for o in chosen.obstacles]


def test_the_table_reads_every_section() -> None:
    table = library()
    assert table["sqrtf"].effect is Effect.PURE
    assert table["malloc"].effect is Effect.ALLOC
    assert table["free"].effect is Effect.FREE
    assert table["memcpy"].writes == (0,)
    assert table["memcpy"].reads == (1,)
    assert table["printf"].effect is Effect.IO
    assert table["rand"].effect is Effect.HIDDEN
    assert table["omp_get_thread_num"].effect is Effect.THREAD
    assert table["omp_get_max_threads"].effect is Effect.QUERY
    assert library_function("no_such_function") is None
    assert table["cabs"].effect is Effect.PURE  # <complex.h>, with its variants
    assert table["conjf"].effect is Effect.PURE
    assert table["qsort"].permutes == (0,)


def test_the_front_end_takes_its_allocators_from_the_table() -> None:
    assert {"acc_malloc", "omp_target_alloc"} == DEVICE_ALLOCATORS
    assert {"malloc", "calloc", "aligned_alloc"} <= names_with(Effect.ALLOC)
    assert "sqrt" in PURE_FUNCTIONS
    assert "omp_get_max_threads" in PURE_FUNCTIONS
    assert "strlen" not in PURE_FUNCTIONS  # it reads through its argument


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"pure": {"names": ["f", "f"]}}, "listed twice"),
        ({"pure": {"names": "f"}}, "list of names"),
        ({"memory": {"f": {"writes": ["0"]}}}, "list of positions"),
        ({"memory": {"f": 3}}, "must be a table"),
    ],
)
def test_a_malformed_table_is_refused(raw: dict[str, object], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        _entries(raw)


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ('printf("%f\\n", a[i]);', "which does I/O in order"),
        ("a[i] = rand();", "hidden state shared by every call"),
        ("a[i] = omp_get_thread_num();", "depends on the thread"),
        ("a[i] = omp_get_wtime();", "depends on the thread or the time"),
        # `lgamma` stores the result's sign in the global `signgam`.
        ("a[i] = lgamma(b[i]);", "hidden state shared by every call"),
    ],
)
def test_calls_with_effects_refuse_the_loop_and_say_which(body: str, why: str) -> None:
    parallel, messages = loop_facts(body)
    assert not parallel
    assert any(why in m for m in messages), messages


@pytest.mark.parametrize("call", ["frexp(b[i], &e)", "modf(b[i], &w)"])
def test_a_math_function_storing_through_a_shared_pointer_is_refused(
    call: str,
) -> None:
    # The second result lands in one variable for every iteration.
    parallel, messages = loop_facts(
        f"a[i] = {call} + e + w;", "int e = 0; double w = 0;"
    )
    assert not parallel
    assert any("writes through" in m for m in messages), messages


def test_a_query_constant_for_the_run_is_pure() -> None:
    parallel, messages = loop_facts("a[i] = b[i] * omp_get_max_threads();")
    assert parallel, messages


def test_a_block_allocated_and_freed_in_the_body_is_the_iterations_own() -> None:
    body = """double *t = malloc(8 * sizeof *t);
    for (int j = 0; j < 8; j++) t[j] = b[i] * j;
    a[i] = t[0] + t[7];
    free(t);"""
    parallel, messages = loop_facts(body)
    assert parallel, messages


@pytest.mark.parametrize(
    "body",
    [
        "free(s[i]);",  # another iteration may still use what s[i] points to
        "double *t = malloc(8); g[0] = t[0]; free(t); free(t);",
        "double *t = b; free(t);",  # not a block of its own
    ],
)
def test_freeing_memory_the_iteration_does_not_own_is_refused(body: str) -> None:
    parallel, _ = loop_facts(body)
    assert not parallel


def test_memcpy_into_a_local_row_is_private() -> None:
    parallel, messages = loop_facts("double row[8]; memcpy(row, b, sizeof row);")
    assert parallel, messages
    # Into a shared array: rows 8 apart, 8 long, are disjoint (range_arguments);
    # ranges that start one apart overlap.
    parallel, messages = loop_facts("memcpy(&a[i * 8], b, 8 * sizeof *a);")
    assert parallel, messages
    parallel, _ = loop_facts("memcpy(&a[i], b, 8 * sizeof *a);")
    assert not parallel


def test_a_read_through_a_library_call_sees_the_loops_writes() -> None:
    parallel, messages = loop_facts("a[i] = strlen(s[0]); s[0][i] = 'x';")
    assert not parallel
    assert any("strlen" in m for m in messages), messages
    # `s[i]` is a pointer read from `s`: the callee reads what it points to,
    # refused as the loop's own `a[i] = s[i][0]` is (no proof it misses `a`).
    parallel, messages = loop_facts("a[i] = strtod(s[i], NULL);")
    assert not parallel
    assert any("`s[i]` through an argument" in m for m in messages), messages


def test_a_function_the_program_defines_wins_over_the_table() -> None:
    text = PROLOGUE + dedent(
        """\
        int rand(void) { return 4; }
        void run(int n, double *restrict a) {
          for (int i = 0; i < n; i++) a[i] = rand();
        }
        """
    )
    facts = [f for f in analyze_text(text, "t.c").facts if f.loop.function == "run"]
    assert facts[0].parallel, [o.message for o in facts[0].obstacles]


def test_a_temporary_array_declared_in_the_body_carries_nothing() -> None:
    body = """double t[16];
    for (int j = 0; j < 16; j++) t[j] = b[i] + j;
    a[i] = t[3] - t[11];"""
    parallel, messages = loop_facts(body)
    assert parallel, messages


@pytest.mark.parametrize(
    ("body", "setup"),
    [
        ("static double t[4]; t[i % 4] += b[i]; a[i] = t[0];", ""),
        # The name also names an array outside the loop: references may mean it.
        ("t[0] += b[i]; { double t[4]; t[1] = b[i]; a[i] = t[1]; }", "double t[4];"),
    ],
)
def test_scratch_that_is_not_the_iterations_own_stays_a_dependence(
    body: str, setup: str
) -> None:
    parallel, _ = loop_facts(body, setup)
    assert not parallel


@pytest.mark.parametrize(
    ("model", "target"),
    [(Dialect.OPENACC, Target.GPU), (Dialect.OPENMP, Target.GPU)],
)
def test_offloaded_loops_refuse_host_library_calls(
    model: Dialect, target: Target
) -> None:
    text = PROLOGUE + dedent(
        """\
        void run(int n, double *restrict a, const double *restrict b) {
          for (int i = 0; i < n; i++) {
            double *t = malloc(8 * sizeof *t);
            for (int j = 0; j < 8; j++) t[j] = b[i] * j;
            a[i] = t[0] + t[7];
            free(t);
          }
        }
        """
    )
    analysis = analyze_text(
        text, "t.c", options=AnalysisOptions(dialect=model.sentinel)
    )
    found = suggest_file(analysis, SuggestOptions(model, target))
    outer = next(s for s in found if s.loop.function == "run")
    assert outer.pragma is None
    assert any("device heap" in r for r in outer.reasons)
    cpu = suggest_file(
        analyze_text(text, "t.c"), SuggestOptions(Dialect.OPENMP, Target.CPU)
    )
    chosen = next(s for s in cpu if s.loop.function == "run").pragma
    assert chosen is not None
    assert chosen.render() == "#pragma omp parallel for"


@pytest.mark.parametrize(
    ("body", "owned"),
    [
        ("double t[4]; t[0] = b[i]; a[i] = t[0];", {"t"}),
        ("double *t = malloc(32); t[0] = b[i]; a[i] = t[0]; free(t);", {"t"}),
        # Its value leaves the locals: another iteration may reach the block.
        ("double *t = malloc(32); t[0] = b[i]; s[i] = (char *)t;", set()),
        ("double *t = malloc(32); double **p = &t; (*p)[0] = b[i];", set()),
        ("double *t = b + i; t[0] = 1.0;", set()),
    ],
)
def test_which_arrays_the_iteration_owns(body: str, owned: set[str]) -> None:
    text = PROLOGUE + dedent(
        f"""\
        void run(int n, double *restrict a, double *restrict b, char **restrict s) {{
          for (int i = 0; i < n; i++) {{
            {body}
          }}
        }}
        """
    )
    source = parse_source(text, "t.c")
    loop = next(lp for lp in source.loops() if lp.function == "run")
    assert iteration_arrays(loop, source.function("run"), source) == owned


def test_an_assert_in_the_body_does_not_refuse_the_loop() -> None:
    parallel, messages = loop_facts("a[i] = b[i]; assert(a[i] >= 0.0);")
    assert parallel, messages


def test_where_the_loop_runs_is_a_query_the_same_in_every_iteration() -> None:
    assert library()["omp_is_initial_device"].effect is Effect.QUERY
    assert library()["acc_on_device"].effect is Effect.QUERY
    ok, why = loop_facts("a[i] = omp_is_initial_device() ? b[i] : 0.0;")
    assert ok, why


SORTERS = """\
static int by_value(const void *x, const void *y) {
  const double *l = x, *r = y;
  return (*l > *r) - (*l < *r);
}
static int calls;
static int counting(const void *x, const void *y) {
  calls++;
  return *(const double *)x < *(const double *)y;
}
"""


def test_qsort_of_a_local_array_with_a_pure_comparator_is_private() -> None:
    assert library()["qsort"].calls == (3,)
    body = (
        "double t[4]; for (int k = 0; k < 4; k++) t[k] = b[4 * i + k];"
        " qsort(t, 4, sizeof t[0], by_value); a[i] = t[0];"
    )
    text = (
        PROLOGUE
        + SORTERS
        + dedent(
            f"""\
        void run(int n, double *restrict a, double *restrict b) {{
          for (int i = 0; i < n; i++) {{ {body} }}
        }}
        void run2(int n, double *restrict a, double *restrict b) {{
          for (int i = 0; i < n; i++) {{ {body.replace("by_value", "counting")} }}
        }}
        """
        )
    )
    facts = analyze_text(text, "t.c").facts
    first = next(f for f in facts if f.loop.function == "run")
    second = next(f for f in facts if f.loop.function == "run2")
    assert first.parallel, [o.message for o in first.obstacles]
    assert not second.parallel
    assert any("calls back `counting()`" in o.message for o in second.obstacles)


def test_bit_builtins_are_pure() -> None:
    """`__builtin_popcountll(w[i])`: a checksum over words is a reduction."""
    parallel, why = loop_facts(
        "a[i] = __builtin_popcountll((unsigned long long)b[i])"
        " + __builtin_ctz((unsigned)i | 1u) + __builtin_bswap32((unsigned)i);"
    )
    assert parallel, why
    entry = library_function("__builtin_clzll")
    assert entry is not None
    assert entry.effect is Effect.PURE


def test_a_complex_math_call_is_pure() -> None:
    ok, why = loop_facts("a[i] = cabs(b[i]) + creal(b[i]);")
    assert ok, why
