"""One element every iteration of a parallel loop has a callee write.

`double *tmp = scratch[0];` then `kernel(m, r, tmp)` in each iteration, with
`kernel` writing `tmp[0]` on every call: every iteration, on whatever thread
runs it, writes the one element `scratch[0][0]`, a race (ACC124) as plain as
`scratch[0][0] = v` in the loop itself. The buffer must be a global array at
constant offsets (`g`, `g[2]`, `&g[0][0]`, `g + 4`, literals and integer
macros only), passed as written or through a local pointer set once to it; any
other name in it (`scratch[tid]`, `work + tid * M`) may give each thread its
own row and is left alone. The callee (or a callee it hands the pointer on to,
as it was received) must write the pointer at a literal offset on every call:
outside any branch, loop or OpenMP construct of it, before any `return`, not
atomic, and the pointer never reassigned. A callee that writes a global array's
constant element on every call (`hist[0]++`, or `hist[b]` called as `count(3)`)
is the same race, whatever the loop's bounds: the loop's own `hist[0]++` is
ACC101. Neither holds under a lock, a clause that privatizes the array, or a
loop whose iterations one thread runs (`simd`, OpenACC `seq`).
"""

from __future__ import annotations

import re

from accls.analysis.callee_state import other_access, threadprivate_names
from accls.analysis.concurrency_kinds import CALLEE_STATE_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_callees import call_excluded
from accls.analysis.mhp_constructs import contains
from accls.analysis.nest_views import integer_macros
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile

__all__ = [
    "enclosing",
    "every_iteration",
    "privatized",
    "shared_scratch_findings",
    "shares_iterations",
    "unconditional",
]

_NAME = re.compile(r"[A-Za-z_]\w*")
_BUFFER = re.compile(
    r"&?\s*\(?\s*([A-Za-z_]\w*)\s*((?:\[\s*\w+\s*\]\s*)*)\)?\s*(?:\+\s*(\w+))?"
)
_CONSTANT = re.compile(r"[\w\s+*/%()-]+")  # arithmetic of literals and macros
_INITIALIZER = re.compile(rb"\s*=\s*([^;{}]*);")
_DEPTH = 4  # callees followed from the loop's call


def enclosing(pos: int, source: SourceFile) -> Function | None:
    """The function whose body holds byte `pos`."""
    return next(
        (f for f in source.functions if f.span.start_byte <= pos < f.span.end_byte),
        None,
    )


def every_iteration(loop: Loop, call: Call, source: SourceFile) -> bool:
    """True when no branch, inner loop or exclusion of the loop body holds the call."""
    pos, body = call.span.start_byte, loop.body
    start = max(source.data.rfind(m, body.start_byte, pos) for m in (b";", b"{", b"}"))
    head = source.data[max(start, body.start_byte) : pos]
    if any(op in head for op in (b"&&", b"||", b"?")):
        return False
    if any(
        body.start_byte <= b.span.start_byte <= pos < b.span.end_byte
        and b.span != body  # the loop's own body
        for b in source.branches
    ):
        return False
    return not call_excluded(loop, call, source)


def _buffer(text: str, loop: Loop, source: SourceFile) -> str | None:
    """The global element a pointer argument names, the same on every iteration."""
    fn = enclosing(loop.span.start_byte, source)
    if fn is not None and text.isidentifier():
        var = fn.lookup(text)
        sets = [r for r in fn.refs if r.name == text and r.is_write and not r.deref]
        if var is None or var.scope != "local" or not var.pointers or len(sets) != 1:
            return None
        if sets[0].span.start_byte >= loop.span.start_byte or sets[0].subscripts:
            return None
        init = _INITIALIZER.match(source.data, sets[0].span.end_byte)
        if init is None:
            return None
        text = init.group(1).decode(errors="replace").strip()
    match = _BUFFER.fullmatch(text)
    if match is None:
        return None
    name = match.group(1)
    arrays = {g.name for g in source.globals if g.dims and not g.pointers}
    if name not in arrays - threadprivate_names(source):
        return None
    if fn is not None and fn.lookup(name) is not None:
        return None  # a local or parameter hides the global
    macros = integer_macros(source.macros)
    constants = [*_NAME.findall(match.group(2) or ""), match.group(3) or "0"]
    if not all(c.isdigit() or c in macros for c in constants):
        return None
    return " ".join(text.split())


