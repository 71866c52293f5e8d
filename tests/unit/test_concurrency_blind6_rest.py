"""Causes of the sixth blind batch's last misses (r17, r19, r20), one unit each.

Macro values in a product subscript, bounds joined with `&&`, indices taken from an
`atomic capture` counter, slots that iterations meet again under two `critical`
names, and the text of ACC125 when only some teams share a slot.
"""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.frontend import parse_source


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(code, line) for code, line, level in _found(src) if level == "ERROR"]


_ROWS = """\
    #define R 50
    #define W 10
    #define S {stride}
    double a[R * W + W];
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < R; i++)
        for (int j = 0; j < W; j++)
          a[i * S + j] = i + 0.5 * j;
    }
"""


def test_a_macro_row_stride_shorter_than_the_row_races() -> None:
    # `i * 8 + j`, j < 10: the end of row i is the start of row i + 1.
    assert _errors(_ROWS.replace("{stride}", "8")) == [("ACC101", 9)]


def test_a_macro_row_stride_as_long_as_the_row_is_clean() -> None:
    assert _found(_ROWS.replace("{stride}", "10")) == []
    assert _found(_ROWS.replace("{stride}", "12")) == []


def test_a_symbolic_row_stride_stays_a_doubt() -> None:
    src = _ROWS.replace("#define S {stride}\n", "").replace(
        "void f(void)", "void f(int S)"
    )
    assert _errors(src) == []


_TILES = """\
    #define N 1024
    #define T 64
    double a[N];
    void f(int ok) {
      #pragma omp parallel for
      for (int ii = 0; ii < N; ii += T)
        for (int i = ii; {cond}; i++)
          a[i] = 2.0 * i;
    }
"""


def _tiles(cond: str) -> str:
    return _TILES.replace("{cond}", cond)


def test_tiles_one_past_their_end_race() -> None:
    assert _errors(_tiles("i <= ii + T && i < N")) == [("ACC101", 8)]
    assert _errors(_tiles("i < N && (i < ii + T + 1)")) == [("ACC101", 8)]


def test_tiles_clipped_at_their_end_are_clean() -> None:
    assert _found(_tiles("i < ii + T && i < N")) == []
    assert _found(_tiles("i < N && i <= ii + T - 1")) == []


def test_a_conjunct_that_does_not_bound_the_variable_is_no_certain_race() -> None:
    # `&& ok` may end the loop at once: neither the range nor the race is sure.
    assert _errors(_tiles("i <= ii + T && ok")) == []
    assert _errors(_tiles("i <= ii + T && i < N && ok")) == []


def test_an_inner_loop_with_an_unread_bound_is_no_certain_race() -> None:
    # `j < 4 && ok`: with `ok` 0 no element is written at all.
    src = """\
        double a[104];
        void f(int ok) {
          #pragma omp parallel for
          for (int i = 0; i < 100; i++)
            for (int j = 0; j < 4 && ok; j++)
              a[i + j] = 1.0;
        }
    """
    assert _found(src) == [("ACC102", 6, "WARNING")]
    assert _errors(src.replace(" && ok", "")) == [("ACC101", 6)]


def _inner_limits(cond: str, step: str = "i++") -> tuple[str, ...]:
    src = f"void f(int n, int m, double *a) {{ for (int i = 0; {cond}; {step}) a[i]; }}"
    loop = parse_source(src, "t.c").nests[0]
    return tuple(
        f"{'<=' if lim.upper else '>='} {lim.poly.render()}" for lim in loop.limits
    )


def test_a_conjunction_of_bounds_gives_every_limit() -> None:
    assert _inner_limits("i < n && i <= m") == ("<= n - 1", "<= m")
    assert _inner_limits("(i < n) && (i < m && i < 8)") == (
        "<= n - 1",
        "<= m - 1",
        "<= 7",
    )


def test_a_conjunction_that_does_not_bound_each_way_gives_no_limit() -> None:
    assert _inner_limits("i < n && m") == ()
    assert _inner_limits("i < n && i > m") == ()
    assert _inner_limits("i < n && i < m", step="i--") == ()
    assert _inner_limits("i < n || i < m") == ()


_CAPTURE = """\
    #define N 256
    int buf[N + 2], sums[N];
    void f(void) {
      int next = 1;
      #pragma omp parallel for{clauses}
      for (int i = 0; i < N; i++) {
        int k;
        #pragma omp atomic capture
        k = next++;
        buf[k] = i;
        {use}
      }
    }
"""


def _capture(use: str, clauses: str = "") -> str:
    return _CAPTURE.replace("{use}", use).replace("{clauses}", clauses)


def test_a_captured_index_and_its_neighbour_race() -> None:
    assert _errors(_capture("sums[i] = buf[k - 1];")) == [("ACC101", 10)]
    assert _errors(_capture("buf[k + 1] = 0;")) == [("ACC101", 10)]


def test_a_captured_index_is_each_iterations_own() -> None:
    assert _found(_capture("sums[i] = buf[k];")) == []
    assert _found(_capture("buf[k] += 1;")) == []


def test_a_captured_index_under_doubt_is_no_certain_race() -> None:
    # the neighbour read on some iterations only
    assert _errors(_capture("if (i % 2) sums[i] = buf[k - 1];")) == []
    # a private counter repeats its values across threads: own cells are not proved
    private = _capture("sums[i] = buf[k];", " firstprivate(next)")
    assert _found(private) != []
    assert _errors(private) == []


def test_a_counter_reset_in_the_region_does_not_make_cells_own() -> None:
    src = _capture("sums[i] = buf[k];").replace(
        "k = next++;", "k = next++;\n    if (k > 100) next = 1;"
    )
    assert _found(src) != []


_SLOTS = """\
    #define N 100
    double tot[4], x[N];
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < N; i++) {
        if (x[i] > 0) {
          #pragma omp critical(pos)
          tot[{one}] += x[i];
        } else {
          #pragma omp critical({name})
          tot[{other}] -= x[i];
        }
      }
    }
"""


def _slots(one: str, other: str, name: str = "neg") -> list[tuple[str, int]]:
    src = _SLOTS.replace("{one}", one).replace("{other}", other)
    return _errors(src.replace("{name}", name))


def test_slots_iterations_meet_under_two_critical_names_race() -> None:
    assert ("ACC121", 8) in _slots("i % 4", "i % 4")
    assert ("ACC121", 8) in _slots("i / 25", "i / 25")


def test_slots_under_one_name_or_never_met_again_are_clean() -> None:
    assert _slots("i % 4", "i % 4", name="pos") == []
    assert [c for c in _slots("i", "i") if c[0] == "ACC121"] == []


_TEAMS = """\
    #include <omp.h>
    int part[16], all;
    void f(void) {
      #pragma omp target teams num_teams(4) map(tofrom : part, all)
      {
        {write} += 1;
      }
    }
"""


def _acc125(write: str) -> str:
    found = check_file(textwrap.dedent(_TEAMS.replace("{write}", write)), "t.c")
    return next(f.message for f in found if f.code == "ACC125")


def test_acc125_says_which_teams_meet() -> None:
    paired = _acc125("part[omp_get_team_num() / 2]")
    assert "same location" not in paired
    assert "teams whose numbers give one value of" in paired
    assert "the teams write the same location" in _acc125("all")
