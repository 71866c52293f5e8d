"""Names declared in a loop body: the body's local only within the declaring block."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import ScalarClass, analyze_text
from accls.frontend import parse_source
from accls.frontend.scopes import outer_refs


def test_the_walker_records_where_each_local_scope_ends() -> None:
    text = "void f(int n, double *a) {\n  for (int i = 0; i < n; i++) {\n"
    text += "    { double t = a[i]; a[i] = t; }\n"
    text += "    for (int j = 0; j < n; j++) a[j] = 0;\n"
    text += "  }\n}\n"
    (outer, inner) = parse_source(text).loops()
    scopes = {
        v.name: text.encode()[v.span.start_byte : v.scope_end]
        for v in outer.locals
        if v.span is not None
    }
    assert scopes["t"] == b"t = a[i]; a[i] = t; }"
    assert scopes["j"].startswith(b"j = 0; j < n; j++) a[j] = 0;")
    assert inner.var == "j"


def test_references_outside_the_block_are_the_outer_variable() -> None:
    text = dedent(
        """\
        double f(int n, double *restrict a) {
          double t = 0;
          for (int i = 0; i < n; i++) { t = 1; { double t = a[i]; a[i] = t; } t += 2; }
          return t;
        }
        """
    )
    (loop,) = parse_source(text).loops()
    outer = outer_refs(loop.refs, loop.locals)
    data = text.encode()
    found = [data[r.span.start_byte : r.span.start_byte + 6] for r in outer["t"]]
    assert found == [b"t = 1;", b"t += 2"]


def test_an_outer_sum_beside_a_shadowing_local_is_a_reduction() -> None:
    (loop,) = analyze_text(
        dedent(
            """\
            double f(int n, double *restrict a) {
              double t = 0;
              for (int i = 0; i < n; i++) { { double t = a[i]; a[i] = t; } t += a[i]; }
              return t;
            }
            """
        )
    ).facts
    (fact,) = [s for s in loop.scalars if s.name == "t"]
    assert fact.cls is ScalarClass.REDUCTION
    assert not fact.declared_inside


def test_an_outer_scalar_read_after_the_loop_stays_lastprivate() -> None:
    (loop,) = analyze_text(
        dedent(
            """\
            double f(double *restrict a) {
              double u = -1;
              for (int i = 0; i < 64; i++) { { double u = a[i]; a[i] = u; } u = a[i]; }
              return u;
            }
            """
        )
    ).facts
    (fact,) = [s for s in loop.scalars if s.name == "u"]
    assert fact.cls is ScalarClass.LASTPRIVATE


def test_a_local_of_the_whole_body_is_still_private_by_scope() -> None:
    (loop,) = analyze_text(
        "double t;\nvoid f(int n, double *restrict a) {\n"
        "  for (int i = 0; i < n; i++) { double t = a[i]; a[i] = t * t; }\n}\n"
    ).facts
    (fact,) = [s for s in loop.scalars if s.name == "t"]
    assert fact.cls is ScalarClass.PRIVATE
    assert fact.declared_inside
    assert loop.parallel


# ----- members of a struct the loop uses whole --------------------------------------

STRUCT = "struct P { double x, y; };\n"


def test_a_struct_assigned_whole_and_read_by_member_after_is_lastprivate() -> None:
    (loop,) = analyze_text(
        STRUCT + "double f(const struct P *restrict pts) {\n  struct P p = {0, 0};\n"
        "  for (int i = 0; i < 64; i++) p = pts[i];\n  return p.x;\n}\n"
    ).facts
    (fact,) = [s for s in loop.scalars if s.name == "p"]
    assert fact.cls is ScalarClass.LASTPRIVATE


def test_a_member_read_before_the_struct_is_assigned_carries_it() -> None:
    (loop,) = analyze_text(
        STRUCT + "void f(int n, const struct P *restrict pts, double *restrict b) {\n"
        "  struct P p = {0, 0};\n"
        "  for (int i = 0; i < n; i++) { b[i] = p.x; p = pts[i]; }\n}\n"
    ).facts
    assert ("scalar-carried", "p") in {(o.code, o.variable) for o in loop.obstacles}
    assert not loop.parallel


def test_a_struct_assigned_whole_then_updated_by_member_is_private() -> None:
    (loop,) = analyze_text(
        STRUCT + "void f(int n, const struct P *restrict pts, double *restrict b) {\n"
        "  struct P r;\n"
        "  for (int i = 0; i < n; i++) { r = pts[i]; r.y += 1; b[i] = r.y; }\n}\n"
    ).facts
    (fact,) = [s for s in loop.scalars if s.name == "r"]
    assert fact.cls is ScalarClass.PRIVATE
    assert loop.parallel
