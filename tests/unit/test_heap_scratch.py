"""Heap scratch: a malloc'd block each iteration fills before reading it."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import LoopFacts, analyze_text
from accls.settings import Settings
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.validation import CompilerSettings

PARAMS = "int n, int m, const double *restrict a, double *restrict b"
ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
ACC_NVC = SuggestOptions(
    dialect=Dialect.OPENACC, target=Target.GPU, private_sections=True
)
OMP_CPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)


def _text(body: str) -> str:
    return (
        "#include <stdlib.h>\nvoid g(double *p);\n"
        f"double f({PARAMS}) {{\n{dedent(body)}\n}}\n"
    )


def outer(body: str) -> LoopFacts:
    """The facts of the first loop over `i`."""
    facts = analyze_text(_text(body)).facts
    return next(f for f in facts if f.loop.var == "i")


FILLED = """\
    double *t = malloc(m * sizeof(double));
    if (t == NULL)
        return 0.0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < m; k++)
            t[k] = a[i * m + k] * 2.0;
        double s = 0.0;
        for (int k = 0; k < m; k++)
            s += t[k] * t[m - 1 - k];
        b[i] = s;
    }
    free(t);
    return 0.0;
"""


def test_heap_block_filled_before_it_is_read_is_scratch() -> None:
    facts = outer(FILLED)
    assert facts.private_blocks == (("t", "m"),)
    assert facts.private_arrays == ()
    assert facts.parallel


def _suggestion(body: str, opts: SuggestOptions) -> tuple[str | None, str]:
    found = [
        s for s in suggest_file(analyze_text(_text(body)), opts) if s.loop.var == "i"
    ]
    pragma = found[0].pragma
    return (pragma.render() if pragma is not None else None), " ".join(found[0].reasons)


def test_openacc_with_subarrays_privatizes_the_block() -> None:
    pragma, _ = _suggestion(FILLED, ACC_NVC)
    assert pragma is not None
    assert "t[0:m]" in pragma
    assert "private(" in pragma
    assert "copy(t" not in pragma
    assert "copyin(t" not in pragma
    assert "copyout(t" not in pragma


@pytest.mark.parametrize(
    ("opts", "said"),
    [
        (OMP_CPU, "copies only the pointer"),
        (ACC, "does not take a subarray"),
    ],
)
def test_no_spelling_refuses_with_the_reason(opts: SuggestOptions, said: str) -> None:
    pragma, reasons = _suggestion(FILLED, opts)
    assert pragma is None
    assert said in reasons


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(FILLED.replace("s += t[k]", "s += t[k + 1]"), id="read-past-fill"),
        pytest.param(
            FILLED.replace(
                "k = 0; k < m; k++)\n            t[k]",
                "k = 1; k < m; k++)\n            t[k]",
            ),
            id="partial-fill",
        ),
        pytest.param(
            FILLED.replace(
                "        for (int k = 0; k < m; k++)\n            t[k] =",
                "        if (a[i] > 0)\n"
                "        for (int k = 0; k < m; k++)\n            t[k] =",
                1,
            ),
            id="conditional-fill",
        ),
        pytest.param(
            FILLED.replace("free(t);", "b[0] = t[0];\n    free(t);"), id="live-after"
        ),
        pytest.param(
            FILLED.replace(
                "free(t);", "double *u = t;\n    b[0] = u[0];\n    free(t);"
            ),
            id="alias-after",
        ),
        pytest.param(
            FILLED.replace("b[i] = s;", "b[i] = s;\n        g(t);"), id="passed"
        ),
        pytest.param(
            FILLED.replace(
                "double *t = malloc(m", "int c = m;\n    double *t = malloc(c"
            ).replace("return 0.0;\n    for", "return 0.0;\n    c = 2 * c;\n    for"),
            id="count-changed",
        ),
        pytest.param(
            FILLED.replace("free(t);", "t = malloc(m * sizeof(double));\n    free(t);"),
            id="reassigned",
        ),
    ],
)
def test_unproved_heap_scratch_is_refused(body: str) -> None:
    assert body != FILLED
    facts = outer(body)
    assert facts.private_blocks == ()
    assert not facts.parallel


def test_heap_block_is_never_a_private_array() -> None:
    """`private(t)` would copy the pointer: the block is a private block only."""
    body = """\
        double *t = malloc(m * sizeof(double));
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < m; k++) t[k] = a[k] + i;
            for (int k = 0; k < m; k++) b[i] += t[k];
        }
        return 0.0;
    """
    facts = outer(body)
    assert facts.private_arrays == ()
    assert facts.private_blocks == (("t", "m"),)
    for opts in (OMP_CPU, ACC):
        pragma, _ = _suggestion(body, opts)
        assert pragma is None


@pytest.mark.parametrize(
    ("cc", "sections"),
    [("gcc", False), ("/opt/nvidia/hpc_sdk/bin/nvc", True), ("clang", False)],
)
def test_subarray_private_follows_the_compile_check_compiler(
    cc: str, sections: bool
) -> None:
    settings = Settings(compiler=CompilerSettings(cc=cc))
    assert settings.suggest_options.private_sections is sections
