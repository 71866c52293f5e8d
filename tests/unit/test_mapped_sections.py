"""ACC208 and two names of one buffer: disjoint sections are two mappings."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_HALVES = """\
    #include <stdlib.h>
    void f(int n) {
      double *a = malloc(n * sizeof(double));
      double *b = a + n / 2;
      CHANGE
      #pragma acc enter data copyin(a[0:FIRST], b[0:SECOND])
      #pragma acc exit data copyout(a[0:FIRST], b[0:SECOND])
      free(a);
    }
"""


def _codes(first: str, second: str, change: str = "") -> list[tuple[str, int]]:
    src = (
        _HALVES.replace("FIRST", first)
        .replace("SECOND", second)
        .replace("CHANGE", change)
    )
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.code == "ACC208"]


def test_the_two_halves_of_one_buffer_are_two_mappings() -> None:
    assert _codes("n / 2", "n / 2") == []


def test_a_first_part_reaching_into_the_second_overlaps() -> None:
    assert _codes("n / 2 + 1", "n / 2") == [("ACC208", 6)]


def test_an_offset_whose_size_changes_after_the_pointer_is_set_proves_nothing() -> None:
    assert _codes("n / 2", "n / 2", "n = n + 2;") == [("ACC208", 6)]
