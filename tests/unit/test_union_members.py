"""Two members of one union are one storage: a loop writing one and reading the
other at another element carries a dependence through memory, whatever the
member types, and no alias assumption lifts it."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text

_TEXT = """
#define N 1000
union U { double d[N]; long l[N]; } u;
struct W { union U in; double x[N]; } w;
void by_name(void) {
  for (int i = 0; i < N - 1; i++) WRITE = (long)READ;
}
void by_pointer(union U *p) {
  for (int i = 0; i < N - 1; i++) p->l[i + 1] = (long)p->d[i];
}
"""


def _facts(write: str, read: str, assume: bool = False):  # type: ignore[no-untyped-def]
    text = dedent(_TEXT).replace("WRITE", write).replace("READ", read)
    options = AnalysisOptions(assume_no_alias=assume)
    return analyze_text(text, options=options).facts


@pytest.mark.parametrize("assume", [False, True])
def test_members_of_one_union_overlap(assume: bool) -> None:
    for fact in _facts("u.l[i + 1]", "u.d[i]", assume):
        assert not fact.parallel, fact.loop.line
        assert any("through a union" in o.message for o in fact.obstacles)


def test_a_union_nested_in_a_struct_overlaps_and_one_member_alone_is_free() -> None:
    fact = _facts("w.in.l[i + 1]", "w.in.d[i]")[0]
    assert not fact.parallel
    same = _facts("u.l[i]", "u.l[i]")[0]
    assert same.parallel  # one member alone: the subscripts decide


def test_a_union_declared_on_its_own_is_known_by_its_tag() -> None:
    """`union V {...};` alone at file scope: its fields are in the type table."""
    text = dedent(
        """
        union V { double d[64]; long l[64]; };
        void f(union V *v, int n) {
          for (int i = 1; i < n; i++) v->d[i] = (double)v->l[i - 1];
        }
        """
    )
    facts = analyze_text(text, options=AnalysisOptions(assume_no_alias=True)).facts
    assert not facts[0].parallel
    assert any("through a union" in o.message for o in facts[0].obstacles)


def test_an_anonymous_union_member_overlaps_its_sibling() -> None:
    """C11 `struct { union { double d[N]; long l[N]; }; } s`: `s.d` is `s.l`."""
    text = dedent(
        """
        #define N 64
        typedef struct { int tag; union { double d[N]; long l[N]; }; } T;
        T t;
        struct S { int k; struct { int m; union { double d[N]; long l[N]; }; }; };
        void f(void) {
          for (int i = 0; i < N - 1; i++) t.l[i + 1] = (long)t.d[i];
        }
        void g(struct S *p) {
          for (int i = 0; i < N - 1; i++) p->l[i + 1] = (long)p->d[i];
        }
        """
    )
    for fact in analyze_text(text, options=AnalysisOptions(assume_no_alias=True)).facts:
        assert not fact.parallel, fact.loop.line
        assert any("through a union" in o.message for o in fact.obstacles)


_BESIDE = """
#define N 64
union U { double d[N]; long l[N]; };
struct S { union U u; double x[N]; double y[N]; } s;
struct T { union { double d[N]; long l[N]; }; double x[N]; double y[N]; } t;
struct V { union { struct { double a[N]; double b[N]; }; double c[2 * N]; }; } v;
void f(struct T *p) {
  for (int i = 0; i < N - 1; i++) BODY;
}
"""


@pytest.mark.parametrize(
    "body",
    [
        "s.x[i + 1] = s.u.d[i] + s.y[i]",
        "t.x[i + 1] = t.d[i] + t.y[i]",
        "p->x[i + 1] = p->d[i] + p->y[i]",
        "v.b[i + 1] = v.a[i]",  # two fields of one struct inside the union
    ],
)
def test_the_other_fields_of_a_struct_are_apart_from_its_union(body: str) -> None:
    """Only the members of one union overlap: a struct's other fields do not."""
    text = dedent(_BESIDE).replace("BODY", body)
    fact = analyze_text(text).facts[0]
    assert fact.parallel, fact.obstacles


@pytest.mark.parametrize(
    "body",
    [
        "s.u.l[i + 1] = (long)s.u.d[i] + (long)s.x[i]",
        "t.l[i + 1] = (long)t.d[i] + (long)t.x[i]",
        "p->l[i + 1] = (long)p->d[i]",
        "v.c[i + 1] = v.b[i]",
    ],
)
@pytest.mark.parametrize("assume", [False, True])
def test_the_members_of_the_union_beside_them_still_overlap(
    body: str, assume: bool
) -> None:
    text = dedent(_BESIDE).replace("BODY", body)
    options = AnalysisOptions(assume_no_alias=assume)
    fact = analyze_text(text, options=options).facts[0]
    assert not fact.parallel
    assert any("through a union" in o.message for o in fact.obstacles)


_UNTAGGED = """
#define N 64
union { double d[N]; long l[N]; } u;
struct { union { double d[N]; long l[N]; }; double x[N]; } h;
struct {
  struct { double d[N]; long l[N]; } in;
  union { double d[N]; long l[N]; } v;
} w;
void f(void) {
  union { double d[N]; long l[N]; } lu;
  for (int i = 0; i < N - 1; i++) BODY;
}
"""


@pytest.mark.parametrize(
    "body",
    [
        "u.l[i + 1] = (long)u.d[i]",
        "h.l[i + 1] = (long)h.d[i]",
        "w.v.l[i + 1] = (long)w.v.d[i]",
        "lu.l[i + 1] = (long)lu.d[i]",  # a local's type: not in the table
    ],
)
def test_assume_no_alias_never_lifts_the_members_of_an_untagged_union(
    body: str,
) -> None:
    """`union { ... } u;`: a type without a tag is a union all the same."""
    text = dedent(_UNTAGGED).replace("BODY", body)
    fact = analyze_text(text, options=AnalysisOptions(assume_no_alias=True)).facts[0]
    assert not fact.parallel
    assert any("through a union" in o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    "body", ["h.x[i + 1] = h.d[i]", "w.in.l[i + 1] = (long)w.in.d[i] + w.v.l[i]"]
)
def test_the_fields_of_an_untagged_struct_are_known(body: str) -> None:
    text = dedent(_UNTAGGED).replace("BODY", body)
    fact = analyze_text(text).facts[0]
    assert fact.parallel, fact.obstacles


_CPP = """
union U { double d; long l; };
struct H { union { double d; long l; }; double x; };
struct K { double d; long l; };
void f(U *u, H *h, K *k, double *b, int n) {
  for (int i = 0; i < n - 1; i++) { BODY; }
}
"""


def test_a_cpp_union_named_without_its_keyword_overlaps() -> None:
    """C++ `U *u` of `union U {...}`: `u[i + 1].l` is `u[i + 1].d`."""
    options = AnalysisOptions(assume_no_alias=True)
    for body in ("u[i + 1].l = 1; b[i] = u[i].d", "h[i + 1].l = 1; b[i] = h[i].d"):
        text = dedent(_CPP).replace("BODY", body)
        fact = analyze_text(text, "u.cpp", options=options)
        assert not fact.facts[0].parallel, body
    # A struct's two fields stay apart.
    text = dedent(_CPP).replace("BODY", "k[i + 1].l = 1; b[i] = k[i].d")
    fact = analyze_text(text, "k.cpp", options=AnalysisOptions(assume_no_alias=True))
    assert fact.facts[0].parallel, fact.facts[0].obstacles
