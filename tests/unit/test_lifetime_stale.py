"""ACC210: between `enter data` and `exit data` one side reads what the other
changed, with no `update` between."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file

LIFETIME = """\
void touch(int n, double *a);
double run(int n, double *a) {{
  double s = 0.0;
  #pragma acc enter data {enter}
  for (int i = 0; i < n; i++)
    a[i] = i;
  {between}
  #pragma acc parallel loop present(a[0:n]) reduction(+:s)
  for (int i = 0; i < n; i++)
    s += a[i];
  {after}
  #pragma acc exit data delete(a[0:n])
  return s;
}}
"""


def _codes(
    enter: str = "create(a[0:n])", between: str = "", after: str = ""
) -> list[str]:
    text = LIFETIME.format(enter=enter, between=between, after=after)
    return [f.code for f in check_file(text, "t.c")]


def test_a_kernel_reading_what_the_host_wrote_unsent_is_found() -> None:
    assert _codes() == ["ACC210"]
    assert _codes(enter="copyin(a[0:n])") == ["ACC210"]


@pytest.mark.parametrize(
    ("enter", "between"),
    [
        ("create(a[0:n])", "#pragma acc update device(a[0:n])"),
        ("create(a[0:n])", "touch(n, a);"),  # not followed: may update it
        ("create(a[0:n]) if(n > 8)", ""),
        ("create(b[0:n])", ""),  # another array
    ],
)
def test_a_sync_or_what_the_check_cannot_follow_is_quiet(
    enter: str, between: str
) -> None:
    assert _codes(enter=enter, between=between) == []


def test_a_host_read_after_a_kernel_write_is_found() -> None:
    text = """\
#include <stdio.h>
void run(int n, double *a) {
  #pragma acc enter data copyin(a[0:n])
  #pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = 2.0 * a[i];
  printf("%f\\n", a[0]);
  #pragma acc exit data copyout(a[0:n])
}
"""
    [found] = check_file(text, "t.c")
    assert (found.code, found.span.line) == ("ACC210", 7)
    assert "update self(a)" in found.message
    synced = text.replace("  printf", "  #pragma acc update self(a[0:n])\n  printf")
    assert check_file(synced, "t.c") == ()


def test_an_enter_and_exit_in_different_blocks_are_skipped() -> None:
    text = LIFETIME.format(enter="create(a[0:n])", between="", after="").replace(
        "  #pragma acc enter data create(a[0:n])\n",
        "  if (n > 8) {\n  #pragma acc enter data create(a[0:n])\n  }\n",
    )
    assert [f.code for f in check_file(text, "t.c")] == []


def test_a_structured_region_inside_leaves_it_to_the_lifetime() -> None:
    text = LIFETIME.format(
        enter="create(a[0:n])",
        between="#pragma acc data copy(a[0:n])\n  {",
        after="}",
    )
    assert [f.code for f in check_file(text, "t.c")] == ["ACC210"]


TABLE = """\
#include <stdlib.h>
void run(int n, double **c) {
  #pragma acc enter data create(c[0:4][0:n])
  #pragma acc parallel loop collapse(2) present(c[0:4][0:n])
  for (int x = 0; x < 4; x++)
    for (int y = 0; y < n; y++)
      c[x][y] = x + y;
  double *first = c[0];
  #pragma acc exit data delete(c[0:4][0:n])
  for (int x = 0; x < 4; x++)
    free(c[x]);
  free(first);
}
"""


def test_a_row_pointer_of_a_table_is_not_its_elements() -> None:
    # `c[0]` reads the host's row pointer, which no kernel writes; after the
    # `exit data delete` the device copy is gone.
    assert [f.code for f in check_file(TABLE, "t.c")] == []


def test_a_kernel_whose_if_may_run_it_on_the_host_is_skipped() -> None:
    text = LIFETIME.format(enter="create(a[0:n])", between="", after="")
    text = text.replace("parallel loop present", "parallel loop if(n > 8) present")
    assert [f.code for f in check_file(text, "t.c")] == []


def test_nested_enters_of_one_array_report_once() -> None:
    text = LIFETIME.format(enter="create(a[0:n])", between="", after="")
    text = text.replace(
        "  #pragma acc enter data create(a[0:n])\n",
        "  #pragma acc enter data create(a[0:n])\n"
        "  #pragma acc enter data create(a[0:n])\n",
    )
    assert [f.code for f in check_file(text, "t.c")] == ["ACC210"]


READ_AFTER = """\
#include <stdio.h>
void run(int n, int k, double *a) {
  #pragma acc enter data copyin(a[0:n])
  #pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = 2.0 * a[i];
  #pragma acc update self(%s)
  %s
  printf("%%f\\n", a[%s]);
  #pragma acc exit data copyout(a[0:n])
}
"""


@pytest.mark.parametrize(
    ("section", "between", "index", "codes"),
    [
        ("a[0:1]", "", "3", ["ACC210"]),  # `a[3]` was not brought over
        ("a[k:1]", "", "k + 1", ["ACC210"]),
        ("a[3:1]", "", "3", []),
        ("a[2:4]", "", "5", []),
        ("a[k:1]", "", "k", []),
        ("a[0:n]", "", "3", []),  # not provably outside: counted as moved
        ("a[k:1]", "k = k + 1;", "k", []),  # `k` changed: the check cannot tell
        ("a[0:1], a[3:1]", "", "3", []),
    ],
)
def test_an_update_of_a_section_syncs_only_its_elements(
    section: str, between: str, index: str, codes: list[str]
) -> None:
    text = READ_AFTER % (section, between, index)
    assert [f.code for f in check_file(text, "t.c")] == codes
