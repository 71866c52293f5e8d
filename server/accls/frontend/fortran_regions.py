"""Fortran directives of one program unit: regions opened and closed, constructs."""

from __future__ import annotations

from dataclasses import dataclass, field

from accls.frontend.fortran_statements import LOOP_WORDS, STANDALONE
from accls.frontend.model import Directive, Region, Span

__all__ = ["Directives", "OpenRegion"]


@dataclass(slots=True)
class OpenRegion:
    """A region directive and, once seen, its `end` line."""

    directive: Directive
    end: Span | None = None


@dataclass(slots=True)
class Directives:
    """The sentinel directives of a unit, in source order, with their `end` lines."""

    regions: list[OpenRegion] = field(default_factory=list)
    constructs: list[Region] = field(default_factory=list)
    unit_pragmas: list[Directive] = field(default_factory=list)
    # Indices into `regions` of the regions still open, innermost last.
    open: list[int] = field(default_factory=list)

    def directive(self, directive: Directive, pending: list[Directive]) -> str:
        """Attach or open a directive; the dialect if it guards the next statement."""
        words = set(directive.name.split())
        first = directive.name.split()[0] if directive.name else ""
        if first == "atomic":
            self.construct(directive, directive.span)
            return directive.dialect
        if first in STANDALONE:
            if first in ("routine", "declare"):
                self.unit_pragmas.append(directive)
            self.construct(directive, directive.span)
            return ""
        if words & LOOP_WORDS:
            pending.append(directive)
            return ""
        self.regions.append(OpenRegion(directive))
        self.open.append(len(self.regions) - 1)
        return ""

    def close(self, name: str, where: Span) -> None:
        """`end <name>`: the innermost open region of that name ends here."""
        for pos in range(len(self.open) - 1, -1, -1):
            region = self.regions[self.open[pos]]
            if region.directive.name == name or name.startswith(region.directive.name):
                region.end = where
                del self.open[pos:]
                self.construct(region.directive, self.region_span(region))
                return

    def region_span(self, region: OpenRegion) -> Span:
        """The directive through its `end` line (or the directive alone if unclosed)."""
        start = region.directive.span
        assert start is not None
        end = region.end or start
        return Span(start.start_byte, end.end_byte, start.start, end.end)

    def construct(self, directive: Directive, span: Span | None) -> None:
        """Record an OpenMP construct for the concurrency checks."""
        if directive.dialect == "omp" and span is not None:
            self.constructs.append(Region(directive=directive, span=span))
