"""The Pragma value, its rendering, and parsing model text back into it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from accls.frontend import Clause, parse_directive

__all__ = ["Dialect", "Pragma", "Target", "parse_pragma"]


class Dialect(StrEnum):
    """The programming model a pragma is written in."""

    OPENACC = "openacc"
    OPENMP = "openmp"

    @property
    def sentinel(self) -> str:
        """The word after `#pragma`."""
        return "acc" if self is Dialect.OPENACC else "omp"


class Target(StrEnum):
    """Where the parallel loop runs."""

    CPU = "cpu"
    GPU = "gpu"


@dataclass(frozen=True, slots=True)
class Pragma:
    """A directive with its clauses, in our canonical clause order."""

    dialect: Dialect
    directive: str
    clauses: tuple[Clause, ...] = ()

    def render(self) -> str:
        """The `#pragma ...` line."""
        parts = [f"#pragma {self.dialect.sentinel} {self.directive}"]
        for clause in self.clauses:
            if clause.args is None:
                parts.append(clause.name)
            elif not clause.name:
                parts[-1] += f"({clause.args})"  # `critical(name)`, `wait(1)`
            else:
                parts.append(f"{clause.name}({clause.args})")
        return " ".join(parts)

    def clause(self, name: str) -> Clause | None:
        """The first clause called `name`, if any."""
        return next((c for c in self.clauses if c.name == name), None)

    def written(self, pad: str, newline: str) -> str:
        """The line(s) as inserted above a statement, indented by `pad`."""
        del newline
        return pad + self.render()

    def end_line(self) -> str | None:
        """A directive that closes the construct after its loop (none in C)."""
        return None

    def end_lines(self) -> tuple[str, ...]:
        """The lines after its loop: `end_line`, after any the rewrite needs."""
        line = self.end_line()
        return (line,) if line is not None else ()

    def head_prefix(self) -> str:
        """Text put before the loop's keyword (a rewritten header's comment mark)."""
        return ""

    def indent(self, pad: str) -> str:
        """The indentation of its lines where the statement's is `pad`."""
        return pad

    def braces(self) -> bool:
        """Whether a region it opens is a `{ }` block (C) rather than an end line."""
        return True

    def region_end(self) -> str:
        """What closes a region this pragma opens."""
        return "}"


def parse_pragma(text: str) -> Pragma | None:
    """Parse a pragma line (ours, the user's or a model's); None if not acc/omp."""
    directive = parse_directive(text)
    if directive is None or not directive.name or directive.malformed:
        return None
    dialect = Dialect.OPENACC if directive.dialect == "acc" else Dialect.OPENMP
    return Pragma(dialect, directive.name, directive.clauses)
