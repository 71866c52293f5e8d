"""Finding values: what a finding is, how sure, and how it is worded."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from accls.frontend import Span

__all__ = ["Category", "Finding", "FindingKind", "Severity", "finding"]


class Category(StrEnum):
    """What a finding is about."""

    RACE = "race"
    # A wrong result without a data race: a privatized scalar whose value the
    # iterations pass on (ACC112). Scored apart from races; blocks like them.
    RESULT = "result"
    DATA = "data"
    SYNTAX = "syntax"
    PERFORMANCE = "performance"
    PORTABILITY = "portability"


class Severity(StrEnum):
    """How sure and how bad: errors are proved bugs."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class FindingKind:
    """One entry of the catalog: a stable code and how to word it."""

    code: str
    category: Category
    severity: Severity
    title: str
    template: str  # str.format template over the finding's args


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding: its kind, where it is, and the values its message names."""

    kind: FindingKind
    span: Span
    args: tuple[tuple[str, str], ...] = ()
    severity: Severity | None = None  # overrides the kind's default when set
    insert: tuple[int, str] | None = None  # a sure repair: text to add at a byte

    @property
    def code(self) -> str:
        """The stable code, e.g. `ACC101`."""
        return self.kind.code

    @property
    def level(self) -> Severity:
        """The severity of this finding."""
        return self.severity or self.kind.severity

    @property
    def message(self) -> str:
        """The rendered message text."""
        return self.kind.template.format(**dict(self.args))


def finding(
    kind: FindingKind, span: Span, severity: Severity | None = None, /, **args: object
) -> Finding:
    """Build a Finding with its arguments stringified."""
    pairs = tuple(sorted((k, str(v)) for k, v in args.items()))
    return Finding(kind, span, pairs, severity)
