"""Callees that never keep a pointer they are given: a fresh block stays fresh."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source

HEAD = """\
    #include <stdlib.h>
    typedef struct { double *v; } Box;
    double *saved;
    Box box;
    void opaque(double *q);
    #define AT(k) q[(k) + 1]
    #define KEEP saved = q
    """

# Callees of one pointer parameter `q`; each name tells whether it keeps `q`.
CALLEES = {
    "fill": "for (int k = 0; k < n; k++) q[k] = k;",
    "fill_macro": "for (int k = 0; k + 1 < n; k++) AT(k) = k;",
    "fill_copy": "double *r = q + 1; for (int k = 0; k + 1 < n; k++) r[k] = k;",
    "fill_nested": "fill(q, n); q[0] = 1.0;",
    "keep_global": "saved = q;",
    "keep_copy": "double *r = q; saved = r;",
    "keep_field": "box.v = q;",
    "keep_opaque": "opaque(q);",
    "keep_macro": "KEEP; q[0] = n;",
    "keep_address": "double **slot = &q; saved = *slot;",
}


def _text(callee: str) -> str:
    defs = "".join(
        f"static void {name}(double *q, int n) {{ {body} }}\n"
        for name, body in CALLEES.items()
    )
    return (
        dedent(HEAD)
        + defs
        + "static double *grid(int n) {\n"
        + "  double *g = malloc(n * sizeof *g);\n"
        + f"  {callee}(g, n);\n"
        + "  return g;\n}\n"
        + "static double get(const double *g, int i) { return g[i]; }\n"
        + "void step(int n) {\n"
        + "  double *a = grid(n);\n"
        + "  double *b = grid(n);\n"
        + "  for (int i = 0; i < n; i++)\n"
        + "    b[i] = get(a, i) + 1.0;\n}\n"
    )


@pytest.mark.parametrize("name", sorted(CALLEES))
def test_a_callee_borrows_its_pointer_unless_it_keeps_it(name: str) -> None:
    source = parse_source(_text(name), "k.c")
    borrows = (name, 0) in source.borrowers
    assert borrows == (not name.startswith("keep_"))
    # A block handed to a borrower and returned is still fresh: `grid` wraps malloc.
    assert ("grid" in source.allocators) == borrows


@pytest.mark.parametrize("name", ["fill", "fill_nested", "keep_global", "keep_copy"])
def test_blocks_of_a_wrapper_that_lends_them_are_apart(name: str) -> None:
    source = parse_source(_text(name), "k.c")
    [fact] = [f for f in analyze(source).facts if f.loop.function == "step"]
    assert fact.parallel == name.startswith("fill")


def test_a_pointer_returned_or_of_a_variadic_callee_is_kept() -> None:
    text = dedent(HEAD) + (
        "static double *pass(double *q) { q[0] = 1.0; return q; }\n"
        "static void log_all(double *q, ...) { q[0] = 1.0; }\n"
        "static void twice(double *q) { q[0] = 1.0; }\n"
        "static void apply(double *q, void (*twice)(double *)) { twice(q); }\n"
        "static void local(double *q) { void (*twice)(double *) = 0; twice(q); }\n"
        "static void put(double *q) { q[0] = 1.0; }\n"
        "#define put(q) (saved = (q))\n"
    )
    borrowers = parse_source(text, "k.c").borrowers
    assert ("pass", 0) not in borrowers
    assert ("log_all", 0) not in borrowers
    assert ("twice", 0) in borrowers
    # A parameter or local of the name hides the function: it may keep `q`.
    assert ("apply", 0) not in borrowers
    assert ("local", 0) not in borrowers
    # A macro of the name replaces the calls: what it does with `q` is its own.
    assert ("put", 0) not in borrowers


def test_cpp_overloads_borrow_nothing() -> None:
    text = "static void twice(double *q) { q[0] = 1.0; }\n"
    assert parse_source(text, "k.cpp").borrowers == frozenset()


def test_a_function_pointer_of_a_borrowers_name_may_keep_the_block() -> None:
    text = _text("fill") + (
        "void twice_fill(double *q, int n) { fill(q, n); }\n"
        "void hidden(int n) {\n"
        "  void (*fill)(double *, int) = keep_global;\n"
        "  double *a = malloc(n * sizeof *a);\n"
        "  fill(a, n);\n"
        "  double *b = malloc(n * sizeof *b);\n"
        "  twice_fill(b, n);\n}\n"
    )
    fn = parse_source(text, "k.c").function("hidden")
    assert fn is not None
    leaves = {v.name: v.leaves for v in fn.locals if v.pointers}
    assert leaves["a"]
    assert not leaves["b"]
