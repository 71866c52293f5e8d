"""Array-syntax parameters (`double x[N]`) are pointers in C: a call of the file,
or of another file of the project, that passes one array to two of them
(`f(a + 1, a)`) makes their loop unsafe."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.project import ProjectIndex

_TEXT = """
#include <stdlib.h>
#define N 1000
double a[N + 1], b[N + 1], u[2][N];
void f(double x[], double y[N], int n) {
  for (int i = 0; i < n; i++) x[i] = y[i] * 0.5;
}
void call(void) {
  double *p = a + 1;
  double *m1 = malloc(8 * N), *m2 = malloc(8 * N);
  f(ARGS, N);
}
"""


def _kernel(args: str, assume: bool = False):  # type: ignore[no-untyped-def]
    text = dedent(_TEXT).replace("ARGS", args)
    facts = analyze_text(text, options=AnalysisOptions(assume_no_alias=assume)).facts
    return next(f for f in facts if f.loop.line == 6)


@pytest.mark.parametrize("args", ["a + 1, a", "p, a", "(double *)(a + 1), a"])
@pytest.mark.parametrize("assume", [False, True])
def test_one_array_passed_twice_blocks_the_loop(args: str, assume: bool) -> None:
    fact = _kernel(args, assume)
    assert not fact.parallel
    assert any("may be one array" in o.message for o in fact.obstacles)


@pytest.mark.parametrize("args", ["a, b", "u[0], u[1]", "m1, m2", "m1, a"])
def test_distinct_arrays_keep_the_stated_assumption(args: str) -> None:
    fact = _kernel(args)
    assert fact.parallel
    assert any("distinct arrays" in a for a in fact.assumptions)


_KERNEL = """\
void shift(double a[], double b[], int n) {
  for (int i = 0; i < n; i++) a[i] = b[i] + 1.0;
}
"""
_CALLER = """\
#include <stdlib.h>
void shift(double a[], double b[], int n);
void run(int n) {
  double *a = malloc((n + 1) * sizeof(double));
  double *c = malloc((n + 1) * sizeof(double));
  shift(ARGS, n);
}
"""


def _project_kernel(  # type: ignore[no-untyped-def]
    root: Path,
    args: str | None,
    edit: str | None = None,
    files: dict[str, str] | None = None,
):
    """The kernel's loop, analysed with what the index knows of the other files."""
    root.mkdir()
    kernel = root / "kernel.c"
    kernel.write_text(_KERNEL)
    if args is not None:
        (root / "main.c").write_text(_CALLER.replace("ARGS", args))
    for name, text in (files or {}).items():
        (root / name).write_text(text)
    index = ProjectIndex(str(root), cache_dir=str(root.parent / "cache"))
    index.build()
    if edit is not None:  # the other file edited after the index was built
        index.update(str(root / "main.c"), _CALLER.replace("ARGS", edit))
    options = AnalysisOptions(program=index.program_for(str(kernel)))
    return analyze_text(_KERNEL, str(kernel), options=options).facts[0]


@pytest.mark.parametrize("args", ["a + 1, a", "c, &c[1]"])
def test_a_call_in_another_file_passing_one_array_twice_blocks(
    tmp_path: Path, args: str
) -> None:
    fact = _project_kernel(tmp_path / "proj", args)
    assert not fact.parallel
    assert any("main.c" in o.message for o in fact.obstacles)


def test_an_edit_of_the_other_file_is_seen(tmp_path: Path) -> None:
    fact = _project_kernel(tmp_path / "proj", "a, c", edit="a + 1, a")
    assert not fact.parallel
    fact = _project_kernel(tmp_path / "again", "a + 1, a", edit="a, c")
    assert fact.parallel


def test_the_cached_index_keeps_the_overlapping_call(tmp_path: Path) -> None:
    _project_kernel(tmp_path / "proj", "a + 1, a")
    index = ProjectIndex(str(tmp_path / "proj"), cache_dir=str(tmp_path / "cache"))
    index.build()
    assert index.parses == 0  # read back from the cache
    program = index.program_for(str(tmp_path / "proj" / "kernel.c"))
    assert [(o.callee, o.first, o.second) for o in program.overlaps] == [
        ("shift", 0, 1)
    ]


def test_calls_in_another_file_passing_distinct_arrays_keep_the_loop(
    tmp_path: Path,
) -> None:
    fact = _project_kernel(tmp_path / "proj", "a, c")
    assert fact.parallel
    assert any("in sight passes one array twice" in a for a in fact.assumptions)


def test_with_no_call_in_sight_the_assumption_says_so(tmp_path: Path) -> None:
    fact = _project_kernel(tmp_path / "proj", None)
    assert fact.parallel
    assert any("no call of `shift()` is in sight" in a for a in fact.assumptions)


_WRAP = """\
void shift(double a[], double b[], int n);
void wrap(double *p, double *q, int n) { shift(q, p, n); }
"""


