"""Loop kernels for the random program generator, one function per shape.

Each kernel appends statements to `main` through a `Scope`, which also holds the
declarations and helper functions. Kernels stay free of undefined behaviour even
after the shrinker deletes any of their statements: every subscript is bounded by
its loop header or by `% N`, integers that can overflow are unsigned, and each
scalar is initialised where it is declared and used by one kernel only.
"""

from __future__ import annotations

from collections.abc import Callable

from differential.scope import DOUBLES, GRIDS, Scope
from differential.tree import Block, Line, Node

__all__ = ["KERNELS"]


def _map(s: Scope) -> None:
    dst = s.rng.choice(DOUBLES)
    srcs = DOUBLES if s.rng.random() < 0.3 else tuple(d for d in DOUBLES if d != dst)
    rhs = s.dexpr(srcs, "i")
    if s.rng.random() < 0.3:
        rhs = f"halve({rhs})"
    s.body.append(Block(s.loop("i", 0, s.n), (Line(f"{dst}[i] = {rhs};"),)))


def _stencil(s: Scope) -> None:
    dst, src = s.rng.sample(DOUBLES, 2)
    if s.rng.random() < 0.3:
        src = dst
    rhs = f"{src}[i - 1] + {src}[i] * 2.0 + {src}[i + 1]"
    s.body.append(Block(s.loop("i", 1, s.n - 1), (Line(f"{dst}[i] = {rhs};"),)))


def _reduction_stmt(s: Scope) -> Node:
    r = s.rng
    op = r.choice(("+", "*", "min", "max", "&", "|", "^", "&&", "||", "+d"))
    d = r.choice(DOUBLES)
    if op in ("+", "+d"):
        x = s.scalar("double", "0.0")
        if r.random() < 0.5:
            return Line(f"{x} += {s.dexpr(DOUBLES, 'i', 1)};")
        return Line(f"{x} = {x} + {d}[i];")
    if op == "*":
        x = s.scalar("unsigned", "1u")
        return Line(f"{x} *= ({s.uexpr('i', 1)} & 3u) + 1u;")
    if op in ("min", "max"):
        x = s.scalar("double", "0.0")
        cmp = "<" if op == "min" else ">"
        if r.random() < 0.5:
            return Block(f"if ({d}[i] {cmp} {x})", (Line(f"{x} = {d}[i];"),))
        return Line(f"{x} = {d}[i] {cmp} {x} ? {d}[i] : {x};")
    if op in ("&", "|", "^"):
        x = s.scalar("unsigned", "~0u" if op == "&" else "0u")
        return Line(f"{x} {op}= {s.uexpr('i', 1)};")
    x = s.scalar("int", "1" if op == "&&" else "0")
    return Line(f"{x} = {x} {op} ({s.cond('i')});")


def _reduce(s: Scope) -> None:
    body = [_reduction_stmt(s) for _ in range(s.rng.randint(1, 2))]
    if s.rng.random() < 0.3:
        body = [Block(f"if ({s.cond('i')})", tuple(body))]
    if s.rng.random() < 0.3:
        body.append(Line(f"{s.rng.choice(DOUBLES)}[i] = {s.dexpr(DOUBLES, 'i', 1)};"))
    s.body.append(Block(s.loop("i", 0, s.n), tuple(body)))


def _counter(s: Scope) -> None:
    r = s.rng
    t = s.scalar("int", "0", "t")
    dst, dst2, src = r.sample(DOUBLES, 3)
    half = s.n // 2
    shape = r.randrange(6)
    body: tuple[Node, ...]
    if shape == 0:
        body = (Line(f"{dst}[i] = {src}[{t}++];"), Line(f"{dst2}[i] = {src}[{t}++];"))
        head = s.loop("i", 0, half)
    elif shape == 1:
        body = (Line(f"{dst}[i] = {src}[{t}] + {src}[{t} + 1];"), Line(f"{t} += 2;"))
        head = s.loop("i", 0, half)
    elif shape == 2:
        inner = (Line(f"{dst}[{t}] = {src}[i];"), Line(f"{t}++;"))
        body, head = (Block(f"if ({s.cond('i')})", inner),), s.loop("i", 0, s.n)
    elif shape == 3:
        body = (Line(f"{dst}[i] = {src}[i] * 2.0;"), Line(f"{t}++;"))
        head = s.loop("i", 0, s.n)
    elif shape == 4:
        body = (Line(f"{t} += 3;"), Line(f"{dst}[i] = (double){t};"))
        head = s.loop("i", 0, s.n)
    else:
        body, head = (Line(f"{dst}[{t}++] = {src}[i];"),), s.loop("i", 0, s.n)
    s.body.append(Block(head, body))


