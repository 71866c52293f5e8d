"""Run the user's preprocessor on a buffer's skeleton, its directive lines alone.

Missing headers get empty stand-ins; the run is bounded in time, memory and output.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from accls.frontend.cpp_files import is_cpp

__all__ = ["ACTIVE_LINE", "Preprocessor", "preprocess", "skeleton"]

_MISSING = re.compile(r"fatal error: (.+?): No such file or directory")
_DIRECTIVE = re.compile(r"^\s*#")
_MAX_STUBS = 32
_MAX_OUTPUT = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Preprocessor:
    """How to run the user's preprocessor."""

    cc: str = "gcc"
    flags: tuple[str, ...] = ()  # -I/-D/-U/-std/-include, as the build passes them
    timeout_s: float = 10.0
    memory_mb: int = 2048


ACTIVE_LINE = "__accls_active_line__"
"""What a code line of the skeleton becomes; the lines that come out are compiled."""


# A string or character literal (kept: it may hold `/*`), a block comment, a line
# comment. A literal ends at its quote or its line; a backslash escapes any one
# character, a line break included.
_COMMENT_OR_LITERAL = re.compile(
    r'"(?:\\[\s\S]?|[^"\\\n])*["\n]?'
    r"|'(?:\\[\s\S]?|[^'\\\n])*['\n]?"
    r"|/\*[\s\S]*?(?:\*/|\Z)"
    r"|//[^\n]*"
)
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blanked(match: re.Match[str]) -> str:
    found = match.group()
    if found[0] != "/":
        return found
    return _NOT_NEWLINE.sub(" ", found)


def _blank_comments(text: str) -> str:
    """`text` with comments turned to spaces, newlines and string literals kept."""
    return _COMMENT_OR_LITERAL.sub(_blanked, text)


def skeleton(text: str) -> str:
    """The buffer's preprocessor directives; every code line becomes a marker.

    Line numbers are kept, so the preprocessor's messages name the user's lines,
    and the markers that survive tell which lines the build compiles.
    """
    out: list[str] = []
    continued = False
    for line in _blank_comments(text).splitlines():
        keep = continued or bool(_DIRECTIVE.match(line))
        keep = keep and not re.match(r"^\s*#\s*pragma\b", line)
        out.append(line if keep else (ACTIVE_LINE if line.strip() else ""))
        continued = keep and line.rstrip().endswith("\\")
    return "\n".join(out) + "\n"


def _run(
    pre: Preprocessor, unit: str, folder: str, stubs: str
) -> subprocess.CompletedProcess[str]:
    # The skeleton is a file, not standard input: compiler wrappers (ccache,
    # scripts) may read their input themselves.
    command = [
        pre.cc,
        "-E",
        "-dD",
        f"-iquote{folder}",
        *pre.flags,
        f"-idirafter{stubs}",
        "-x",
        "c++" if is_cpp(unit) else "c",
        unit,
    ]
    # The address-space bound is set on the child once it runs: preexec_fn is
    # unsafe in the threaded language server.
    with subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="surrogateescape",
        cwd=folder,
        start_new_session=True,  # its own group, killed whole on a time-out
    ) as proc:
        size = pre.memory_mb * 1024 * 1024
        with contextlib.suppress(OSError, ValueError):
            resource.prlimit(proc.pid, resource.RLIMIT_AS, (size, size))
        try:
            out, err = proc.communicate(timeout=pre.timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def _stub(stubs: str, name: str) -> bool:
    """An empty stand-in for a missing header; False if `name` is not a safe path."""
    target = Path(stubs, name).resolve()
    if Path(stubs).resolve() not in target.parents or target.exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("", encoding="utf-8")
    return True


def preprocess(
    text: str, path: str | None, pre: Preprocessor
) -> tuple[str, str, tuple[str, ...]] | str:
    """The preprocessed skeleton, its file name there, and the missing headers.

    A string says why it failed.
    """
    folder = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
    if not os.path.isdir(folder):
        folder = os.getcwd()
    if shutil.which(pre.cc) is None:
        return f"the preprocessor `{pre.cc}` was not found"
    missing: list[str] = []
    with (
        tempfile.TemporaryDirectory(prefix="accls-stubs-") as stubs,
        tempfile.TemporaryDirectory(prefix="accls-unit-") as place,
    ):
        unit = os.path.join(place, os.path.basename(path or "buffer.c"))
        with open(unit, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(skeleton(text))
        for _ in range(_MAX_STUBS):
            try:
                proc = _run(pre, unit, folder, stubs)
            except subprocess.TimeoutExpired:
                return f"the preprocessor timed out after {pre.timeout_s:g} s"
            except OSError as exc:
                return f"the preprocessor `{pre.cc}` could not run ({exc.strerror})"
            if proc.returncode == 0:
                if len(proc.stdout) > _MAX_OUTPUT:
                    return "the preprocessed headers are too large to analyse"
                return proc.stdout, unit, tuple(missing)
            if "nested depth" in proc.stderr:
                return "a recursive #include: a header includes itself, directly or not"
            found = _MISSING.search(proc.stderr)
            if found is None or not _stub(stubs, found.group(1)):
                first = next(
                    (ln for ln in proc.stderr.splitlines() if "error" in ln),
                    proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "",
                )
                return f"the preprocessor failed: {first.strip()[:200]}"
            missing.append(found.group(1))
    return "too many missing headers"
