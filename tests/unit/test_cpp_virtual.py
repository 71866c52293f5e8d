"""C++ virtual calls: the body a call names is not sure to be the one that runs."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source


def _verdict(code: str) -> tuple[bool, str]:
    [fact] = analyze(parse_source(dedent(code), "v.cpp")).facts
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


_LOOP = """\
void run(B* b, double* v, int n) {
  for (int i = 0; i < n; i++) v[i] = b->f(i);
}
"""


def test_a_virtual_call_whose_base_body_writes_nothing_stays_a_call() -> None:
    # D::f, which b may point to, counts its calls: a race in parallel.
    ok, why = _verdict(
        """\
        struct B { virtual double f(int i) { return i; } virtual ~B() {} };
        struct D : B { int n = 0; double f(int i) override { n++; return i; } };
        """
        + _LOOP
    )
    assert not ok
    assert "virtual method" in why
    assert "B::f" in why


def test_a_method_marked_override_or_of_an_unseen_base_is_virtual() -> None:
    for head in (
        "struct A { virtual double f(int); };\n"
        "struct B : A { double f(int i) override { return i; } };\n",
        "#include <base.h>\nstruct B : Base { double f(int i) { return i; } };\n",
    ):
        ok, why = _verdict(head + _LOOP)
        assert not ok, head
        assert "virtual method" in why, head


def test_a_plain_method_that_writes_nothing_is_still_parallel() -> None:
    ok, why = _verdict("struct B { double f(int i) { return i * 2.0; } };\n" + _LOOP)
    assert ok, why
