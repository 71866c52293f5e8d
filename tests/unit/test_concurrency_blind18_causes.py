"""Causes found by the eighteenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(code, line) for code, line, level in _found(src) if level == "ERROR"]


_BIND = """\
    void residual(double *r, const double *b, const double *ax, int n) {
      #pragma omp parallel
      {
        #pragma omp loop bind({binding})
        for (int i = 0; i < n; i++)
          r[i] = b[i] - ax[i];
      }
    }
"""


def test_a_loop_bound_to_the_thread_is_run_whole_by_every_thread() -> None:
    assert ("ACC120", 6) in _errors(_BIND.replace("{binding}", "thread"))


def test_a_loop_bound_to_the_parallel_region_shares_its_iterations() -> None:
    assert _found(_BIND.replace("{binding}", "parallel")) == []


_SLOTS = """\
    #include <omp.h>
    #define SLOTS 4
    void dot(double *part, const double *x, int n) {
      #pragma omp parallel {team}
      {
        int slot = {slot};
        #pragma omp for
        for (int i = 0; i < n; i++)
          part[slot] += x[i];
      }
    }
"""


def _slots(team: str, slot: str) -> str:
    return _SLOTS.replace("{team}", team).replace("{slot}", slot)


def test_a_thread_slot_shared_by_two_threads_races() -> None:
    # threads 0 and 4 of the team of 8 both add into `part[0]`
    shared = _slots("num_threads(8)", "omp_get_thread_num() % SLOTS")
    assert ("ACC101", 9) in _errors(shared)
    # `t / 2` pairs threads 0 and 1 whatever the team's size
    assert ("ACC101", 9) in _errors(_slots("", "omp_get_thread_num() / 2"))


def test_a_thread_slot_one_to_one_over_the_team_is_the_threads_own() -> None:
    assert _errors(_slots("num_threads(4)", "omp_get_thread_num() % SLOTS")) == []
    assert _errors(_slots("", "2 * omp_get_thread_num() + 1")) == []
    assert _errors(_slots("", "omp_get_thread_num()")) == []


def test_a_thread_slot_picked_in_the_subscript_races_past_the_table() -> None:
    src = """\
        #include <omp.h>
        void dot(double *part, const double *x, int n) {
          #pragma omp parallel for num_threads(8)
          for (int i = 0; i < n; i++)
            part[omp_get_thread_num() % {m}] += x[i];
        }
    """
    assert ("ACC101", 5) in _errors(src.replace("{m}", "4"))
    assert _errors(src.replace("{m}", "8")) == []


_HALVES = """\
    void weight_halves(double *a, const double *w, int n) {
      int mid = n / 2;
      #pragma omp parallel sections
      {
        #pragma omp section
        for (int i = 0; i {op} mid; i++)
          a[i] = a[i] * w[i];
        #pragma omp section
        for (int i = mid; i < n; i++)
          a[i] = a[i] * w[i];
      }
    }
"""


def test_sections_whose_loops_meet_whenever_both_run_race() -> None:
    # `i <= mid` and `i >= mid`: both reach `a[mid]` for every `n` that runs both
    assert ("ACC120", 10) in _errors(_HALVES.replace("{op}", "<="))


def test_sections_over_half_open_halves_are_apart() -> None:
    assert _found(_HALVES.replace("{op}", "<")) == []


_PROBE = """\
    typedef struct { long hits; double level; int channel; } probe_t;
    void count_hits(const double *x, int n, probe_t *p, probe_t *snap) {
      #pragma omp parallel
      {
        #pragma omp for nowait
        for (int i = 0; i < n; i++)
          if (x[i] > p->level) {
            #pragma omp atomic update
            p->hits++;
          }
        #pragma omp single
        {copy}
      }
    }
"""


def test_a_whole_structure_copy_reads_a_member_other_threads_update() -> None:
    assert ("ACC121", 12) in _errors(_PROBE.replace("{copy}", "*snap = *p;"))


def test_a_copy_of_the_other_members_leaves_the_updated_one_alone() -> None:
    copy = "{ snap->level = p->level; snap->channel = p->channel; }"
    assert _errors(_PROBE.replace("{copy}", copy)) == []


def test_a_structure_variable_copied_whole_meets_its_members() -> None:
    src = """\
        typedef struct { long hits; double level; } probe_t;
        probe_t st, rep;
        void f(const double *x, int n) {
          #pragma omp parallel
          {
            #pragma omp for nowait
            for (int i = 0; i < n; i++) {
              #pragma omp atomic update
              st.hits++;
            }
            #pragma omp single
            {copy}
          }
        }
    """
    assert ("ACC121", 12) in _errors(src.replace("{copy}", "rep = st;"))
    assert _errors(src.replace("{copy}", "rep.level = st.level;")) == []
