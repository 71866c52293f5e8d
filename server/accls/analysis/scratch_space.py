"""The elements of an array a reference touches in one loop iteration, as isl sets.

The proofs of `scratch_arrays` compare such sets: what the writes of an
iteration cover against what its reads touch. A reference whose subscripts or
loop bounds are not affine in the loop's fixed symbols refuses (`Refused`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from accls.frontend import Loop, Poly, Ref, SourceFile
from accls.frontend.exprs import remainder_poly

if TYPE_CHECKING:
    import islpy as isl

__all__ = ["ElementSpace", "Refused", "aligned", "statement_before", "union"]


class Refused(Exception):
    """The array cannot be proved private: the reason is not kept."""


class ElementSpace:
    """Names isl sets of one array's elements, over one loop's symbols."""

    def __init__(
        self,
        loop: Loop,
        written: frozenset[str],
        constants: Mapping[str, int],
        loops: Mapping[int, Loop] | None = None,
    ) -> None:
        self.loop = loop
        self.written = written
        self.constants = constants
        # Without `loops`, the loops inside `loop`; with them, any symbol but a
        # constant refuses (the writes after the loop must set a fixed range).
        self.closed = loops is not None
        inside = {m.id: m for m in loop.walk()[1:]}
        self.inner = dict(loops) if loops is not None else inside
        self.ids: dict[str, str] = {}

    def name(self, symbol: str) -> str:
        """The isl parameter that stands for a symbol."""
        return self.ids.setdefault(symbol, f"p{len(self.ids)}")

    def affine(self, poly: Poly | None, dims: Mapping[str, str]) -> str:
        """The isl text of an affine polynomial; a symbol the loop changes refuses."""
        if poly is None or not poly.is_affine:
            raise Refused
        parts: list[str] = []
        for mono, coeff in poly.terms:
            if not mono:
                parts.append(str(coeff))
                continue
            sym = mono[0]
            if sym in self.constants and sym not in dims:
                parts.append(str(coeff * self.constants[sym]))
            elif sym in dims:
                parts.append(f"{coeff}*{dims[sym]}")
            elif not self.closed and (sym == self.loop.var or sym not in self.written):
                parts.append(f"{coeff}*{self.name(sym)}")
            else:
                raise Refused
        return " + ".join(parts) or "0"

    def frame(
        self, ref: Ref, exact: bool, chain: Sequence[int] | None = None
    ) -> tuple[dict[str, str], list[str]]:
        """The inner loop variables around `ref`, and their bounds' constraints.

        `exact`: the bounds must describe each inner loop's iterations exactly
        (a write that covers); otherwise a superset will do (a read).
        """
        dims: dict[str, str] = {}
        cons: list[str] = []
        if chain is None:
            chain = ref.loops[ref.loops.index(self.loop.id) + 1 :]
        for lid in chain:
            inner = self.inner.get(lid)
            if inner is None or not inner.var or inner.step is None:
                raise Refused
            if exact and (abs(inner.step) != 1 or inner.limits or inner.exits):
                raise Refused
            var = f"v{len(dims)}"
            low = self.affine(inner.lower, dims)
            high = self.affine(inner.upper, dims)
            dims[inner.var] = var
            op = inner.cond_op
            if inner.step > 0 and op in ("<", "<="):
                cons += [f"{var} >= {low}", f"{var} {op} {high}"]
            elif inner.step < 0 and op in (">", ">="):
                cons += [f"{var} <= {low}", f"{var} {op} {high}"]
            else:
                raise Refused
        return dims, cons

    def elements(
        self, ref: Ref, exact: bool, chain: Sequence[int] | None = None
    ) -> isl.Set:
        """The elements `ref` touches in one iteration of the loop (or `chain`)."""
        import islpy

        dims, frame = self.frame(ref, exact, chain)
        cons: list[str] = []
        extra: list[str] = []
        for pos, sub in enumerate(ref.subscripts):
            if sub.indirect:
                raise Refused
            if sub.poly is not None:
                cons.append(f"e{pos} = {self.affine(sub.poly, dims)}")
                continue
            modulo = None if exact else _modulo(sub.text)
            if modulo is None:
                raise Refused
            top, bottom = modulo
            left = self.affine(top, dims)
            size = self.affine(bottom, dims)
            # Refused below unless `left >= 0` holds over the whole frame.
            extra.append(f"{left} < 0")
            cons.append(f"0 <= e{pos} < {size}")
        out = [f"e{k}" for k in range(len(ref.subscripts))]
        params = ", ".join(self.ids.values())
        hidden = ", ".join(dims.values())
        body = " and ".join([*frame, *cons]) or "true"
        inner = f"exists ({hidden} : {body})" if hidden else body
        for neg in extra:
            probe = " and ".join([*frame, neg])
            if not islpy.Set(f"[{params}] -> {{ [{hidden}] : {probe} }}").is_empty():
                raise Refused
        return islpy.Set(f"[{params}] -> {{ [{', '.join(out)}] : {inner} }}")


def _modulo(text: str) -> tuple[Poly, Poly] | None:
    """(`e`, `m`) of a subscript `e % m`, both polynomials, or None."""
    found = remainder_poly(text)
    if found is None or found[0] != Poly.sym("%0") or len(found[1]) != 1:
        return None
    return found[1][0]


def aligned(left: isl.Set, right: isl.Set) -> tuple[isl.Set, isl.Set]:
    """The two sets over the same parameters."""
    left = left.align_params(right.get_space())
    return left, right.align_params(left.get_space())


def union(left: isl.Set, right: isl.Set) -> isl.Set:
    """The elements of either set."""
    left, right = aligned(left, right)
    return left.union(right)


def statement_before(source: SourceFile, write: Ref, read: Ref) -> bool:
    """True when a statement ends between `write` and `read` (in the text)."""
    between = source.code[write.span.end_byte : read.span.start_byte]
    if not write.fortran:
        return ";" in between or "}" in between
    lines = between.split("\n")
    return ";" in between or any(not ln.rstrip().endswith("&") for ln in lines[:-1])
