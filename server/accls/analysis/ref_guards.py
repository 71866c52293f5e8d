"""The conditions that dominate one reference, and the subscript bounds they give.

`if (y < 5) c[y] += 1;` touches `c[0..4]` at most (with `y >= 0` known), and
`if (j >= 0 && j < m) s += b[j];` reads `b[0..m-1]`, whatever `j` holds in
other iterations. Each fact is a form `>= 0` that holds wherever the reference
runs, read from:

- the `&&` comparisons of each `if` whose then arm holds the reference;
- the negated `||` comparisons of each `if` whose else arm holds it;
- the negated condition of `if (c) continue;` before it, when every branch
  around that `continue` (a loop body, an arm) also holds the reference.

A comparison counts only when each name in it is a signed integer local or
parameter whose address is never taken, that nothing writes between the test
and the end of the code the test guards (an arm, or the loop body the
`continue` leaves), so its value at the reference is the one tested. In a
function with a `goto`, a `switch` or `setjmp`, a jump may land past the test:
no facts. Fortran, C++ (a lambda may write a captured name) and files whose
bytes are not their characters get none either.
"""

from __future__ import annotations

import re

from accls.analysis.condition_forms import condition_facts, negated_facts
from accls.analysis.inequalities import proves_nonnegative
from accls.analysis.integer_kinds import signedness
from accls.frontend import Branch, Function, Poly, Ref, SourceFile, Span, is_cpp
from accls.frontend.fortran_form import is_fortran

__all__ = ["function_branches", "guard_bounds", "guard_facts", "tighter"]

_UNSAFE = re.compile(r"\b(?:goto|switch|setjmp|sigsetjmp|_setjmp|longjmp)\b")
_CONTINUE = re.compile(r"^\{?\s*continue\s*;\s*\}?$")
_IF_END = re.compile(r"(?<![\w.>])if\s*$")


def _holds(outer: Span, inner: Span) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _if_start(arm: Branch, text: str, floor: int) -> int | None:
    """The byte of the `if` keyword whose condition ends just before `arm`."""
    end = len(text[floor : arm.span.start_byte].rstrip()) + floor
    if end <= floor or text[end - 1] != ")":
        return None
    depth = 0
    for pos in range(end - 1, floor - 1, -1):
        depth += {")": 1, "(": -1}.get(text[pos], 0)
        if depth == 0:
            if " ".join(text[pos:end].split()) != " ".join(arm.condition.split()):
                return None  # a `?:` right after an `if`: not this arm's test
            head = text[floor:pos]
            found = _IF_END.search(head)
            return floor + found.start() if found is not None else None
    return None


def _fixed(name: str, start: int, end: int, fn: Function, source: SourceFile) -> bool:
    """A signed local integer nothing writes in [start, end) nor through `&`."""
    var = fn.lookup(name)
    if var is None or var.scope not in ("local", "param") or var.static:
        return False
    if var.pointers or var.dims or fn.declarations(name) != 1:
        return False
    if signedness(var, source.types) != "signed":
        return False
    for ref in fn.refs:
        if ref.name != name:
            continue
        if ref.escapes or ref.deref or ref.member or ref.subscripts:
            return False
        if ref.is_write and start <= ref.span.start_byte < end:
            return False
    return True


def _kept(
    found: list[tuple[Poly, bool]], start: int, end: int, fn: Function, src: SourceFile
) -> list[Poly]:
    out: list[Poly] = []
    for poly, equal in found:
        if all(_fixed(n, start, end, fn, src) for n in poly.names()):
            out.extend([poly, -poly] if equal else [poly])
    return out


def function_branches(fn: Function | None, source: SourceFile) -> list[Branch] | None:
    """The branches inside `fn`, or None where its guards are not read at all."""
    if fn is None or is_fortran(source.path) or is_cpp(source.path):
        return None
    if len(source.data) != len(source.text):
        return None
    floor = fn.span.start_byte
    if _UNSAFE.search(source.text[floor : fn.span.end_byte]):
        return None
    return [
        b
        for b in source.branches
        if _holds(fn.span, b.span) and b.span.start_byte > floor
    ]


