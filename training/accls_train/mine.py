"""`accls-train mine DIR...`: pragma-loop pairs from folders of C sources.

Each pair keeps the minimal compilable unit (the enclosing function without the
pragma, plus the declarations it needs), the enclosing data region and the
repository. Pairs are deduplicated exactly and near-exactly, then split by
repository. Every processed file leaves a checkpoint under `OUT.state/`, so an
interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from accls.frontend import Directive, Loop, SourceFile, parse_source
from accls.frontend.fortran_directives import canonical_text

from accls_train.console import fail, progress, say
from accls_train.dataset import (
    DatasetError,
    Pair,
    near_key,
    normalise_pragma,
    split_by_repo,
    write_pairs,
)
from accls_train.units import UnitBuilder

_FORTRAN_SUFFIXES = (".f90", ".F90", ".f", ".F", ".f95", ".f03", ".f08")
_FORTRAN_SENTINEL = re.compile(r"^\s*[!cC*]\$(acc|omp)", re.IGNORECASE)

__all__ = ["Origin", "dedupe", "loop_source", "main", "mine_file", "source_files"]

_SENTINELS = {"acc": "openacc", "omp": "openmp"}
_STATE_VERSION = "1"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a source file lives: its repository's name and root."""

    file: Path
    repo: str
    root: Path


def _repo_of(file: Path, base: Path) -> Origin:
    """The nearest `.git` root under `base`, else the first folder under `base`."""
    for folder in file.parents:
        if folder == base.parent or not folder.is_relative_to(base):
            break
        if (folder / ".git").exists():
            return Origin(file, folder.name.replace("+", "/"), folder)
    parts = file.relative_to(base).parts
    root = base / parts[0] if len(parts) > 1 else base
    return Origin(file, root.name.replace("+", "/"), root)


def source_files(dirs: Sequence[Path]) -> list[Origin]:
    """Every .c, .h and Fortran file under `dirs`, sorted, with its repository."""
    found: list[Origin] = []
    for base in dirs:
        resolved = base.resolve()
        for file in sorted(resolved.rglob("*")):
            if file.suffix in (".c", ".h", *_FORTRAN_SUFFIXES) and file.is_file():
                found.append(_repo_of(file, resolved))
    return found


def _chars(data: bytes, offset: int) -> int:
    return len(data[:offset].decode("utf-8", errors="surrogateescape"))


def loop_source(source: SourceFile, loop: Loop) -> str:
    """The text of a loop statement, dedented as if it started its line."""
    data, text = source.data, source.text
    start = _chars(data, loop.span.start_byte)
    line_start = text.rfind("\n", 0, start) + 1
    indent = " " * (start - line_start)
    body = text[start : _chars(data, loop.span.end_byte)]
    return textwrap.dedent(indent + body).strip("\n")


def _loop_directive(loop: Loop) -> Directive | None:
    """The innermost acc/omp pragma attached to the loop."""
    found = [d for d in loop.pragmas if d.dialect in _SENTINELS and d.span]
    return found[-1] if found else None


def _target(loop: Loop, directive: Directive) -> str:
    if directive.dialect == "acc" or "target" in directive.name.split():
        return "gpu"
    for region in loop.regions:
        name = region.directive.name
        omp = region.directive.dialect == "omp"
        if omp and name.startswith("target") and name != "target data":
            return "gpu"
    return "cpu"


def _region(loop: Loop, dialect: str) -> str | None:
    for region in reversed(loop.regions):
        directive = region.directive
        if directive.dialect == dialect and directive.name in ("data", "target data"):
            return normalise_pragma(directive.text)
    return None


def _pair(
    origin: Origin, source: SourceFile, loop: Loop, builder: UnitBuilder
) -> Pair | None:
    directive = _loop_directive(loop)
    function = source.function(loop.function)
    if directive is None or directive.span is None or function is None:
        return None
    data, text = source.data, source.text
    fn_start = _chars(data, function.span.start_byte)
    fn_end = _chars(data, function.span.end_byte)
    lines = text[fn_start:fn_end].split("\n")
    first = function.span.start[0]
    # The pragma's rows, continuation lines included, relative to the function.
    top = directive.span.start[0] - first
    end = directive.span.end
    bottom = (end[0] if end[1] > 0 else end[0] - 1) - first
    if not 0 <= top <= bottom < len(lines):
        return None
    body = "\n".join(lines[:top] + lines[bottom + 1 :])
    loop_row = loop.span.start[0] - first - (bottom - top + 1)
    if source.language == "fortran":
        # The unit is the file itself without the pair's directive: modules and
        # contained procedures do not split into C-style items.
        rows = text.split("\n")
        start, stop = directive.span.start[0], directive.span.start[0] + bottom - top
        mcu = "\n".join(rows[:start] + rows[stop + 1 :])
        fn_line = first + 1
    else:
        mcu, fn_line = builder.build(text, origin.file.parent, (fn_start, fn_end), body)
    loop_text = loop_source(source, loop)
    model = _SENTINELS[directive.dialect]
    path = origin.file.relative_to(origin.root).as_posix()
    return Pair(
        id=f"{origin.repo}:{path}:{directive.span.line}",
        repo=origin.repo,
        path=path,
        line=fn_line + loop_row,
        model=model,
        target=_target(loop, directive),
        pragma=normalise_pragma(_c_spelling(directive.text)),
        loop=loop_text,
        mcu=mcu,
        region=_region(loop, directive.dialect),
        origin="mined",
    )


