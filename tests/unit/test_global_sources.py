"""A global pointer the program sets from another array or pointer (`gq = g + 1`,
anywhere in the file) shares its storage: assume-no-alias must not lift the
refusal of a loop that writes one and reads the other."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.project import BuildFlags, build_context

_TEXT = """
#include <stdlib.h>
#define N 1000
double *g, *gq, *h;
double arr[N + 1];
DECL
void setup(void) {
  double *t = malloc((N + 1) * sizeof(double));
  g = malloc((N + 1) * sizeof(double));
  h = malloc((N + 1) * sizeof(double));
  SET
}
void kernel(int n) {
  for (int i = 0; i < n; i++) gq[i] = READ[i] * 0.5;
}
"""


def _kernel(decl: str, set_: str, read: str = "g"):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("DECL", decl).replace("SET", set_).replace("READ", read)
    options = AnalysisOptions(assume_no_alias=True)
    facts = analyze_text(text, options=options).facts
    return next(f for f in facts if f.loop.function == "kernel")


@pytest.mark.parametrize(
    ("decl", "set_", "read"),
    [
        ("", "gq = g + 1;", "g"),
        ("", "gq = &g[1];", "g"),
        ("", "t = g; gq = t + 1;", "g"),
        ("", "gq = h; h = g;", "g"),
        ("double *ga = arr + 1;", "gq = ga;", "arr"),
        ("double *ga = arr + 1;", "gq = arr;", "ga"),
    ],
)
def test_a_pointer_the_program_sets_from_the_other_is_refused(
    decl: str, set_: str, read: str
) -> None:
    fact = _kernel(decl, set_, read)
    assert not fact.parallel
    assert any("so they point into one object" in o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    "set_", ["gq = t;", "gq = malloc(N * sizeof(double));", "gq = h;"]
)
def test_pointers_set_apart_keep_the_assumption(set_: str) -> None:
    fact = _kernel("", set_)
    assert fact.parallel
    assert any("assume-no-alias" in a for a in fact.assumptions)


def test_a_local_of_the_same_name_is_not_the_global() -> None:
    text = _TEXT.replace("DECL", "void other(double *g) { double *gq = g; }")
    text = text.replace("SET", "gq = t;").replace("READ", "g")
    facts = analyze_text(text, options=AnalysisOptions(assume_no_alias=True)).facts
    assert next(f for f in facts if f.loop.function == "kernel").parallel


@pytest.mark.parametrize(
    ("decl", "loop"),
    [
        ("double *restrict gr;\nvoid init(void) { gr = g + 1; }", "gr[i] = g[i]"),
        ("", "double *restrict p = g + 1;\n  for (int i = 0; i < n; i++) p[i] = g[i]"),
    ],
)
def test_a_restrict_pointer_the_program_sets_from_the_other_is_refused(
    decl: str, loop: str
) -> None:
    """`restrict`: no other pointer reaches its object; `gr = g + 1` breaks that."""
    text = f"double *g;\n{decl}\nvoid kernel(int n) {{\n"
    if not loop.startswith("double"):
        loop = f"for (int i = 0; i < n; i++) {loop}"
    text += f"  {loop} * 0.5;\n}}\n"
    facts = analyze_text(text).facts
    fact = next(f for f in facts if f.loop.function == "kernel")
    assert not fact.parallel
    assert any("so they point into one object" in o.message for o in fact.obstacles)


_PASSED = """
#define N 1000
double *gp;
double A[N + 1], B[N + 1];
void init(double *p) { gp = p; }
void wrap(double *q) { init(q); }
void kernel(double *a, int n) {
  for (int i = 0; i < n; i++) gp[i] = READ[i] * 0.5;
}
void run(void) {
  static double buf[N + 1];
  CALLS
}
"""


def _passed(calls: str, read: str):  # type: ignore[no-untyped-def]
    text = _PASSED.replace("CALLS", calls).replace("READ", read)
    facts = analyze_text(text, options=AnalysisOptions(assume_no_alias=True)).facts
    return next(f for f in facts if f.loop.function == "kernel")


@pytest.mark.parametrize(
    ("calls", "read"),
    [
        ("init(A + 1);", "A"),
        ("init(&A[1]);", "A"),
        ("wrap(A + 1);", "A"),  # through a second parameter
        ("init(buf + 1); kernel(buf, N);", "a"),  # a caller's array, a parameter
        ("init(B); kernel(A, N); init(A + 1);", "a"),
    ],
)
def test_a_global_set_from_a_parameter_shares_what_the_callers_pass(
    calls: str, read: str
) -> None:
    """`gp = p` in `init`: `gp` points wherever the file's calls of `init` say."""
    fact = _passed(calls, read)
    assert not fact.parallel
    assert any("so they point into one object" in o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    ("calls", "read"), [("init(B);", "A"), ("init(B); kernel(A, N);", "a")]
)
def test_a_global_set_from_a_parameter_apart_keeps_the_assumption(
    calls: str, read: str
) -> None:
    fact = _passed(calls, read)
    assert fact.parallel


_RECURSIVE = """\
recursive function walk(a, n) result(r)
  integer, intent(in) :: n
  logical, dimension(n), intent(in) :: a
  logical, dimension(n - 1) :: passed
  logical :: r
  integer :: y
  r = .true.
  if (n == 0) return
  do y = 1, n - 1
    passed(y) = a(y)
  end do
  r = walk(passed, n - 1)
end function walk
"""


def test_a_recursive_call_passes_another_frames_local() -> None:
    """`walk(passed, ...)`: the callee's `a` is the caller frame's `passed`."""
    (fact,) = analyze_text(_RECURSIVE, path="walk.f90").facts
    assert fact.parallel, [o.message for o in fact.obstacles]


def test_a_header_declaration_reads_no_assignment_from_the_file(
    tmp_path: Path,
) -> None:
    """A header's `gp` has the translation unit's offsets: the file's text there
    (a comment `=====A;`) is no initializer of it."""
    (tmp_path / "pad.h").write_text("extern double A[];\nextern double *gp;\n")
    text = (
        '#include "pad.h"\n/* ' + "=" * 20000 + "A; */\n"
        "void scale(int n) {\n  for (int i = 0; i < n; i++) gp[i] = A[i] * 0.5;\n}\n"
    )
    path = str(tmp_path / "main.c")
    context, _ = build_context(text, path, BuildFlags())
    options = AnalysisOptions(assume_no_alias=True)
    facts = analyze_text(text, path, options=options, context=context).facts
    assert facts[0].parallel
