"""Causes found by the tenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(code, line) for code, line, level in _found(src) if level == "ERROR"]


_SWEEP = """\
    #define T 16
    static double table[T], out[1000];
    static int idx[1000];
    void run(void) {
      #pragma omp parallel
      {
        #pragma omp single nowait
        for (int k = 0; k < {high}; k++)
          {body}
        #pragma omp for
        for (int i = 0; i < 1000; i++)
          out[i] = table[{sub}];
      }
    }
"""


def _sweep(high: str = "T", body: str = "table[k] = k;", sub: str = "i % T") -> str:
    src = _SWEEP.replace("{high}", high).replace("{body}", body)
    return src.replace("{sub}", sub)


def test_a_sweep_over_the_whole_array_meets_any_element_read() -> None:
    # `table[k]` for every k of the declared extent: `table[i % T]` is one of them.
    assert ("ACC120", 12) in _errors(_sweep())
    assert ("ACC120", 12) in _errors(_sweep(sub="idx[i]"))


def test_a_sweep_over_part_of_the_array_stays_a_doubt() -> None:
    src = _sweep(high="T / 2")
    assert _errors(src) == []
    assert ("ACC123", 12, "WARNING") in _found(src)


def test_a_sweep_cut_short_or_guarded_stays_a_doubt() -> None:
    cut = _sweep(body="{ if (table[k] < 0.0) break; table[k] = k; }")
    guarded = _sweep(body="if (k % 2) table[k] = k;")
    for src in (cut, guarded):
        assert _errors(src) == []
        assert ("ACC123", 12, "WARNING") in _found(src)


def test_a_sweep_before_the_barrier_is_no_race() -> None:
    src = _sweep().replace("single nowait", "single")
    assert [f for f in _found(src) if f[0] in ("ACC120", "ACC123")] == []


_TWO_LOOPS = """\
    double run(const double *a, const double *b, int n) {
      double total = 0.0;
      #pragma omp parallel
      {
        #pragma omp for {first}
        for (int i = 0; i < n; i++) {
          {left}
          total += a[i];
        }
        #pragma omp for {second}
        for (int i = 0; i < n; i++) {
          {right}
          total += b[i];
        }
      }
      return total;
    }
"""


def _loops(first: str = "nowait", second: str = "", **guards: str) -> str:
    src = _TWO_LOOPS.replace("{first}", first).replace("{second}", second)
    src = src.replace("{left}", guards.get("left", "#pragma omp critical(left)"))
    return src.replace("{right}", guards.get("right", "#pragma omp critical(right)"))


def test_a_scalar_under_two_critical_names_in_two_loops_races() -> None:
    # The first loop ends `nowait`: its threads run the second loop while others
    # still update `total` under another name.
    assert ("ACC121", 13) in _errors(_loops())
    assert ("ACC121", 13) in _errors(_loops(right="/* plain */"))


def test_one_critical_name_or_a_barrier_between_the_loops_orders_them() -> None:
    same = _loops(right="#pragma omp critical(left)")
    barrier = _loops(first="")
    for src in (same, barrier):
        assert [f for f in _found(src) if f[0].startswith("ACC12")] == []


def test_a_reduction_in_each_loop_is_each_loop_s_own_copy() -> None:
    src = _loops(
        first="reduction(+ : total) nowait",
        second="reduction(+ : total)",
        left="",
        right="",
    )
    assert [f for f in _found(src) if f[0].startswith("ACC12")] == []


_SMOOTH = """\
    #define N 1000
    static void smooth(double *out, const double *in, int n) {
      #pragma omp parallel for
      for (int i = 1; i < {high}; i++)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
    }
    void run(void) {
      static double u[N], v[N];
      smooth({args});
    }
"""


def _smooth(high: str = "n - 1", args: str = "u, u, N") -> str:
    return _SMOOTH.replace("{high}", high).replace("{args}", args)


def test_a_callee_bound_computed_from_a_passed_constant_is_followed() -> None:
    # `i < n - 1` with `n` = N at the call that binds `out` and `in` to one array.
    assert ("ACC101", 5) in _errors(_smooth())
    assert ("ACC101", 5) in _errors(_smooth(high="n / 2 + 1"))


def test_distinct_arrays_or_an_unknown_bound_give_no_carried_dependence() -> None:
    assert _errors(_smooth(args="v, u, N")) == []
    unknown = _smooth(args="u, u, m").replace("void run(void)", "void run(int m)")
    assert _errors(unknown) == []


def test_a_missing_max_reduction_names_the_test_that_reads_the_value() -> None:
    src = """\
        double run(const double *x, int n) {
          double mx = -1.0;
          #pragma omp parallel for
          for (int i = 0; i < n; i++) {
            if (x[i] > mx)
              mx = x[i];
          }
          return mx;
        }
    """
    found = [f for f in check_file(textwrap.dedent(src), "t.c") if f.code == "ACC104"]
    assert [f.span.line for f in found] == [6]
    assert ("read", "5") in found[0].args
    assert "read at line 5" in found[0].message


def test_a_parameter_s_declared_extent_covers_nothing() -> None:
    # `double table[T]` as a parameter is a pointer: the caller's array may be
    # longer, so an element read past `T` need not meet the sweep.
    src = _sweep().replace("void run(void)", "void run(double table[T])")
    assert [f for f in _found(src) if f[0] == "ACC120"] == []
    assert ("ACC123", 12, "WARNING") in _found(src)
