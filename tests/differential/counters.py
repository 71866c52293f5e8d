"""Counter kernels aimed at the induction-variable analysis and its rewrites.

Counters in nests (rectangular and triangular), in both branches of an `if`,
skipped by `continue`, stepped in the loop header, through a pointer, of
unsigned type, and counters derived from counters. Subscripts stay in bounds
whatever the shrinker deletes: a counter only ever grows by at most one slot
per iteration of a loop sized to its array.
"""

from __future__ import annotations

from collections.abc import Callable

from differential.scope import DOUBLES, Scope
from differential.tree import Block, Line, Node

__all__ = ["COUNTERS"]


def _nest(s: Scope) -> None:
    """A counter stepped in an inner loop: `c[t++] = g[i][j]` over a nest."""
    r, m = s.rng, s.m
    d = r.choice(DOUBLES)
    t = s.scalar("int", "0", "t")
    g = r.choice(("ga", "gb"))
    hi = "i" if r.random() < 0.5 else str(min(m, s.n // m))
    inner = Block(
        f"for (j = 0; j < {hi}; j++)", (Line(f"{d}[{t}++ % {s.n}] = {g}[i][j];"),)
    )
    s.body.append(Block(s.loop("i", 0, m), (inner,)))


def _branches(s: Scope) -> None:
    """A counter stepped in both branches, or in one, or after a `continue`."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    t = s.scalar("int", "0", "t")
    shape = r.randrange(3)
    body: tuple[Node, ...]
    if shape == 0:
        body = (
            Block(
                f"if ({s.cond('i')})", (Line(f"{d}[i] = {e}[{t}];"), Line(f"{t}++;"))
            ),
            Block("else", (Line(f"{t} += 1;"),)),
        )
    elif shape == 1:
        body = (
            Block(f"if ({s.cond('i')})", (Line("continue;"),)),
            Line(f"{d}[i] = {e}[{t}];"),
            Line(f"{t}++;"),
        )
    else:
        body = (Line(f"{d}[i] = (double){t};"), Line(f"{t} += i % 2;"))
    s.body.append(Block(s.loop("i", 0, s.n), body))


def _header(s: Scope) -> None:
    """A counter stepped in the loop header, or a derived counter."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    t = s.scalar("int", "0", "t")
    if r.random() < 0.5:
        head = f"for (i = 0; i < {s.n}; i++, {t}++)"
        s.body.append(Block(head, (Line(f"{d}[i] = {e}[{t}] + 1.0;"),)))
        return
    u = s.scalar("int", "0", "u")
    body = (Line(f"{u} = {t} / 2;"), Line(f"{d}[i] = {e}[{u}];"), Line(f"{t}++;"))
    s.body.append(Block(s.loop("i", 0, s.n), body))


def _pointer(s: Scope) -> None:
    """A pointer walked through an array: `*p++ = ...`."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    p = s.name("q")
    s.decls.append(Line(f"double *{p} = {d};"))
    line = r.choice((f"*{p}++ = {e}[i] * 2.0;", f"{e}[i] = *{p}++ + 1.0;"))
    s.body.append(Block(s.loop("i", 0, s.n), (Line(line),)))


def _unsigned(s: Scope) -> None:
    """Unsigned and wrapping counters, used as values and as subscripts."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    t = s.scalar("unsigned", r.choice(("0u", "4294967290u")), "w")
    line = r.choice(
        (
            Line(f"{d}[i] = (double)({t} % 1000u);"),
            Line(f"{d}[i] = {e}[{t} % {s.n}u];"),
        )
    )
    step = r.choice((f"{t}++;", f"{t} += 3u;", f"{t} -= 1u;"))
    s.body.append(Block(s.loop("i", 0, s.n), (line, Line(step))))


COUNTERS: tuple[tuple[Callable[[Scope], None], int], ...] = (
    (_nest, 2),
    (_branches, 2),
    (_header, 2),
    (_pointer, 2),
    (_unsigned, 2),
)
