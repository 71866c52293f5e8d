"""A helper that hands a thread its block through pointers, read as assignments.

`block_range(tid, nt, N, &lo, &hi);` with a body of `*lo = E;` and
`if (*hi > E) *hi = E;` statements over its parameters and literals is the
region's own `lo = E; ...` with the arguments in place of the parameters: the
block reader then follows `lo` and `hi` as if the region had set them. Any other
statement in the helper (a call, a global, a loop) leaves the call as it is.
"""

from __future__ import annotations

import re

from accls.frontend import SourceFile

__all__ = ["TEAM_SIZE", "THREAD_NUMBER", "inline_block_helpers", "team_calls"]

THREAD_NUMBER = "omp_get_thread_num"
TEAM_SIZE = "omp_get_num_threads"
_CALLS = re.compile(rf"\b({THREAD_NUMBER}|{TEAM_SIZE})\s*\(\s*\)")
_NAME = re.compile(r"[A-Za-z_]\w*")
# A call standing as a statement of its own: `f(a, &lo, &hi);`
_CALL = re.compile(r"(?:(?<=[;{}])|^)(\s*)([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*;")
_SET = r"\*\s*{p}\s*=\s*[^;{{}}]+;"
_CLAMP = r"if\s*\([^;{{}}]+\)\s*(?:\{{\s*{set}\s*\}}|{set})"


def team_calls(text: str) -> str:
    """`omp_get_thread_num()` and `omp_get_num_threads()` as plain names."""
    return _CALLS.sub(lambda m: m[1], text)


def inline_block_helpers(
    text: str, source: SourceFile, constants: dict[str, int]
) -> str:
    """`text` with each call of a block helper replaced by its assignments."""
    return _CALL.sub(lambda m: _inlined(m, source, constants) or m[0], text)


def _inlined(
    call: re.Match[str], source: SourceFile, constants: dict[str, int]
) -> str | None:
    fn = source.function(call[2])
    args = _arguments(call[3])
    if fn is None or args is None or len(args) != len(fn.params):
        return None
    params = [p.name for p in fn.params]
    outs = {p: a[1:].strip() for p, a in zip(params, args, strict=True) if a[:1] == "&"}
    if not outs or not all(_NAME.fullmatch(o) for o in outs.values()):
        return None
    raw = source.data[fn.span.start_byte : fn.span.end_byte]
    body = team_calls(raw.decode("utf-8", "replace"))
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        return None
    body = body[start + 1 : end].strip()
    outs_re = "|".join(re.escape(p) for p in outs)
    one = _SET.format(p=f"(?:{outs_re})")
    statement = re.compile(rf"\s*(?:{one}|{_CLAMP.format(set=one)})\s*")
    if not body or not _covered(statement, body):
        return None
    known = set(params) | set(constants) | {THREAD_NUMBER, TEAM_SIZE, "if"}
    if not set(_NAME.findall(body)) <= known:
        return None  # a global or a local of the helper: not the caller's
    values = {p: a for p, a in zip(params, args, strict=True) if p not in outs}
    if any(v[:1] == "&" for v in values.values()):
        return None

    def swap(m: re.Match[str]) -> str:
        if m[2] is not None:
            return outs[m[2]]
        value = values.get(m[3], m[3])
        return value if _NAME.fullmatch(value) or value.isdigit() else f"({value})"

    pattern = rf"(\*\s*({outs_re})\b)|\b([A-Za-z_]\w*)\b"
    if re.search(rf"\b(?:{outs_re})\b", re.sub(rf"\*\s*(?:{outs_re})\b", "", body)):
        return None  # a pointer used as a value: `*hi = lo + 1` moves an address
    return call[1] + re.sub(pattern, swap, body)


def _covered(statement: re.Pattern[str], body: str) -> bool:
    """True when `body` is a sequence of `statement`s and nothing else."""
    pos = 0
    while pos < len(body):
        found = statement.match(body, pos)
        if found is None or found.end() == pos:
            return False
        pos = found.end()
    return True


def _arguments(text: str) -> list[str] | None:
    """The call's arguments split at top-level commas; None when unbalanced."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return None
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out if depth == 0 and all(out) else None
