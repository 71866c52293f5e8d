"""`accls check` on structured data regions: lost device writes (ACC201), short
sections (ACC205) and host writes the region's copy back overwrites (ACC206)."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis.checks import check_file
from accls.analysis.finding_types import Category, Severity
from accls.analysis.findings import CARRIED_SCALAR_PRIVATIZED

REGION = """\
#include <stdio.h>
float a[100];
void f(int n, int flag) {
  #pragma acc data copy(a[0:{section}])
  {
    #pragma acc parallel loop present(a)
    for (int i = 0; i < 100; i++)
      a[i] = a[i] * 2;
    {host}
    #pragma acc parallel loop present(a)
    for (int i = 0; i < 100; i++)
      a[i] = a[i] + 1;
  }
  printf("%f\\n", a[3]);
}
"""


def _found(section: str, host: str, code: str = "") -> list[tuple[str, str]]:
    """The findings but ACC207 (the second kernel's stale read), or only `code`."""
    text = REGION.replace("{section}", section).replace("{host}", host)
    found = [(f.code, f.level.value) for f in check_file(text, "t.c")]
    if code:
        return [f for f in found if f[0] == code]
    return [f for f in found if f[0] != "ACC207"]


def test_the_kernel_after_a_host_write_reads_the_old_device_copy() -> None:
    assert _found("n", "a[3] = 7;", "ACC207") == [("ACC207", "warning")]
    host = "a[3] = 7;\n    #pragma acc update device(a[3:1])"
    assert _found("n", host, "ACC207") == []


def test_a_host_read_after_a_kernel_write_reads_the_old_host_copy() -> None:
    (item,) = check_file(
        REGION.replace("{section}", "n").replace("{host}", "flag = a[5];"), "t.c"
    )
    assert (item.code, item.span.line) == ("ACC207", 9)
    assert "the host reads `a` at line 9" in item.message
    assert "`update self(a)`" in item.message
    synced = "#pragma acc update self(a[5:1])\n    flag = a[5];"
    text = REGION.replace("{section}", "n").replace("{host}", synced)
    assert [f.code for f in check_file(text, "t.c")] == []


def test_a_host_write_surely_inside_the_copied_section_is_an_error() -> None:
    assert _found("100", "a[3] = 7;") == [("ACC206", "error")]


def test_a_host_write_that_may_miss_the_section_or_not_run_is_a_warning() -> None:
    assert _found("n", "a[3] = 7;") == [("ACC206", "warning")]
    assert _found("100", "if (flag) a[3] = 7;") == [("ACC206", "warning")]


def test_a_host_write_surely_outside_the_section_is_not_overwritten() -> None:
    # The kernels run past a[0:2] (ACC205), but the copy back leaves a[3] alone.
    assert [code for code, _ in _found("2", "a[3] = 7;")] == ["ACC205", "ACC205"]


def test_update_device_after_the_host_write_keeps_quiet() -> None:
    host = "a[3] = 7;\n    #pragma acc update device(a[3:1])"
    assert _found("100", host) == []


def test_update_self_after_the_host_write_overwrites_it() -> None:
    host = "a[3] = 7;\n    #pragma acc update self(a[0:100])"
    assert [code for code, _ in _found("100", host)] == ["ACC206"]


def test_a_device_block_that_is_no_loop_keeps_the_region_quiet() -> None:
    # `serial { a[3] = 7; }` runs on the device; the scan cannot tell it apart.
    host = "#pragma acc serial present(a)\n    { a[3] = 7; }"
    assert _found("100", host) == []


def test_an_inner_region_only_finds_the_array_present() -> None:
    text = """\
    float a[100];
    void f(void) {
      #pragma acc data copy(a[0:100])
      {
        #pragma acc data copy(a[0:100])
        {
          #pragma acc parallel loop present(a)
          for (int i = 0; i < 100; i++)
            a[i] = a[i] * 2;
        }
        a[3] = 7;
        #pragma acc update device(a[3:1])
      }
    }
    """
    assert [f.code for f in check_file(dedent(text), "t.c")] == []


def test_a_quotient_in_a_section_bound_is_read() -> None:
    text = """\
    void f(int n, float *a) {
      #pragma omp target data map(tofrom: a[0:(n + 1) / 2])
      {
        #pragma omp target teams distribute parallel for
        for (int i = 0; i <= n; i++)
          a[i] = a[i] * 2;
      }
    }
    """
    (item,) = check_file(dedent(text), "t.c")
    assert item.code == "ACC205"
    assert "a[0..(n+1)/2 - 1]" in item.message
    # i < n: for n = 1 the section holds a[0], all the loop touches.
    maybe = dedent(text).replace("i <= n;", "i < n;")
    assert [f.code for f in check_file(maybe, "t.c")] == []
    exact = maybe.replace("(n + 1) / 2", "(2 * n) / 2")
    assert [f.code for f in check_file(exact, "t.c")] == []


def test_create_written_on_the_device_and_read_after_is_lost() -> None:
    text = """\
    #include <stdio.h>
    void f(int n, float *a) {
      #pragma acc data create(a[0:n])
      {
        #pragma acc parallel loop present(a)
        for (int i = 0; i < n; i++)
          a[i] = i;
      }
      printf("%f\\n", a[1]);
    }
    """
    (item,) = check_file(dedent(text), "t.c")
    assert (item.code, item.level) == ("ACC201", Severity.ERROR)
    assert "`create(a)`" in item.message
    scratch = dedent(text).replace(
        'printf("%f\\n", a[1]);', 'a[1] = 2;\n  printf("%f\\n", a[1]);'
    )
    assert [f.code for f in check_file(scratch, "t.c")] == []


def test_a_carried_privatized_scalar_is_a_wrong_result_not_a_race() -> None:
    # firstprivate(off) with `off = off + 1` races on nothing: each thread counts
    # its own iterations, so the values differ from the serial loop's.
    from accls.pipeline.hoisting import blocking_errors

    assert CARRIED_SCALAR_PRIVATIZED.category is Category.RESULT
    text = """\
    int a[1000];
    void f(int n, int off) {
      #pragma omp parallel for firstprivate(off)
      for (int i = 0; i < n; i++) {
        off = off + 1;
        a[i] = i + off;
      }
    }
    """
    (item,) = check_file(dedent(text), "t.c")
    assert (item.code, item.level) == ("ACC112", Severity.ERROR)
    assert blocking_errors(dedent(text), "t.c", ()) == 1
