"""Causes found by the fifteenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_STATS = """\
    typedef struct { double sum, sumsq, weight; } stats_t;
    static void add_sum(stats_t *acc, const double *x, int lo, int hi) {
      for (int i = lo; i < hi; i++) acc->sum += x[i];
      acc->weight += hi - lo;
    }
    static void add_sq(stats_t *acc, const double *x, int lo, int hi) {
      for (int i = lo; i < hi; i++) acc->sumsq += x[i] * x[i];
      acc->weight += hi - lo;
    }
    void run(stats_t *acc, const double *x, int n) {
      #pragma omp parallel
      #pragma omp single
      for (int lo = 0; lo < n; lo += 100) {
        #pragma omp task depend(inout: {first})
        add_sum(acc, x, lo, lo + 100);
        #pragma omp task depend(inout: {second})
        add_sq(acc, x, lo, lo + 100);
      }
    }
"""


def _stats(first: str, second: str) -> str:
    return _STATS.replace("{first}", first).replace("{second}", second)


def test_a_member_depend_item_orders_a_loops_task_instances() -> None:
    # `acc` never changes in the loop: every instance names one object
    assert _errors(_stats("acc->sum, acc->weight", "acc->sumsq, acc->weight")) == []
    # only the member both tasks update is unordered between the two tasks
    found = _errors(_stats("acc->sum", "acc->sumsq"))
    assert found
    assert {c for c, _ in found} == {"ACC124"}
    assert all(line in (4, 8) or line in (15, 17) for _, line in found)


def test_a_depend_item_naming_each_iterations_element_orders_nothing() -> None:
    each = """\
        typedef struct { double weight; } stats_t;
        static void add(stats_t *acc, double *part, double v) {
          *part += v;
          acc->weight += 1.0;
        }
        void run(stats_t *acc, double *part, const double *x, int n) {
          #pragma omp parallel
          #pragma omp single
          for (int i = 0; i < n; i++) {
            #pragma omp task depend(inout: {item})
            add(acc, &part[i], x[i]);
          }
        }
    """
    # `part[i]` is another element per instance: `acc->weight` is unordered
    found = _errors(each.replace("{item}", "part[i]"))
    assert ("ACC124", 11) in found
    # `acc->weight` names one object: the instances run one at a time
    assert _errors(each.replace("{item}", "part[i], acc->weight")) == []


_CHAIN = """\
    typedef struct { int n; double k; double *x, *v, *f, *g; } chain_t;
    static void forces(chain_t *s) {
      for (int i = 1; i < s->n - 1; i++)
        s->{out}[i] = s->k * (s->x[i - 1] - 2.0 * s->x[i] + s->x[i + 1]);
    }
    static void kick(chain_t *s) {
      for (int i = 1; i < s->n - 1; i++) s->v[i] += 0.01 * s->f[i];
    }
    void step(chain_t *s) {
      #pragma omp parallel sections
      {
        #pragma omp section
        {call}
        #pragma omp section
        kick(s);
      }
    }
"""
_GROW = """\
    static void grow(chain_t *s) { s->n = s->n + 1; }
"""


def _chain(out: str, call: str = "forces(s);", extra: str = "") -> str:
    text = _CHAIN.replace("{out}", out).replace("{call}", call)
    return text.replace("void step", extra + "void step") if extra else text


def test_a_bound_read_through_a_steady_pointer_is_one_value() -> None:
    # both sections sweep `s->f` over 1 .. s->n - 2: the callees meet
    assert {c for c, _ in _errors(_chain("f"))} == {"ACC124"}
    # the forces go to another member array: nothing shared is written twice
    assert _errors(_chain("g")) == []


def test_a_bound_a_callee_of_the_region_may_set_is_not_steady() -> None:
    # `grow` sets a member `n`: the race on `s->n` is sure, but whether the
    # sweeps of `s->f` meet is not (their ranges are no longer one value)
    grown = textwrap.dedent(_chain("f", "{ grow(s); forces(s); }", _GROW))
    errors = [f for f in check_file(grown, "t.c") if f.level.name == "ERROR"]
    assert errors
    assert all("`s->n`" in f.message for f in errors)


def test_an_inline_sweep_bounded_by_a_member_meets_the_other_sections() -> None:
    inline = """\
        typedef struct { int n; double *f, *g, *v; } chain_t;
        void step(chain_t *s) {
          #pragma omp parallel sections
          {
            #pragma omp section
            for (int i = 1; i < s->n - 1; i++) s->{out}[i] = 2.0 * i;
            #pragma omp section
            for (int i = 1; i < s->n - 1; i++) s->v[i] += s->f[i];
          }
        }
    """
    assert {c for c, _ in _errors(inline.replace("{out}", "f"))} == {"ACC120"}
    assert _errors(inline.replace("{out}", "g")) == []


_TASKLOOPS = """\
    void edges(int h, const float *px, float *gy, float *mag) {
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp taskloop grainsize(8) {group}
        for (int y = 1; y < h - 1; y++)
          gy[y] = px[y + 1] - px[y - 1];
        {wait}
        #pragma omp taskloop grainsize(8)
        for (int y = 2; y < h - 2; y++)
          mag[y] = gy[y - 1] + gy[y + 1];
      }
    }
