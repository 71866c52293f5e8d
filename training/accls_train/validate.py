"""Check one pair the way accls checks a suggestion: gcc, then the race checks."""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from accls.analysis.findings import Category, Severity
from accls.frontend import parse_source
from accls.pipeline import check_text
from accls.validation.compile_runner import CompilerSettings, base_command, run_unit

from accls_train.dataset import DatasetError, insert_pragma

__all__ = ["Validator", "Verdict"]

_BLOCKING = (Category.RACE, Category.RESULT, Category.DATA)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a unit with a pragma compiles (None: no compiler) and is race-free."""

    compiles: bool | None
    race_free: bool

    @property
    def ok(self) -> bool:
        """Passes both checks (a missing compiler does not fail a pair)."""
        return self.compiles is not False and self.race_free


class Validator:
    """Compiles with `gcc -fsyntax-only -fopenacc|-fopenmp`, cached by content."""

    def __init__(
        self, cc: str = "gcc", cache_dir: str | None = None, timeout_s: float = 20.0
    ) -> None:
        self._cc_path = shutil.which(cc)
        self._settings = CompilerSettings(
            cc=cc, timeout_s=timeout_s, cache_dir=cache_dir
        )

    @property
    def has_compiler(self) -> bool:
        """Whether the compiler was found on PATH."""
        return self._cc_path is not None

    def compiles(self, unit: str, model: str) -> bool | None:
        """Whether `unit` compiles with the flag of `model`; None without gcc."""
        if self._cc_path is None:
            return None
        command = base_command(self._cc_path, self._settings, "", frozenset({model}))
        outcome, _ = run_unit(command, unit, "unit.c", self._settings)
        return outcome.ok is True

    def race_free(self, unit: str, line: int) -> bool:
        """No race or data error from `accls check` on the pragma or its loop.

        `line` is the pragma's 1-based line; findings elsewhere in the unit are
        about other pragmas a mined function still holds, not this one.
        """
        loop = next(
            (lp for lp in parse_source(unit).loops() if lp.line == line + 1), None
        )
        last = loop.span.end[0] + 1 if loop is not None else line + 1
        return not any(
            f.level is Severity.ERROR
            and f.kind.category in _BLOCKING
            and line <= f.span.line <= last
            for f in check_text(unit)
        )

    def check(self, mcu: str, line: int, pragma: str, model: str) -> Verdict:
        """Insert `pragma` above `line` of `mcu` and run both checks."""
        try:
            unit = insert_pragma(mcu, line, pragma)
        except DatasetError:
            return Verdict(compiles=False, race_free=False)
        return Verdict(
            compiles=self.compiles(unit, model),
            race_free=self.race_free(unit, line),
        )
