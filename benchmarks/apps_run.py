"""Build an application and compare what its runs print about their results."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from apps_catalog import THREADS, App, Run

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def write_tree(app: App, dest: Path, texts: dict[str, str], data: Path) -> Path:
    """Copy the application's repository under `dest` with its C files replaced.

    `texts` maps names relative to the application folder to new contents; the
    files a Makefile would generate are added. Returns the application folder.
    """
    repo = app.folder.split("/")[0]
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(data / repo, dest / repo)
    folder = dest / app.folder
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    for name, text in app.generated:
        (folder / name).write_text(text, encoding="utf-8")
    # accls's compile check reads -D/-I from the nearest compile_commands.json;
    # it runs gcc, so a wrapper's own include folders (mpicc's) are spelt out.
    flags = [app.cc, *app.cflags, *wrapper_includes(app.cc)]
    entries = [
        {"directory": str(folder), "file": name, "arguments": [*flags, "-c", name]}
        for name in sorted(texts)
    ]
    (folder / "compile_commands.json").write_text(json.dumps(entries), "utf-8")
    return folder


def wrapper_includes(cc: str) -> list[str]:
    """The -I flags a compiler wrapper adds (`mpicc -show`); none for gcc."""
    if cc == "gcc" or shutil.which(cc) is None:
        return []
    try:
        proc = subprocess.run([cc, "-show"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [arg for arg in proc.stdout.split() if arg.startswith("-I")]


def annotate(accls: Path, folder: Path, name: str, timeout: float) -> str:
    """`accls annotate --model openmp --in-place` one file; the error or ""."""
    cmd = [str(accls), "annotate", "--all", "--model", "openmp", "--target", "cpu"]
    cmd += ["-I", str(folder), "--in-place", name]
    try:
        proc = subprocess.run(
            cmd, cwd=folder, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return f"annotate {name}: timeout after {timeout:.0f} s"
    if proc.returncode != 0:
        return f"annotate {name}: {proc.stderr.strip()[-200:]}"
    return ""


def build(app: App, folder: Path, timeout: float) -> str:
    """Compile every C file of the folder into `prog`; the first error or ""."""
    sources = app.source_names(folder)
    sources += [name for name, _ in app.generated if name.endswith(".c")]
    cmd = [app.cc, *app.cflags, "-w", *sources, "-o", "prog", *app.ldflags]
    try:
        proc = subprocess.run(
            cmd, cwd=folder, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return f"build timeout after {timeout:.0f} s"
    except OSError as exc:
        return f"build: {exc}"
    if proc.returncode == 0:
        return ""
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln]
    return (errors[0] if errors else proc.stderr.strip()[-200:]).replace(
        str(folder) + "/", ""
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Output:
    """A run's exit status and the numbers of its verification lines."""

    status: str  # "exit N" (negative: killed by signal N) or "timeout"
    values: tuple[tuple[float, ...], ...]
    words: tuple[str, ...]  # the same lines with their numbers blanked
    text: str  # the verification lines, for the report


def run(program: Path, spec: Run, threads: int, timeout: float) -> Output:
    """Run the program in an empty folder with `threads` OpenMP threads."""
    args = [a.replace(THREADS, str(threads)) for a in spec.args]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    with tempfile.TemporaryDirectory(prefix="accls-run-") as cwd:
        try:
            proc = subprocess.run(
                [str(program), *args],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return Output(status="timeout", values=(), words=(), text="")
    lines = [ln for ln in proc.stdout.splitlines() if re.search(spec.verify, ln)]
    values = tuple(
        tuple(
            float(x)
            for i, x in enumerate(_NUMBER.findall(ln))
            if i not in spec.ignore_columns
        )
        for ln in lines
    )
    status = f"exit {proc.returncode}"
    words = tuple(" ".join(_NUMBER.sub("#", ln).split()) for ln in lines)
    return Output(status=status, values=values, words=words, text="\n".join(lines))


def same(a: Output, b: Output, tolerance: float) -> bool:
    """Same exit status and every number equal within a relative tolerance."""
    if a.status != b.status or a.words != b.words:
        return False
    for row_a, row_b in zip(a.values, b.values, strict=True):
        if len(row_a) != len(row_b):
            return False
        for x, y in zip(row_a, row_b, strict=True):
            if not math.isclose(x, y, rel_tol=tolerance, abs_tol=tolerance):
                return False
    return True


def compare(
    reference: Output,
    program: Path,
    spec: Run,
    threads: int,
    timeout: float,
    tolerance: float,
) -> tuple[str, Output]:
    """match | MISMATCH | timeout, against the serial run."""
    got = run(program, spec, threads, timeout)
    if got.status == "timeout":
        return "timeout", got
    if got.status != reference.status:
        return f"MISMATCH ({got.status})", got
    return ("match" if same(reference, got, tolerance) else "MISMATCH"), got
