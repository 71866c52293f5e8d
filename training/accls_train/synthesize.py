"""`accls-train synthesize`: new loops from templates, labelled by the analysis.

Every template is written for each of the three targets (OpenACC GPU, OpenMP
CPU, OpenMP GPU) in turn. The analysis engine labels the loops; only labelled
pairs that compile and pass the race checks are kept. Compiles are cached by
content, so a rerun with the same seed redoes only the analysis.
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from accls.frontend import parse_source
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target
from accls.validation import default_cache_dir

from accls_train.console import fail, progress, say
from accls_train.dataset import Pair, write_pairs
from accls_train.mine import dedupe, loop_source
from accls_train.templates import TEMPLATES, Kernel, Names
from accls_train.validate import Validator

__all__ = ["OPTION_SETS", "Tally", "label_kernel", "main", "synthesize"]

OPTION_SETS: tuple[tuple[str, str], ...] = (
    ("openacc", "gpu"),
    ("openmp", "cpu"),
    ("openmp", "gpu"),
)
_HEADER = "#include <math.h>\n#include <stdlib.h>\n\n"
_REGION = re.compile(r"#pragma ACCLS_REGION copy\(([^)]*)\) copyout\(([^)]*)\)")


@dataclass(slots=True)
class Tally:
    """What synthesis made and dropped, for the summary."""

    units: int = 0
    refused: int = 0  # units where the analysis suggested nothing
    serial_refused: int = 0  # of those, units that must stay serial
    serial_labelled: int = 0  # serial units the analysis labelled: dropped
    labelled: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)


def _with_region(code: str, model: str, target: str) -> tuple[str, str | None]:
    """The kernel with its region placeholder written for the model, or removed."""
    match = _REGION.search(code)
    if match is None:
        return code, None
    copy, out = match.groups()
    if model == "openacc":
        region = f"#pragma acc data copy({copy}) copyout({out})"
    elif target == "gpu":
        region = f"#pragma omp target data map(tofrom: {copy}) map(from: {out})"
    else:
        return _REGION.sub("// one block of work", code), None
    return _REGION.sub(region, code), region


def _with_atomics(mcu: str, suggestion: Suggestion) -> str:
    """The unit with the suggestion's atomic pragmas above their statements."""
    data = mcu.encode()
    for atomic in sorted(suggestion.atomics, key=lambda a: -a.span.start_byte):
        offset = atomic.span.start_byte
        start = data.rfind(b"\n", 0, offset) + 1
        before = data[start:offset]
        pad = before[: len(before) - len(before.lstrip())]
        line = pad + atomic.pragma.render().encode() + b"\n"
        if before.strip():
            data = data[:offset] + b"\n" + line + pad + data[offset:]
        else:
            data = data[:start] + line + data[start:]
    return data.decode()


def label_kernel(kernel: Kernel, model: str, target: str, index: int) -> list[Pair]:
    """Pairs for the loops the analysis gives a pragma (validation comes later)."""
    code, region = _with_region(kernel.code, model, target)
    mcu = _HEADER + code
    source = parse_source(mcu)
    options = SuggestOptions(
        dialect=Dialect.OPENACC if model == "openacc" else Dialect.OPENMP,
        target=Target.GPU if target == "gpu" else Target.CPU,
    )
    # Labels only: the compile and race checks of the pairs come later.
    found = suggest_text(
        mcu,
        "",
        Settings(validate=False),
        options=options,
        source=source,
        regions=False,
    )
    pairs: list[Pair] = []
    for suggestion in found.suggestions:
        if suggestion.pragma is None or suggestion.inner:
            continue
        loop = suggestion.loop
        # The loop pragma is only right with its atomics in the body: the unit
        # carries them, as a mined function carries the author's.
        unit = _with_atomics(mcu, suggestion)
        pairs.append(
            Pair(
                id=f"synthetic:{kernel.template}:{index}:{loop.line}",
                repo="synthetic",
                path=f"{kernel.template}.c",
                line=loop.line,
                model=model,
                target=target,
                pragma=suggestion.pragma.render(),
                loop=loop_source(source, loop),
                mcu=unit,
                region=region,
                origin=f"synthesized:{kernel.template}",
            )
        )
    return pairs


def synthesize(count: int, seed: int, validator: Validator) -> tuple[list[Pair], Tally]:
    """Make `count` units, label and validate them; the kept pairs and a tally."""
    rng = random.Random(seed)
    names = sorted(TEMPLATES)
    tally = Tally()
    kept: list[Pair] = []
    for index in progress(range(count), total=count, desc="synthesize"):
        template = names[index % len(names)]
        model, target = OPTION_SETS[(index // len(names)) % len(OPTION_SETS)]
        kernel = TEMPLATES[template](rng, Names(rng))
        tally.units += 1
        pairs = label_kernel(kernel, model, target, index)
        if not pairs:
            tally.refused += 1
            tally.serial_refused += kernel.serial
            continue
        if kernel.serial:
            tally.serial_labelled += 1
            tally.dropped["serial labelled"] += len(pairs)
            continue
        for pair in pairs:
            tally.labelled += 1
            verdict = validator.check(pair.mcu, pair.line, pair.pragma, model)
            if verdict.compiles is False:
                tally.dropped["compile"] += 1
            elif not verdict.race_free:
                tally.dropped["race"] += 1
            else:
                kept.append(pair)
    unique, exact, near = dedupe(kept)
    tally.dropped["duplicate"] += exact + near
    tally.kept.update(p.origin.split(":", 1)[1] for p in unique)
    return unique, tally


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train synthesize", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--count", type=int, default=480, help="units to generate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", type=Path, default=Path("training/runs/data/synth.jsonl")
    )
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--cache-dir", default=None, help="compile cache folder")
    return parser


def main(argv: Sequence[str]) -> int:
    """Generate, label, validate and write synthesized pairs."""
    args = _parser().parse_args(list(argv))
    if args.count < 1:
        return fail("synthesize: --count must be at least 1")
    validator = Validator(args.cc, args.cache_dir or default_cache_dir())
    if not validator.has_compiler:
        say(f"synthesize: warning: {args.cc} not found, pairs are not compile-checked")
    pairs, tally = synthesize(args.count, args.seed, validator)
    write_pairs(args.out, pairs)
    dropped = ", ".join(f"{k} {v}" for k, v in sorted(tally.dropped.items()))
    say(
        f"synthesize: made {tally.units} units from {len(TEMPLATES)} templates; "
        f"{tally.refused} refused by the analysis ({tally.serial_refused} serial "
        f"by design); {tally.labelled} labelled pairs; kept {len(pairs)} "
        f"(dropped: {dropped or 'none'}) -> {args.out}"
    )
    say(
        "synthesize: kept per template: "
        + ", ".join(f"{k} {v}" for k, v in sorted(tally.kept.items()))
    )
    return 0
