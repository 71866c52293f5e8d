"""What a program accumulates while its kernels are drawn: names, declarations,
helper functions and main's statements, plus small expression makers.
"""

from __future__ import annotations

import random

from differential.tree import Line, Node

__all__ = ["DOUBLES", "GRIDS", "UNSIGNEDS", "Scope"]

DOUBLES = ("da", "db", "dc", "dd")
UNSIGNEDS = ("ua", "ub")
GRIDS = ("ga", "gb")


class Scope:
    """What a program accumulates while its kernels are drawn."""

    def __init__(self, rng: random.Random, n: int, m: int) -> None:
        self.rng = rng
        self.n = n
        self.m = m
        self.decls: list[Node] = []
        self.prints: list[Node] = []
        self.functions: list[Node] = []
        self.body: list[Node] = []
        self._names = 0

    def name(self, stem: str) -> str:
        """A fresh identifier."""
        self._names += 1
        return f"{stem}{self._names}"

    def scalar(self, ctype: str, init: str, stem: str = "s") -> str:
        """Declare a fresh scalar in main, printed at the end."""
        name = self.name(stem)
        self.decls.append(Line(f"{ctype} {name} = {init};"))
        fmt = {"double": "%.17g", "unsigned": "%u", "int": "%d"}[ctype]
        self.prints.append(Line(f'printf("{name} {fmt}\\n", {name});'))
        return name

    def loop(self, var: str, lo: int, hi: int) -> str:
        """A `for` header running `var` over [lo, hi) in some spelling."""
        r = self.rng
        top = "n" if hi == self.n and r.random() < 0.3 else str(hi)
        decl = "int " if r.random() < 0.3 else ""
        style = r.randrange(5)
        if style == 0:
            return f"for ({decl}{var} = {lo}; {var} < {top}; ++{var})"
        if style == 1:
            return f"for ({decl}{var} = {lo}; {var} <= {top} - 1; {var} += 1)"
        if style == 2 and r.random() < 0.5:
            return f"for ({decl}{var} = {top} - 1; {var} >= {lo}; {var}--)"
        return f"for ({decl}{var} = {lo}; {var} < {top}; {var}++)"

    def dexpr(self, srcs: tuple[str, ...], at: str, depth: int = 2) -> str:
        """A double expression over `src[at]` terms, small constants and `at`."""
        r = self.rng
        if depth == 0 or r.random() < 0.3:
            pick = r.random()
            if pick < 0.6:
                return f"{r.choice(srcs)}[{at}]"
            if pick < 0.8:
                return r.choice(("1.0", "2.0", "0.5", "3.0"))
            return f"(double){at}"
        op = r.choice("+-*+")
        left, right = self.dexpr(srcs, at, depth - 1), self.dexpr(srcs, at, depth - 1)
        return f"({left} {op} {right})"

    def uexpr(self, at: str, depth: int = 2) -> str:
        """An unsigned expression over `ua`/`ub`, constants and `at`."""
        r = self.rng
        if depth == 0 or r.random() < 0.3:
            pick = r.random()
            if pick < 0.6:
                return f"{r.choice(UNSIGNEDS)}[{at}]"
            if pick < 0.8:
                return r.choice(("3u", "7u", "0x55u", "1u"))
            return f"(unsigned){at}"
        op = r.choice(("+", "-", "*", "^", "&", "|"))
        if r.random() < 0.15:
            return f"({self.uexpr(at, depth - 1)} >> {r.randrange(1, 8)})"
        return f"({self.uexpr(at, depth - 1)} {op} {self.uexpr(at, depth - 1)})"

    def cond(self, at: str) -> str:
        """A condition on element `at`."""
        r = self.rng
        if r.random() < 0.5:
            return f"{r.choice(DOUBLES)}[{at}] > {r.choice(('0.0', '2.0', '5.0'))}"
        return f"({r.choice(UNSIGNEDS)}[{at}] & {r.choice(('1u', '3u', '4u'))}) == 0u"
