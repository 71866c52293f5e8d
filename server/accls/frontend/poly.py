"""Integer polynomials over named symbols, for subscripts and loop bounds."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

Monomial = tuple[str, ...]
"""Sorted symbol names of one term; () is the constant term."""


def _normal(terms: Iterable[tuple[Monomial, int]]) -> tuple[tuple[Monomial, int], ...]:
    acc: dict[Monomial, int] = {}
    for mono, coeff in terms:
        key = tuple(sorted(mono))
        acc[key] = acc.get(key, 0) + coeff
    return tuple(sorted((m, c) for m, c in acc.items() if c != 0))


@dataclass(frozen=True, slots=True)
class Poly:
    """A polynomial with integer coefficients; terms are kept normalised."""

    terms: tuple[tuple[Monomial, int], ...] = ()

    @staticmethod
    def const(value: int) -> Poly:
        """The constant polynomial `value`."""
        return Poly(_normal([((), value)]))

    @staticmethod
    def sym(name: str) -> Poly:
        """The polynomial consisting of one symbol."""
        return Poly((((name,), 1),))

    def __add__(self, other: Poly) -> Poly:
        if not other.terms:
            return self
        if not self.terms:
            return other
        return _add(self, other)

    def __neg__(self) -> Poly:
        return Poly(tuple((m, -c) for m, c in self.terms))

    def __sub__(self, other: Poly) -> Poly:
        return self + (-other)

    def __mul__(self, other: Poly) -> Poly:
        return Poly(
            _normal(
                (m1 + m2, c1 * c2) for m1, c1 in self.terms for m2, c2 in other.terms
            )
        )

    def scale(self, factor: int) -> Poly:
        """Every coefficient multiplied by `factor`."""
        return Poly(_normal((m, c * factor) for m, c in self.terms))

    @property
    def constant(self) -> int:
        """The constant term."""
        for mono, coeff in self.terms:
            if not mono:
                return coeff
        return 0

    @property
    def is_constant(self) -> bool:
        """True when no symbol appears."""
        return all(not mono for mono, _ in self.terms)

    @property
    def degree(self) -> int:
        """The largest number of symbols in one term (0 for a constant)."""
        return max((len(mono) for mono, _ in self.terms), default=0)

    @property
    def is_affine(self) -> bool:
        """True when every term has at most one symbol."""
        return self.degree <= 1

    def names(self) -> frozenset[str]:
        """Every symbol that appears."""
        return frozenset(name for mono, _ in self.terms for name in mono)

    def coeff(self, name: str) -> int:
        """The coefficient of the linear term in `name`."""
        for mono, coeff in self.terms:
            if mono == (name,):
                return coeff
        return 0

    def substitute(self, values: Mapping[str, Poly]) -> Poly:
        """Replace symbols by polynomials."""
        out = Poly()
        for mono, coeff in self.terms:
            term = Poly.const(coeff)
            for name in mono:
                term = term * values.get(name, Poly.sym(name))
            out = out + term
        return out

    def render(self) -> str:
        """C text for the polynomial, e.g. `i*n + j - 1`."""
        if not self.terms:
            return "0"
        parts: list[str] = []
        # Products first, then single symbols, constant last; positives lead.
        ordered = sorted(self.terms, key=lambda t: (-len(t[0]), t[1] < 0, t[0]))
        for mono, coeff in ordered:
            body = "*".join(mono)
            mag = abs(coeff)
            if not body:
                text = str(mag)
            elif mag == 1:
                text = body
            else:
                text = f"{mag}*{body}"
            if not parts:
                parts.append(text if coeff > 0 else f"-{text}")
            else:
                parts.append(f"+ {text}" if coeff > 0 else f"- {text}")
        return " ".join(parts)


@lru_cache(maxsize=65536)
def _add(a: Poly, b: Poly) -> Poly:
    return Poly(_normal([*a.terms, *b.terms]))


@lru_cache(maxsize=65536)
def _mul(a: Poly, b: Poly) -> Poly:
    return Poly(_normal((m1 + m2, c1 * c2) for m1, c1 in a.terms for m2, c2 in b.terms))
