"""Causes found by the fourteenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_TASKLOOP_SUM = """\
    double total(const double *v, int n) {
      double sum = 0.0;
      #pragma omp parallel
      #pragma omp single
      #pragma omp taskgroup task_reduction(+: sum)
      {
        #pragma omp taskloop grainsize(64){clause}
        for (int i = 0; i < n; i++)
          sum += v[i];
      }
      return sum;
    }
"""


def test_a_taskloop_in_reduction_item_is_a_reduction_of_the_loop() -> None:
    assert _errors(_TASKLOOP_SUM.replace("{clause}", " in_reduction(+: sum)")) == []


def test_a_taskloop_sum_without_in_reduction_still_races() -> None:
    assert [c for c, _ in _errors(_TASKLOOP_SUM.replace("{clause}", ""))] != []


_HOST_TEAMS = """\
    double total(const double *v, int n) {
      double mass = 0.0;
      #pragma omp teams num_teams(4){clause}
      {
        double part = 0.0;
        #pragma omp distribute parallel for reduction(+: part)
        for (int i = 0; i < n; i++)
          part += v[i];
        mass += part;
      }
      return mass;
    }
"""


def test_host_teams_share_a_local_declared_before_them() -> None:
    # no `target`: `mass` is not firstprivate, every team adds into it
    assert _errors(_HOST_TEAMS.replace("{clause}", "")) == [("ACC125", 9)]


def test_host_teams_reducing_the_local_do_not_race() -> None:
    assert _errors(_HOST_TEAMS.replace("{clause}", " reduction(+: mass)")) == []


def test_target_teams_keep_an_unmapped_scalar_firstprivate() -> None:
    src = _HOST_TEAMS.replace("omp teams num_teams(4){clause}", "omp target teams")
    assert _errors(src) == []


_MASKED_DT = """\
    typedef struct { double *u; double *unew; double dt; int n; } solver_t;
    static void advance(solver_t *p) {
      #pragma omp for nowait
      for (int i = 1; i < p->n; i++) {
        double c = p->dt * 2.0;
        p->unew[i] = p->u[i] - c;
      }
    }
    void step(solver_t *s, double vmax) {
      #pragma omp parallel
      {
        #pragma omp masked
        s->dt = 0.4 / vmax;{sync}
        advance(s);
      }
    }
"""


def test_a_callee_reads_a_member_the_masked_block_just_stored() -> None:
    # every thread enters `advance` and reads `s->dt` with no barrier first
    found = _errors(_MASKED_DT.replace("{sync}", ""))
    assert [c for c, _ in found] == ["ACC120"]
    assert {
        f.span.line
        for f in check_file(textwrap.dedent(_MASKED_DT.replace("{sync}", "")), "t.c")
    } >= {14}


def test_a_barrier_after_the_masked_store_orders_the_callee_reads() -> None:
    assert _errors(_MASKED_DT.replace("{sync}", "\n    #pragma omp barrier")) == []


def test_a_callee_read_after_its_own_barrier_is_not_placed_at_the_call() -> None:
    src = _MASKED_DT.replace("{sync}", "").replace(
        "      #pragma omp for nowait\n",
        "      #pragma omp barrier\n      #pragma omp for nowait\n",
    )
    assert _errors(src) == []


_QUEUE = """\
    typedef struct { int *items; int tail; } queue_t;
    void push_all(queue_t *q, const int *v, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++) {
        int slot;
        {take}
        q->items[slot] = v[i];
      }
    }
"""


def test_a_plain_read_of_a_member_updated_only_atomically_races() -> None:
    take = "slot = q->tail;\n    #pragma omp atomic\n    q->tail++;"
    assert ("ACC103", 8) in _errors(_QUEUE.replace("{take}", take))


def test_a_member_taken_with_atomic_capture_does_not_race() -> None:
    take = "#pragma omp atomic capture\n    slot = q->tail++;"
    assert _errors(_QUEUE.replace("{take}", take)) == []


def test_a_member_read_with_atomic_read_does_not_race() -> None:
    take = (
        "#pragma omp atomic read\n    slot = q->tail;\n"
        "    #pragma omp atomic\n    q->tail++;"
    )
    assert [c for c, _ in _errors(_QUEUE.replace("{take}", take))] == []


_JOURNAL = """\
    typedef struct { double *value; int count; } journal_t;
    double simulate(int i);
    void run(journal_t *j, int n) {
      #pragma omp parallel for ordered schedule(dynamic, 4)
      for (int i = 0; i < n; i++) {
        double v = simulate(i);
        {outside}
        #pragma omp ordered
        {
          {inside}
          j->value[j->count] = w;
          j->count++;
        }
      }
    }
