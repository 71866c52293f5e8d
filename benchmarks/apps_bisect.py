"""Which of accls's pragmas breaks an application's run: one file, then one loop."""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path

from apps_catalog import App, Run
from apps_run import Output, build, compare, write_tree


def inserted_blocks(before: str, after: str) -> list[tuple[int, list[str]]]:
    """(line in `before`, lines) of each block `accls annotate` inserted."""
    a, b = before.split("\n"), after.split("\n")
    blocks = []
    for tag, i1, _i2, j1, j2 in difflib.SequenceMatcher(
        a=a, b=b, autojunk=False
    ).get_opcodes():
        if tag == "insert":
            blocks.append((i1, b[j1:j2]))
    return blocks


def apply_blocks(before: str, blocks: list[tuple[int, list[str]]]) -> str:
    """`before` with the given inserted blocks put back."""
    lines = before.split("\n")
    for at, new in sorted(blocks, key=lambda x: -x[0]):
        lines[at:at] = new
    return "\n".join(lines)


def first_mismatch(
    args: argparse.Namespace,
    folder: Path,
    spec: Run,
    reference: Output,
    threads: list[int],
) -> str:
    """Build the folder; "" when every thread count matches the reference."""
    error = build_app(args, folder)
    if error:
        return f"build failed: {error}"
    for n in threads:
        verdict, _ = compare(
            reference, folder / "prog", spec, n, args.timeout, args.tolerance
        )
        if verdict != "match":
            return f"{verdict} at {n} threads"
    return ""


def build_app(args: argparse.Namespace, folder: Path) -> str:
    """Build with the current application's flags (set in `args.app`)."""
    return build(args.app, folder, args.timeout)


def bisect(
    args: argparse.Namespace,
    app: App,
    data: Path,
    work: Path,
    texts: dict[str, str],
    annotated: dict[str, str],
    spec: Run,
    reference: Output,
    threads: list[int],
) -> list[str]:
    """Apply our pragmas one file, then one loop, at a time; who breaks the run."""
    found: list[str] = []
    for name in sorted(annotated):
        if annotated[name] == texts[name]:
            continue
        folder = write_tree(
            app, work / "bisect", {**texts, name: annotated[name]}, data
        )
        if not first_mismatch(args, folder, spec, reference, threads):
            continue
        for at, block in inserted_blocks(texts[name], annotated[name]):
            one = apply_blocks(texts[name], [(at, block)])
            folder = write_tree(app, work / "bisect", {**texts, name: one}, data)
            verdict = first_mismatch(args, folder, spec, reference, threads)
            if verdict:
                pragma = " / ".join(line.strip() for line in block)
                found.append(f"{name}:{at + 1}: {pragma}: {verdict}")
    return found