def _prefix(s: Scope) -> None:
    dst, src = s.rng.sample(DOUBLES, 2)
    if s.rng.random() < 0.5:
        line = Line(f"{dst}[i] = {dst}[i - 1] + {src}[i];")
        s.body.append(Block(s.loop("i", 1, s.n), (line,)))
        return
    run = s.scalar("double", "0.0", "run")
    body = (Line(f"{run} += {src}[i];"), Line(f"{dst}[i] = {run};"))
    s.body.append(Block(s.loop("i", 0, s.n), body))


def _histogram(s: Scope) -> None:
    key = s.rng.choice(("ua[i] % 16u", "idx[i] % 16u", "jdx[i] % 16u"))
    update = s.rng.choice(("+= 1u;", "+= ub[i];", "++;"))
    line = Line(f"hist[{key}]{'++;' if update == '++;' else ' ' + update}")
    s.body.append(Block(s.loop("i", 0, s.n), (line,)))


def _indirect(s: Scope) -> None:
    dst, src = s.rng.sample(DOUBLES, 2)
    ix = s.rng.choice(("idx", "jdx"))
    line = s.rng.choice(
        (
            f"{dst}[i] = {src}[{ix}[i]];",
            f"{dst}[{ix}[i]] = {src}[i];",
            f"{dst}[{ix}[i]] += {src}[i];",
            f"{dst}[(i * i) % {s.n}] += 1.0;",
            f"{dst}[i] = {dst}[{ix}[i]] + 1.0;",
        )
    )
    s.body.append(Block(s.loop("i", 0, s.n), (Line(line),)))


def _grid(s: Scope) -> None:
    r, m = s.rng, s.m
    a, b = r.sample(GRIDS, 2)
    shape = r.randrange(6)
    if shape == 0:
        inner = Block(
            s.loop("j", 0, m), (Line(f"{a}[i][j] = {b}[i][j] * 2.0 + {b}[j][i];"),)
        )
        s.body.append(Block(s.loop("i", 0, m), (inner,)))
    elif shape == 1:
        rhs = f"{b}[i - 1][j] + {b}[i + 1][j] + {b}[i][j - 1] + {b}[i][j + 1]"
        src = a if r.random() < 0.3 else b
        inner = Block(
            s.loop("j", 1, m - 1), (Line(f"{a}[i][j] = {rhs.replace(b, src)};"),)
        )
        s.body.append(Block(s.loop("i", 1, m - 1), (inner,)))
    elif shape == 2:
        inner = Block(
            s.loop("j", 0, m), (Line(f"{a}[i][j] = {a}[i - 1][j] + {b}[i][j];"),)
        )
        s.body.append(Block(s.loop("i", 1, m), (inner,)))
    elif shape == 3:
        inner = Block(s.loop("j", 1, m), (Line(f"{a}[i][j] = {a}[i][j - 1] + 1.0;"),))
        s.body.append(Block(s.loop("i", 0, m), (inner,)))
    elif shape == 4:
        acc = s.scalar("double", "0.0", "row")
        d = r.choice(DOUBLES)
        inner = Block(s.loop("j", 0, m), (Line(f"{acc} += {a}[i][j];"),))
        body = (Line(f"{acc} = 0.0;"), inner, Line(f"{d}[i] = {acc};"))
        s.body.append(Block(s.loop("i", 0, m), body))
    else:
        kk = Block(s.loop("k", 0, m), (Line(f"{a}[i][j] += {b}[i][k] * {b}[k][j];"),))
        s.body.append(Block(s.loop("i", 0, m), (Block(s.loop("j", 0, m), (kk,)),)))


