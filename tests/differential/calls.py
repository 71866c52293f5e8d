"""Kernels whose effects hide in the functions they call: rows of a grid passed
as pointers, reductions through a pointer argument, a static local counter, and
whole-array helpers called from a sequential loop.
"""

from __future__ import annotations

from collections.abc import Callable

from differential.scope import DOUBLES, GRIDS, Scope
from differential.tree import Block, Line

__all__ = ["CALLS"]


def _rows(s: Scope) -> None:
    """A helper over one row, called per row: independent, or reading the last."""
    r, m = s.rng, s.m
    a, b = r.sample(GRIDS, 2)
    f = s.name("row")
    loop = Block("for (j = 0; j < len; j++)", (Line("r[j] = r[j] * 0.5 + q[j];"),))
    s.functions.append(
        Block(
            f"static void {f}(double *r, const double *q, int len)",
            (Line("int j;"), loop),
        )
    )
    call, lo = r.choice(
        (
            (f"{f}({a}[i], {b}[i], {m});", 0),
            (f"{f}({a}[i], {a}[i - 1], {m});", 1),
            (f"{f}({a}[i], {a}[0], {m});", 0),
            (f"{f}({a}[i - 1], {b}[i], {m});", 1),
        )
    )
    s.body.append(Block(s.loop("i", lo, m), (Line(call),)))


def _through_pointer(s: Scope) -> None:
    """Updates made by a callee through a pointer to a scalar or an element."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    f = s.name("addto")
    s.functions.append(
        Block(f"static void {f}(double *p, double v)", (Line("*p += v;"),))
    )
    x = s.scalar("double", "0.0", "x")
    call = r.choice(
        (f"{f}(&{x}, {e}[i]);", f"{f}(&{d}[0], {e}[i]);", f"{f}({d}, 1.0);")
    )
    s.body.append(Block(s.loop("i", 1, s.n), (Line(call),)))


def _static_local(s: Scope) -> None:
    """A helper that counts its calls in a static local."""
    d = s.rng.choice(DOUBLES)
    f = s.name("tick")
    s.functions.append(
        Block(
            f"static int {f}(void)",
            (Line("static int calls = 0;"), Line("return calls++;")),
        )
    )
    s.body.append(Block(s.loop("i", 0, s.n), (Line(f"{d}[i] = (double){f}();"),)))


def _repeated(s: Scope) -> None:
    """A whole-array helper called from a sequential loop."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    f = s.name("sweep")
    loop = Block("for (i = 0; i < len; i++)", (Line("y[i] += x[i] * 0.5;"),))
    s.functions.append(
        Block(
            f"static void {f}(const double *x, double *y, int len)",
            (Line("int i;"), loop),
        )
    )
    call = r.choice((f"{f}({d}, {e}, {s.n});", f"{f}({d} + k, {e}, {s.n - 3});"))
    s.body.append(Block("for (k = 0; k < 3; k++)", (Line(call),)))


CALLS: tuple[tuple[Callable[[Scope], None], int], ...] = (
    (_rows, 2),
    (_through_pointer, 2),
    (_static_local, 1),
    (_repeated, 1),
)
