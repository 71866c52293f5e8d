"""The exclusion a shared scalar's writes all hold, named for a finding.

`atomic`, `critical` or `ordered`, with what to do about the plain read beside
them.
"""

from __future__ import annotations

from accls.analysis.mhp_constructs import contains, first_word
from accls.frontend import SourceFile

__all__ = ["guarded_read_text"]

_WORDS = ("atomic", "critical", "ordered")


def _guard(at: int, source: SourceFile) -> str:
    """The innermost `atomic`, `critical` or `ordered` construct around byte `at`."""
    around = [
        c for c in source.constructs if contains(c, at) and first_word(c) in _WORDS
    ]
    if not around:
        return "atomic"
    inner = max(around, key=lambda c: c.span.start_byte)
    return first_word(inner)


def guarded_read_text(
    name: str, at: int, read_line: int, source: SourceFile
) -> tuple[str, str]:
    """(why, fix) for writes of `name` all under exclusion and a plain read.

    `at`: where a write sits (a callee's write whose exclusion is the caller's:
    the call).

    Only the same exclusion orders accesses: an `ordered` block orders the
    iterations' blocks, not what each iteration does outside its block.
    """
    guard = _guard(at, source)
    if guard == "ordered":
        return (
            f"every write of `{name}` is in an `ordered` block, but the read at "
            f"line {read_line} is outside it: ordered blocks order only each other",
            f"move the read of `{name}` into the `ordered` block",
        )
    if guard == "critical":
        return (
            f"every write of `{name}` is in a `critical` section, but the read at "
            f"line {read_line} is not: a plain read races with another thread's "
            "write",
            f"read `{name}` in the same `critical` section",
        )
    return (
        f"every write of `{name}` is `atomic`, but the read at line {read_line} "
        "is not: a plain read races with another thread's atomic write",
        f"read `{name}` with `#pragma omp atomic read`",
    )