@pytest.mark.parametrize(("args", "parallel"), [("a + 1, a", False), ("a, c", True)])
def test_a_wrapper_passes_its_callers_arrays_on(
    tmp_path: Path, args: str, parallel: bool
) -> None:
    """`run` calls `wrap(a + 1, a)` in a third file; `wrap` calls `shift(q, p)`."""
    root = tmp_path / "proj"
    caller = _CALLER.replace("shift(ARGS", "wrap(ARGS").replace(
        "void shift(double a[], double b[], int n);",
        "void wrap(double *, double *, int);",
    )
    fact = _project_kernel(
        root, None, files={"wrap.c": _WRAP, "main.c": caller.replace("ARGS", args)}
    )
    assert fact.parallel is parallel
    if not parallel:
        assert any("passes them on to `shift`" in o.message for o in fact.obstacles)


def test_a_wrapper_in_the_same_file_passes_them_on() -> None:
    text = dedent(_TEXT).replace("f(ARGS, N);", "g(a + 1, a);") + (
        "void g(double *p, double *q) { f(p, q, N); }\n"
    )
    fact = next(f for f in analyze_text(text).facts if f.loop.line == 6)
    assert not fact.parallel


_RESTRICT = """
#define N 1000
double a[N + 1], b[N + 1];
void f(PARAMS, int n) {
  for (int i = 0; i < n; i++) x[i] = y[i] * 0.5;
}
void call(void) { f(ARGS, N); }
"""


def _promised(params: str, args: str, assume: bool = False):  # type: ignore[no-untyped-def]
    text = _RESTRICT.replace("PARAMS", params).replace("ARGS", args)
    facts = analyze_text(text, options=AnalysisOptions(assume_no_alias=assume)).facts
    return next(f for f in facts if f.loop.line == 5)


@pytest.mark.parametrize(
    ("params", "assume"),
    [
        ("double *restrict x, const double *restrict y", False),
        ("double *restrict x, const double *y", False),
        ("double *x, const double *__restrict__ y", False),
        ("double *x, const double *y", True),
        ("double x[], const double *y", True),
    ],
)
def test_a_call_breaking_the_promise_of_distinct_parameters_blocks(
    params: str, assume: bool
) -> None:
    """`restrict` and assume-no-alias promise what `f(a + 1, a)` breaks."""
    fact = _promised(params, "a + 1, a", assume)
    assert not fact.parallel
    assert any(
        "may be one array: line 7 passes `a + 1` and `a` to `f`" in o.message
        for o in fact.obstacles
    )


@pytest.mark.parametrize("args", ["a, b", "a + 1, b"])
def test_restrict_parameters_passed_distinct_arrays_stay_parallel(args: str) -> None:
    fact = _promised("double *restrict x, const double *restrict y", args)
    assert fact.parallel


def test_a_restrict_promise_broken_in_another_file_blocks(tmp_path: Path) -> None:
    kernel = "void g(double *restrict a, const double *restrict b, int n) {\n"
    kernel += "  for (int i = 0; i < n; i++) a[i] = b[i] + 1.0;\n}\n"
    caller = "void g(double *restrict, const double *restrict, int);\n"
    caller += "double v[101];\nvoid run(void) { g(v + 1, v, 100); }\n"
    root = tmp_path / "proj"
    root.mkdir()
    (root / "kernel.c").write_text(kernel)
    (root / "main.c").write_text(caller)
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    index.build()
    options = AnalysisOptions(program=index.program_for(str(root / "kernel.c")))
    fact = analyze_text(kernel, str(root / "kernel.c"), options=options).facts[0]
    assert not fact.parallel
    assert any("main.c" in o.message for o in fact.obstacles)


def test_a_fortran_call_passing_one_array_to_two_dummies_blocks() -> None:
    """Dummies may not overlap (the standard's rule); `call f(n, x(2), x)` breaks it."""
    text = dedent(
        """\
        subroutine f(n, a, b)
          integer :: n, i
          real(8) :: a(*), b(*)
          do i = 1, n
            a(i) = b(i) * 0.5d0
          end do
        end subroutine f
        subroutine run(x)
          real(8) :: x(101)
          call f(100, x(2), x)
        end subroutine run
        """
    )
    fact = next(f for f in analyze_text(text, "f.f90").facts if f.loop.function == "f")
    assert not fact.parallel
    assert any("passes `x(2)` and `x` to `f`" in o.message for o in fact.obstacles)


@pytest.mark.parametrize("where", ["file", "project"])
def test_pointers_of_unknown_origin_keep_the_restrict_promise(
    tmp_path: Path, where: str
) -> None:
    """Two locals set from calls may be one array, but `restrict` said they are not."""
    kernel = "void g(double *restrict a, const double *restrict b, int n) {\n"
    kernel += "  for (int i = 0; i < n; i++) a[i] = b[i] + 1.0;\n}\n"
    caller = "double *load(int);\n"
    caller += "void run(void) { double *x = load(1), *y = load(2); g(y, x, 100); }\n"
    if where == "file":
        fact = analyze_text(kernel + caller).facts[0]
    else:
        root = tmp_path / "proj"
        root.mkdir()
        (root / "kernel.c").write_text(kernel)
        (root / "main.c").write_text(
            "void g(double *restrict, const double *restrict, int);\n" + caller
        )
        index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
        index.build()
        options = AnalysisOptions(program=index.program_for(str(root / "kernel.c")))
        fact = analyze_text(kernel, str(root / "kernel.c"), options=options).facts[0]
    assert fact.parallel
