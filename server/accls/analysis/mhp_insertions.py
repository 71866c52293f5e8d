"""Text insertions for repairs: a pragma line above a statement."""

from __future__ import annotations

from accls.frontend import Call

__all__ = ["call_critical_fix", "insert_line", "line_start"]


def line_start(data: bytes, pos: int) -> int | None:
    """The start of `pos`'s line when the statement at `pos` starts that line."""
    start = data.rfind(b"\n", 0, pos) + 1
    if any(mark in data[start:pos] for mark in (b";", b"{", b"}")):
        return None
    before = data[:start].rstrip()
    last_line = before[before.rfind(b"\n") + 1 :].lstrip()
    if (
        before
        and before[-1:] not in (b";", b"{", b"}")
        and not last_line.startswith(b"#")
    ):
        return None  # the statement began on an earlier line
    return start


def insert_line(data: bytes, at: int, directive: str) -> tuple[int, str]:
    """`#pragma omp DIRECTIVE` at line start `at`, indented like that line."""
    line_end = data.find(b"\n", at)
    line = data[at : line_end if line_end >= 0 else len(data)]
    indent = line[: len(line) - len(line.lstrip())].decode("utf-8", "replace")
    return at, f"{indent}#pragma omp {directive}\n"


def _call_statement(data: bytes, call: Call, body: int | None) -> int | None:
    """The line start of the call when the call is a whole statement there."""
    start = data.rfind(b"\n", 0, call.span.start_byte) + 1
    head = data[start : call.span.start_byte].strip()
    if head or not data[call.span.end_byte :].lstrip().startswith(b";"):
        return None  # the call is part of an expression
    line = line_start(data, call.span.start_byte)
    if line is None and body is not None and call.span.start_byte == body:
        line = start  # the unbraced body of the loop
    return line


def call_critical_fix(
    data: bytes, call: Call, body: int | None = None
) -> tuple[int, str] | None:
    """`#pragma omp critical` above a call statement: its callee's writes exclude."""
    at = _call_statement(data, call, body)
    return insert_line(data, at, "critical") if at is not None else None
