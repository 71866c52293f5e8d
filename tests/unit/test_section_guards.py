"""A section length the program proves non-negative is written as the expert
wrote it (`a[1:n - 2]`); one it does not prove stays clamped at zero."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

_LOOP = "for (int i = 1; i < n - 1; i++) b[i] = a[i] * 2.0;"
_PLAIN = "b[1:n - 2])"  # `copyout(..)` or `map(from: ..)`
_CLAMPED = "b[1:(n - 2 > 0 ? n - 2 : 0)])"


def _pragmas(body: str, dialect: Dialect = Dialect.OPENACC) -> list[str]:
    text = (
        "#include <assert.h>\n#include <stdlib.h>\n"
        "void f(int n, int k, const double *restrict a, double *restrict b) {\n"
        f"{body.replace('LOOP', _LOOP)}\n}}\n"
    )
    opts = SuggestOptions(dialect=dialect, target=Target.GPU)
    found = suggest_file(analyze_text(text), opts)
    return [s.pragma.render() for s in found if s.pragma is not None]


@pytest.mark.parametrize("dialect", [Dialect.OPENACC, Dialect.OPENMP])
@pytest.mark.parametrize(
    "body",
    [
        "if (n > 2) { LOOP }",
        "if (n >= 3 && k > 0) { LOOP }",
        "if (k > 0) { if (2 <= n) { LOOP } }",
        "if (n < 3) return;\nLOOP",
        "if (n < 2) { exit(1); }\nLOOP",
        "if (n <= 1) abort();\nLOOP",
        "assert(n >= 2);\nLOOP",
        "const int m = n;\nif (m < 2) return;\nLOOP",
    ],
)
def test_a_length_the_program_proves_non_negative_is_written_plain(
    body: str, dialect: Dialect
) -> None:
    [pragma] = _pragmas(body, dialect)
    assert _PLAIN in pragma
    assert "> 0 ?" not in pragma


@pytest.mark.parametrize(
    "body",
    [
        "LOOP",  # the loop's own bound proves nothing: it may run zero times
        "if (n > 2) { n = n - 5; LOOP }",  # written after the guard
        "if (n > 2) { k = 1; }\nLOOP",  # the guard is not around it
        "if (n > 2) { k = 1; } else { LOOP }",  # the else arm: n <= 2
        "if (n > 0) { LOOP }",  # too weak: n - 2 may be -1
        "if (n > 2 || k > 0) { LOOP }",  # either may hold
        "if (n-- > 2) { LOOP }",  # the condition writes n
        "if (k > 0) assert(n >= 2);\nLOOP",  # on some paths only
        "LOOP\nassert(n >= 2);",  # after the clause runs
        "if (n < 3) return;\nn = k;\nLOOP",  # written between guard and loop
        "for (int t = 0; t < k; t++) { if (n > 2) { LOOP } n--; }",
    ],
)
def test_a_length_the_program_does_not_prove_stays_clamped(body: str) -> None:
    pragmas = _pragmas(body)
    assert any(_CLAMPED in p for p in pragmas), pragmas


def test_a_variable_length_array_has_at_least_one_element() -> None:
    body = "double t[n];\nt[0] = 0;\nfor (int i = 1; i < n; i++) b[i] = a[i] + t[0];"
    [pragma] = _pragmas(body)
    assert "copyout(b[1:n - 1])" in pragma
    body = body.replace("i < n;", "i < n - 1;")  # n >= 1 does not give n - 2 >= 0
    [pragma] = _pragmas(body)
    assert _CLAMPED in pragma


def test_ndebug_turns_asserts_off() -> None:
    [pragma] = _pragmas("#define NDEBUG\nassert(n >= 2);\nLOOP")
    assert _CLAMPED in pragma


def test_a_data_region_spells_its_sections_under_its_first_loops_guards() -> None:
    text = """\
void f(int n, double *restrict a, double *restrict b) {
  if (n < 3) return;
  for (int i = 1; i < n - 1; i++) b[i] = a[i] * 2.0;
  for (int i = 1; i < n - 1; i++) a[i] = b[i] + 1.0;
}
"""
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    found = suggest_file(analyze_text(text), opts)
    regions = {s.region.pragma.render() for s in found if s.region is not None}
    assert regions == {"#pragma acc data copy(a[1:n - 2]) copyout(b[1:n - 2])"}
    unguarded = suggest_file(analyze_text(text.replace("return;", ";")), opts)
    shown = {s.region.pragma.render() for s in unguarded if s.region is not None}
    assert shown
    assert all("> 0 ?" in r for r in shown)


@pytest.mark.parametrize(
    ("declaration", "plain"),
    [
        ("static const int NX = 64;", True),
        ("const long NX = 2, NY = 1;", True),
        ("const int NX = 1;", False),  # NX - 2 is -1
        ("int NX = 64;", False),  # any function may change it
        ("extern const int NX;", False),  # its value is elsewhere
    ],
)
def test_a_constant_global_counts_like_a_macro(declaration: str, plain: bool) -> None:
    text = f"""\
{declaration}
void f(const double *restrict a, double *restrict b) {{
  for (int i = 1; i < NX - 1; i++) b[i] = a[i] * 2.0;
}}
"""
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    [suggestion] = suggest_file(analyze_text(text), opts)
    assert suggestion.pragma is not None
    shown = suggestion.pragma.render()
    assert ("copyout(b[1:NX - 2])" in shown) is plain, shown
    assert ("> 0 ?" in shown) is not plain, shown


def test_a_constant_local_counts_like_a_macro() -> None:
    [pragma] = _pragmas(
        "const int m = 40;\nfor (int i = 1; i < m - 1; i++) b[i] = a[i];"
    )
    assert "copyout(b[1:m - 2])" in pragma


def test_a_cpp_lambda_that_writes_the_guarded_name_keeps_the_clamp() -> None:
    text = """\
void f(int n, const double *__restrict a, double *__restrict b) {
  auto drop = [&]() { n = 0; };
  if (n > 2) {
    drop();  // the write sits before the guard, but runs after it
    for (int i = 1; i < n - 1; i++) b[i] = a[i] * 2.0;
  }
}
"""
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    [suggestion] = suggest_file(analyze_text(text, "f.cpp"), opts)
    assert suggestion.pragma is not None
    assert _CLAMPED in suggestion.pragma.render()
    unwritten = text.replace("n = 0;", "")
    [suggestion] = suggest_file(analyze_text(unwritten, "f.cpp"), opts)
    assert suggestion.pragma is not None
    assert _PLAIN in suggestion.pragma.render()
