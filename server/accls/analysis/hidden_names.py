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
from functools import lru_cache

from accls.frontend import SourceFile

__all__ = ["header_names", "hidden_names"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_NAME_STRING = re.compile(r'"([A-Za-z_]\w*)"')
_SPLICE = re.compile(r"(\w*)\\[ \t]*\r?\n(\w*)")
_EXTERN_C = re.compile(r'extern\s*"C"\s*\{')
_COMMENT_OR_STRING = re.compile(
    r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.DOTALL
)


def hidden_names(source: SourceFile) -> frozenset[str]:
    """Identifiers in skipped `#if` branches, name-only strings, spliced names."""
    text = source.text
    out: set[str] = set()
    if source.skipped_lines:
        lines = text.splitlines()
        for row in source.skipped_lines:
            if 0 < row <= len(lines):
                out.update(_IDENT.findall(lines[row - 1]))
    return frozenset(out | _unparsed_names(text))


def header_names(text: str) -> frozenset[str]:
    """The names a header's raw text uses in braces, in strings, or spliced.

    The header's functions are read from the preprocessed code, without the
    branches this build skips; a call in any function body of the raw text (any
    branch) may pass anything, so every name in braces counts (its prototypes,
    outside braces, do not; nor do `extern "C" {` guards for C++).
    """
    code = _EXTERN_C.sub(lambda m: " " * len(m.group(0)), text)
    code = _COMMENT_OR_STRING.sub(lambda m: " " * len(m.group(0)), code)
    inside: list[str] = []
    depth = start = 0
    for i, ch in enumerate(code):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                inside.append(code[start:i])
    if depth > 0:
        inside.append(code[start:])
    found = {n for part in inside for n in _IDENT.findall(part)}
    return frozenset(found | _unparsed_names(text))


def _unparsed_names(text: str) -> frozenset[str]:
    """Name-only string literals and names a line splice cuts."""
    return _unparsed_cached(text)


@lru_cache(maxsize=8)
def _unparsed_cached(text: str) -> frozenset[str]:
    # Every call-site proof of a file asks again: one scan per text.
    out = set(_NAME_STRING.findall(text))
    for m in _SPLICE.finditer(text):
        joined = m.group(1) + m.group(2)
        if _IDENT.fullmatch(joined):
            out.add(joined)
    return frozenset(out)
