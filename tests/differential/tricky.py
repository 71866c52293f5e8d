"""Kernels that look parallel and are not (or barely are): near-misses of the
patterns accls recognises, one function per shape. See kernels.py for the rules
that keep them free of undefined behaviour.
"""

from __future__ import annotations

from collections.abc import Callable

from differential.scope import DOUBLES, GRIDS, Scope
from differential.tree import Block, Line, Node

__all__ = ["TRICKY"]


def _fake_reduction(s: Scope) -> None:
    """Updates of a scalar that are not reductions (or are, in disguise)."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    x = s.scalar("double", "1.0")
    line = r.choice(
        (
            Block(f"if ({x} < 20.0)", (Line(f"{x} += {d}[i];"),)),
            Line(f"{x} = {d}[i] - {x};"),
            Line(f"{x} = {x} * 0.5 + {d}[i];"),
            Line(f"{x} -= {d}[i];"),
            Line(f"{x} = {d}[i] + {x};"),
            Line(f"{x} += {d}[i] * {x};"),
        )
    )
    body: tuple[Node, ...] = (line,)
    if r.random() < 0.4:
        body = (*body, Line(f"{e}[i] = {x};"))
    s.body.append(Block(s.loop("i", 0, s.n), body))


def _two_updates(s: Scope) -> None:
    """A scalar updated twice per iteration, or by two operators."""
    r = s.rng
    d = r.choice(DOUBLES)
    x = s.scalar("unsigned", "1u", "u")
    second = r.choice((f"{x} += 1u;", f"{x} *= 3u;", f"{x} ^= ua[i];", f"{x} = {x};"))
    body: tuple[Node, ...] = (Line(f"{x} += ua[i] & 7u;"), Line(second))
    if r.random() < 0.5:
        body = (*body, Line(f"{d}[i] = (double)({x} & 15u);"))
    s.body.append(Block(s.loop("i", 0, s.n), body))


def _argmax(s: Scope) -> None:
    """A maximum together with where it is: not one reduction."""
    d = s.rng.choice(DOUBLES)
    m = s.scalar("double", "-100.0", "m")
    at = s.scalar("int", "0", "at")
    cmp = s.rng.choice((">", ">="))
    body = (
        Block(f"if ({d}[i] {cmp} {m})", (Line(f"{m} = {d}[i];"), Line(f"{at} = i;"))),
    )
    s.body.append(Block(s.loop("i", 0, s.n), body))


def _carried_scalar(s: Scope) -> None:
    """A scalar read before it is written, or written only sometimes."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    x = s.scalar("double", "0.0", "x")
    body: tuple[Node, ...]
    if r.random() < 0.5:
        body = (Line(f"{e}[i] = {x};"), Line(f"{x} = {d}[i];"))
    else:
        body = (Block(f"if ({s.cond('i')})", (Line(f"{x} = {d}[i];"),)),)
        body = (*body, Line(f"{e}[i] = {x} + 1.0;"))
    s.body.append(Block(s.loop("i", 0, s.n), body))


def _subscripts(s: Scope) -> None:
    """Affine subscripts with strides, reversal and modulo."""
    r = s.rng
    d = r.choice(DOUBLES)
    e = d if r.random() < 0.6 else r.choice(DOUBLES)
    half, n = s.n // 2, s.n
    line, hi = r.choice(
        (
            (f"{d}[i] = {e}[2 * i] + 1.0;", half),
            (f"{d}[2 * i] = {e}[i] + 1.0;", half),
            (f"{d}[2 * i] = {e}[2 * i + 1];", half),
            (f"{d}[i] = {e}[{n - 1} - i];", n),
            (f"{d}[i % 8] = {e}[i];", n),
            (f"{d}[i + {half}] = {e}[i] * 2.0;", half),
            (f"{d}[i] = {e}[i + {half}] + {e}[i];", half),
        )
    )
    s.body.append(Block(s.loop("i", 0, hi), (Line(line),)))


def _grid_more(s: Scope) -> None:
    """Triangular nests, in-place transposes and diagonal dependences."""
    r, m = s.rng, s.m
    a, b = r.sample(GRIDS, 2)
    if r.random() < 0.25:
        inner = Block(
            "for (j = 0; j < i; j++)", (Line(f"{a}[i][j] = {b}[j][i] + 1.0;"),)
        )
        s.body.append(Block(s.loop("i", 0, m), (inner,)))
        return
    line = r.choice(
        (
            f"{a}[i][j] = {a}[j][i] + 1.0;",
            f"{a}[i][j] = {a}[i - 1][j - 1] * 0.5 + {b}[i][j];",
            f"{a}[i][j] = {a}[i - 1][j + 1] + 1.0;",
        )
    )
    inner = Block(s.loop("j", 1, m - 1), (Line(line),))
    s.body.append(Block(s.loop("i", 1, m - 1), (inner,)))


def _global_update(s: Scope) -> None:
    """Reductions into a global, and a global read back in the loop."""
    d = s.rng.choice(DOUBLES)
    line = s.rng.choice(
        (
            "g_count += ua[i] & 255u;",
            "g_count ^= ub[i];",
            f"{d}[i] = (double)(g_count & 7u);",
        )
    )
    s.body.append(Block(s.loop("i", 0, s.n), (Line(line),)))


def _induction(s: Scope) -> None:
    """Counters kept in step with the loop: values, subscripts and final values."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    step = r.choice(("++", "--", " += 1", " -= 1"))
    # Read as a subscript only before the step: within [0, n) either way.
    t = s.scalar("int", str(s.n - 1) if step in ("--", " -= 1") else "0", "t")
    body = r.choice(
        (
            (Line(f"{d}[i] = {e}[{t}];"), Line(f"{t}{step};")),
            (Line(f"{d}[{t}] = {e}[i] * 2.0;"), Line(f"{t}{step};")),
            (Line(f"{t}{step};"), Line(f"{d}[i] = (double){t};")),
        )
    )
    s.body.append(Block(s.loop("i", 0, s.n), body))


TRICKY: tuple[tuple[Callable[[Scope], None], int], ...] = (
    (_fake_reduction, 3),
    (_two_updates, 2),
    (_argmax, 2),
    (_carried_scalar, 3),
    (_subscripts, 3),
    (_grid_more, 2),
    (_global_update, 1),
    (_induction, 3),
)
