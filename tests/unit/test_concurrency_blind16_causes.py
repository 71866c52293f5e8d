"""Causes found by the sixteenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_LAST = """\
    void count(const double *x, int n, long *total) {
      #pragma omp parallel
      {
        long last = 0;
        #pragma omp for {clause}
        for (int k = 0; k < n; k++)
          last = (long)x[k];
        #pragma omp atomic
        *total += last;
      }
    }
"""


def test_a_region_local_read_after_its_threads_loop_needs_no_lastprivate() -> None:
    # declared in the region: each thread reads back its own copy
    assert _errors(_LAST.replace("{clause}", "")) == []
    # privatized by the loop's own construct: the thread's copy ends with the loop
    assert ("ACC106", 7) in _errors(_LAST.replace("{clause}", "private(last)"))


_MUTEX = """\
    typedef struct { double total, mean; } summary_t;
    static void add(summary_t *st, double v) { st->total += v; }
    static void finish(summary_t *st, int n) { st->mean = st->total / n; }
    void run(summary_t *st, const double *x, int n) {
      #pragma omp parallel
      #pragma omp single
      {
        for (int b = 0; b < n; b++) {
          #pragma omp task depend(mutexinoutset: st->total) firstprivate(b)
          add(st, x[b]);
        }
        #pragma omp task {finish}
        finish(st, n);
      }
    }
"""


def test_mutexinoutset_instances_exclude_each_other() -> None:
    # the loop's instances run one at a time; `in` orders the finishing task
    assert _errors(_MUTEX.replace("{finish}", "depend(in: st->total)")) == []
    # a finishing task with no `depend` runs beside them
    found = _errors(_MUTEX.replace("{finish}", ""))
    assert found
    assert {c for c, _ in found} == {"ACC124"}


_TICKETS = """\
    typedef struct { int next; int njob; } queue_t;
    static int take(queue_t *q) {
      int t;
      #pragma omp atomic capture
      t = q->next++;
      return t;
    }
    static int seen(queue_t *q) {
      int v;
      #pragma omp atomic read
      v = q->next;
      return v;
    }
    void run(queue_t *q, double *out, int *peak) {
      #pragma omp parallel
      {
        int j;
        while ((j = take(q)) < q->njob) out[j] = j;
        #pragma omp master
        {
          int last = {read};
          if (last > *peak) *peak = last;
        }
      }
    }
"""


def test_a_callees_atomic_member_update_races_with_a_plain_read() -> None:
    # every access of the counter atomic: the captures do not race either
    assert _errors(_TICKETS.replace("{read}", "seen(q)")) == []
    found = _errors(_TICKETS.replace("{read}", "q->next"))
    assert ("ACC124", 18) in found


_NEST = """\
    #include <omp.h>
    typedef struct { omp_nest_lock_t lock; long count; double sum, hi; } stats_t;
    static void note(stats_t *s, double v) {
      omp_set_nest_lock(&s->lock);
      if (v > s->hi) s->hi = v;
      omp_unset_nest_lock(&s->lock);
    }
    static void add(stats_t *s, double v) {
      {before}
      omp_set_nest_lock(&s->lock);
      {inside}
      s->sum += v;
      note(s, v);
      omp_unset_nest_lock(&s->lock);
    }
    void classify(stats_t *st, const int *cls, const double *x, int n) {
      #pragma omp parallel for
      for (int k = 0; k < n; k++) add(&st[cls[k]], x[k]);
    }
"""


def test_a_member_written_outside_the_objects_own_lock_races() -> None:
    inside = _NEST.replace("{before}", "").replace("{inside}", "s->count++;")
    assert _errors(inside) == []
    outside = _NEST.replace("{before}", "s->count++;").replace("{inside}", "")
    assert ("ACC121", 9) in _errors(outside)


_DOACROSS = """\
    void running(const double *x, double *s, int n) {
      #pragma omp parallel for ordered(1)
      for (int i = 1; i < n; i++) {
        double g = 2.0 * x[i];
        #pragma omp ordered depend(sink: i - 1)
        {first}
        {second}
      }
    }
"""
_POST = "#pragma omp ordered depend(source)"
_UPDATE = "s[i] = s[i - 1] + g;"


def test_a_doacross_update_after_its_source_is_ordered_by_no_wait() -> None:
    after = _DOACROSS.replace("{first}", _UPDATE).replace("{second}", _POST)
    assert _errors(after) == []
    before = _DOACROSS.replace("{first}", _POST).replace("{second}", _UPDATE)
    assert ("ACC101", 7) in _errors(before)


def test_an_outer_regions_local_is_shared_by_an_inner_team() -> None:
    nested = """\
        void count(const double *x, int n, long *total) {
          #pragma omp parallel
          {
            long last = 0;
            #pragma omp parallel for
            for (int k = 0; k < n; k++)
              last = (long)x[k];
            #pragma omp atomic
            *total += last;
          }
        }
    """
    assert _errors(nested)
