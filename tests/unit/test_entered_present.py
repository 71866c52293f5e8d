"""`present` in kernels that run while the user's `enter data` keeps their arrays."""

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
from accls.suggest.entered_present import entered_present

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)

SAME = """\
void run(int n, double *restrict a, double *restrict b)
{{
    {enter}
    double s = 2.0;
    {before}
    for (int i = 0; i < n; i++)
        b[i] = s * a[i];
    {after}
    {exit}
}}
"""
ENTER = "#pragma acc enter data copyin(a[0:n]) create(b[0:n])"
EXIT = "#pragma acc exit data copyout(b[0:n]) delete(a[0:n])"
OMP_ENTER = "#pragma omp target enter data map(to: a[0:n]) map(alloc: b[0:n])"
OMP_EXIT = "#pragma omp target exit data map(from: b[0:n]) map(delete: a[0:n])"


def same(
    enter: str = ENTER, before: str = "", after: str = "", exit_: str = EXIT
) -> str:
    return SAME.format(enter=enter, before=before, after=after, exit=exit_)


def pragmas(text: str, options: SuggestOptions = ACC) -> dict[str, str]:
    """Per function, the pragma of its first top loop."""
    analysis = analyze_text(text)
    found = callee_present(analysis, suggest_file(analysis, options), whole=True)
    found = entered_present(analysis, found)
    out: dict[str, str] = {}
    for s in found:
        if s.pragma is not None and not s.inner and s.loop.function not in out:
            out[s.loop.function or ""] = s.pragma.render()
    return out


def test_loop_after_enter_data_gets_present() -> None:
    pragma = pragmas(same())["run"]
    assert "present(a[0:n], b[0:n])" in pragma
    assert "copy" not in pragma


@pytest.mark.parametrize(
    ("case", "kw"),
    [
        ("enter only on one branch", {"enter": "if (n > 8) {\n" + ENTER + "\n}"}),
        ("conditional enter", {"enter": ENTER + " if(n > 8)"}),
        ("async enter", {"enter": ENTER + " async(1)"}),
        ("exit before the loop", {"before": "#pragma acc exit data delete(a[0:n])"}),
        ("section too short", {"enter": ENTER.replace("a[0:n]", "a[0:n/2]")}),
        (
            "preprocessor branch",
            {"enter": "#ifdef GPU\n" + ENTER + "\n#endif"},
        ),
    ],
)
def test_a_path_without_the_data_keeps_copy_clauses(
    case: str, kw: dict[str, str]
) -> None:
    pragma = pragmas(same(**kw))["run"]
    assert "present(a" not in pragma, case
    assert "copyin(a[0:n])" in pragma, case


@pytest.mark.parametrize(
    ("case", "kw"),
    [
        ("pointer moved", {"after": "a = b;"}),
        ("runtime call between", {"before": "acc_delete(a, n * sizeof(double));"}),
        ("a goto in the function", {"after": "if (n < 0) goto out;\nout:;"}),
    ],
)
def test_a_hold_the_function_may_break_refuses_the_loop(
    case: str, kw: dict[str, str]
) -> None:
    # Copy clauses would move nothing where the hold stands, and `present`
    # would fail where it does not: the loop stays on the host (held_copies).
    assert "run" not in pragmas(same(**kw)), case


def test_a_loop_right_below_an_update_is_not_annotated_by_it() -> None:
    pragma = pragmas(same(before="#pragma acc update device(a[0:n])"))["run"]
    assert pragma.startswith("#pragma acc parallel loop")


def test_a_created_array_the_host_never_gets_back_refuses_the_kernel() -> None:
    text = """\
void run(int n, int steps, double *restrict a, double *restrict b)
{
    #pragma acc enter data copyin(a[0:n]) create(b[0:n])
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++)
            b[i] = 2.0 * a[i];
        #pragma acc exit data delete(a[0:n])
    }
}
"""
    analysis = analyze_text(text)
    found = entered_present(analysis, suggest_file(analysis, ACC))
    inner = next(s for s in found if s.loop.span.line == 5)
    # `b` stays held after the loop and no exit copies it out: the kernel's
    # results would never reach the host (once written `present(b[0:n])`).
    assert inner.pragma is None
    assert any("`b`" in r and "no end in this function" in r for r in inner.reasons)


