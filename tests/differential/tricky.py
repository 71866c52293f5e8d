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


def _through_calls(s: Scope) -> None:
    """Helpers that reach arrays through pointers or globals, maybe neighbours."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    f = s.name("hf")
    shape = r.randrange(4)
    if shape == 0:
        s.functions.append(
            Block(f"static void {f}(double *p, int k, double v)", (Line("p[k] = v;"),))
        )
        call = r.choice(
            (
                f"{f}({d}, i, {e}[i]);",
                f"{f}({d}, i + 1, {d}[i]);",
                f"{f}({d}, i, {d}[i + 1]);",
            )
        )
        s.body.append(Block(s.loop("i", 0, s.n - 1), (Line(call),)))
        return
    if shape == 1:
        s.functions.append(
            Block(f"static double {f}(int k)", (Line(f"return {e}[k] + {e}[k + 1];"),))
        )
        s.body.append(Block(s.loop("i", 0, s.n - 1), (Line(f"{d}[i] = {f}(i);"),)))
        return
    if shape == 2:
        loop = Block("for (i = 0; i < len; i++)", (Line(f"x[i] = {e}[i + 1] * 0.5;"),))
        s.functions.append(
            Block(f"static void {f}(double *x, int len)", (Line("int i;"), loop))
        )
        s.body.append(Line(f"{f}({r.choice((d, e))}, {s.n - 1});"))
        return
    s.functions.append(Block(f"static void {f}(int k)", (Line("hist[k % 16]++;"),)))
    s.body.append(Block(s.loop("i", 0, s.n), (Line(f"{f}(i * 3);"),)))


def _local_alias(s: Scope) -> None:
    """A local pointer into a global array, maybe offset from it."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    p = s.name("p")
    off = r.choice((0, 1))
    s.decls.append(Line(f"double *{p} = {d} + {off};"))
    line = r.choice(
        (f"{p}[i] = {d}[i] + 1.0;", f"{d}[i] = {p}[i] * 2.0;", f"{p}[i] = {e}[i];")
    )
    s.body.append(Block(s.loop("i", 0, s.n - 1), (Line(line),)))


def _after_loop(s: Scope) -> None:
    """The loop variable, or an element reduced into, used after the loop."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    if r.random() < 0.5:
        x = s.scalar("int", "0", "iv")
        body: tuple[Node, ...] = (Line(f"{d}[i] = {e}[i] + 1.0;"),)
        if r.random() < 0.4:
            body = (Block(f"if ({s.cond('i')})", (Line("break;"),)), *body)
        s.body.append(Block(f"for (i = 0; i < {s.n}; i++)", body))
        s.body.append(Line(f"{x} = i;"))
        return
    line = r.choice((f"{d}[0] += {e}[i];", "hist[3] += ua[i];", f"{d}[1] *= 1.0;"))
    s.body.append(Block(s.loop("i", 2, s.n), (Line(line),)))


def _time_steps(s: Scope) -> None:
    """A sequential time loop around parallel sweeps; a two-variable header."""
    r = s.rng
    d, e = r.sample(DOUBLES, 2)
    n = s.n
    if r.random() < 0.5:
        sweep = Block(
            f"for (i = 1; i < {n - 1}; i++)",
            (Line(f"{e}[i] = {d}[i - 1] + {d}[i + 1];"),),
        )
        copy = Block(
            f"for (i = 1; i < {n - 1}; i++)", (Line(f"{d}[i] = {e}[i] * 0.5;"),)
        )
        s.body.append(Block("for (k = 0; k < 3; k++)", (sweep, copy)))
        return
    t = s.scalar("int", "0", "t")
    body = Line(f"{d}[i] = {e}[{t}] + (double)i;")
    s.body.append(Block(f"for (i = 0, {t} = 0; i < {n // 2}; i++, {t} += 2)", (body,)))


TRICKY: tuple[tuple[Callable[[Scope], None], int], ...] = (
    (_fake_reduction, 3),
    (_two_updates, 2),
    (_argmax, 2),
    (_carried_scalar, 3),
    (_subscripts, 3),
    (_grid_more, 2),
    (_global_update, 1),
    (_induction, 3),
    (_through_calls, 3),
    (_local_alias, 2),
    (_after_loop, 2),
    (_time_steps, 2),
)
