"""Causes of the fourteenth blind batch that live in a loop's callee, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_BUCKETS = """\
    #include <omp.h>
    typedef struct { int head[16]; omp_lock_t lock[16]; } table_t;
    static void add(table_t *t, int key) {
      int b = key % 16;
    {early}
      omp_set_lock(&t->lock[b]);
      t->head[b] += key;
      omp_unset_lock(&t->lock[b]);
    }
    void fill(table_t *t, const int *keys, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        add(t, keys[i]);
    }
"""
_EARLY = """\
      if (t->head[b] == 0) {
        t->head[b] = key;
        return;
      }"""


def test_a_callee_writing_an_element_before_its_lock_races() -> None:
    assert _errors(_BUCKETS.replace("{early}", _EARLY)) == [("ACC121", 6)]


def test_a_callee_taking_its_lock_on_every_path_does_not_race() -> None:
    locked = _BUCKETS.replace("{early}", "").replace(
        "  t->head[b] += key;",
        "  if (t->head[b] == 0) t->head[b] = key;\n  else t->head[b] += key;",
    )
    assert _errors(locked) == []


def test_a_callee_bucket_chosen_by_the_loop_variable_itself_is_not_decided() -> None:
    own = _BUCKETS.replace("{early}", _EARLY).replace("add(t, keys[i])", "add(t, i)")
    assert _errors(own) == []


_OWN_SLOT = """\
    #include <omp.h>
    typedef struct { double val[1000]; double sum; omp_lock_t lock; } tab_t;
    static void put(tab_t *t, int k, double v) {
      t->val[k] = v;
    {total}
      omp_set_lock(&t->lock);
      t->sum += t->val[k];
      omp_unset_lock(&t->lock);
    }
    void fill(tab_t *t, const double *x) {
      #pragma omp parallel for
      for (int i = 0; i < 1000; i++)
        put(t, i, x[i]);
    }
"""


def test_an_own_element_stored_before_a_global_lock_does_not_race() -> None:
    assert _errors(_OWN_SLOT.replace("{total}", "")) == []


def test_a_shared_member_stored_before_the_lock_around_it_races() -> None:
    racy = _OWN_SLOT.replace("{total}", "  t->sum = 0.0;")
    assert _errors(racy) == [("ACC121", 5)]


def test_a_callee_locking_on_one_arm_only_is_not_followed() -> None:
    branchy = _BUCKETS.replace("{early}", _EARLY).replace(
        "  omp_set_lock(&t->lock[b]);", "  if (key) omp_set_lock(&t->lock[b]);"
    )
    assert _errors(branchy) == []


_PAIRS = """\
    typedef struct { double *v; int len; } stream_t;
    static void emit(stream_t *o, int j, double a) {
      o->v[j] = a;
      o->v[j + 1] = -a;
    }
    void pack(stream_t *o, const double *x, int n) {
      int j = 0;
      #pragma omp parallel for linear(j: {step})
      for (int i = 0; i < n; i++) {
        emit(o, j, x[i]);
        j += 2;
      }
    }
"""


def test_a_callee_writing_two_elements_per_linear_step_of_one_races() -> None:
    assert _errors(_PAIRS.replace("{step}", "1")) == [("ACC124", 10)]


def test_a_callee_writing_two_elements_per_linear_step_of_two_does_not_race() -> None:
    assert _errors(_PAIRS.replace("{step}", "2")) == []


_SHIFT = """\
    typedef struct { double pos[64]; } soa_t;
    static void step(soa_t *s, int i) { s->pos[i] = s->pos[i + {gap}]; }
    void sweep(soa_t *s) {
      #pragma omp parallel for
      for (int i = 0; i < 32; i++)
        step(s, i);
    }
"""


def test_a_callee_shifting_a_member_array_through_a_plain_pointer_races() -> None:
    assert _errors(_SHIFT.replace("{gap}", "1")) == [("ACC124", 6)]


def test_a_callee_copying_within_its_own_element_does_not_race() -> None:
    assert _errors(_SHIFT.replace("{gap}", "0")) == []


_HALVES = """\
    typedef struct { double *a; double *b; int n; } line_t;
    static void smooth(line_t *l, int lo, int hi) {
      double *a = l->a;
      for (int i = lo; i < hi; i++)
        {body};
    }
    void halves(line_t *l, int lo, int hi) {
      int mid = lo + (hi - lo) / 2;
      #pragma omp parallel sections
      {
        #pragma omp section
        smooth(l, lo, mid);
        #pragma omp section
        smooth(l, mid, hi);
      }
    }
"""


def test_sections_whose_callees_smooth_adjacent_halves_in_place_race() -> None:
    racy = _HALVES.replace("{body}", "a[i] = 0.5 * (a[i] + a[i + 1])")
    assert [c for c, _ in _errors(racy)] == ["ACC124"]


def test_sections_whose_callees_scale_their_own_halves_do_not_race() -> None:
    assert _errors(_HALVES.replace("{body}", "a[i] = 0.5 * a[i]")) == []


def test_sections_whose_callees_smooth_into_another_member_do_not_race() -> None:
    free = _HALVES.replace("{body}", "l->b[i] = 0.5 * (a[i] + a[i + 1])")
    assert _errors(free) == []


_PLAIN_HALVES = """\
    static void smooth(double *a, int lo, int hi) {
      for (int i = lo; i < hi; i++)
        {body};
    }
    void halves(double *a, int lo, int hi) {
      int mid = lo + (hi - lo) / 2;
      #pragma omp parallel sections
      {
        #pragma omp section
        smooth(a, lo, mid);
        #pragma omp section
        smooth(a, mid, hi);
      }
    }
"""


def test_sections_whose_callees_sweep_a_shared_pointer_race() -> None:
    racy = _PLAIN_HALVES.replace("{body}", "a[i] = 0.5 * (a[i] + a[i + 1])")
    assert [c for c, _ in _errors(racy)] == ["ACC124"]


def test_sections_whose_callees_sweep_their_own_halves_do_not_race() -> None:
    assert _errors(_PLAIN_HALVES.replace("{body}", "a[i] = 0.5 * a[i]")) == []


_SHIFT_N = """\
    typedef struct { double *pos; } soa_t;
    static void step(soa_t *s, int i) { s->pos[i] = s->pos[i + {gap}]; }
    void sweep(soa_t *s, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        step(s, i);
    }
"""


def test_a_callee_shifting_a_member_array_over_unknown_bounds_races() -> None:
    assert _errors(_SHIFT_N.replace("{gap}", "1")) == [("ACC124", 6)]


def test_a_callee_copying_its_own_element_over_unknown_bounds_does_not_race() -> None:
    assert _errors(_SHIFT_N.replace("{gap}", "0")) == []
