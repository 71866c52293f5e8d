"""`volatile` objects: a loop that writes one is refused, reading one is fine."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import LoopFacts, analyze_text
from accls.analysis.model import ObstacleCode
from accls.frontend import parse_source


def facts(text: str) -> tuple[LoopFacts, ...]:
    return analyze_text(dedent(text)).facts


def volatile_vars(loop: LoopFacts) -> set[str | None]:
    return {o.variable for o in loop.obstacles if o.code is ObstacleCode.VOLATILE}


def test_the_front_end_keeps_volatile_on_every_kind_of_declaration() -> None:
    source = parse_source(
        dedent(
            """\
            struct dev { volatile int status; int other; };
            volatile int flag; int *volatile vp; volatile double *pv; double plain[3];
            void k(int n, volatile double *a, double *b) {
              volatile int t = 0; int u = (int)sizeof(volatile int);
            }
            """
        )
    )
    assert {g.name: g.volatile for g in source.globals} == {
        "flag": True,
        "vp": True,
        "pv": True,
        "plain": False,
    }
    fn = source.function("k")
    assert fn is not None
    assert {v.name: v.volatile for v in (*fn.params, *fn.locals)} == {
        "n": False,
        "a": True,
        "b": False,
        "t": True,
        "u": False,
    }
    (_, fields), *_ = source.types.structs
    assert {f.name: f.volatile for f in fields} == {"status": True, "other": False}


def test_a_volatile_scalar_written_in_the_loop_gets_no_clause() -> None:
    last, count = facts(
        """\
        double f(int n, const double *restrict a) {
          volatile double last = 0;
          volatile int cnt = 0;
          for (int i = 0; i < n; i++) last = a[i];
          for (int i = 0; i < n; i++) cnt += 1;
          return last + cnt;
        }
        """
    )
    assert not last.parallel
    assert not count.parallel
    assert volatile_vars(last) == {"last"}
    assert volatile_vars(count) == {"cnt"}
    (reason,) = [o for o in last.obstacles if o.code is ObstacleCode.VOLATILE]
    assert reason.message == (
        "writes volatile `last` (line 4): every access is observable; accls does "
        "not privatize or reduce it"
    )


def test_a_volatile_flag_of_the_file_written_in_the_loop_is_refused() -> None:
    (loop,) = facts(
        """\
        volatile int flag;
        void f(int n, double *restrict a) {
          for (int i = 0; i < n; i++) { flag = i; a[i] += 1; }
        }
        """
    )
    assert not loop.parallel
    assert volatile_vars(loop) == {"flag"}


def test_writes_through_a_pointer_to_volatile_and_to_a_volatile_field() -> None:
    through, field = facts(
        """\
        struct dev { volatile int status; int other; };
        void f(int n, volatile double *restrict r, struct dev *restrict d,
               double *restrict b) {
          for (int i = 0; i < n; i++) r[i] = i;
          for (int i = 0; i < n; i++) { d[i].status = 1; b[i] = 0; }
        }
        """
    )
    assert volatile_vars(through) == {"r"}
    assert not through.parallel
    assert volatile_vars(field) == {"status"}
    assert not field.parallel


def test_increments_of_a_volatile_field_are_writes_too() -> None:
    post, pre, read = facts(
        """\
        struct dev { volatile int status; int other; };
        void f(int n, struct dev *restrict d, double *restrict b) {
          for (int i = 0; i < n; i++) { d[i].status++; b[i] = 0; }
          for (int i = 0; i < n; i++) { ++(d + i)->status; b[i] = 0; }
          for (int i = 0; i < n; i++) { b[i] = d[i].status == 1; d[i].other = 2; }
        }
        """
    )
    assert volatile_vars(post) == {"status"}
    assert volatile_vars(pre) == {"status"}
    assert not volatile_vars(read)


def test_reading_a_volatile_or_a_volatile_local_of_each_iteration_is_fine() -> None:
    reads, own = facts(
        """\
        volatile double scale;
        void f(int n, const double *restrict a, double *restrict b) {
          for (int i = 0; i < n; i++) b[i] = a[i] * scale;
          for (int i = 0; i < n; i++) { volatile double t = a[i]; b[i] = t * 2; }
        }
        """
    )
    assert reads.parallel
    assert not volatile_vars(reads)
    assert own.parallel
    assert not volatile_vars(own)


def test_a_static_volatile_of_the_body_is_one_object_for_all_iterations() -> None:
    (loop,) = facts(
        """\
        void f(int n, double *restrict b) {
          for (int i = 0; i < n; i++) { static volatile int seen; seen = i; b[i] = 0; }
        }
        """
    )
    assert not loop.parallel
    assert "seen" in volatile_vars(loop)


def test_a_variable_of_a_volatile_typedef_is_volatile() -> None:
    (loop,) = facts(
        """\
        typedef volatile int vint;
        typedef vint counter;
        counter ticks;
        void f(int n, double *restrict a) {
          for (int i = 0; i < n; i++) { ticks = i; a[i] = i; }
        }
        """
    )
    assert not loop.parallel
    assert volatile_vars(loop) == {"ticks"}
