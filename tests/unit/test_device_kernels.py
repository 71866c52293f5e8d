"""Kernel status in the workspace index, and device lifetimes across files."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from accls.analysis import Definition
from accls.analysis.device_kernels import device_kernel
from accls.cli import main
from accls.frontend import parse_source
from accls.frontend.pragmas import clause_items
from accls.project.summary_json import definition_from_json, definition_to_json

ROOT = Path(__file__).resolve().parents[2]
SOLVER = ROOT / "tests" / "fixtures" / "project" / "solver"


def _kernel(text: str, name: str) -> object:
    source = parse_source(text, "k.c")
    fn = source.function(name)
    assert fn is not None
    return device_kernel(fn, source)


def test_a_ported_kernel_reports_the_sections_of_its_data_clauses() -> None:
    source = parse_source((SOLVER / "kernels.c").read_text(), str(SOLVER / "kernels.c"))
    fn = source.function("smooth")
    assert fn is not None
    kernel = device_kernel(fn, source)
    assert kernel is not None
    assert kernel.dialect == "acc"
    assert kernel.params == ("n", "u", "w")
    assert kernel.arrays == (False, True, True)
    uses = {u.name: u for u in kernel.uses}
    # `u[i - 1]` reads below 0 at i = 0 in the loop's text, but the clause maps
    # u[0:n]: the caller must hold what the runtime maps.
    assert uses["u"].section == "u[0:n]"
    assert uses["u"].read
    assert not uses["u"].written
    assert uses["w"].section == "w[0:n]"
    assert uses["w"].written
    assert uses["w"].exact_cover


def test_a_clamped_length_as_accls_writes_it_is_read() -> None:
    # `annotate` writes `r[1:(n - 2 > 0 ? n - 2 : 0)]` for `1 <= i < n - 1`:
    # the function is still a kernel.
    text = """\
void step(int n, double *restrict u, double *restrict r)
{
    #pragma acc parallel loop present(r[1:(n - 2 > 0 ? n - 2 : 0)], u[0:n])
    for (int i = 1; i < n - 1; i++)
        r[i] = 0.5 * (u[i - 1] + u[i + 1]);
}
"""
    source = parse_source(text, "k.c")
    fn = source.function("step")
    assert fn is not None
    kernel = device_kernel(fn, source)
    assert kernel is not None
    uses = {u.name: u for u in kernel.uses}
    assert uses["r"].section == "r[1:(n - 2 > 0 ? n - 2 : 0)]"


def test_the_kernel_status_survives_the_cache() -> None:
    source = parse_source((SOLVER / "kernels.c").read_text(), "kernels.c")
    fn = source.function("copy_back")
    assert fn is not None
    found = Definition(
        name="copy_back",
        file="kernels.c",
        line=fn.span.line,
        summary=None,
        why="",
        kernel=device_kernel(fn, source),
    )
    assert found.kernel is not None
    assert definition_from_json(definition_to_json(found)) == found


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (
            "void f(int n, double *x) {\n"
            "#pragma acc parallel loop copy(x[0:n])\n"
            "  for (int i = 0; i < n; i++) x[i] += 1.0;\n"
            "  x[0] = 2.0;\n}\n",
            "the host writes the caller's array",
        ),
        (
            "void f(int n, double *x) {\n"
            "#pragma acc parallel loop copy(x[0:n]) async(1)\n"
            "  for (int i = 0; i < n; i++) x[i] += 1.0;\n}\n",
            "it returns before the kernel ends",
        ),
        (
            "void f(int n, double *x) {\n"
            "#pragma acc parallel loop copy(x[0:n]) if(n > 100)\n"
            "  for (int i = 0; i < n; i++) x[i] += 1.0;\n}\n",
            "it may run on the host, on host data",
        ),
        (
            "void f(int n, double *x) {\n"
            "#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) "
            "device(1)\n"
            "  for (int i = 0; i < n; i++) x[i] += 1.0;\n}\n",
            "another device",
        ),
        (
            "void f(int n, double *x) {\n"
            "#pragma acc parallel loop present(x[0:n])\n"
            "  for (int i = 0; i < n; i++) x[i] += 1.0;\n"
            "#pragma acc update self(x[0:n])\n}\n",
            "a directive of its own",
        ),
        (
            "void f(int n, double *x) {\n"
            "  for (int i = 0; i < n; i++) x[i] += 1.0;\n}\n",
            "nothing offloaded",
        ),
        (
            "void g(double *x);\nvoid f(int n, double *x) {\n"
            "#pragma acc parallel loop copy(x[0:n])\n"
            "  for (int i = 0; i < n; i++) x[i] += 1.0;\n  g(x);\n}\n",
            "host code we cannot see",
        ),
    ],
)
def test_no_kernel_status(text: str, why: str) -> None:
    assert _kernel(text, "f") is None, why


def test_split_items_keeps_brackets_and_calls_whole() -> None:
    assert clause_items("a[0:n], b[f(i, j):m] ,c") == ["a[0:n]", "b[f(i, j):m]", "c"]


def _annotate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[Path, str]:
    project = tmp_path / "solver"
    shutil.copytree(SOLVER, project)
    code = main(
        [
            "annotate",
            "--model",
            "openacc",
            "--target",
            "gpu",
            "--index-cache",
            str(tmp_path / "cache"),
            *extra,
            *([] if extra else ["--project", str(project)]),
            str(project / "main.c"),
        ]
    )
    assert code == 0
    return project, capsys.readouterr().out


def test_a_lifetime_reaches_the_kernels_of_another_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, out = _annotate(tmp_path, capsys)
    assert "    #pragma acc enter data create(u[0:n], w[0:n])\n" in out
    # The progress print's `if` has no braces: the update goes before the `if`;
    # it moves the one element the print reads.
    assert "        #pragma acc update self(u[5:1])\n        if (it % 10 == 0)\n" in out
    assert "    #pragma acc exit data delete(u[0:n], w[0:n])\n" in out
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not found")
    (project / "main_acc.c").write_text(out)
    runs = []
    for flags, unit in (([], "main.c"), (["-fopenacc"], "main_acc.c")):
        exe = tmp_path / f"run_{unit}"
        units = [str(project / unit), str(project / "kernels.c")]
        subprocess.run(
            [gcc, "-std=c11", "-O1", *flags, *units, "-o", str(exe), "-lm"],
            check=True,
            capture_output=True,
        )
        ran = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
        runs.append(ran.stdout)
    assert runs[0] == runs[1]
    assert "sum " in runs[0]


def test_without_the_project_the_kernels_are_unknown_and_nothing_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = _annotate(tmp_path, capsys, "--no-validate")
    assert "enter data" not in out
    assert "#pragma acc update" not in out