"""


def test_a_read_outside_the_ordered_block_races_with_its_writes() -> None:
    src = _JOURNAL.replace("{outside}", "double w = v / (1.0 + j->count);")
    found = check_file(textwrap.dedent(src.replace("{inside}", "")), "t.c")
    errors = [f for f in found if f.level.name == "ERROR"]
    assert [(f.code, f.span.line) for f in errors] == [("ACC103", 12)]
    assert "`ordered` block" in errors[0].message


def test_every_access_in_the_ordered_block_does_not_race() -> None:
    src = _JOURNAL.replace("{outside}", "").replace(
        "{inside}", "double w = v / (1.0 + j->count);"
    )
    assert _errors(src) == []


_PACK = """\
    void pack(double *o, const double *re, const double *im, int n) {
      int j = 0;
      #pragma omp parallel for linear(j: {step})
      for (int i = 0; i < n; i++) {
        o[j] = re[i];
        o[j + 1] = im[i];
        j += 2;
      }
    }
"""


def test_a_linear_step_shorter_than_the_elements_written_races() -> None:
    # iteration k writes o[k] and o[k + 1]; iteration k + 1 writes o[k + 1]
    assert _errors(_PACK.replace("{step}", "1")) == [("ACC101", 5)]


def test_a_linear_step_as_long_as_the_elements_written_does_not_race() -> None:
    assert _errors(_PACK.replace("{step}", "2")) == []


def test_a_linear_pair_read_after_the_body_moves_the_variable_stays_a_doubt() -> None:
    src = _PACK.replace("{step}", "1").replace(
        "o[j] = re[i];\n        o[j + 1] = im[i];\n        j += 2;",
        "j += 2;\n        o[j] = re[i];\n        o[j + 1] = im[i];",
    )
    assert [c for c, _ in _errors(src)] != ["ACC101"]


_TWO_SCALARS = """\
    #include <omp.h>
    int count, other;
    omp_lock_t lk;
    void f(const double *v, int n, int cap) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++) {
        if (v[i] > 0.5 && count < cap) {
          #pragma omp atomic
          count++;
        }
        omp_set_lock(&lk);
        other += 1;
        omp_unset_lock(&lk);
      }
    }
"""


def test_a_locked_scalar_after_an_atomic_one_stays_guarded() -> None:
    # the atomic one's plain read races; the one under the lock does not
    assert _errors(_TWO_SCALARS) == [("ACC103", 9)]


_PUSH = """\
    typedef struct { int *items; int tail; } queue_t;
    static void push(queue_t *q, int v) {
      {take}
    }
    void fill(queue_t *next, const int *v, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        if (v[i] > 0)
          push(next, v[i]);
    }
"""


def test_a_callee_reading_a_member_it_updates_atomically_races() -> None:
    take = "q->items[q->tail] = v;\n  #pragma omp atomic\n  q->tail++;"
    assert _errors(_PUSH.replace("{take}", take)) == [("ACC124", 11)]


def test_a_callee_taking_the_slot_with_atomic_capture_does_not_race() -> None:
    take = (
        "int slot;\n  #pragma omp atomic capture\n  slot = q->tail++;\n"
        "  q->items[slot] = v;"
    )
    assert _errors(_PUSH.replace("{take}", take)) == []


_RECORD = """\
    typedef struct { double *value; int count; } journal_t;
    double simulate(int i);
    static void record(journal_t *j, double w) {
      j->value[j->count] = w;
      j->count++;
    }
    void run(journal_t *j, int n) {
      #pragma omp parallel for ordered
      for (int i = 0; i < n; i++) {
        double v = simulate(i);
        {body}
      }
    }
"""


def test_a_read_outside_the_ordered_block_of_a_callee_update_races() -> None:
    body = (
        "double w = v / (1.0 + j->count);\n    #pragma omp ordered\n    record(j, w);"
    )
    found = check_file(textwrap.dedent(_RECORD.replace("{body}", body)), "t.c")
    errors = [f for f in found if f.level.name == "ERROR"]
    assert [(f.code, f.span.line) for f in errors] == [("ACC124", 13)]
    assert "`ordered` block" in errors[0].message


def test_a_read_inside_the_ordered_block_of_a_callee_update_does_not_race() -> None:
    body = (
        "#pragma omp ordered\n    {\n      double w = v / (1.0 + j->count);\n"
        "      record(j, w);\n    }"
    )
    assert _errors(_RECORD.replace("{body}", body)) == []
