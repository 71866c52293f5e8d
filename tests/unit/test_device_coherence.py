"""ACC206: copies back from the device that overwrite the host's writes."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis.checks import check_file
from accls.cli import main

KERNEL = """\
void scale(int n, double a, double *restrict u)
{
{pragma}    for (int i = 0; i < n; i++)
        u[i] = a * u[i];
}
"""

MAIN = """\
#include <stdio.h>
#include <stdlib.h>
void scale(int n, double a, double *restrict u);

int main(void)
{
    int n = 1000;
    double *u = malloc(sizeof(double) * n);
    if (u == NULL)
        return 1;
    for (int i = 0; i < n; i++)
        u[i] = (double)(i % 7);
#pragma acc enter data copyin(u[0:n])
    for (int t = 0; t < 10; t++)
        scale(n, 0.5, u);
#pragma acc exit data copyout(u[0:n])
    printf("%f\\n", u[3]);
    free(u);
    return 0;
}
"""


def _codes(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in check_file(dedent(text), "t.c")]


def _project_check(
    tmp_path: Path, kernel_pragma: str, capsys: pytest.CaptureFixture[str]
) -> str:
    root = tmp_path / "p"
    root.mkdir()
    (root / "kernels.c").write_text(KERNEL.replace("{pragma}", kernel_pragma))
    (root / "main.c").write_text(MAIN)
    args = ["check", "--project", str(root), "--index-cache", str(tmp_path / "c")]
    main([*args, str(root / "main.c")])
    return capsys.readouterr().out


def test_a_lifetime_goes_stale_when_the_other_files_kernel_runs_on_the_host(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _project_check(tmp_path, "", capsys)
    assert "ACC206" in out
    assert "`scale()` (kernels.c:1) runs on the host" in out
    assert "line 15" in out


def test_the_same_lifetime_is_fine_while_the_kernel_is_offloaded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _project_check(tmp_path, "#pragma acc parallel loop copy(u[0:n])\n", capsys)
    assert "ACC206" not in out


def test_without_the_project_an_unknown_callee_is_not_counted() -> None:
    assert _codes(MAIN) == []


def test_a_host_write_before_update_self_is_lost() -> None:
    text = """\
    void f(int n, double *u) {
      #pragma acc enter data create(u[0:n])
      #pragma acc parallel loop present(u[0:n])
      for (int i = 0; i < n; i++)
        u[i] = i;
      u[0] = 5.0;
      #pragma acc update self(u[0:n])
      #pragma acc exit data delete(u[0:n])
    }
    """
    assert _codes(text) == [("ACC206", 7)]


def test_an_update_device_after_the_write_keeps_it() -> None:
    text = """\
    void f(int n, double *u) {
      #pragma acc enter data copyin(u[0:n])
      u[0] = 5.0;
      #pragma acc update device(u[0:n])
      #pragma acc parallel loop present(u[0:n])
      for (int i = 0; i < n; i++)
        u[i] += 1.0;
      #pragma acc exit data copyout(u[0:n])
    }
    """
    assert _codes(text) == []


def test_writes_before_enter_data_and_device_writes_do_not_count() -> None:
    text = """\
    void f(int n, double *u) {
      for (int i = 0; i < n; i++)
        u[i] = i;
      #pragma acc enter data copyin(u[0:n])
      #pragma acc parallel loop present(u[0:n])
      for (int i = 0; i < n; i++)
        u[i] *= 2.0;
      #pragma acc exit data copyout(u[0:n])
    }
    """
    assert _codes(text) == []


def test_openmp_target_data_the_same_way() -> None:
    text = """\
    static void scale(int n, double *u) {
      for (int i = 0; i < n; i++)
        u[i] = 0.5 * u[i];
    }
    void stale(int n, double *u) {
      #pragma omp target enter data map(to: u[0:n])
      scale(n, u);
      #pragma omp target exit data map(from: u[0:n])
    }
    void synced(int n, double *u) {
      #pragma omp target enter data map(to: u[0:n])
      scale(n, u);
      #pragma omp target update to(u[0:n])
      #pragma omp target exit data map(from: u[0:n])
    }
    """
    (item,) = check_file(dedent(text), "t.c")
    assert (item.code, item.span.line) == ("ACC206", 8)
    assert "`target update to(u)`" in item.message


def test_an_edit_of_ours_that_loses_host_writes_is_blocked() -> None:
    # The whole-edit checks (lifetimes, hoisted regions) count ACC206 as blocking.
    from accls.pipeline.hoisting import blocking_errors

    lost = Path(__file__).parents[1] / "fixtures" / "races" / "acc_lost_host_write.c"
    assert blocking_errors(lost.read_text(), "t.c", ()) == 1


def test_a_copy_back_that_may_not_run_is_not_counted() -> None:
    text = """\
    void f(int n, int dev, double *u) {
      #pragma acc enter data copyin(u[0:n])
      u[0] = 5.0;
      #pragma acc exit data copyout(u[0:n]) if(dev)
    }
    """
    assert _codes(text) == []
