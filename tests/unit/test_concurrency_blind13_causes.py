"""Causes found by the thirteenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_COUNTER = """\
    typedef struct { long hits; double first; } counter_t;
    void tally(counter_t *c, const double *v, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++) {
        if (v[i] > 0.5) {
          #pragma omp atomic
          c->hits++;
        }
        if (i == {k})
          {store};
      }
    }
"""


def _counter(k: str, store: str) -> str:
    return _COUNTER.replace("{k}", k).replace("{store}", store)


def test_a_member_stored_by_one_iteration_alone_does_not_race() -> None:
    # `if (i == 0) c->first = ...`: one iteration touches `first`
    assert _errors(_counter("0", "c->first = v[0]")) == []


def test_a_plain_store_races_with_atomic_updates_of_the_same_member() -> None:
    # one iteration resets `hits` while the others update it atomically
    assert _errors(_counter("n / 2", "c->hits = 0")) == [("ACC103", 10)]
    found = check_file(textwrap.dedent(_counter("n / 2", "c->hits = 0")), "t.c")
    assert ("atomic", "7") in found[0].args  # the line it races with


def test_a_member_stored_in_every_iteration_still_races() -> None:
    src = _COUNTER.replace("if (i == {k})\n          {store};", "c->first = v[i];")
    assert [c for c, _ in _errors(src)] == ["ACC103"]


_TEMP = """\
    static double t;
    double scale(double *y, const double *x, int n) {
      #pragma omp parallel for{clause}
      for (int i = 0; i < n; i++) {
        t = 2.0 * x[i];
        y[i] = t + 1.0;
      }
      return t;
    }
"""


def test_a_shared_temporary_read_after_the_loop_is_a_race() -> None:
    # shared, the temporary races between its write and the next line's read
    found = check_file(textwrap.dedent(_TEMP.replace("{clause}", "")), "t.c")
    errors = [f for f in found if f.level.name == "ERROR"]
    assert [f.code for f in errors] == ["ACC103"]
    assert {("write", "5"), ("read", "6")} <= set(errors[0].args)
    assert "lastprivate(t)" in errors[0].message


def test_a_private_temporary_read_after_the_loop_lacks_lastprivate() -> None:
    src = _TEMP.replace("{clause}", " private(t)")
    assert [c for c, _ in _errors(src)] == ["ACC106"]
    assert _errors(_TEMP.replace("{clause}", " lastprivate(t)")) == []


_HELPERS = """\
    typedef struct { double *cur; double *next; double *flux; int n; } grid_t;
    static void smooth(grid_t *g) {
      #pragma omp for nowait
      for (int i = 1; i < g->n - 1; i++)
        g->next[i] = 0.5 * (g->cur[i - 1] + g->cur[i + 1]);
    }
    static void fluxes(grid_t *q) {
      #pragma omp for
      for (int i = 1; i < q->n - 1; i++)
        q->flux[i] = q->next[i + 1] - q->next[i - 1];
    }
    void step(grid_t *g, grid_t *h) {
      #pragma omp parallel
      {
        smooth(g);{between}
        fluxes({second});
      }
    }
"""


def _helpers(between: str = "", second: str = "g") -> str:
    return _HELPERS.replace("{between}", between).replace("{second}", second)


def test_a_nowait_loop_in_a_helper_races_with_the_next_helpers_loop() -> None:
    # the region calls both helpers; `q` in fluxes is the caller's `g` too
    assert _errors(_helpers()) == [("ACC111", 10)]


def test_a_barrier_between_the_helpers_orders_them() -> None:
    assert _errors(_helpers("\n    #pragma omp barrier")) == []


def test_helpers_given_other_records_are_not_matched() -> None:
    assert _errors(_helpers(second="h")) == []


def test_helpers_called_by_one_thread_are_not_the_teams() -> None:
    src = _helpers().replace("        smooth(g);", "        if (g->n > 2) smooth(g);")
    assert _errors(src) == []


_SECTIONS = """\
    void pipeline(double *x, int h, int m, double *out) {
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task depend(out : x[0 : h])
        x[h] = 1.0;
        #pragma omp task depend(in : {item})
        out[0] = x[h];
      }
    }
"""


def test_depend_sections_apart_for_every_value_order_nothing() -> None:
    # x[0:h] and x[h:h] never share an element: the tasks run unordered
    assert _errors(_SECTIONS.replace("{item}", "x[h : h]")) == [("ACC122", 8)]
    assert _errors(_SECTIONS.replace("{item}", "x[h + 1 : h]")) == [("ACC122", 8)]


def test_depend_sections_that_may_meet_stay_a_doubt() -> None:
    assert _errors(_SECTIONS.replace("{item}", "x[h - 1 : h]")) == []
    assert _errors(_SECTIONS.replace("{item}", "x[m : h]")) == []


def test_depend_sections_over_a_name_the_region_writes_stay_a_doubt() -> None:
    # `h` is set in the region: the checker does not follow its value there
    src = _SECTIONS.replace("{item}", "x[h : h]").replace(
        "      {\n", "      {\n        h = h / 2;\n"
    )
    assert ("ACC122", 9) not in _errors(src)
    assert ("ACC122", 9) in _errors(src.replace("h = h / 2;", "m = m / 2;"))


def test_a_member_stored_under_the_outer_index_of_a_collapsed_nest_races() -> None:
    # `collapse(2)`: every (0, j) is an iteration of its own, on any thread
    src = """\
        typedef struct { double first; } rec_t;
        void f(rec_t *c, const double *v, double *w, int n) {
          #pragma omp parallel for{clause}
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
              w[i * n + j] = v[j];
              if (i == 0)
                c->first = v[j];
            }
        }
    """
    assert _errors(src.replace("{clause}", "")) == []
    assert _errors(src.replace("{clause}", " collapse(2)")) == [("ACC103", 8)]


def test_helpers_on_one_static_schedule_are_left_alone() -> None:
    # each thread may get the same iterations in both loops: no proof of a race
    src = _helpers().replace("omp for nowait", "omp for schedule(static) nowait")
    src = src.replace("omp for\n", "omp for schedule(static)\n")
    assert _errors(src) == []
    assert _errors(src.replace("schedule(static)\n", "schedule(dynamic)\n")) != []
