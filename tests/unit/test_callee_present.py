"""`present` in a kernel function called only inside its caller's data regions."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text
from accls.suggest.callee_present import callee_present

KERNEL = """\
{static}void smooth(int n, double *restrict b, const double *restrict a)
{{
    for (int i = 1; i < n - 1; i++)
        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
}}
"""
CALLER = """\
void run(int n, int steps, double *restrict a, double *restrict b)
{{
    #pragma acc data {clauses}
    for (int t = 0; t < steps; t++)
        smooth(n, b, a);
{after}}}
"""
HELD = "copy(a[0:n]) create(b[0:n])"
ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)


def program(
    static: str = "static ", clauses: str = HELD, after: str = "", more: str = ""
) -> str:
    return (
        KERNEL.format(static=static)
        + CALLER.format(clauses=clauses, after=after)
        + more
    )


def kernel_pragma(text: str, whole: bool = True) -> str:
    analysis = analyze_text(text)
    found = callee_present(analysis, suggest_file(analysis, ACC), whole=whole)
    top = next(s for s in found if s.loop.function == "smooth" and not s.inner)
    assert top.pragma is not None
    return top.pragma.render()


def test_every_call_held_gives_present() -> None:
    pragma = kernel_pragma(program())
    assert "present(a[0:n], b[1:" in pragma
    assert "copy" not in pragma


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (program(static=""), "another file may call it"),
        (program(after="    smooth(n, b, a);\n"), "a call outside the region"),
        (program(clauses="copy(a[0:n/2]) create(b[0:n])"), "a section too short"),
        (program(clauses="copy(a[0:n]) create(b[0:n]) if(n > 100)"), "may not run"),
        (program(clauses="copy(a[0:n]) deviceptr(b)"), "`deviceptr`: not present"),
        (
            program(more="void (*hook)(int, double *, const double *) = smooth;\n"),
            "called through a pointer",
        ),
        (
            program(more="#define SMOOTH(n, b, a) smooth(n, b, a)\n"),
            "a macro may call it",
        ),
    ],
)
def test_copy_clauses_stay(text: str, why: str) -> None:
    pragma = kernel_pragma(text)
    assert "present" not in pragma, why
    assert "copyin(a[0:n])" in pragma


def test_a_slice_of_the_file_keeps_copy_clauses() -> None:
    assert "present" not in kernel_pragma(program(), whole=False)


def test_openmp_is_unchanged() -> None:
    text = program()
    analysis = analyze_text(text)
    opts = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)
    found = suggest_file(analysis, opts)
    assert callee_present(analysis, found, whole=True) == found


def test_the_pipeline_writes_present() -> None:
    settings = Settings(dialect=Dialect.OPENACC, validate=False)
    result = suggest_text(program(), "t.c", settings)
    rendered = [s.pragma.render() for s in result.suggestions if s.pragma]
    assert any("present(a[0:n]" in p for p in rendered if "b[1:" in p)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_gcc_accepts_it(tmp_path: Path) -> None:
    text = program()
    analysis = analyze_text(text)
    found = callee_present(analysis, suggest_file(analysis, ACC), whole=True)
    source = tmp_path / "kernel.c"
    source.write_text(annotate_text(text, found))
    assert "present(a[0:n]" in source.read_text()
    done = subprocess.run(
        ["gcc", "-fopenacc", "-fsyntax-only", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
