"""The conditions that dominate one reference, and the subscript bounds they give.

`if (y < 5) c[y] += 1;` touches `c[0..4]` at most (with `y >= 0` known), and
`if (j >= 0 && j < m) s += b[j];` reads `b[0..m-1]`, whatever `j` holds in
other iterations. Each fact is a form `>= 0` that holds wherever the reference
runs, read from:

- the `&&` comparisons of each `if` whose then arm holds the reference;
- the negated `||` comparisons of each `if` whose else arm holds it;
- the negated condition of `if (c) continue;` before it, when every branch
  around that `continue` (a loop body, an arm) also holds the reference.

A comparison counts only when each name in it is an integer local or
parameter whose address is never taken, that nothing writes or declares
anew between the test and the end of the code the test guards (an arm, or
the loop body the `continue` leaves), so its value at the reference is the
one tested. A name declared more than once (two `int j` in sibling blocks)
qualifies when each declaration does and no global shares it: whichever the
test reads, it is the one the reference reads. An unsigned variable of
`int`'s rank or wider counts only in a comparison of such variables and
literals (an `int` side converts, `u - 1` wraps), and only for a reference
whose subscripts name it alone; such a subscript, or one of a narrow unsigned
type, is also `>= 0` by its type. In a function with a `goto`, a `switch`
or `setjmp`, a jump may land past the test: no facts. Fortran, C++ (a lambda
may write a captured name) and files whose bytes are not their characters get
none either.
"""

from __future__ import annotations

import re

from accls.analysis.condition_forms import (
    condition_facts,
    condition_sides,
    negated_facts,
)
from accls.analysis.inequalities import proves_nonnegative
from accls.analysis.integer_kinds import signedness
from accls.frontend import (
    Branch,
    Function,
    Loop,
    Poly,
    Ref,
    SourceFile,
    Span,
    is_cpp,
)
from accls.frontend.fortran_form import is_fortran

__all__ = [
    "function_branches",
    "guard_bounds",
    "guard_facts",
    "nest_guard_facts",
    "tighter",
]

_UNSAFE = re.compile(r"\b(?:goto|switch|setjmp|sigsetjmp|_setjmp|longjmp)\b")
_CONTINUE = re.compile(r"^\{?\s*continue\s*;\s*\}?$")
_WORD = re.compile(r"[A-Za-z_]\w*")
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


def _kind(name: str, fn: Function, source: SourceFile) -> str:
    """The integer kind ("signed", "unsigned", "narrow") of a plain local `name`.

    Each declaration of the name in the function must be one (two `int j` in
    sibling blocks both are), and no global may share it, so whichever one a
    test reads is a local that only the function writes; "" otherwise.
    """
    found = [v for v in (*fn.locals, *fn.params) if v.name == name]
    if not found or any(g.name == name for g in source.globals):
        return ""
    kinds = set()
    for var in found:
        if var.scope not in ("local", "param") or var.static:
            return ""
        if var.pointers or var.dims:
            return ""
        kinds.add(signedness(var, source.types))
    kind = kinds.pop() if len(kinds) == 1 else ""
    return kind if kind in ("signed", "unsigned", "narrow") else ""


def _fixed(name: str, start: int, end: int, fn: Function, source: SourceFile) -> str:
    """`_kind` of a local nothing writes or declares in [start, end), nor via `&`."""
    kind = _kind(name, fn, source)
    if not kind:
        return ""
    for var in (*fn.locals, *fn.params):
        at = var.span.start_byte if var.span is not None else -1
        if var.name == name and start <= at < end:
            return ""  # a new declaration: the name reads another variable
    for ref in fn.refs:
        if ref.name != name:
            continue
        if ref.escapes or ref.deref or ref.member or ref.subscripts:
            return ""
        if ref.is_write and start <= ref.span.start_byte < end:
            return ""
    return kind


