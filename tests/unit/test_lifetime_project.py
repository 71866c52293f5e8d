"""Device lifetimes with the whole program: other files' kernels and helpers."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.cli import main

KERNELS_C = """\
void fill(int n, double *u)
{
    for (int i = 0; i < n; i++)
        u[i] = (double)(i % 7);
}

void keep(double **slot, double *u)
{
    *slot = u;
}

void scale(int n, double a, double *restrict u)
{
#pragma acc parallel loop copy(u[0:n])
    for (int i = 0; i < n; i++)
        u[i] = a * u[i];
}
"""

MAIN_C = """\
#include <stdio.h>
#include <stdlib.h>
void fill(int n, double *u);
void keep(double **slot, double *u);
void scale(int n, double a, double *restrict u);

int main(void)
{
    int n = 1000;
    double *u = malloc(sizeof(double) * n);
    if (u == NULL)
        return 1;
    fill(n, u);
    for (int t = 0; t < 10; t++) {
        scale(n, 0.5, u);
    }
    printf("%f\\n", u[3]);
    free(u);
    return 0;
}
"""


def _annotate(
    root: Path, main_c: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> str:
    root.mkdir()
    (root / "kernels.c").write_text(KERNELS_C)
    (root / "main.c").write_text(main_c)
    code = main(
        [
            "annotate",
            "--model",
            "openacc",
            "--target",
            "gpu",
            "--no-validate",
            "--index-cache",
            str(tmp_path / "cache"),
            "--project",
            str(root),
            str(root / "main.c"),
        ]
    )
    assert code == 0
    return capsys.readouterr().out


def test_a_summarised_helper_of_another_file_keeps_no_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # fill() writes through `u` only: `u` still has no other name.
    out = _annotate(tmp_path / "p", MAIN_C, tmp_path, capsys)
    assert "    #pragma acc enter data copyin(u[0:n])\n" in out
    assert "    #pragma acc exit data copyout(u[0:n])\n" in out


def test_a_helper_that_stores_the_pointer_refuses_the_lifetime(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # keep() stores `u` where the caller's `slot` points: another name for it.
    text = MAIN_C.replace(
        "    fill(n, u);\n",
        "    double *alias;\n    keep(&alias, u);\n    fill(n, u);\n",
    )
    out = _annotate(tmp_path / "p", text, tmp_path, capsys)
    assert "enter data" not in out
