"""Fortran source form: Fortran names, fixed form read as free, the preprocessor."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = [
    "FIXED_SUFFIXES",
    "FORTRAN_GLOB",
    "FREE_SUFFIXES",
    "FormText",
    "is_fortran",
    "normalized",
]

FREE_SUFFIXES = frozenset({".f90", ".f95", ".f03", ".f08", ".F90", ".F95", ".F03"})
FIXED_SUFFIXES = frozenset({".f", ".for", ".f77", ".F", ".FOR", ".F77", ".ftn"})
# The Fortran file names as one LSP glob (a client watches them for us).
FORTRAN_GLOB = (
    "**/*.{"
    + ",".join(sorted(x[1:] for x in FREE_SUFFIXES | FIXED_SUFFIXES | {".F08"}))
    + "}"
)
_PREPROCESSED = frozenset({".F90", ".F95", ".F03", ".F08", ".F", ".FOR", ".fpp"})
_FIXED_COMMENT = frozenset("cC*!dD")
_DIRECTIVE = re.compile(r"[cC*!]\$(acc|omp)", re.IGNORECASE)
_LINE_MARKER = re.compile(r'^# (\d+) "([^"]*)"')
_MISSING = re.compile(r"(?:fatal error|Error): ?([^:\n]*): No such file or directory")
_INCLUDE = re.compile(r"^\s*#\s*include\s*[\"<]([^\">]+)[\">]", re.MULTILINE)
_FREE_LIMIT = 132
_FIXED_LIMIT = 72


def is_fortran(path: str | None) -> bool:
    """Whether the file name says Fortran (free or fixed form)."""
    if not path:
        return False
    suffix = os.path.splitext(path)[1]
    return suffix in FREE_SUFFIXES or suffix in FIXED_SUFFIXES or suffix == ".F08"


def fixed_form(path: str | None) -> bool:
    """Whether the file name says fixed form (`.f`, `.F`, `.for`, `.f77`)."""
    return bool(path) and os.path.splitext(path or "")[1] in FIXED_SUFFIXES


@dataclass(frozen=True, slots=True)
class FormText:
    """Free-form text, each line as long as the original's, and what was found."""

    text: str
    notes: tuple[str, ...]  # problems worth a warning: tabs, long lines, mixed form
    missing: tuple[str, ...]  # includes the preprocessor did not find
    problem: str | None  # why the preprocessor's view is missing


def _fixed_line(line: str) -> tuple[str, str | None]:
    """One fixed-form line as free form, same length; and a note if it is odd."""
    if not line:
        return line, None
    if line[0] in _FIXED_COMMENT:
        if _DIRECTIVE.match(line):
            return "!" + line[1:], None
        return "!" + line[1:], None
    note = None
    if "\t" in line[:6]:
        note = "a tab in columns 1-6 (a compiler extension)"
        lead = line[: line.index("\t")]
        rest = line[line.index("\t") + 1 :]
        if lead.strip() == "" and rest[:1].isdigit() and rest[:1] != "0":
            # DEC rule: a tab then a nonzero digit continues the line.
            return lead + "&" + rest[1:], note
        return line, note
    body = line[:_FIXED_LIMIT]
    tail = line[_FIXED_LIMIT:]
    if tail.strip():
        note = f"text beyond column {_FIXED_LIMIT} (ignored, as the compiler does)"
        tail = " " * len(tail)
    if len(body) > 5 and body[5] not in " 0" and not body[:5].strip():
        body = body[:5] + "&" + body[6:]
    return body + tail, note


def _fixed_text(text: str) -> tuple[str, list[str]]:
    notes: list[str] = []
    out: list[str] = []
    for row, line in enumerate(text.split("\n")):
        end = "\r" if line.endswith("\r") else ""
        fixed, note = _fixed_line(line.removesuffix("\r"))
        out.append(fixed + end)
        if note is not None and len(notes) < 5:
            notes.append(f"line {row + 1}: {note}")
    return "\n".join(out), notes


