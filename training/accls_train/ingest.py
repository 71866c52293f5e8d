"""`accls-train ingest PAIRS.jsonl`: (pragma, loop) records into the dataset."""

from __future__ import annotations

import argparse
from collections import Counter

from accls_train.console import fail, say
from accls_train.dataset import DatasetError, ingest_pairs, split_by_repo, write_pairs

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train ingest",
        description=(
            "Turn a JSONL of (pragma, loop) pairs in the dev-pairs format into dataset "
            "records, split by repository. Units are guessed around each loop: prefer "
            "`accls-train mine` on the sources when you have them."
        ),
    )
    parser.add_argument("pairs", help="JSONL with id, repo, path, model, pragma, loop")
    parser.add_argument("--out", required=True, help="dataset JSONL to write")
    parser.add_argument(
        "--test-repos",
        default="",
        help="comma-separated repositories held out for testing (default: by hash)",
    )
    parser.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: list[str]) -> int:
    """Ingest, split by repository and write; one summary line."""
    args = _parser().parse_args(argv)
    try:
        pairs = ingest_pairs(args.pairs)
        held = tuple(r for r in args.test_repos.split(",") if r)
        split = split_by_repo(pairs, test_repos=held, seed=args.seed)
        write_pairs(args.out, split)
    except DatasetError as exc:
        return fail(str(exc))
    counts = Counter(p.split for p in split)
    say(
        f"ingest: {len(split)} pairs from {args.pairs} "
        f"(train {counts['train']}, valid {counts['valid']}, test {counts['test']})"
    )
    return 0