"""


def _taskloops(group: str, wait: str) -> str:
    return _TASKLOOPS.replace("{group}", group).replace("{wait}", wait)


def test_two_taskloops_left_running_meet_element_by_element() -> None:
    # `nogroup`: the first loop's tasks may run while the second reads neighbours
    assert {c for c, _ in _errors(_taskloops("nogroup", ""))} == {"ACC122"}
    # a `taskwait` waits for the `nogroup` tasks, children of the single's task
    assert _errors(_taskloops("nogroup", "#pragma omp taskwait")) == []
    # without `nogroup` the taskloop's own taskgroup waits for them
    assert _errors(_taskloops("", "")) == []


def test_two_taskloops_over_disjoint_elements_do_not_meet() -> None:
    halves = """\
        void halves(const float *px, float *gy, float *mag) {
          #pragma omp parallel
          #pragma omp single
          {
            #pragma omp taskloop nogroup
            for (int y = 0; y < 100; y++)
              gy[y] = px[y];
            #pragma omp taskloop
            for (int y = {lo}; y < 200; y++)
              mag[y] = gy[y];
          }
        }
    """
    # the second loop reads only the half the first does not write
    assert _errors(halves.replace("{lo}", "100")) == []
    assert {c for c, _ in _errors(halves.replace("{lo}", "99"))} == {"ACC122"}


_CALLBACK = """\
    typedef void (*rhs_fn)(const double *y, double *dy);
    static void decay(const double *y, double *dy) {
      {body}
    }
    static void step(rhs_fn f, double *y) {
      double dy[2];
      f(y, dy);
      y[0] += 0.01 * dy[0];
      y[1] += 0.01 * dy[1];
    }
    static void run(rhs_fn f, double (*y)[2], int n) {
      #pragma omp parallel for
      for (int s = 0; s < n; s++) step(f, y[s]);
    }
    void drive(double (*y)[2], int n) { run(decay, y, n); }
"""
_SCRATCH = """static double r0;
      r0 = 0.5 * y[0];
      dy[0] = -r0;
      dy[1] = r0 - 0.2 * y[1];"""
_TABLE = """static const double k[2] = {0.5, 0.2};
      dy[0] = -k[0] * y[0];
      dy[1] = k[0] * y[0] - k[1] * y[1];"""


def test_a_call_through_a_function_pointer_parameter_reaches_its_bindings() -> None:
    # `f` is `decay` at the only call of `run`, and `run`'s `f` at that of `step`
    racy = _CALLBACK.replace("{body}", _SCRATCH)
    assert "ACC124" in {c for c, _ in _errors(racy)}
    # `run` is not `static`: callers elsewhere may bind `f` to anything
    extern = racy.replace("static void run", "void run")
    assert "ACC124" not in {c for c, _ in _errors(extern)}
    assert _errors(_CALLBACK.replace("{body}", _TABLE)) == []


def test_a_fixed_element_of_a_callees_static_array_is_shared_state() -> None:
    scratch = """\
        static double norm(const double *v, int n) {
          static double part[2];
          part[0] = 0.0;
          part[1] = 0.0;
          for (int i = 0; i < n; i++) part[i % 2] += v[i] * v[i];
          return part[0] + part[1];
        }
        void norms(const double *v, double *out, int rows, int n) {
          #pragma omp parallel for
          for (int r = 0; r < rows; r++) out[r] = norm(v + r * n, n);
        }
    """
    # every call writes `part[0]` and `part[1]`: one array for every thread
    assert "ACC124" in {c for c, _ in _errors(scratch)}
    local = scratch.replace("static double part[2];", "double part[2];")
    assert _errors(local) == []
