"""The four augmentations and `accls-train augment`'s re-validation."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.frontend import parse_directive
from accls_train.augment import augment_pair, main
from accls_train.dataset import Pair, read_pairs, write_pairs
from accls_train.metrics import clause_items
from accls_train.rewrites import equivalent, redundant, rename, reorder
from accls_train.validate import Validator, Verdict

Need = Callable[[str], str]

ACC_UNIT = """\
#include <stdlib.h>
#define SCALE 2.0
void scale(int n, double *restrict data, const double *restrict max)
{
    double t;
    for (int i = 0; i < n; i++) {
        t = max[i] * SCALE;
        data[i] = t;
    }
}
"""

OMP_UNIT = """\
void axpy(int n, double a, double *restrict x, double *restrict y)
{
    #pragma omp parallel num_threads(4)
    {
        for (int i = 0; i < n; i++)
            y[i] += a * x[i];
    }
}
"""

OMP_COMBINED = """\
void axpy(int n, double a, double *restrict x, double *restrict y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}
"""

PREFIX_UNIT = """\
void p(int n, double *a)
{
    for (int i = 1; i < n; i++)
        a[i] += a[i - 1];
}
"""


def make(mcu: str, line: int, pragma: str, model: str = "openacc") -> Pair:
    loop = mcu.splitlines()[line - 1].strip()
    return Pair(
        id="t:1",
        repo="t/t",
        path="t.c",
        line=line,
        model=model,
        target="gpu" if model == "openacc" else "cpu",
        pragma=pragma,
        loop=loop,
        mcu=mcu,
    )


def items(pragma: str) -> Counter[str]:
    directive = parse_directive(pragma)
    assert directive is not None
    return Counter(clause_items(directive))


def test_rename_changes_locals_and_clause_arguments_only() -> None:
    pragma = "#pragma acc parallel loop private(t) copyin(max[0:n]) copyout(data[0:n])"
    pair = make(ACC_UNIT, 6, pragma)
    new = rename(pair, random.Random(0))
    assert new is not None
    assert "#pragma acc parallel loop private(" in new.pragma
    assert "max" not in new.pragma.replace("#pragma", "")
    for old in ("data", "max", "t"):
        assert f" {old}[" not in new.mcu
    assert "#define SCALE 2.0" in new.mcu  # globals and macros keep their names
    assert "void scale(" in new.mcu
    assert new.line == pair.line
    assert new.mcu.splitlines()[new.line - 1].lstrip().startswith("for (int")


def test_rename_keeps_directive_words_and_reduction_operators() -> None:
    unit = "void f(int n, double *a)\n{\n    double max = 0;\n    for (int i = 0; i < n; i++)\n        max = a[i] > max ? a[i] : max;\n}\n"  # noqa: E501
    new = rename(
        make(unit, 4, "#pragma acc parallel loop reduction(max:max)"), random.Random(1)
    )
    assert new is not None
    assert new.pragma.startswith("#pragma acc parallel loop reduction(max:")
    assert not new.pragma.endswith("max:max)")


def test_equivalent_acc_forms() -> None:
    pair = make(ACC_UNIT, 6, "#pragma acc parallel loop private(t)")
    new = equivalent(pair, random.Random(0))
    assert new is not None
    assert new.pragma == "#pragma acc kernels loop private(t)"
    assert (
        equivalent(
            make(ACC_UNIT, 6, "#pragma acc parallel loop firstprivate(n)"),
            random.Random(0),
        )
        is None
    )
    back = equivalent(
        make(ACC_UNIT, 6, "#pragma acc kernels loop independent"), random.Random(0)
    )
    assert back is not None
    assert back.pragma == "#pragma acc parallel loop"


def test_omp_for_in_parallel_becomes_parallel_for_and_back() -> None:
    merged = equivalent(
        make(OMP_UNIT, 5, "#pragma omp for", "openmp"), random.Random(0)
    )
    assert merged is not None
    assert merged.pragma == "#pragma omp parallel for num_threads(4)"
    assert "omp parallel" not in merged.mcu
    assert merged.mcu.splitlines()[merged.line - 1].lstrip().startswith("for (int i")
    split = equivalent(
        make(
            OMP_COMBINED,
            3,
            "#pragma omp parallel for private(a) schedule(static)",
            "openmp",
        ),
        random.Random(0),
    )
    assert split is not None
    assert split.pragma == "#pragma omp for schedule(static)"
    lines = split.mcu.splitlines()
    assert lines[split.line - 3].strip() == "#pragma omp parallel private(a)"
    assert lines[split.line - 1].lstrip().startswith("for (int i")


def test_reorder_keeps_the_clauses() -> None:
    pragma = "#pragma acc parallel loop gang vector copyin(a[0:n]) copyout(b[0:n])"
    new = reorder(make(ACC_UNIT, 6, pragma), random.Random(4))
    assert new is not None
    assert new.pragma != pragma
    assert items(new.pragma) == items(pragma)
    assert (
        reorder(make(ACC_UNIT, 6, "#pragma acc parallel loop gang"), random.Random(0))
        is None
    )


@pytest.mark.parametrize(
    ("pragma", "model", "expected"),
    [
        (
            "#pragma acc parallel loop independent gang",
            "openacc",
            "#pragma acc parallel loop gang",
        ),
        (
            "#pragma acc parallel loop private(i, t)",
            "openacc",
            "#pragma acc parallel loop private(t)",
        ),
        (
            "#pragma omp parallel for shared(data, max) private(i)",
            "openmp",
            "#pragma omp parallel for",
        ),
        ("#pragma omp parallel for default(none) shared(data, max, n)", "openmp", None),
        ("#pragma acc kernels loop independent", "openacc", None),
    ],
)
def test_redundant_clauses(pragma: str, model: str, expected: str | None) -> None:
    new = redundant(make(ACC_UNIT, 6, pragma, model), random.Random(0))
    assert (None if new is None else new.pragma) == expected


class RejectKernels(Validator):
    """Fails every `kernels` pragma, to exercise dropping."""

    def check(self, mcu: str, line: int, pragma: str, model: str) -> Verdict:
        return Verdict(compiles="kernels" not in pragma, race_free=True)


def test_failing_rewrites_are_dropped_and_counted() -> None:
    pair = make(ACC_UNIT, 6, "#pragma acc parallel loop private(t) gang")
    out, tally = augment_pair(pair, 5, random.Random(0), RejectKernels())
    assert tally["dropped"] == {"equivalent: compile": 1}
    assert all("kernels" not in p.pragma for p in out)
    assert tally["kept"]["reorder"] == 1
    assert {p.origin for p in out} >= {"augmented:reorder", "augmented:rename"}
    assert len(out) == 4


def test_cli_triples_validated_pairs_and_skips_broken_ones(
    tmp_path: Path, need: Need, capsys: pytest.CaptureFixture[str]
) -> None:
    need("gcc")
    good = make(
        ACC_UNIT,
        6,
        "#pragma acc parallel loop private(t) copyin(max[0:n]) copyout(data[0:n])",
    )
    racy = Pair.from_json(
        {
            **make(
                PREFIX_UNIT,
                3,
                "#pragma acc parallel loop",
            ).to_json(),
            "id": "t:2",
        }
    )
    held_out = Pair.from_json({**good.to_json(), "id": "t:3", "split": "test"})
    data = tmp_path / "in.jsonl"
    write_pairs(data, [good, racy, held_out])
    out = tmp_path / "out.jsonl"
    args = ["--data", str(data), "--out", str(out), "--cache-dir", str(tmp_path / "cc")]
    assert main(args) == 0
    pairs = read_pairs(out)
    augmented = [p for p in pairs if p.origin.startswith("augmented:")]
    assert len(augmented) == 2
    assert all(p.id.startswith("t:1#") for p in augmented)
    summary = capsys.readouterr().out
    assert "1 originals fail validation" in summary
    # A second run resumes from the checkpoint and writes the same file.
    assert main(args) == 0
    assert read_pairs(out) == pairs
    assert main(["--data", str(tmp_path / "missing.jsonl")]) == 2
