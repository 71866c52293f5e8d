"""Names a file uses where its recorded calls do not look.

The proofs over every call of a function (`call_site_lists`) read the calls the
parse found. Three kinds of use escape it: code in `#if` branches this build
skips (another build, `-fopenmp` defining `_OPENMP` or `-DDEBUG`, compiles it,
and the pragma stays in the source), a string literal that is exactly a name
(`__attribute__((alias("kern")))`, `asm("kern")`, `dlsym(h, "kern")` reach the
function under another name or through a pointer), and a name split by a line
splice (`ke`, a backslash, a newline, `rn(a, a + 1)`), which the compiler
joins and the parse does not. Each name so used is taken as called with anything.
"""

from __future__ import annotations

import re

from accls.frontend import SourceFile

__all__ = ["hidden_names"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_NAME_STRING = re.compile(r'"([A-Za-z_]\w*)"')
_SPLICE = re.compile(r"(\w*)\\[ \t]*\r?\n(\w*)")


def hidden_names(source: SourceFile) -> frozenset[str]:
    """Identifiers in skipped `#if` branches, name-only strings, spliced names."""
    text = source.text
    out: set[str] = set()
    if source.skipped_lines:
        lines = text.splitlines()
        for row in source.skipped_lines:
            if 0 < row <= len(lines):
                out.update(_IDENT.findall(lines[row - 1]))
    out.update(_NAME_STRING.findall(text))
    for m in _SPLICE.finditer(text):
        joined = m.group(1) + m.group(2)
        if _IDENT.fullmatch(joined):
            out.add(joined)
    return frozenset(out)
