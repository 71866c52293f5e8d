"""Summaries of printf-like library calls, call by call: `snprintf(b, n, "%d", i)`.

The table of library effects gives `snprintf` and `sprintf` the position of
their format (`format`). What such a call touches depends on the call: it
writes the string into its first argument, reads the format, and reads each
argument after the format (through it, for a `%s`). A `%n` would write through
its argument instead, so a call is summarised only when its format is one
string literal (or adjacent literals) with no `%n`; any other format, or a
call whose name the program defines itself, gets no summary here.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from accls.analysis.summaries import Summary, summarize
from accls.frontend import Call, SourceFile, library_function

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = ["call_summary", "format_summary"]

_LITERALS = re.compile(r'\s*(?:"(?:[^"\\\n]|\\.)*"\s*)+')
# A conversion: `%`, flags, width, precision and length, then its letter.
_CONVERSION = re.compile(r"%[-+ #0'*\d.]*(?:hh|h|ll|l|L|q|j|z|t)?(.)")


def _plain_format(text: str) -> bool:
    """Whether `text` is string literals whose conversions hold no `%n`."""
    if not _LITERALS.fullmatch(text):
        return False
    body = "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', text))
    return all(m.group(1) != "n" for m in _CONVERSION.finditer(body))


def format_summary(
    call: Call, source: SourceFile, program: ProgramSummaries | None
) -> Summary | None:
    """The summary of a call of a printf-like library function, None if unknown."""
    known = library_function(call.name)
    if known is None or known.format < 0 or known.format >= len(call.args):
        return None
    if source.function(call.name) is not None:
        return None  # the file's own function of that name
    if program is not None and program.lookup(call.name):
        return None  # another file's
    if not _plain_format(call.args[known.format]):
        return None
    reads = {*known.reads, *range(known.format + 1, len(call.args))}
    # A string literal is no memory a loop writes: nothing to test.
    reads = {k for k in reads if not _LITERALS.fullmatch(call.args[k])}
    return Summary(
        name=call.name,
        writes=frozenset(known.writes),
        reads=frozenset(reads),
        globals_read=frozenset(),
    )


def call_summary(
    call: Call,
    source: SourceFile,
    pure: frozenset[str],
    program: ProgramSummaries | None = None,
) -> Summary | None:
    """The summary of the function `call` calls, for this call's arguments."""
    found = summarize(call.name, source, pure, None, program, len(call.args))
    return found if found is not None else format_summary(call, source, program)
