"""Two callees that guard one object's member, one with its lock, one without."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_SRC = """\
    #include <omp.h>
    typedef struct { double total; omp_lock_t lock; } cell_t;
    static void add(cell_t *c, double v) {
      omp_set_lock(&c->lock);
      c->total += v;
      omp_unset_lock(&c->lock);
    }
    static void scale(cell_t *c, double f) {
      {guard_on}
      c->total *= f;
      {guard_off}
    }
    void apply(cell_t *cells, const int *which, const double *v, int n) {
      #pragma omp parallel for
      for (int t = 0; t < n; t++) {
        cell_t *c = &cells[{pick}];
        if (v[t] > 0.0)
          add(c, v[t]);
        else
          scale(c, 0.5);
      }
    }
"""


def _errors(on: str, off: str, pick: str = "which[t]") -> list[tuple[str, int]]:
    text = textwrap.dedent(_SRC)
    text = text.replace("{guard_on}", on).replace("{guard_off}", off)
    found = check_file(text.replace("{pick}", pick), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


def test_a_named_critical_does_not_exclude_the_objects_lock() -> None:
    assert _errors("#pragma omp critical(f)\n  {", "}") == [("ACC121", 5)]


def test_no_exclusion_at_all_races_with_the_locked_update() -> None:
    assert _errors("", "") == [("ACC121", 5)]


def test_the_same_lock_in_both_callees_is_no_race() -> None:
    assert _errors("omp_set_lock(&c->lock);", "omp_unset_lock(&c->lock);") == []


def test_each_iterations_own_object_needs_no_lock() -> None:
    # `cells[t]`: the loop variable picks the object, so no two iterations meet
    assert all(code != "ACC121" for code, _ in _errors("", "", pick="t"))
