"""A callee that reaches arrays through a structure's pointer members: `s->pos[i]`.

`step(&s, i)` with `void step(struct soa *s, int i) { s->pos[i] = s->pos[i + 1]; }`
called once per iteration of a parallel loop writes `s.pos[e]` and reads
`s.pos[e + 1]`, with `e` the subscript after the call's arguments replace the
parameters. Every iteration hands over one structure (`&s` or a pointer that the
loop does not change), so its member `pos` is one array for all of them: when
the element one iteration writes is one another iteration writes or reads,
two threads touch it, a race (ACC124). The accesses must run on every call (no
branch or construct of the callee around them, not atomic), the callee must
call nothing and use the parameter only through its members, and neither side
may assign the member itself; the call must run on every iteration, outside
any branch or construct of the loop.
"""

from __future__ import annotations

import re

from accls.analysis.concurrency_kinds import CALLEE_STATE_RACE
from accls.analysis.findings import Finding, finding
from accls.analysis.nest_views import integer_macros
from accls.analysis.races_index import int_at, loop_range
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile

__all__ = ["member_findings", "member_refs"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_EXPR = re.compile(r"[\w\s+*/%()-]+")
_MEMBER = re.compile(r"([A-Za-z_]\w*)->([A-Za-z_]\w*)")


def _around(pos: int, start: int, end: int, source: SourceFile) -> bool:
    """True when a branch or construct from `start` to `end` holds `pos`.

    A loop's span counts only past `start`: the loop whose body that is, is not.
    """
    spans = [
        b.span for b in source.branches if b.kind != "loop" or b.span.start_byte > start
    ] + [c.span for c in source.constructs]
    return any(start <= s.start_byte <= pos < s.end_byte <= end for s in spans)


def member_refs(callee: Function, param: str, source: SourceFile) -> list[Ref] | None:
    """The callee's element accesses through `param->F`, None when it does more."""
    start, end = callee.span.start_byte, callee.span.end_byte
    out: list[Ref] = []
    for ref in callee.refs:
        if ref.name == param:
            return None  # the pointer itself is used: copied, moved or handed on
        match = _MEMBER.fullmatch(ref.name)
        if match is None or match.group(1) != param:
            continue
        if not ref.subscripts:
            if ref.is_write:
                return None  # the member is assigned: another array
            continue
        if ref.atomic or _around(ref.span.start_byte, start, end, source):
            continue  # not on every call, or excluded: no sure verdict from it
        out.append(ref)
    return out


def _elements(
    ref: Ref, values: dict[str, str], var: str, span: range
) -> list[tuple[int, ...]] | None:
    """The element `ref` touches at each iteration of `span`, None if unknown."""
    texts = []
    for sub in ref.subscripts:
        text = _NAME.sub(lambda m: values.get(m.group(0), m.group(0)), sub.text)
        if not _EXPR.fullmatch(text) or set(_NAME.findall(text)) - {var}:
            return None
        texts.append(text)
    out = []
    for k in span:
        key = tuple(int_at(t, var, k) for t in texts)
        if any(v is None for v in key):
            return None
        out.append(tuple(v for v in key if v is not None))
    return out


def _collision(
    loop: Loop, call: Call, callee: Function, source: SourceFile
) -> tuple[Ref, Ref, int, int, str] | None:
    """(the write, the other access, two iterations, the element) when they meet."""
    span = loop_range(loop, source)
    params = [p.name for p in callee.params]
    if (
        loop.var is None
        or span is None
        or callee.calls
        or len(call.args) != len(params)
    ):
        return None
    macros = {n: str(v) for n, v in integer_macros(source.macros).items()}
    args = {
        p: "(" + _NAME.sub(lambda m: macros.get(m.group(0), m.group(0)), a) + ")"
        for p, a in zip(params, call.args, strict=True)
    }
    inside = (call.span.start_byte, call.span.end_byte)
    written = {
        r.name.split("->")[0].split(".")[0]
        for r in loop.refs
        if r.is_write and not inside[0] <= r.span.start_byte < inside[1]
    }
    for param, arg in zip(params, call.args, strict=True):
        base = set(_NAME.findall(arg))
        one = arg.startswith("&") or _NAME.fullmatch(arg.strip()) is not None
        if not base or base & (written | {loop.var}) or not one:
            continue  # not one structure for every iteration
        refs = member_refs(callee, param, source)
        for write in refs or []:
            if not write.is_write:
                continue
            values = macros | args
            mine = _elements(write, values, loop.var, span)
            if mine is None:
                continue
            first = {element: k for k, element in reversed(list(enumerate(mine)))}
            for other in refs or []:
                if other.name != write.name:
                    continue
                theirs = _elements(other, values, loop.var, span)
                for k, element in enumerate(theirs or []):
                    at = first.get(element)
                    if at is not None and at != k:
                        where = "][".join(str(v) for v in element)
                        return write, other, span[at], span[k], f"{write.name}[{where}]"
    return None


def member_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC124 when two iterations' calls of `name` meet in a member's array."""
    if directive.dialect == "omp" and set(directive.name.split()) <= {"simd"}:
        return []  # one thread's lanes, in chunks: not iterations on threads
    callee = source.function(name)
    calls = [c for c in loop.calls if c.name == name]
    if callee is None or len(calls) != 1:
        return []
    call = calls[0]
    body = loop.body
    if _around(call.span.start_byte, body.start_byte, body.end_byte, source):
        return []  # the call may not run on every iteration, or runs excluded
    found = _collision(loop, call, callee, source)
    if found is None:
        return []
    write, other, first, second, element = found
    word = "written" if other.is_write else "read"
    verb = "writes" if other.is_write else "reads"
    return [
        finding(
            CALLEE_STATE_RACE,
            call.span,
            var=write.name,
            what="an array a member of the structure passed by pointer points to",
            callee=name,
            write=write.span.line,
            also=f" and {word} at line {other.span.line}",
            other=other.span.line,
            who="every iteration",
            call=call.span.line,
            region=directive.name,
            line=loop.line,
            rule=f"iteration {first} writes `{element}`, which iteration {second} "
            f"{verb}, and the iterations of the loop run on different threads",
            fix="give each iteration its own elements, or keep the loop serial",
        )
    ]
