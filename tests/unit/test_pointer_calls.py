"""Calls through function pointers named like a function of the file."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.summaries import summarize
from accls.frontend import parse_source

FUNCTIONS = """\
double total;
double square(double v) { return v * v; }
double tally(double v) { total += v; return total; }
typedef double (*unary_t)(double);
"""


def _verdicts(text: str) -> list[tuple[bool, str]]:
    found = analyze_text(FUNCTIONS + text).facts
    return [
        (f.parallel, " ".join(o.message for o in f.obstacles))
        for f in found
        if f.loop.function == "run"
    ]


@pytest.mark.parametrize(
    "head",
    [
        "void run(int n, double *a, double *b, double (*square)(double))",
        "void run(int n, double *a, double *b, unary_t square)",
        "void run(int n, double *a, double *b, double square(double))",
    ],
)
def test_a_pointer_parameter_named_like_a_function_is_unknown(head: str) -> None:
    text = head + " { for (int i = 0; i < n; i++) b[i] = square(a[i]); }\n"
    [(parallel, why)] = _verdicts(text)
    assert not parallel
    assert "through a function pointer" in why


def test_a_local_pointer_named_like_a_function_is_unknown() -> None:
    text = (
        "void run(int n, double *restrict a, double *restrict b) {\n"
        "  double (*square)(double) = tally;\n"
        "  for (int i = 0; i < n; i++) b[i] = square(a[i]);\n}\n"
    )
    [(parallel, why)] = _verdicts(text)
    assert not parallel
    assert "`(*square)()`" in why


def test_the_function_itself_stays_pure() -> None:
    text = (
        "void run(int n, double *restrict a, double *restrict b) {\n"
        "  for (int i = 0; i < n; i++) b[i] = square(a[i]);\n}\n"
    )
    assert _verdicts(text) == [(True, "")]


def test_prototype_parameters_and_block_prototypes_shadow_nothing() -> None:
    text = (
        "void other(double (*square)(double));\n"
        "void run(int n, double *restrict a, double *restrict b) {\n"
        "  double square(double);\n"
        "  for (int i = 0; i < n; i++) b[i] = square(a[i]);\n}\n"
    )
    assert _verdicts(text) == [(True, "")]


def test_a_summary_through_a_pointer_parameter_is_not_the_functions() -> None:
    source = parse_source(
        FUNCTIONS + "double wrap(double (*square)(double), double v)"
        " { return square(v); }\n"
    )
    wrap = source.function("wrap")
    assert wrap is not None
    assert wrap.calls == ("(*square)",)
    assert summarize("wrap", source, PURE_FUNCTIONS) is None


def test_a_kr_pointer_parameter_named_like_a_function_is_unknown() -> None:
    source = parse_source(
        FUNCTIONS + "double wrap(square, v) double (*square)(double); double v;"
        " { return square(v); }\n"
    )
    wrap = source.function("wrap")
    assert wrap is not None
    assert wrap.calls == ("(*square)",)


@pytest.mark.parametrize(
    "head",
    [
        "void run(int n, double *__restrict__ a, double *__restrict__ b) {\n"
        "  double (&square)(double) = tally;",
        "void run(int n, double *__restrict__ a, double *__restrict__ b,"
        " double (&square)(double)) {",
        "void run(int n, double *__restrict__ a, double *__restrict__ b,"
        " double (*&square)(double)) {",
    ],
)
def test_a_cpp_function_reference_named_like_a_function_is_unknown(head: str) -> None:
    """C++ references to functions hide the file's function as pointers do."""
    text = FUNCTIONS + head + "\n"
    text += "  for (int i = 0; i < n; i++) b[i] = square(a[i]);\n}\n"
    found = analyze_text(text, "kernel.cpp").facts
    [fact] = [f for f in found if f.loop.function == "run"]
    assert not fact.parallel


def test_a_declaration_the_parser_cannot_read_hides_the_function() -> None:
    """GCC's `__typeof__` declares `square` where tree-sitter sees an error."""
    text = (
        "void run(int n, double *restrict a, double *restrict b) {\n"
        "  __typeof__(&tally) square = tally;\n"
        "  for (int i = 0; i < n; i++) b[i] = square(a[i]);\n}\n"
    )
    [(parallel, why)] = _verdicts(text)
    assert not parallel
    assert "`(*square)()`" in why
