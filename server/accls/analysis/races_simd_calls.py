"""ACC101 in a `simd` loop through a `declare simd` function's array accesses.

`#pragma omp declare simd uniform(a) linear(i : 1)` before `void step(float *a,
int i) { a[i + 1] = a[i] ...; }` and `#pragma omp simd` over `step(a, i)` run
neighbouring `i` in one vector: the lane for `i` reads `a[i]` while the lane for
`i - 1` writes it. The callee's accesses `p[q + k]` (`p` a pointer parameter given
the caller's array, `q` a parameter given the loop variable itself, `k` a literal)
are the loop's `a[i + k]`; two of them with different `k`, one a write, are a
dependence of distance `|k1 - k2|`, which `safelen(n)` tolerates when `n` is at
most that distance; a read ahead of the write (`a[i] = a[i + 1]`) is one that
simd tolerates, as for the loop's own accesses. Everything else about the callee
stays unknown (quiet).
"""

from __future__ import annotations

import re

from accls.analysis.findings import CARRIED_DEPENDENCE, Finding, finding
from accls.frontend import Directive, Function, Loop, SourceFile

__all__ = ["simd_call_findings"]


def _declared_simd(source: SourceFile, callee: Function) -> bool:
    """True when a `declare simd` directive stands right before the function."""
    for c in source.constructs:
        span = c.directive.span
        if c.directive.name.split()[:2] != ["declare", "simd"] or span is None:
            continue
        between = source.data[span.end_byte : callee.span.start_byte]
        if span.end_byte <= callee.span.start_byte and b";" not in between:
            return True
    return False


def _offset(text: str, var: str) -> int | None:
    m = re.fullmatch(rf"\s*{re.escape(var)}\s*(?:([+-])\s*(\d+))?\s*", text)
    if m is None:
        return None
    k = int(m.group(2) or 0)
    return -k if m.group(1) == "-" else k


def simd_call_findings(
    loop: Loop, directive: Directive, source: SourceFile
) -> list[Finding]:
    """The first carried dependence a `declare simd` callee makes across lanes."""
    if not loop.var or set(directive.name.split()) != {"simd"}:
        return []
    limit = directive.clause("safelen") or directive.clause("simdlen")
    text = (limit.args or "").strip() if limit is not None else ""
    safelen = int(text) if text.isdigit() else 0
    for call in loop.calls:
        callee = source.function(call.name)
        if callee is None or not _declared_simd(source, callee):
            continue
        args = ["".join(a.split()) for a in call.args]
        params = [p.name for p in callee.params]
        index = {p for p, a in zip(params, args, strict=False) if a == loop.var}
        arrays = {
            p.name: a
            for p, a in zip(callee.params, args, strict=False)
            if p.pointers == 1 and a.isidentifier()
        }
        if len(index) != 1:
            continue
        (q,) = index
        seen: dict[str, list[tuple[int, bool, int]]] = {}
        for ref in callee.refs:
            if ref.name not in arrays or len(ref.subscripts) != 1:
                continue
            k = _offset(ref.subscripts[0].text, q)
            if k is None:
                break  # another index form: the callee is not followed
            seen.setdefault(ref.name, []).append((k, ref.is_write, ref.span.line))
        for name, uses in seen.items():
            for k1, w1, line1 in uses:
                for k2, w2, line2 in uses:
                    d = abs(k1 - k2)
                    if not w1 or d == 0 or (safelen and safelen <= d):
                        continue
                    if not w2 and k1 < k2:
                        continue  # a read ahead of the write: simd allows it
                    return [
                        finding(
                            CARRIED_DEPENDENCE,
                            call.span,
                            directive=directive.name,
                            line=loop.line,
                            dep=f"`{call.name}` (`declare simd`) writes "
                            f"`{arrays[name]}[{loop.var} {'+' if k1 >= 0 else '-'} "
                            f"{abs(k1)}]` at line {line1} and uses `{arrays[name]}`"
                            f" {d} element(s) away at line {line2}: lanes {d} apart "
                            "touch one element",
                            source_line=line1,
                            sink_line=line2,
                        )
                    ]
    return []
