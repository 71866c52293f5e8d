"""Compare what two runs produced: stdout and files, numbers within a tolerance."""

from __future__ import annotations

import hashlib
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RunOutput", "compare_outputs", "compare_text", "decode", "snapshot"]

_HASH_ABOVE_BYTES = 16 << 20  # larger output files are compared by digest
# A number as printf writes it; the group makes re.split alternate text, number.
_NUMBER = re.compile(
    r"([-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan))",
    re.IGNORECASE,
)


def _is_integer(token: str) -> bool:
    return token.lstrip("+-").isdigit()


def compare_text(expected: str, actual: str, tolerance: float) -> str | None:
    """The first difference between two outputs, or None when they agree.

    Text and integers must match exactly; other numbers within `tolerance`
    (relative), or a thousandth of it near zero.
    """
    want, got = _NUMBER.split(expected), _NUMBER.split(actual)
    line = 1
    for index, (w, g) in enumerate(zip(want, got, strict=False)):
        if w != g:
            if index % 2 == 0:
                return f"line {line}: text differs: {w[:40]!r} vs {g[:40]!r}"
            if _is_integer(w) or _is_integer(g):
                return f"line {line}: integer differs: {w} vs {g}"
            x, y = float(w), float(g)
            if not (math.isnan(x) and math.isnan(y)) and not math.isclose(
                x, y, rel_tol=tolerance, abs_tol=tolerance * 1e-3
            ):
                return f"line {line}: number differs beyond {tolerance:g}: {w} vs {g}"
        line += w.count("\n")
    if len(want) != len(got):
        return f"line {line}: one output is longer ({len(want)} vs {len(got)} tokens)"
    return None


def snapshot(cwd: Path) -> dict[str, bytes]:
    """Every file under `cwd` (relative path -> content, or digest when large)."""
    found: dict[str, bytes] = {}
    for file in sorted(cwd.rglob("*")):
        name = file.relative_to(cwd).as_posix()
        if file.is_symlink():
            found[name] = b"symlink -> " + os.fsencode(os.readlink(file))
        elif file.is_file():
            if file.stat().st_size > _HASH_ABOVE_BYTES:
                digest = hashlib.sha256()
                with file.open("rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
                found[name] = b"sha256 " + digest.hexdigest().encode()
            else:
                found[name] = file.read_bytes()
    return found


@dataclass(frozen=True, slots=True)
class RunOutput:
    """What one run produced, for comparison."""

    exit_code: int | None
    stdout: bytes
    files: dict[str, bytes]


def decode(data: bytes) -> str:
    """Bytes as text, keeping undecodable bytes (surrogateescape)."""
    return data.decode("utf-8", errors="surrogateescape")


def compare_outputs(
    reference: RunOutput, run: RunOutput, tolerance: float
) -> str | None:
    """Why `run` differs from `reference`, or None when it matches."""
    if run.exit_code != reference.exit_code:
        return f"exit code {run.exit_code} vs {reference.exit_code}"
    diff = compare_text(decode(reference.stdout), decode(run.stdout), tolerance)
    if diff is not None:
        return f"stdout {diff}"
    missing = sorted(reference.files.keys() - run.files.keys())
    extra = sorted(run.files.keys() - reference.files.keys())
    if missing or extra:
        return f"files differ: missing {missing}, extra {extra}"
    for name, want in reference.files.items():
        diff = compare_text(decode(want), decode(run.files[name]), tolerance)
        if diff is not None:
            return f"file {name}: {diff}"
    return None
