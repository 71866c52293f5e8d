"""Seeded random C programs for differential testing of accls.

`generate(seed)` draws a deterministic program of loop kernels (see kernels.py)
over global arrays, and ends it with a checksum of every array and scalar: exact
for integers, `%.17g` for doubles (kept integer-valued or binary fractions where
possible, so a reordered reduction rarely changes a digit).
"""

from __future__ import annotations

import random

from differential.calls import CALLS
from differential.counters import COUNTERS
from differential.kernels import KERNELS
from differential.nests import NESTS
from differential.scope import DOUBLES, GRIDS, UNSIGNEDS, Scope
from differential.tree import Block, Line, Node, Program
from differential.tricky import TRICKY

__all__ = ["generate"]

_HELPERS = (
    Block("static double halve(double x)", (Line("return x * 0.5 + 1.0;"),)),
    Block(
        "static unsigned bump(unsigned v)",
        (Line("g_count += v;"), Line("return g_count;")),
    ),
    Block(
        "static double next_value(void)",
        (
            Line("g_seed = g_seed * 1103515245u + 12345u;"),
            Line("return (double)(g_seed >> 16);"),
        ),
    ),
    Block("static void set_to(double *p, double v)", (Line("*p = v;"),)),
)


def _globals(n: int, m: int) -> tuple[Node, ...]:
    lines = ["#include <stdio.h>", "", f"int n = {n};"]
    lines += [f"double {d}[{n}];" for d in DOUBLES]
    lines += [f"unsigned {u}[{n}];" for u in UNSIGNEDS]
    lines += [f"unsigned idx[{n}];", f"unsigned jdx[{n}];", "unsigned hist[16];"]
    lines += [f"double {g}[{m}][{m}];" for g in GRIDS]
    lines += ["unsigned g_count = 0u;", "unsigned g_seed = 12345u;", ""]
    return tuple(Line(text) for text in lines)


def _init(n: int, m: int, rng: random.Random) -> tuple[Node, ...]:
    k = rng.randrange(1, 9)
    body: list[Node] = [
        Line(f"{d}[i] = (double)((i * {2 * j + 3} + {k}) % {7 + j}) - 2.0;")
        for j, d in enumerate(DOUBLES)
    ]
    body += [
        Line(f"{u}[i] = (unsigned)(i * {5 + 4 * j} + {k}) * 2654435761u;")
        for j, u in enumerate(UNSIGNEDS)
    ]
    # 7 is coprime with every n we draw, so idx is a permutation; jdx repeats.
    body += [
        Line(f"idx[i] = (unsigned)((i * 7 + {k}) % {n});"),
        Line(f"jdx[i] = (unsigned)((i * i + {k}) % {n});"),
    ]
    grid = Block(
        f"for (j = 0; j < {m}; j++)",
        tuple(
            Line(f"{g}[i][j] = (double)((i + {2 + t} * j) % 5);")
            for t, g in enumerate(GRIDS)
        ),
    )
    return (
        Block(f"for (i = 0; i < {n}; i++)", tuple(body)),
        Block(f"for (i = 0; i < {m}; i++)", (grid,)),
    )


def _checksums(n: int, m: int) -> Node:
    body: list[Node] = [Line("int i, j;"), Line("double s;"), Line("unsigned h;")]
    for d in DOUBLES:
        body += [
            Line("s = 0.0;"),
            Block(f"for (i = 0; i < {n}; i++)", (Line(f"s += {d}[i] * (i % 7 + 1);"),)),
            Line(f'printf("{d} %.17g\\n", s);'),
        ]
    for u in (*UNSIGNEDS, "hist"):
        size = 16 if u == "hist" else n
        body += [
            Line("h = 0u;"),
            Block(f"for (i = 0; i < {size}; i++)", (Line(f"h = h * 31u + {u}[i];"),)),
            Line(f'printf("{u} %u\\n", h);'),
        ]
    for g in GRIDS:
        row = Block(f"for (j = 0; j < {m}; j++)", (Line(f"s += {g}[i][j] * (j + 1);"),))
        body += [
            Line("s = 0.0;"),
            Block(f"for (i = 0; i < {m}; i++)", (row,)),
            Line(f'printf("{g} %.17g\\n", s);'),
        ]
    body.append(Line('printf("g %u %u\\n", g_count, g_seed);'))
    return Block("static void checksums(void)", tuple(body))


def generate(
    seed: int, kernels: tuple[int, int] = (4, 10), skip: tuple[str, ...] = ()
) -> Program:
    """The program for `seed`, with between kernels[0] and kernels[1] loop kernels.

    `skip` leaves out kernel shapes by name (`counter`, `grid`, ...), to look past
    a known bug while it is being fixed.
    """
    rng = random.Random(seed)
    n = rng.choice((16, 32, 64, 100))
    m = rng.choice((6, 8, 12, 16))
    scope = Scope(rng, n, m)
    drawn = [
        (k, w)
        for k, w in KERNELS + TRICKY + COUNTERS + CALLS + NESTS
        if k.__name__.lstrip("_") not in skip
    ]
    shapes = [k for k, _ in drawn]
    weights = [w for _, w in drawn]
    for _ in range(rng.randint(*kernels)):
        rng.choices(shapes, weights)[0](scope)
    main = Block(
        "int main(void)",
        (
            Line("int i, j, k;"),
            *scope.decls,
            *_init(n, m, rng),
            *scope.body,
            Line("checksums();"),
            *scope.prints,
            Line("(void)k;"),
            Line("return 0;"),
        ),
    )
    used = Program((main,)).text()
    # Only the helpers the kernels call, so gcc -Wall stays quiet.
    helpers = tuple(h for h in _HELPERS if _name(h) in used)
    return Program(
        (*_globals(n, m), *helpers, *scope.functions, _checksums(n, m), main)
    )


def _name(function: Node) -> str:
    assert isinstance(function, Block)
    return function.head.split("(")[0].split()[-1]
