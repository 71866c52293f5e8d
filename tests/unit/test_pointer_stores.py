"""Offloaded loops that store pointers in memory are refused; CPU loops are not."""

from __future__ import annotations

import pytest
from accls.frontend import parse_source
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.pointer_stores import pointer_stores
from accls.suggest.pragma import Target

HEAD = """\
#define ROWS 100
struct node { double *data; struct node *next; double *ptrs[8]; double w; };
static double pool[ROWS * 64];
static double *rows[ROWS];
static struct node glob;
"""

CASES = {
    "a row table into a global array": (
        "void f(void)",
        "for (int r = 0; r < ROWS; r++) rows[r] = pool + r * 64;",
    ),
    "addresses of elements": (
        "void f(double **restrict tab, double *restrict base, int n)",
        "for (int r = 0; r < n; r++) tab[r] = &base[8 * r];",
    ),
    "a pointer member of an array of structs": (
        "void f(struct node *restrict nodes, double *restrict base, int n)",
        "for (int r = 0; r < n; r++) nodes[r].data = base + 4 * r;",
    ),
    "a link to the element itself": (
        "void f(struct node *restrict nodes, int n)",
        "for (int r = 0; r < n; r++) nodes[r].next = &nodes[r];",
    ),
    "a pointer array member of a global struct": (
        "void f(double *restrict base)",
        "for (int r = 0; r < 8; r++) glob.ptrs[r] = base + r;",
    ),
}


def _reasons(signature: str, body: str, settings: Settings) -> list[str]:
    text = HEAD + signature + "\n{\n    " + body + "\n}\n"
    result = suggest_text(text, "t.c", settings)
    loops = [s for s in result.suggestions if s.loop.line > 5]
    assert len(loops) == 1, result.suggestions
    if loops[0].pragma is not None:
        return []
    return list(loops[0].reasons)


OFFLOAD = [
    Settings(dialect=Dialect.OPENACC, validate=False),
    Settings(dialect=Dialect.OPENMP, target=Target.GPU, validate=False),
]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("settings", OFFLOAD, ids=["openacc", "omp-gpu"])
def test_offloaded_pointer_stores_are_refused(case: str, settings: Settings) -> None:
    reasons = _reasons(*CASES[case], settings)
    assert any("stores a pointer" in r for r in reasons), (case, reasons)


@pytest.mark.parametrize("case", sorted(CASES))
def test_on_the_cpu_the_same_loops_are_not_refused_for_it(case: str) -> None:
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    reasons = _reasons(*CASES[case], settings)
    assert not any("stores a pointer" in r for r in reasons), (case, reasons)


def _stores(body: str) -> list[tuple[int, bool]]:
    text = (
        HEAD + "void f(struct node *restrict nodes, double *restrict base, int n)\n{\n"
    )
    source = parse_source(text + body + "\n}\n", "t.c", [])
    return [(loop.line, bool(pointer_stores(loop, source))) for loop in source.loops()]


def test_through_a_local_pointer_the_store_lands_in_shared_memory() -> None:
    body = "for (int r = 0; r < n; r++) { struct node *q = &nodes[r]; q->data = base; }"
    assert _stores(body) == [(8, True)]


def test_a_table_of_the_iteration_s_own_is_not_a_pointer_store() -> None:
    body = (
        "for (int r = 0; r < n; r++) { double t[4]; double *p[2]; p[0] = t; "
        "p[1] = t + 2; t[0] = base[r]; nodes[r].w = *p[0]; }"
    )
    assert _stores(body) == [(8, False)]


@pytest.mark.parametrize(
    ("signature", "body"),
    [
        (
            "void f(double *restrict out, const double *restrict in, int n)",
            "for (int r = 0; r < n; r++) out[r] = in[r] * 2.0;",
        ),
        (
            "void f(struct node *restrict nodes, int n)",
            "for (int r = 0; r < n; r++) nodes[r].w = r;",
        ),
        (
            "void f(double **restrict pp, const double *restrict base, int n)",
            "for (int r = 0; r < n; r++) pp[r][0] = base[r];",
        ),
    ],
)
def test_stores_of_values_are_offloaded(signature: str, body: str) -> None:
    reasons = _reasons(signature, body, OFFLOAD[0])
    assert not any("stores a pointer" in r for r in reasons), reasons
