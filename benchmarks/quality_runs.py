"""Subprocess runs of the quality benchmark: `accls suggest`, `accls annotate`, gcc."""

from __future__ import annotations

import argparse
import json
import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

DEFAULT_TARGET = {"openacc": "gpu", "openmp": "cpu"}
# (model, -I folders, files): one `accls suggest` process.
Batch = tuple[str, tuple[Path, ...], list[Path]]
T = TypeVar("T")
R = TypeVar("R")


def target_for(args: argparse.Namespace, model: str) -> str:
    """The --target passed for `model`."""
    return DEFAULT_TARGET[model] if args.target == "auto" else str(args.target)


def include_dirs(path: Path, root: Path) -> list[Path]:
    """The file's folder, the repository root, then nearby folders holding headers.

    Repositories set include paths in their build files, which we do not run; the
    folders with headers below the file's grandparent (when that is not the root),
    plus `include/` at the root, cover the usual layouts (`../common/x.h`).
    """
    dirs = [path.parent, root]
    near = path.parent.parent
    found = {root / "include"}
    if near != root and root in near.parents:
        found |= {h.parent for h in near.rglob("*.h")}
    return dirs + [d for d in sorted(found) if d not in dirs and d.is_dir()]


def compile_ok(args: argparse.Namespace, path: Path, model: str, root: Path) -> str:
    """Empty string when `gcc -fsyntax-only` accepts the file, else the first error."""
    flag = "-fopenacc" if model == "openacc" else "-fopenmp"
    cmd = [args.cc, "-fsyntax-only", flag, "-w", *args.cc_arg]
    # Nearby folders go after the system ones: some hold their own `unistd.h`.
    for i, folder in enumerate(include_dirs(path, root)):
        cmd += ["-I" if i < 2 else "-idirafter", str(folder)]
    try:
        proc = subprocess.run(
            [*cmd, str(path)], capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        return "compiler timeout"
    if proc.returncode == 0:
        return ""
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln]
    return (errors[0] if errors else proc.stderr.strip()[-300:]).replace(
        str(args.tmp) + "/", ""
    )


@dataclass(frozen=True, slots=True)
class CompileJob:
    """One stripped file to annotate for one model and compile."""

    label: str  # repo:path, for the report
    path: Path  # the stripped file
    root: Path  # its repository root
    model: str


def compile_check(args: argparse.Namespace, job: CompileJob) -> dict[str, Any]:
    """Compile the stripped file, annotate it with our pragmas, compile again."""
    result: dict[str, Any] = {
        "file": job.label,
        "model": job.model,
        "baseline_error": compile_ok(args, job.path, job.model, job.root),
    }
    out = job.path.with_name(f"{job.path.stem}.{job.model}{job.path.suffix}")
    cmd = [str(args.accls), "annotate", "--all", "--model", job.model, "--target"]
    cmd += [target_for(args, job.model), str(job.path), "-o", str(out)]
    if args.includes:
        for folder in include_dirs(job.path, job.root):
            cmd += ["-I", str(folder)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        failed = proc.returncode != 0 or not out.exists()
        result["annotate_error"] = proc.stderr.strip()[-300:] if failed else ""
    except subprocess.TimeoutExpired:
        result["annotate_error"] = f"timeout after {args.timeout} s"
    if result["annotate_error"]:
        return result
    before = job.path.read_text(encoding="utf-8", errors="replace")
    after = out.read_text(encoding="utf-8", errors="replace")
    result["inserted"] = after.count("#pragma") - before.count("#pragma")
    result["annotated_error"] = compile_ok(args, out, job.model, job.root)
    return result


def parallel_map(jobs: int, func: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """`map` over a thread pool; each item runs its own subprocesses."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(func, items))


def suggest(
    args: argparse.Namespace, batch: Batch
) -> dict[Path, list[dict[str, Any]] | str]:
    """Run `accls suggest` on a batch; bisect the batch when the run fails."""
    model, includes, paths = batch
    cmd = [str(args.accls), "suggest", "--format", "json", "--model", model]
    cmd += ["--target", target_for(args, model)]
    for folder in includes:
        cmd += ["-I", str(folder)]
    cmd += map(str, paths)
    error: str
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=args.timeout * len(paths)
        )
        objects = json.loads(proc.stdout)
        if not isinstance(objects, list):
            raise ValueError("output is not a JSON array")
        collected: dict[Path, list[dict[str, Any]]] = {p: [] for p in paths}
        for obj in objects:
            where = Path(str(obj.get("file", "")))
            where = (where if where.is_absolute() else args.tmp / where).resolve()
            if where in collected:
                collected[where].append(obj)
            elif len(paths) == 1:  # the CLI may print a display name instead
                collected[paths[0]].append(obj)
        # A non-zero exit with JSON means some file failed: bisect to find which.
        if proc.returncode == 0 or (len(paths) == 1 and objects):
            return dict(collected)
        raise ValueError("non-zero exit")
    except OSError as exc:
        error = str(exc)
    except subprocess.TimeoutExpired:
        error = f"timeout after {args.timeout * len(paths)} s"
    except (ValueError, AttributeError) as exc:
        error = f"rc={proc.returncode}: {exc}; stderr: {proc.stderr.strip()[-400:]}"
    if len(paths) == 1:
        return {paths[0]: error}
    half = len(paths) // 2
    return {
        **suggest(args, (model, includes, paths[:half])),
        **suggest(args, (model, includes, paths[half:])),
    }