def _c_spelling(text: str) -> str:
    """A Fortran directive (`!$omp parallel do`) in the pragma grammar models use."""
    match = _FORTRAN_SENTINEL.match(text)
    if match is None:
        return text
    return canonical_text(match.group(1), text[match.end() :].replace("&", " "))


def mine_file(origin: Origin, builder: UnitBuilder) -> tuple[int, list[Pair]]:
    """The number of loops in one file and its pairs."""
    try:
        text = origin.file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0, []
    sentinel = "!$" if origin.file.suffix in _FORTRAN_SUFFIXES else "#"
    if sentinel not in text or (
        "acc" not in text.lower() and "omp" not in text.lower()
    ):
        return 0, []
    source = parse_source(
        text, str(origin.file), (str(origin.file.parent), str(origin.root))
    )
    loops = source.loops()
    pairs = [p for loop in loops if (p := _pair(origin, source, loop, builder))]
    return len(loops), pairs


def dedupe(pairs: Sequence[Pair]) -> tuple[list[Pair], int, int]:
    """Pairs without exact and near-exact repeats: kept, exact and near dropped."""
    exact: set[tuple[str, str]] = set()
    near: set[str] = set()
    kept: list[Pair] = []
    exact_dropped = near_dropped = 0
    for pair in pairs:
        key = (pair.pragma, " ".join(pair.loop.split()))
        if key in exact:
            exact_dropped += 1
            continue
        exact.add(key)
        fuzzy = near_key(pair.pragma, pair.loop)
        if fuzzy in near:
            near_dropped += 1
            continue
        near.add(fuzzy)
        kept.append(pair)
    return kept, exact_dropped, near_dropped


def _state_file(state: Path, origin: Origin) -> Path:
    stat = origin.file.stat()
    digest = hashlib.sha256(
        f"{_STATE_VERSION}\0{origin.file}\0{origin.repo}\0"
        f"{stat.st_mtime_ns}\0{stat.st_size}".encode()
    ).hexdigest()
    return state / f"{digest[:32]}.json"


def _mine_all(origins: list[Origin], state: Path) -> tuple[int, list[Pair]]:
    state.mkdir(parents=True, exist_ok=True)
    builders: dict[Path, UnitBuilder] = {}
    loops = 0
    pairs: list[Pair] = []
    for origin in progress(origins, total=len(origins), desc="mine"):
        checkpoint = _state_file(state, origin)
        try:
            saved = json.loads(checkpoint.read_text(encoding="utf-8"))
            count = int(saved["loops"])
            found = [Pair.from_json(p) for p in saved["pairs"]]
        except (OSError, ValueError, KeyError, TypeError, DatasetError):
            builder = builders.setdefault(origin.root, UnitBuilder(origin.root))
            count, found = mine_file(origin, builder)
            record = {"loops": count, "pairs": [p.to_json() for p in found]}
            tmp = checkpoint.with_suffix(".tmp")
            tmp.write_text(json.dumps(record), encoding="utf-8")
            tmp.replace(checkpoint)
        loops += count
        pairs.extend(found)
    return loops, pairs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train mine", description=__doc__.split("\n")[0]
    )
    parser.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    parser.add_argument(
        "--out", type=Path, default=Path("training/runs/data/mined.jsonl")
    )
    parser.add_argument(
        "--test-repos",
        default="",
        help="comma-separated repositories (owner/name) for the test split",
    )
    parser.add_argument("--test-frac", type=float, default=0.2)
    parser.add_argument("--valid-frac", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--fresh", action="store_true", help="ignore checkpoints of an earlier run"
    )
    return parser


def main(argv: Sequence[str]) -> int:
    """Mine pairs from DIRs into --out; print the counts."""
    args = _parser().parse_args(list(argv))
    missing = [str(d) for d in args.dirs if not d.is_dir()]
    if missing:
        return fail(f"mine: not a directory: {', '.join(missing)}")
    out: Path = args.out
    state = out.with_name(out.name + ".state")
    if args.fresh and state.is_dir():
        for stale in state.glob("*.json"):
            stale.unlink()
    origins = source_files(args.dirs)
    loops, found = _mine_all(origins, state)
    kept, exact, near = dedupe(found)
    repos = [r.strip() for r in args.test_repos.split(",") if r.strip()]
    try:
        split = split_by_repo(
            kept,
            test_repos=repos,
            test_frac=args.test_frac,
            valid_frac=args.valid_frac,
            seed=args.seed,
        )
    except DatasetError as exc:
        return fail(f"mine: {exc}")
    write_pairs(out, split)
    per_split = Counter(p.split for p in split)
    test_repos = sorted({p.repo for p in split if p.split == "test"})
    say(
        f"mine: {len(origins)} files, {loops} loops, {len(found)} pairs, "
        f"dropped {exact} exact + {near} near duplicates, kept {len(split)} "
        f"(train {per_split['train']}, valid {per_split['valid']}, "
        f"test {per_split['test']}) -> {out}"
    )
    say(f"mine: test repositories: {', '.join(test_repos) or '(none)'}")
    return 0