def privatized(name: str, loop: Loop, directive: Directive, source: SourceFile) -> bool:
    """True when a clause of the loop or a construct around it names the array."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    texts = [directive.text] + [
        c.directive.text for c in source.constructs if contains(c, loop.span.start_byte)
    ]
    return any(word.search(t) for t in texts)


def unconditional(fn: Function, pos: int, source: SourceFile) -> bool:
    """True when the code at `pos` runs on every call of `fn`."""
    start, end = fn.span.start_byte, fn.span.end_byte
    if any(
        start <= b.span.start_byte <= pos < b.span.end_byte for b in source.branches
    ):
        return False
    if any(start <= c.span.start_byte and contains(c, pos) for c in source.constructs):
        return False
    body = source.data.find(b"{", start, end)
    return body >= 0 and not re.search(rb"\breturn\b", source.data[body:pos])


def _fixed_write(
    fn: Function, index: int, source: SourceFile, depth: int
) -> tuple[Function, Ref] | None:
    """A write through parameter `index` at a literal offset on every call of `fn`."""
    if index >= len(fn.params) or depth == 0:
        return None
    param = fn.params[index]
    if not (param.pointers or param.dims) or any("lock" in c for c in fn.calls):
        return None
    refs = [r for r in fn.refs if r.name == param.name]
    if any(r.is_write and not r.subscripts and not r.deref for r in refs):
        return None  # the pointer itself changes
    for ref in refs:
        if (
            ref.is_write
            and ref.subscripts
            and not ref.atomic
            and all(s.text.strip().isdigit() for s in ref.subscripts)
            and unconditional(fn, ref.span.start_byte, source)
        ):
            return fn, ref
    for call in fn.call_sites:
        callee = source.function(call.name)
        if callee is None or callee is fn or param.name not in call.args:
            continue
        if not unconditional(fn, call.span.start_byte, source):
            continue
        found = _fixed_write(callee, call.args.index(param.name), source, depth - 1)
        if found is not None:
            return found
    return None


def _fixed_global(
    fn: Function, names: dict[str, str], source: SourceFile, depth: int
) -> tuple[Function, Ref, str] | None:
    """A write of a global array's one element on every call: `hist[0]++`."""
    if depth == 0 or any("lock" in c for c in fn.calls):
        return None
    own = {v.name for v in (*fn.locals, *fn.params)}
    arrays = {g.name for g in source.globals if g.dims and not g.pointers}
    arrays -= threadprivate_names(source) | own
    macros = integer_macros(source.macros)

    def put(text: str) -> str:
        return _NAME.sub(lambda m: names.get(m.group(0), m.group(0)), text)

    for ref in fn.refs:
        if not (ref.is_write and ref.subscripts and ref.name in arrays):
            continue
        texts = [put(s.text) for s in ref.subscripts]
        if ref.atomic or set(_NAME.findall(" ".join(texts))) - set(macros):
            continue  # atomic, or an element that may change from call to call
        if _CONSTANT.fullmatch(" ".join(texts)) and unconditional(
            fn, ref.span.start_byte, source
        ):
            return fn, ref, ref.name + "".join(f"[{t}]" for t in texts)
    for call in fn.call_sites:
        callee = source.function(call.name)
        if callee is None or callee is fn or len(call.args) != len(callee.params):
            continue
        if unconditional(fn, call.span.start_byte, source):
            inner = {
                p.name: f"({put(a)})"
                for p, a in zip(callee.params, call.args, strict=True)
            }
            found = _fixed_global(callee, inner, source, depth - 1)
            if found is not None:
                return found
    return None


def _accesses(
    callee: Function, param: str, writer: Function, ref: Ref
) -> dict[str, object]:
    """`also`: the writer's other use of the buffer, and the loop's callee's own."""
    also = other_access(writer, ref)
    if writer is callee:
        return also
    own = next(
        (r for r in callee.refs if r.name == param and (r.subscripts or r.deref)),
        None,
    )
    if own is None:
        return also
    word = "written" if own.is_write else "read"
    text = f"{also['also']}, and {word} by `{callee.name}` at line {own.span.line}"
    return also | {"also": text, "own": own.span.line}


def shares_iterations(loop: Loop, directive: Directive) -> bool:
    """True when the directive hands the loop's iterations to several threads."""
    words = set(directive.name.split())
    if directive.dialect == "acc":
        return "loop" in words and directive.clause("seq") is None
    split = bool(words & {"for", "do", "taskloop", "distribute", "loop"})
    return split and not any("lock" in c.name for c in loop.calls)


def shared_scratch_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC124 when every iteration has `name` write one element (buffer or global)."""
    callee = source.function(name)
    call = next((c for c in loop.calls if c.name == name), None)
    if callee is None or call is None or len(call.args) != len(callee.params):
        return []
    if callee.span.start_byte <= loop.span.start_byte < callee.span.end_byte:
        return []  # recursion through the loop's own function
    if not shares_iterations(loop, directive) or not every_iteration(
        loop, call, source
    ):
        return []
    where = {
        "who": "every iteration",
        "call": call.span.line,
        "region": directive.name,
        "line": loop.line,
    }
    for k, arg in enumerate(call.args):
        buffer = _buffer(arg, loop, source)
        if buffer is None or privatized(
            _NAME.findall(buffer)[0], loop, directive, source
        ):
            continue
        found = _fixed_write(callee, k, source, _DEPTH)
        if found is None:
            continue
        writer, ref = found
        via = "" if writer is callee else f"hands it on to `{writer.name}`, which "
        return [
            finding(
                CALLEE_STATE_RACE,
                call.span,
                var=ref.render(),
                what=f"`{buffer}`, one buffer for every iteration",
                callee=name if writer is callee else f"{writer.name}` via `{name}",
                write=ref.span.line,
                **_accesses(callee, callee.params[k].name, writer, ref),
                **where,
                rule=f"each call passes `{arg}`, which points to `{buffer}` on every "
                f"iteration and thread, and `{name}` {via}writes `{ref.render()}` "
                "through it on every call",
                fix="give each thread its own buffer (a private array, or a row "
                "chosen by `omp_get_thread_num()`)",
            )
        ]
    names = {p.name: f"({a})" for p, a in zip(callee.params, call.args, strict=True)}
    fixed = _fixed_global(callee, names, source, _DEPTH)
    if fixed is None or privatized(fixed[1].name, loop, directive, source):
        return []
    writer, ref, element = fixed
    through = "" if element == ref.render() else f" through `{ref.render()}`"
    return [
        finding(
            CALLEE_STATE_RACE,
            call.span,
            var=element,
            what="a global array",
            callee=name if writer is callee else f"{writer.name}` via `{name}",
            write=ref.span.line,
            **other_access(writer, ref),
            **where,
            rule=f"every call writes the one element `{element}`{through}, and the "
            "iterations run on different threads",
            fix=f"update `{ref.name}` with an atomic construct, or give each "
            "iteration its own element",
        )
    ]
