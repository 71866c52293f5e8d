"""Object-like macros that stand for code are read as the code they stand for.

`#define PREV a[i - 1]` hides a read of `a`, `#define NEXT rand()` a call and
`#define BUMP cnt++` a write: read as bare names, the loops using them looked
free of the dependence, the hidden state or the shared counter, and got a
`parallel for` that races. Macros of constants (`#define N 100`) stay names.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.frontend import parse_source
from accls.frontend.macros import MacroTable, constant_macro, expand_objects
from accls.frontend.poly import Poly
from accls.pipeline import check_text
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

OMP = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)


def pragmas(text: str, path: str = "m.c") -> list[str | None]:
    analysis = analyze_text(
        dedent(text), path=path, options=AnalysisOptions(dialect=OMP.dialect.sentinel)
    )
    return [
        s.pragma.render() if s.pragma else None for s in suggest_file(analysis, OMP)
    ]


HIDDEN = {
    "a read of the previous element": (
        "#define PREV (a[i - 1])",
        "for (int i = 1; i < n; i++) a[i] = PREV + 1;",
    ),
    "a call with hidden state": (
        "#define RND (rand() % 100)",
        "for (int i = 0; i < n; i++) a[i] = RND;",
    ),
    "a shared counter stepped": (
        "#define BUMP (cnt++)",
        "for (int i = 0; i < n; i++) a[i] = BUMP;",
    ),
    "a scalar read before this iteration writes it": (
        "#define CUR y",
        "for (int i = 0; i < n; i++) { a[i] += CUR; y = a[i] + i; }",
    ),
    "a statement that steps a shared counter": (
        "#define COUNT do { cnt++; } while (0)",
        "for (int i = 0; i < n; i++) { a[i] = i; if (i % 3 == 0) COUNT; }",
    ),
}


def program(define: str, loop: str) -> str:
    return (
        f"#include <stdlib.h>\n{define}\ndouble a[1000], y;\nint cnt;\n"
        f"void f(int n) {{\n  {loop}\n}}\n"
    )


@pytest.mark.parametrize("path", ["m.c", "m.cpp"])
@pytest.mark.parametrize("case", sorted(HIDDEN))
def test_a_loop_using_a_macro_that_hides_code_is_not_parallel(
    case: str, path: str
) -> None:
    define, loop = HIDDEN[case]
    assert pragmas(program(define, loop), path) == [None]


def test_the_read_a_macro_hides_is_the_element_it_names() -> None:
    source = parse_source(program(*HIDDEN["a read of the previous element"]))
    reads = [r for r in source.nests[0].refs if r.name == "a" and not r.is_write]
    assert [r.subscripts[0].poly for r in reads] == [Poly.sym("i") - Poly.const(1)]


def test_the_findings_check_sees_the_race_a_macro_hides() -> None:
    define, loop = HIDDEN["a read of the previous element"]
    text = program(define, "#pragma omp parallel for\n  " + loop)
    assert any(f.kind.category == "race" for f in check_text(text, "m.c"))


def test_macros_of_constants_and_of_the_loop_variable_keep_loops_parallel() -> None:
    text = """
    #define N 1000
    #define SIZE (N * sizeof(double))
    #define AT (2 * i + 1)
    double a[2 * N + 2];
    void f(void) {
      for (int i = 0; i < N; i++) a[AT] = SIZE;
    }
    """
    assert pragmas(text) == ["#pragma omp parallel for"]


def test_constant_macros_name_only_numbers_types_and_other_constants() -> None:
    table = MacroTable(
        objects={
            "N": "1000",
            "BYTES": "(N * sizeof(double))",
            "EPS": "1e-9",
            "MASK": "0x1FUL",
            "NAME": '"a b"',
            "EMPTY": "",
            "PREV": "a[i - 1]",
            "NEXT": "rand()",
            "SELF": "SELF",
            "LOOP": "LOOP2 + 1",
            "LOOP2": "LOOP * 2",
        }
    )
    constants = {name for name in table.objects if constant_macro(name, table)}
    assert constants == {"N", "BYTES", "EPS", "MASK", "NAME", "EMPTY"}


def test_object_macros_expand_as_cpp_does_without_parentheses() -> None:
    table = MacroTable(objects={"N": "8", "OFF": "i + 1", "SELF": "SELF"})
    assert expand_objects("2 * OFF + N + SELF", table) == "2 * i + 1 + N + SELF"


def test_a_macro_reading_an_array_between_two_kernels_ends_the_data_region() -> None:
    text = """
    #define PROBE (b[3])
    void f(int n, const double *restrict a, double *restrict b, double *restrict c) {
      double x;
      for (int i = 0; i < n; i++) b[i] = 2 * a[i];
      x = PROBE;
      for (int i = 0; i < n; i++) c[i] = b[i] + x;
    }
    """
    acc = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    analysis = analyze_text(
        dedent(text), options=AnalysisOptions(dialect=acc.dialect.sentinel)
    )
    found = suggest_file(analysis, acc)
    assert [s.pragma is not None for s in found] == [True, True]
    assert all(s.region is None for s in found)