def test_openmp_target_enter_data_drops_the_maps() -> None:
    pragma = pragmas(same(enter=OMP_ENTER, exit_=OMP_EXIT), OMP)["run"]
    assert "map(" not in pragma
    assert "target teams distribute" in pragma


def test_openmp_host_output_unchanged() -> None:
    host = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    assert pragmas(same(enter=OMP_ENTER), host)["run"] == "#pragma omp parallel for"


KERNEL = """\
static void scale(int n, double *restrict b, const double *restrict a)
{
    for (int i = 0; i < n; i++)
        b[i] = 2.0 * a[i];
}
void run(int n, int steps, double *restrict a, double *restrict b)
{
    #pragma acc enter data copyin(a[0:n]) create(b[0:n])
    for (int t = 0; t < steps; t++)
        scale(n, b, a);
    #pragma acc exit data copyout(b[0:n]) delete(a[0:n])
}
"""


def test_kernel_function_called_after_enter_data_gets_present() -> None:
    pragma = pragmas(KERNEL)["scale"]
    assert "present(b[0:n], a[0:n])" in pragma or "present(a[0:n], b[0:n])" in pragma
    assert "copy" not in pragma


def test_a_second_caller_without_enter_data_keeps_copies() -> None:
    other = "void other(int n, double *restrict a, double *restrict b)\n{\n"
    other += "    scale(n, b, a);\n}\n"
    pragma = pragmas(KERNEL + other)["scale"]
    assert "present" not in pragma
    assert "copyin(a[0:n])" in pragma


def test_the_pipeline_writes_present() -> None:
    settings = Settings(dialect=Dialect.OPENACC, validate=False)
    result = suggest_text(same(), "t.c", settings)
    rendered = [s.pragma.render() for s in result.suggestions if s.pragma]
    assert any("present(a[0:n], b[0:n])" in p for p in rendered)
    assert not any(s.region for s in result.suggestions)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize(
    ("text", "options", "flags"),
    [
        (same(), ACC, ["-fopenacc"]),
        (KERNEL, ACC, ["-fopenacc"]),
        (
            same(enter=OMP_ENTER, exit_=OMP_EXIT),
            OMP,
            ["-fopenmp", "-foffload=disable"],
        ),
    ],
)
def test_outputs_compile(
    tmp_path: Path, text: str, options: SuggestOptions, flags: list[str]
) -> None:
    analysis = analyze_text(text)
    found = callee_present(analysis, suggest_file(analysis, options), whole=True)
    out = annotate_text(text, entered_present(analysis, found))
    assert "loop present(" in out or "distribute parallel for\n" in out
    path = tmp_path / "k.c"
    path.write_text(out)
    run = subprocess.run(
        ["gcc", *flags, "-fsyntax-only", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr


def test_a_pointer_whose_address_escaped_before_the_hold_gets_no_present() -> None:
    # `keep(&a)` before the `enter data` lets a later call point `a` elsewhere:
    # its declaration's value is the one held only when nothing can move it.
    text = same().replace(
        "    #pragma acc enter data", "    keep(&a);\n    #pragma acc enter data"
    )
    text = "void keep(double **p);\n" + text
    assert "keep(&a);" in text
    assert "present(a" not in pragmas(text).get("run", "")


def test_a_pointer_set_before_the_hold_gets_present() -> None:
    text = (
        "#include <stdlib.h>\n"
        "void run(int n, double *restrict b)\n{\n"
        "    double *a = malloc(n * sizeof(double));\n"
        "    for (int i = 0; i < n; i++) a[i] = i;\n"
        "    #pragma acc enter data copyin(a[0:n]) create(b[0:n])\n"
        "    for (int i = 0; i < n; i++)\n        b[i] = 2.0 * a[i];\n"
        "    #pragma acc exit data copyout(b[0:n]) delete(a[0:n])\n"
        "    free(a);\n}\n"
    )
    assert "present(a[0:n]" in pragmas(text)["run"]