def _exit(s: Scope) -> None:
    r = s.rng
    dst = r.choice(DOUBLES)
    if r.random() < 0.5:
        acc = s.scalar("double", "0.0")
        body: tuple[Node, ...] = (
            Block(f"if ({s.cond('i')})", (Line("break;"),)),
            Line(f"{acc} += {r.choice(DOUBLES)}[i];"),
        )
    else:
        body = (
            Block(f"if ({s.cond('i')})", (Line("continue;"),)),
            Line(f"{dst}[i] = {s.dexpr(DOUBLES, 'i', 1)};"),
        )
    s.body.append(Block(s.loop("i", 0, s.n), body))


def _call(s: Scope) -> None:
    r = s.rng
    dst, src = r.sample(DOUBLES, 2)
    line = r.choice(
        (
            "bump(ua[i]);",
            f"{dst}[i] = next_value();",
            f"{dst}[i] = halve({src}[i]) + 1.0;",
            f"set_to(&{dst}[i], {src}[i]);",
            f"{dst}[i] = {src}[i] + (double)bump(ub[i]);",
        )
    )
    s.body.append(Block(s.loop("i", 0, s.n), (Line(line),)))


def _pointers(s: Scope) -> None:
    r = s.rng
    f = s.name("pk")
    body = r.choice(
        (
            "y[i] = x[i] * 2.0 + y[i];",
            "y[i] = x[i] + 1.0;",
            "y[i] = y[i] + x[i] * x[i];",
        )
    )
    loop = Block("for (i = 0; i < len; i++)", (Line(body),))
    s.functions.append(
        Block(f"static void {f}(double *x, double *y, int len)", (Line("int i;"), loop))
    )
    a, b = r.sample(DOUBLES, 2)
    n = s.n
    for _ in range(r.randint(1, 2)):
        args = r.choice(
            ((a, b, n), (a, a, n), (f"{a} + 1", a, n - 1), (a, f"{a} + 1", n - 1))
        )
        s.body.append(Line(f"{f}({args[0]}, {args[1]}, {args[2]});"))


def _output(s: Scope) -> None:
    r = s.rng
    src = r.choice(DOUBLES)
    if r.random() < 0.5:
        line = Line(f'printf("v %d %.17g\\n", i, {src}[i]);')
        s.body.append(Block(s.loop("i", 0, 6), (line,)))
        return
    dst = r.choice([d for d in DOUBLES if d != src])
    body = (
        Line(f"{dst}[i] = {src}[i] + 1.0;"),
        Block("if (i % 16 == 0)", (Line(f'printf("w %d %.17g\\n", i, {dst}[i]);'),)),
    )
    s.body.append(Block(s.loop("i", 0, s.n), body))


def _temporary(s: Scope) -> None:
    r = s.rng
    dst, src = r.sample(DOUBLES, 2)
    if r.random() < 0.5:
        tmp = s.scalar("double", "0.0", "tmp")
        body: tuple[Node, ...] = (
            Line(f"{tmp} = {src}[i] * 2.0;"),
            Line(f"{dst}[i] = {tmp} + {tmp} * {r.choice(DOUBLES)}[i];"),
        )
    else:
        last = s.scalar("int", "-1", "last")
        body = (Block(f"if ({s.cond('i')})", (Line(f"{last} = i;"),)),)
    s.body.append(Block(s.loop("i", 0, s.n), body))


KERNELS: tuple[tuple[Callable[[Scope], None], int], ...] = (
    (_map, 3),
    (_stencil, 2),
    (_reduce, 4),
    (_counter, 4),
    (_prefix, 2),
    (_histogram, 1),
    (_indirect, 2),
    (_grid, 3),
    (_exit, 2),
    (_call, 2),
    (_pointers, 2),
    (_output, 1),
    (_temporary, 2),
)
