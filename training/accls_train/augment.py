"""`accls-train augment`: multiply training pairs by semantics-preserving rewrites.

Only the train split is augmented. Each rewrite (see `accls_train.rewrites`) is
re-validated: the unit with the new pragma must compile with gcc and pass the
race checks; failures are dropped and counted per kind. Pairs whose original
already fails validation are not augmented. `--factor 3` aims at the seed's
tripling. Finished pairs are checkpointed to `OUT.state.jsonl`, so a rerun with
the same options resumes.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from accls.validation import default_cache_dir

from accls_train.checkpoint import load_checkpoint
from accls_train.console import fail, progress, say
from accls_train.dataset import DatasetError, Pair, Split, read_pairs, write_pairs
from accls_train.rewrites import REWRITES
from accls_train.validate import Validator

__all__ = ["STATE_VERSION", "Tally", "augment_pair", "main"]

STATE_VERSION = 3  # bump when a rewrite changes: old checkpoints are then ignored


@dataclass(slots=True)
class Tally:
    """Augmentations made, kept and dropped, per kind."""

    made: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)  # "kind: reason"
    skipped: int = 0  # originals that fail validation themselves

    def add(self, other: dict[str, dict[str, int]]) -> None:
        """Fold in a checkpointed tally."""
        self.made.update(other.get("made", {}))
        self.kept.update(other.get("kept", {}))
        self.dropped.update(other.get("dropped", {}))
        self.skipped += int(other.get("skipped", {}).get("n", 0))


def _verdict_reason(pair: Pair, validator: Validator) -> str | None:
    verdict = validator.check(pair.mcu, pair.line, pair.pragma, pair.model)
    if verdict.compiles is False:
        return "compile"
    return None if verdict.race_free else "race"


def augment_pair(
    pair: Pair, factor: int, rng: random.Random, validator: Validator
) -> tuple[list[Pair], dict[str, dict[str, int]]]:
    """Up to `factor - 1` validated rewrites of one pair, and their tally."""
    tally: dict[str, Counter[str]] = {k: Counter() for k in ("made", "kept", "dropped")}
    if _verdict_reason(pair, validator) is not None:
        return [], {"skipped": {"n": 1}}
    # The rewrites that change the pragma first; renaming, which can always be
    # tried again with other names, fills the remaining slots.
    kinds = [k for k in REWRITES if k != "rename"]
    rng.shuffle(kinds)
    attempts = [*kinds, *["rename"] * factor]
    out: list[Pair] = []
    seen = {pair.pragma + pair.mcu}
    for kind in attempts:
        if len(out) >= factor - 1:
            break
        new = REWRITES[kind](pair, rng)
        if new is None or new.pragma + new.mcu in seen:
            continue
        seen.add(new.pragma + new.mcu)
        tally["made"][kind] += 1
        reason = _verdict_reason(new, validator)
        if reason is not None:
            tally["dropped"][f"{kind}: {reason}"] += 1
            continue
        tally["kept"][kind] += 1
        out.append(
            replace(
                new, id=f"{pair.id}#{kind}{len(out) + 1}", origin=f"augmented:{kind}"
            )
        )
    return out, {k: dict(v) for k, v in tally.items()}


def _load_state(state: Path, header: dict[str, object]) -> dict[str, dict[str, object]]:
    """Checkpointed results by pair id, if the state file was made with `header`."""
    return {str(r["id"]): r for r in load_checkpoint(state, header)}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train augment", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--data", type=Path, required=True, help="input JSONL")
    parser.add_argument(
        "--out", type=Path, default=Path("training/runs/data/augmented.jsonl")
    )
    parser.add_argument("--factor", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--cache-dir", default=None, help="compile cache folder")
    parser.add_argument(
        "--fresh", action="store_true", help="ignore checkpoints of an earlier run"
    )
    return parser


def main(argv: Sequence[str]) -> int:
    """Augment the train split of --data into --out; print what was kept."""
    args = _parser().parse_args(list(argv))
    if args.factor < 1:
        return fail("augment: --factor must be at least 1")
    try:
        pairs = read_pairs(args.data)
    except DatasetError as exc:
        return fail(f"augment: {exc}")
    validator = Validator(args.cc, args.cache_dir or default_cache_dir())
    if not validator.has_compiler:
        say(f"augment: warning: {args.cc} not found, rewrites are not compile-checked")
    out: Path = args.out
    state = out.with_name(out.name + ".state.jsonl")
    header: dict[str, object] = {
        "version": STATE_VERSION,
        "data": str(args.data.resolve()),
        "factor": args.factor,
        "seed": args.seed,
    }
    done = {} if args.fresh else _load_state(state, header)
    state.parent.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    result: list[Pair] = []
    train = [p for p in pairs if p.split == Split.TRAIN]
    with state.open("w", encoding="utf-8") as log:
        log.write(json.dumps(header) + "\n")
        for pair in progress(train, total=len(train), desc="augment"):
            record = done.get(pair.id)
            if record is None:
                # One generator per pair: a resumed run draws the same rewrites.
                rng = random.Random(f"{args.seed}:{pair.id}")
                new, counts = augment_pair(pair, args.factor, rng, validator)
                record = {
                    "id": pair.id,
                    "pairs": [p.to_json() for p in new],
                    "tally": counts,
                }
            log.write(json.dumps(record) + "\n")
            log.flush()
            result.extend(Pair.from_json(p) for p in record["pairs"])  # type: ignore[attr-defined]
            tally.add(record["tally"])  # type: ignore[arg-type]
    write_pairs(out, [*pairs, *result])
    kinds = ", ".join(
        f"{k} {tally.kept[k]}/{tally.made[k]}" for k in REWRITES if tally.made[k]
    )
    dropped = ", ".join(f"{k} {v}" for k, v in sorted(tally.dropped.items()))
    say(
        f"augment: {len(train)} train pairs -> {len(train) + len(result)} "
        f"(x{(len(train) + len(result)) / max(1, len(train)):.2f}); kept/made: "
        f"{kinds or 'none'}; dropped: {dropped or 'none'}; "
        f"{tally.skipped} originals fail validation and were not augmented -> {out}"
    )
    return 0