def guard_facts(
    ref: Ref,
    fn: Function | None,
    source: SourceFile,
    branches: list[Branch] | None = None,
) -> list[Poly]:
    """Forms `>= 0` that hold wherever `ref` runs (see the module's note).

    `branches`: `function_branches(fn, source)`, when the caller has it.
    """
    mine = function_branches(fn, source) if branches is None else branches
    if fn is None or not mine or ref.fortran:
        return []
    text = source.text
    floor = fn.span.start_byte
    thens = {b.span.end_byte: b for b in mine if b.kind == "if"}
    out: list[Poly] = []
    for arm in mine:
        if arm.kind == "if" and _holds(arm.span, ref.span):
            start = _if_start(arm, text, floor)
            if start is not None:
                found = condition_facts(arm.condition)
                out += _kept(found, start, arm.span.end_byte, fn, source)
        elif arm.kind == "else" and _holds(arm.span, ref.span):
            then = _then_of(arm, thens, text)
            start = _if_start(then, text, floor) if then is not None else None
            if start is not None:
                found = negated_facts(arm.condition)
                out += _kept(found, start, arm.span.end_byte, fn, source)
        elif arm.kind == "if" and arm.span.end_byte <= ref.span.start_byte:
            out += _continued(arm, ref, mine, fn, source)
    return out


def _then_of(arm: Branch, thens: dict[int, Branch], text: str) -> Branch | None:
    """The then arm of the `if` whose else arm is `arm`: only `else` between."""
    for end, then in thens.items():
        gap = text[end : arm.span.start_byte].strip()
        if then.condition == arm.condition and gap in ("else", ""):
            if gap == "" and not text[arm.span.start_byte :].startswith("else"):
                continue
            return then
    return None


def _continued(
    arm: Branch, ref: Ref, mine: list[Branch], fn: Function, source: SourceFile
) -> list[Poly]:
    """`!(c)` after `if (c) continue;` when the `continue` dominates `ref`."""
    text = source.text
    if not _CONTINUE.match(text[arm.span.start_byte : arm.span.end_byte].strip()):
        return []
    start = _if_start(arm, text, fn.span.start_byte)
    if start is None:
        return []
    around = [
        b
        for b in mine
        if b is not arm
        and b.span.start_byte <= start
        and arm.span.end_byte <= b.span.end_byte
    ]
    if not around or any(not _holds(b.span, ref.span) for b in around):
        return []
    loops = [b for b in around if b.kind == "loop"]
    if not loops:
        return []
    body = min(loops, key=lambda b: b.span.end_byte - b.span.start_byte)
    if any(b.kind != "loop" and _holds(body.span, b.span) for b in around):
        return []  # inside an arm of the loop body: it leaves some paths only
    return _kept(negated_facts(arm.condition), start, body.span.end_byte, fn, source)


def guard_bounds(poly: Poly, facts: list[Poly]) -> tuple[list[Poly], list[Poly]]:
    """Lower and upper bounds of `poly` the facts give (`f = poly + r` or `r - poly`).

    A bound still names the subscript's other variables (outer loop indices):
    the caller bounds those over their loops.
    """
    lows: list[Poly] = []
    highs: list[Poly] = []
    own = poly.names()
    for fact in facts:
        rest = fact - poly  # fact = poly + rest >= 0: poly >= -rest
        if not rest.names() & own:
            lows.append(-rest)
        rest = fact + poly  # fact = rest - poly >= 0: poly <= rest
        if not rest.names() & own:
            highs.append(rest)
    return lows, highs


def tighter(
    old: Poly | None,
    new: Poly | None,
    high: bool,
    facts: list[Poly],
    offsets: frozenset[str] = frozenset(),
) -> Poly | None:
    """The tighter of two valid bounds; when the facts cannot tell, `old`.

    `offsets`: the subscript's own symbols. Where the bounds differ by those
    alone (`b[i + k]` under `if (i + k < n)`: `n - 1 + k` or `n - 1`, as `k`'s
    sign goes), the guard's bound (`new`): the program checks it, against the
    array's extent, and a negative `k` already starts the section below it.
    Where they differ by another symbol (`if (i < 10)` in a loop to `n`),
    either may reach past the array: `old`, as without the guard.
    """
    if old is None or new is None:
        return new if old is None else old
    diff = old - new
    if proves_nonnegative(diff, facts):
        return new if high else old
    if proves_nonnegative(-diff, facts):
        return old if high else new
    return new if diff.names() and diff.names() <= offsets else old
