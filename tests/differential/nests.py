"""Nest kernels aimed at `collapse` and at inner/outer choices: sums into
rows and columns, inner bounds read from arrays, code between the loops of a
nest, and unusual loop variable types.
"""

from __future__ import annotations

from collections.abc import Callable

from differential.scope import DOUBLES, GRIDS, Scope
from differential.tree import Block, Line, Node

__all__ = ["NESTS"]


def _row_column_sums(s: Scope) -> None:
    """`d[i] += g[i][j]` (rows: outer parallel) or `d[j] += g[i][j]` (columns)."""
    r, m = s.rng, s.m
    d, g = r.choice(DOUBLES), r.choice(GRIDS)
    at = r.choice(("i", "j"))
    inner = Block(s.loop("j", 0, m), (Line(f"{d}[{at}] += {g}[i][j];"),))
    s.body.append(Block(s.loop("i", 0, m), (inner,)))


def _ragged(s: Scope) -> None:
    """An inner bound read from an array, or from a scalar the outer loop sets."""
    r, m = s.rng, s.m
    g, h = r.sample(GRIDS, 2)
    if r.random() < 0.5:
        head = f"for (j = 0; j < (int)(ua[i] % {m}u); j++)"
        inner = Block(head, (Line(f"{g}[i][j] = {h}[i][j] + 1.0;"),))
        s.body.append(Block(s.loop("i", 0, m), (inner,)))
        return
    top = s.scalar("int", str(m), "top")
    body: tuple[Node, ...] = (
        Line(f"{top} = i % {m} + 1;"),
        Block(f"for (j = 0; j < {top}; j++)", (Line(f"{g}[i][j] = {h}[j][i];"),)),
    )
    s.body.append(Block(s.loop("i", 0, m), body))


def _between(s: Scope) -> None:
    """A scalar computed between the loops of a nest, used inside."""
    r, m = s.rng, s.m
    g = r.choice(GRIDS)
    d = r.choice(DOUBLES)
    x = s.scalar("double", "0.0", "x")
    inner = Block(s.loop("j", 0, m), (Line(f"{g}[i][j] = {g}[i][j] * 0.5 + {x};"),))
    body = (Line(f"{x} = {d}[i] + 1.0;"), inner)
    s.body.append(Block(s.loop("i", 0, m), body))


def _odd_types(s: Scope) -> None:
    """Loop variables that are unsigned, long or counted down with `u-- > 0`."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    v = s.name("v")
    ctype = r.choice(("unsigned", "long", "unsigned long", "short"))
    s.decls.append(Line(f"{ctype} {v} = 0;"))
    line = Line(f"{d}[{v}] = {e}[{v}] * 2.0 + 1.0;")
    if r.random() < 0.5:
        head = f"for ({v} = {s.n}; {v}-- > 0;)"
    else:
        head = f"for ({v} = 0; {v} < {s.n}; {v}++)"
    s.body.append(Block(head, (line,)))


def _substituted(s: Scope) -> None:
    """A scalar set before its use in the iteration: forward substitution's shapes.

    Constant columns, a shifted store (parallel or, read at `[i]`, carried), a
    value set only in a branch, and the scalar read after the loop.
    """
    r, m, n = s.rng, s.m, s.n
    t = s.scalar("int", "0", "t")
    g, h = r.sample(GRIDS, 2)
    d, e = r.sample(DOUBLES, 2)
    shape = r.randrange(4)
    if shape == 0:
        c1, c2 = r.sample(range(m), 2)
        body: tuple[Node, ...] = (
            Line(f"{t} = {c1};"),
            Line(f"{g}[i][{t}] = {h}[i][{t}] * 2.0 + 1.0;"),
            Line(f"{t} = {c2};"),
            Line(f"{g}[i][{t}] = {g}[i][{c1}] + {h}[i][{t}];"),
        )
        s.body.append(Block(s.loop("i", 0, m), body))
        return
    src = d if shape == 1 and r.random() < 0.5 else e
    if shape == 3:
        body = (Line(f"if ({e}[i] > 1.0) {t} = i;"), Line(f"{d}[{t}] += {e}[i];"))
    else:
        step = r.choice(("i + 1", "1 + i", "i - 1 + 2"))
        body = (Line(f"{t} = {step};"), Line(f"{d}[{t}] = {src}[i] * 0.5 + 1.0;"))
    s.body.append(Block(s.loop("i", 0, n - 1), body))


NESTS: tuple[tuple[Callable[[Scope], None], int], ...] = (
    (_row_column_sums, 2),
    (_ragged, 2),
    (_between, 2),
    (_odd_types, 2),
    (_substituted, 2),
)