def _free_notes(text: str) -> list[str]:
    notes: list[str] = []
    looks_fixed = 0
    for row, line in enumerate(text.split("\n")):
        too_long = len(line.encode("utf-8")) > _FREE_LIMIT
        if too_long and not line.lstrip().startswith("!") and len(notes) < 5:
            notes.append(
                f"line {row + 1}: longer than {_FREE_LIMIT} characters "
                "(gfortran needs -ffree-line-length-none)"
            )
        if line[:1] in ("c", "C", "*") and line[1:2] in (" ", "") and row < 400:
            looks_fixed += 1
    if looks_fixed >= 3:
        notes.append(
            "fixed-form comment lines (`c` in column 1) in a free-form file: "
            "mixed source form; those lines do not parse"
        )
    return notes


def _active_rows(
    text: str, path: str, include_dirs: tuple[str, ...]
) -> tuple[set[int] | None, tuple[str, ...], str | None]:
    """1-based rows the preprocessor keeps, the includes it misses, and any problem."""
    cpp = shutil.which("gfortran") or shutil.which("cpp")
    if cpp is None:
        return None, (), "no preprocessor (gfortran) found"
    folder = str(Path(path).resolve().parent)
    flags = [f"-I{d}" for d in (folder, *include_dirs)]
    with tempfile.TemporaryDirectory(prefix="accls-fpp-") as tmp:
        unit = Path(tmp) / ("unit" + (os.path.splitext(path)[1] or ".F90"))
        unit.write_text(text, encoding="utf-8", errors="surrogateescape")
        command = (
            [cpp, "-E", "-cpp", *flags, str(unit)]
            if "gfortran" in Path(cpp).name
            else [cpp, "-traditional-cpp", *flags, str(unit)]
        )
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=10,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, (), f"the preprocessor failed: {exc}"
        missing = tuple(sorted(set(_MISSING.findall(done.stderr))))
        if done.returncode != 0:
            named = missing or tuple(_INCLUDE.findall(text))
            lines = done.stderr.strip().splitlines() or ["no message"]
            first = next((ln for ln in lines if "rror" in ln), lines[-1])
            return None, named, "the preprocessor failed: " + first.strip()[:200]
        rows: set[int] = set()
        row = 0
        mine = False
        for line in done.stdout.split("\n"):
            marker = _LINE_MARKER.match(line)
            if marker is not None:
                row = int(marker.group(1))
                mine = marker.group(2) == str(unit)
                continue
            if mine:
                rows.add(row)
            row += 1
        return rows, missing, None


def _blank_inactive(text: str, rows: set[int] | None) -> str:
    """Directive lines, and lines the preprocessor drops, as spaces (same length)."""
    out: list[str] = []
    for row, line in enumerate(text.split("\n"), start=1):
        directive = line.lstrip().startswith("#")
        if directive or (rows is not None and row not in rows and line.strip()):
            out.append("".join(c if c == "\r" else " " for c in line))
        else:
            out.append(line)
    return "\n".join(out)


_FORTRAN_INCLUDE = re.compile(
    r"""^\s*include\s*['"]([^'"]+)['"]""", re.IGNORECASE | re.MULTILINE
)


def _missing_includes(text: str, path: str | None, dirs: tuple[str, ...]) -> list[str]:
    """`include 'file'` lines whose file is not beside the source nor in a -I folder."""
    folders = [Path(path).resolve().parent if path else Path.cwd(), *map(Path, dirs)]
    names: list[str] = _FORTRAN_INCLUDE.findall(text)
    return [n for n in names if not any((d / n).is_file() for d in folders)]


@lru_cache(maxsize=8)
def normalized(
    text: str, path: str | None, include_dirs: tuple[str, ...] = ()
) -> FormText:
    """The text as free form, line lengths kept, with the preprocessor's branches."""
    notes: list[str] = []
    if fixed_form(path):
        text, notes = _fixed_text(text)
    else:
        notes = _free_notes(text)
    missing: tuple[str, ...] = ()
    problem: str | None = None
    suffix = os.path.splitext(path or "")[1]
    if "#" in text and re.search(r"^\s*#\s*\w", text, re.MULTILINE):
        rows: set[int] | None = None
        if suffix in _PREPROCESSED and path:
            rows, missing, problem = _active_rows(text, path, include_dirs)
        elif suffix not in _PREPROCESSED:
            notes.append(
                "preprocessor lines in a file the compiler does not preprocess "
                "(use a .F90/.F name)"
            )
        text = _blank_inactive(text, rows)
    missing = tuple(
        dict.fromkeys((*missing, *_missing_includes(text, path, include_dirs)))
    )
    return FormText(text, tuple(notes), missing, problem)
