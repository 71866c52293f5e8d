"""`routine vector` for a called function whose own loop is parallel."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.annotate import annotate_text

ROWSUM = """\
{static}double rowsum(const double *restrict r, int m)
{{
    double s = 0.0;
    for (int j = 0; j < m; j++)
        {body}
    return s;
}}
"""
RUN = """\
void run(int n, int m, double a[n][m], double *restrict out)
{
    for (int i = 0; i < n; i++)
        out[i] = rowsum(a[i], m);
}
"""
MAIN = """\
#include <stdio.h>
int main(void)
{
    enum { N = 64, M = 33 };
    static double a[N][M], out[N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            a[i][j] = i + 0.5 * j;
    run(N, M, a, out);
    double t = 0.0;
    for (int i = 0; i < N; i++)
        t += out[i] * (i + 1);
    printf("%.6f\\n", t);
    return 0;
}
"""


def program(
    static: str = "static ", body: str = "s += r[j];", run: str = RUN, more: str = ""
) -> str:
    return ROWSUM.format(static=static, body=body) + more + run


def annotated(text: str) -> str:
    settings = Settings(dialect=Dialect.OPENACC, validate=False)
    result = suggest_text(text, "t.c", settings)
    return annotate_text(text, result.suggestions)


def test_parallel_callee_loop_gets_routine_vector() -> None:
    out = annotated(program())
    assert "#pragma acc routine vector\nstatic double rowsum" in out
    assert "    #pragma acc loop vector reduction(+:s)\n    for (int j" in out
    assert "#pragma acc parallel loop gang " in out
    assert "routine seq" not in out


@pytest.mark.parametrize(
    ("case", "text"),
    [
        ("a function other files may call", program(static="")),
        ("a loop with a carried dependence", program(body="s = s * 0.5 + r[j];")),
        (
            "a call inside an inner loop of the kernel",
            program(
                run=RUN.replace(
                    "out[i] = rowsum(a[i], m);",
                    "for (int k = 0; k < 2; k++) out[2 * i + k] = rowsum(a[i], m);",
                ).replace("out[n]", "out[2 * n]")
            ),
        ),
        (
            "a call from a user's compute construct",
            program(
                more="void other(int m, double *restrict r, double *restrict o)\n{\n"
                "#pragma acc serial copyin(r[0:m]) copyout(o[0:1])\n"
                "    o[0] = rowsum(r, m);\n}\n"
            ),
        ),
        (
            "a second loop in the function",
            program(body="s += r[j];\n    for (int j = 0; j < m; j++) s += r[j];"),
        ),
    ],
)
def test_unsafe_cases_stay_seq(case: str, text: str) -> None:
    out = annotated(text)
    assert "routine vector" not in out, case
    assert "#pragma acc routine seq" in out, case
    assert "loop vector" not in out.split("void run", 1)[0], case


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_it_compiles_and_runs_like_the_serial_program(tmp_path: Path) -> None:
    text = program() + MAIN
    out = annotated(text)
    assert "routine vector" in out
    results = []
    for name, code, flags in (("s.c", text, []), ("p.c", out, ["-fopenacc"])):
        (tmp_path / name).write_text(code)
        exe = tmp_path / name.replace(".c", "")
        subprocess.run(
            ["gcc", *flags, "-O1", "-o", str(exe), str(tmp_path / name)],
            check=True,
            capture_output=True,
        )
        done = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
        results.append(done.stdout)
    assert results[0] == results[1]
