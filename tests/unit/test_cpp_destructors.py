"""C++ objects that die in a loop run their class's destructor.

A local leaving its scope, a temporary, `delete p`, and each element a
container destroys (its scope's end, `pop_back`, `erase`, `clear`, `resize`,
a growing vector's old elements) run `~C()`, and a class's implicit
destructor runs its members' and bases'. A destructor that writes a global
keeps the loop refused, named in the reason; one that keeps to its own
members leaves the object private.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze, analyze_text
from accls.analysis.field_points_to import file_field_facts
from accls.frontend import NEW_OBJECT, parse_source
from accls.project import BuildFlags, build_context

COUNTING = """\
    #include <vector>
    #include <array>
    static int live = 0;
    struct C {
      double x;
      C() : x(1.0) {}
      explicit C(double a) : x(a) {}
      ~C() { live++; }
    };
    struct Holder { double w; C c; };
    struct Derived : C { double z; };
    """
QUIET = COUNTING.replace("~C() { live++; }", "~C() { x = 0.0; }")
BODIES = [
    "C c(a[i]); b[i] = c.x;",
    "{ C c; b[i] = c.x + a[i]; }",
    "b[i] = C(a[i]).x;",
    "std::vector<C> v(2); b[i] = v[0].x + a[i];",
    "std::vector<C> v(2); v.pop_back(); b[i] = v[0].x + a[i];",
    "std::vector<C> v(2); v.erase(v.begin()); b[i] = v[0].x + a[i];",
    "std::vector<C> v(2); v.clear(); b[i] = a[i];",
    "std::vector<C> v(2); v.resize(1); b[i] = v[0].x + a[i];",
    "std::vector<std::vector<C>> v(2); b[i] = a[i];",
    "std::array<C, 2> v; b[i] = v[0].x + a[i];",
    "C v[2]; b[i] = v[1].x + a[i];",
    "C *p = new C(a[i]); b[i] = p->x; delete p;",
    "C *p = new C[2]; b[i] = p[0].x + a[i]; delete[] p;",
    "Holder h; b[i] = h.w + a[i];",
    "Derived d; b[i] = d.z + a[i];",
]


def _loop(body: str, head: str) -> tuple[bool, str]:
    text = dedent(head) + (
        "void f(int n, const double *a, double *b) {\n"
        f"  for (int i = 0; i < n; i++) {{ {body} }}\n"
        "}\n"
    )
    analysis = analyze(
        parse_source(text, "k.cpp"), AnalysisOptions(assume_no_alias=True)
    )
    (fact,) = analysis.facts
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


@pytest.mark.parametrize("body", BODIES)
def test_a_destructor_that_writes_a_global_keeps_the_loop_refused(body: str) -> None:
    parallel, why = _loop(body, COUNTING)
    assert not parallel
    assert "C::~C" in why
    assert "live" in why


@pytest.mark.parametrize("body", BODIES)
def test_a_destructor_that_keeps_to_its_object_leaves_it_private(body: str) -> None:
    parallel, why = _loop(body, QUIET)
    assert parallel, why


def test_references_and_pointers_going_out_of_scope_destroy_nothing() -> None:
    source = parse_source(
        dedent(COUNTING)
        + dedent(
            """\
            C g(1.0);
            void f(int n, double *b) {
              for (int i = 0; i < n; i++) {
                C &r = g;
                C *p = &g;
                std::vector<C *> v(2, p);
                b[i] = r.x + p->x + v[0]->x;
              }
            }
            """
        ),
        "k.cpp",
    )
    calls = [c.name for n in source.nests for lp in n.walk() for c in lp.calls]
    assert not [c for c in calls if "~" in c]


def test_a_local_is_its_destructors_object_and_an_element_a_new_one() -> None:
    source = parse_source(
        dedent(COUNTING)
        + dedent(
            """\
            void f(int n, double *b) {
              for (int i = 0; i < n; i++) {
                C c(1.0);
                std::vector<C> v(2);
                C *p = new C(2.0);
                b[i] = c.x + v[0].x + p->x;
                delete p;
              }
            }
            """
        ),
        "k.cpp",
    )
    calls = {
        (c.name, c.args)
        for n in source.nests
        for lp in n.walk()
        for c in lp.calls
        if "~" in c.name
    }
    assert calls == {("C::~C", ("c",)), ("C::~C", (NEW_OBJECT,)), ("C::~C", ("p",))}


OUT_OF_CLASS = COUNTING.replace("~C() { live++; }", "~C();") + "C::~C() { live++; }\n"
DECLARED_ONLY = COUNTING.replace("~C() { live++; }", "virtual ~C();")


@pytest.mark.parametrize("head", [OUT_OF_CLASS, DECLARED_ONLY])
@pytest.mark.parametrize("body", BODIES[:3])
def test_a_destructor_declared_in_its_class_and_defined_elsewhere_runs(
    body: str, head: str
) -> None:
    """`~C();` in the class, its body after it or in a file not given."""
    parallel, why = _loop(body, head)
    assert not parallel
    assert "C::~C" in why


def test_a_defaulted_destructor_leaves_the_object_private() -> None:
    """`~C() = default;` runs only its members' destructors: none writes here."""
    parallel, why = _loop(
        BODIES[0], QUIET.replace("~C() { x = 0.0; }", "~C() = default;")
    )
    assert parallel, why


def test_a_destructor_a_project_header_declares_runs(tmp_path: Path) -> None:
    """The class in a header, `~Later();` defined in a file not given."""
    (tmp_path / "later.h").write_text(
        "struct Later { double v; Later(double x) : v(x) {} ~Later(); };\n"
    )
    text = (
        '#include "later.h"\n'
        "void f(int n, const double *a, double *b) {\n"
        "  for (int i = 0; i < n; i++) { Later t(a[i]); b[i] = t.v; }\n"
        "}\n"
    )
    path = str(tmp_path / "k.cpp")
    context, _ = build_context(text, path, BuildFlags())
    options = AnalysisOptions(assume_no_alias=True)
    (fact,) = analyze_text(text, path, options=options, context=context).facts
    assert not fact.parallel
    assert any("Later::~Later" in o.message for o in fact.obstacles)


def test_the_object_a_destructor_gets_dies_so_its_fields_do_not_escape() -> None:
    """`delete d` of `~Dom();` defined elsewhere: what it stores in `d` is never read.

    A pointer handed to any other function not shown still escapes.
    """
    text = dedent(
        """\
        struct Dom { double *x; double *y; ~Dom(); };
        void keep(Dom *d);
        void f(Dom *d, Dom *e) {
          keep(e);
          delete d;
        }
        """
    )
    facts = file_field_facts(parse_source(text, "k.cpp"), "k.cpp")
    escapes = {(f.target, f.field) for f in facts if f.kind == "escape"}
    assert escapes == {("keep", "0")}
