"""`a[k] = a[k] op e` is read as the update `a[k] op= e`, and nothing looser is."""

from __future__ import annotations

import pytest
from accls.frontend import AccessKind, RedOp, parse_source

PARAMS = "int n, int *idx, double *a, double *b, unsigned *u, int (*f)(int)"


def _refs_of(statement: str, name: str) -> list[tuple[AccessKind, RedOp | None]]:
    """(kind, reduction) of each reference to `name` in the loop around `statement`."""
    text = f"void g({PARAMS}) {{\n for (int i = 0; i < n; i++) {{ {statement} }}\n}}\n"
    loop = parse_source(text).nests[0]
    return [(r.kind, r.reduction) for r in loop.refs if r.name == name]


@pytest.mark.parametrize(
    ("statement", "name", "op"),
    [
        ("a[i % 8] = a[i % 8] + b[i];", "a", RedOp.ADD),
        ("a[i % 8] = b[i] + a[i % 8];", "a", RedOp.ADD),
        ("a[i % 8] = a[i % 8] - b[i] * 2;", "a", RedOp.ADD),
        ("a[i/4] = (a[i / 4]) * b[i];", "a", RedOp.MUL),
        ("u[i % 3] = u[i%3] & idx[i];", "u", RedOp.BAND),
        ("u[idx[i]] = idx[i] | u[idx[i]];", "u", RedOp.BOR),
        ("u[0] = u[0] ^ idx[i];", "u", RedOp.BXOR),
    ],
)
def test_element_rewritten_with_one_operator_is_an_update(
    statement: str, name: str, op: RedOp
) -> None:
    assert _refs_of(statement, name) == [(AccessKind.UPDATE, op)]


@pytest.mark.parametrize(
    ("statement", "name"),
    [
        ("a[i % 8] = b[i] - a[i % 8];", "a"),  # not an update: order matters
        ("a[i % 8] = a[i % 8] / b[i];", "a"),
        ("a[i % 8] = a[i % 8] + a[i % 4];", "a"),  # reads another element
        ("a[i % 8] = a[i % 8] + b[i] + b[i + 1];", "a"),  # two operators
        ("a[i % 8] = a[(i + 1) % 8] + b[i];", "a"),  # another element
        ("a[f(i)] = a[f(i)] + b[i];", "a"),  # the subscript calls
        ("a[idx[i]++] = a[idx[i]++] + b[i];", "a"),  # the subscript steps
        ("b[i] = a[i % 8] = a[i % 8] + b[i];", "a"),  # the value is used
        ("a[i % 8] = a[i % 8] && b[i];", "a"),  # no compound form
    ],
)
def test_other_rewrites_stay_a_read_and_a_write(statement: str, name: str) -> None:
    kinds = {kind for kind, _ in _refs_of(statement, name)}
    assert AccessKind.READ in kinds
    assert AccessKind.UPDATE not in kinds


def test_a_class_elements_operator_is_a_call_not_an_update() -> None:
    # In C++ `c[i] = c[i] * 1.5` on a class element calls `operator*`, which
    # may write a global: the rewrite to `*=` would drop that call.
    text = (
        "struct C { double v; };\n"
        "static long counted = 0;\n"
        "static C operator*(const C &a, double s) { counted++; C r; r.v = a.v * s;"
        " return r; }\n"
        "void g(C *c, double *d, int n) {\n"
        "  for (int i = 0; i < n; i++) { c[i % 4] = c[i % 4] * 1.5; }\n"
        "  for (int i = 0; i < n; i++) { d[i % 4] = d[i % 4] * 1.5; }\n"
        "}\n"
    )
    first, second = parse_source(text, "k.cpp").nests
    assert any(call.name.endswith("operator*") for call in first.calls)
    assert [r.kind for r in first.refs if r.name == "c"] != [AccessKind.UPDATE]
    assert [(r.kind, r.reduction) for r in second.refs if r.name == "d"] == [
        (AccessKind.UPDATE, RedOp.MUL)
    ]
