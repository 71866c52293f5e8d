"""C++ elements built by a container or an array run their class's constructor.

`std::vector<E> v(n)`, `v.resize(n)`, `v.assign(n, x)`, `std::array<E, 2> a` and
`E a[2]` construct elements: a constructor that writes a global keeps the loop
refused; one that keeps to its own members leaves the elements private.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.frontend import NEW_OBJECT, parse_source

COUNTING = """\
    #include <vector>
    #include <array>
    static int made = 0;
    struct C {
      double x;
      C() { x = 1.0; made++; }
      C(const C &o) { x = o.x; made++; }
    };
    """
QUIET = """\
    #include <vector>
    #include <array>
    struct C {
      double x;
      C() { x = 1.0; }
      C(const C &o) { x = o.x; }
    };
    """
BODIES = [
    "std::vector<C> v(4); b[i] = v[0].x;",
    "std::vector<C> v(n); b[i] = v[0].x;",
    "C c; std::vector<C> v(4, c); b[i] = v[0].x;",
    "std::vector<C> v; v.resize(3); b[i] = v[0].x;",
    "C c; std::vector<C> v; v.resize(3, c); b[i] = v[0].x;",
    "std::vector<C> w(2); std::vector<C> v(w); b[i] = v[0].x;",
    "std::array<C, 2> v; b[i] = v[0].x;",
    "C v[2]; b[i] = v[1].x;",
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
def test_elements_whose_constructor_writes_a_global_keep_the_loop_refused(
    body: str,
) -> None:
    parallel, why = _loop(body, COUNTING)
    assert not parallel
    assert "C::C" in why
    assert "made" in why


@pytest.mark.parametrize("body", BODIES)
def test_elements_whose_constructor_keeps_to_itself_are_private(body: str) -> None:
    parallel, why = _loop(body, QUIET)
    assert parallel, why


def _calls(text: str) -> list[tuple[str, tuple[str, ...]]]:
    source = parse_source(dedent(QUIET) + dedent(text), "k.cpp")
    return [(c.name, c.args) for n in source.nests for lp in n.walk() for c in lp.calls]


def test_a_counted_vector_builds_default_elements_and_a_valued_one_copies() -> None:
    calls = _calls(
        """\
        void f(int n, double *b) {
          for (int i = 0; i < n; i++) {
            std::vector<C> v(n);
            C c;
            std::vector<C> w(n, c);
            b[i] = v[0].x + w[0].x;
          }
        }
        """
    )
    assert ("C::C", (NEW_OBJECT,)) in calls
    assert ("C::C", (NEW_OBJECT, "c")) in calls


def test_containers_of_builtins_and_arrays_of_pointers_build_no_object() -> None:
    calls = _calls(
        """\
        void f(int n, double *b) {
          for (int i = 0; i < n; i++) {
            std::vector<double> v(n, 0.0);
            v.resize(2 * n);
            C *p[2];
            b[i] = v[0] + (p[0] != nullptr);
          }
        }
        """
    )
    assert not [c for c in calls if c[0] == "C::C"]


def test_a_class_with_only_a_default_constructor_is_copied_without_a_call() -> None:
    head = """\
        #include <vector>
        struct E { double x; E() { x = 1.0; } };
        """
    parallel, why = _loop(
        "std::vector<E> v(4); std::vector<E> w(v); b[i] = w[0].x;", head
    )
    assert parallel, why


def test_an_in_class_constructor_is_told_from_the_copy_one_by_count() -> None:
    # `C c;` passes the new object alone: only `C()` takes that, not `C(const C &)`.
    parallel, why = _loop("C c; b[i] = c.x + a[i];", QUIET)
    assert parallel, why


COPY_COUNTING = """\
    #include <vector>
    static int copies = 0;
    struct K {
      double x;
      K(double a, int) : x(a) {}
      K(const K &o) : x(o.x) { copies++; }
    };
    """
COPIED = [
    "K k(a[i], 0); std::vector<K> v; v.push_back(k); b[i] = v[0].x;",
    "K k(a[i], 0); std::vector<K> v; v.insert(v.begin(), k); b[i] = v[0].x;",
    "K k(a[i], 0); std::vector<K> v; v.insert(v.end(), 2, k); b[i] = v[1].x;",
    # the second element may move the first into new storage: `K(const K &)`
    "std::vector<K> v; v.emplace_back(a[i], 0); v.emplace_back(a[i], 1); "
    "b[i] = v[1].x;",
]


@pytest.mark.parametrize("body", COPIED)
def test_an_element_copied_in_runs_the_copy_constructor(body: str) -> None:
    parallel, why = _loop(body, COPY_COUNTING)
    assert not parallel
    assert "K::K" in why
    assert "copies" in why


@pytest.mark.parametrize("body", COPIED)
def test_a_quiet_copy_constructor_leaves_the_elements_private(body: str) -> None:
    parallel, why = _loop(body, COPY_COUNTING.replace(" copies++; ", " "))
    assert parallel, why