def _kept(
    condition: str,
    negate: bool,
    span: tuple[int, int],
    fn: Function,
    src: SourceFile,
) -> list[tuple[Poly, frozenset[str]]]:
    """The facts of `condition` (or of its negation) whose names stay fixed.

    Each with the unsigned names it reads: a comparison naming an `unsigned`
    (or wider) variable counts only where each side is such a variable or a
    literal, as then no conversion changes a value.
    """
    found = negated_facts(condition) if negate else condition_facts(condition)
    sides = condition_sides(condition, negate)
    out: list[tuple[Poly, frozenset[str]]] = []
    for at, (poly, equal) in enumerate(found):
        kinds = {n: _fixed(n, *span, fn, src) for n in poly.names()}
        if not all(kinds.values()):
            continue
        wide = frozenset(n for n, k in kinds.items() if k == "unsigned")
        if wide and (len(sides) != len(found) or not _plain_sides(sides[at], fn, src)):
            continue
        out.extend((f, wide) for f in ([poly, -poly] if equal else [poly]))
    return out


def _plain_sides(sides: tuple[str, str], fn: Function, source: SourceFile) -> bool:
    """Each side an unsigned (or narrow) variable or a decimal literal."""
    return all(
        side.isdigit()
        or (side.isidentifier() and _kind(side, fn, source) in ("unsigned", "narrow"))
        for side in sides
    )


def _type_facts(
    ref: Ref, fn: Function, source: SourceFile
) -> list[tuple[Poly, frozenset[str]]]:
    """`u >= 0` for each subscript that is an unsigned variable alone."""
    out: list[tuple[Poly, frozenset[str]]] = []
    for sub in ref.subscripts:
        name = sub.text.strip()
        if name.isidentifier() and _kind(name, fn, source) in ("unsigned", "narrow"):
            out.append((Poly.sym(name), frozenset({name})))
    return out


def _wrap_safe(ref: Ref, facts: list[tuple[Poly, frozenset[str]]]) -> list[Poly]:
    """The facts, less those on an unsigned variable a subscript does arithmetic on.

    `b[u - 1]` at `u == 0` reads `b[UINT_MAX]`, not `b[-1]`: the subscript's
    form is not its value there, so no bound of `u` may stand for it.
    """
    mixed = {
        n
        for sub in ref.subscripts
        if sub.poly is not None
        for n in sub.poly.names()
        if sub.text.strip() != n
    } | {
        n for sub in ref.subscripts if sub.poly is None for n in _WORD.findall(sub.text)
    }
    return [poly for poly, wide in facts if not wide & mixed]


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
    out = _type_facts(ref, fn, source)
    for arm in mine:
        if arm.kind == "if" and _holds(arm.span, ref.span):
            start = _if_start(arm, text, floor)
            if start is not None:
                span = (start, arm.span.end_byte)
                out += _kept(arm.condition, False, span, fn, source)
        elif arm.kind == "else" and _holds(arm.span, ref.span):
            then = _then_of(arm, thens, text)
            start = _if_start(then, text, floor) if then is not None else None
            if start is not None:
                span = (start, arm.span.end_byte)
                out += _kept(arm.condition, True, span, fn, source)
        elif arm.kind == "if" and arm.span.end_byte <= ref.span.start_byte:
            out += _continued(arm, ref, mine, fn, source)
    return _wrap_safe(ref, out)


def nest_guard_facts(
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
    cache: dict[object, object] | None = None,
) -> dict[int, list[Poly]]:
    """`guard_facts` of each guarded array reference of the nest, by start byte.

    `cache`: a file's shared store (`FileAnalysis.shared`), to read each once.
    """
    store: dict[object, object] = {} if cache is None else cache
    key_b = ("function_branches", fn.name if fn is not None else "")
    branches = store.get(key_b)
    if not isinstance(branches, list):
        branches = function_branches(fn, source) or []
        store[key_b] = branches
    own: dict[int, list[Poly]] = {}
    for r in loop.refs:
        if not branches or not any(c < 0 for c in r.context):
            continue
        if not (r.subscripts or r.deref):
            continue
        key_r = ("guard_facts", r.span.start_byte)
        facts = store.get(key_r)
        if not isinstance(facts, list):
            facts = store[key_r] = guard_facts(r, fn, source, branches)
        if facts:
            own[r.span.start_byte] = facts
    return own


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
) -> list[tuple[Poly, frozenset[str]]]:
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
    return _kept(arm.condition, True, (start, body.span.end_byte), fn, source)


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
