"""The syntax-correctness term: does the model's pragma compile in the pair's unit.

During fine-tuning, every `syntax.every` steps the pragma the model would write
for each example of the batch (the argmax of its teacher-forced logits over the
completion) is put above the loop of the pair's minimal compilable unit and
checked with `gcc -fsyntax-only -fopenacc|-fopenmp`. An example whose pragma
does not compile is flagged until it is checked again, and the loss is

    L = sum_i w_i * (1 + lambda * nc_i) * CE_i / sum_i w_i

with CE_i the mean token cross-entropy of example i's completion, w_i its
dataset weight and nc_i 1 when its last checked pragma did not compile: plain
cross-entropy plus lambda times the cross-entropy of non-compiling examples.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from typing import Any

from accls.suggest import Dialect, parse_pragma
from accls.suggest.prompt import completion_pragma
from accls.validation.compile_runner import CompilerSettings, base_command, run_unit

from accls_train.dataset import DatasetError, Pair, insert_pragma
from accls_train.examples import IGNORE, Example

__all__ = ["SyntaxTerm", "pragma_compiles", "teacher_forced_pragmas"]


def _compiles(unit: str, model: str, cc: str) -> bool | None:
    path = shutil.which(cc)
    if path is None:
        return None
    settings = CompilerSettings(cc=cc, timeout_s=20.0)
    command = base_command(path, settings, "", frozenset({model}))
    outcome, _ = run_unit(command, unit, "unit.c", settings)
    return outcome.ok


def pragma_compiles(pair: Pair, text: str, cc: str = "gcc") -> bool | None:
    """Whether `text` is a pragma of the pair's model that compiles above its loop.

    None when it cannot be told: no compiler, or the unit does not compile even
    without a pragma (a mined unit missing a header).
    """
    pragma = completion_pragma(text)
    parsed = parse_pragma(pragma) if pragma is not None else None
    if pragma is None or parsed is None or parsed.dialect is not Dialect(pair.model):
        # gcc ignores unknown directives, so a non-pragma would "compile".
        return False
    if _compiles(pair.mcu, pair.model, cc) is not True:
        return None
    try:
        unit = insert_pragma(pair.mcu, pair.line, pragma)
    except DatasetError:
        return None
    return _compiles(unit, pair.model, cc)


def teacher_forced_pragmas(
    batch: Sequence[Example], logits: Any, labels: Any, tokenizer: Any
) -> list[str]:
    """The completion each example's argmax predictions spell, one per example."""
    predicted = logits[:, :-1, :].argmax(dim=-1)
    targets = labels[:, 1:]
    texts: list[str] = []
    for row in range(len(batch)):
        ids = predicted[row][targets[row] != IGNORE].tolist()
        texts.append(tokenizer.decode(ids, skip_special_tokens=True))
    return texts


class SyntaxTerm:
    """Per-example non-compiling flags, refreshed by compile checks, as weights."""

    def __init__(self, weight: float, cc: str) -> None:
        self.weight = weight
        self.cc = cc
        self.flags: dict[str, bool] = {}

    def refresh(self, batch: Sequence[Example], texts: Sequence[str]) -> float:
        """Compile-check the model's pragmas; the fraction that did not compile."""
        checked = failed = 0
        for example, text in zip(batch, texts, strict=True):
            ok = pragma_compiles(example.pair, text, self.cc)
            if ok is None:
                continue
            checked += 1
            failed += not ok
            self.flags[example.pair.id] = not ok
        return failed / checked if checked else 0.0

    def factors(self, batch: Sequence[Example]) -> list[float]:
        """1 + lambda for flagged examples, 1 for the others."""
        return [1.0 + self.weight * self.flags.get(e.pair.id, False) for e in batch]
