"""Forward substitution: scalars assigned earlier in the same iteration, in subscripts.

`j = 1; a[i][j] = ...` is `a[i][1]`, and `jj = i + 1; a[jj]` is `a[i + 1]`, as a
compiler sees them before its dependence test. A value is substituted only where
its assignment dominates the use and nothing can change it in between: the scalar
and every variable of its value are integer locals (or parameters) whose address is
never taken, the assignment is a whole statement inside a loop, in the same or an
enclosing branch as the use, no write to any of them lies between (in walk order,
or anywhere in a loop entered between them), and the function has no `goto`.
The scalar's own references stay as they are, so its classification (private,
lastprivate) does not change.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from accls.frontend.forward_values import Value, division_names, division_value
from accls.frontend.model import Ref, Subscript, Var
from accls.frontend.poly import Poly

__all__ = [
    "Definition",
    "LoopEntry",
    "Substituted",
    "forward_substitute",
    "integer_macros",
    "integer_scalar",
]

_INTEGER_WORDS = frozenset(
    {
        "int",
        "long",
        "unsigned",
        "signed",
        "size_t",
        "ssize_t",
        "ptrdiff_t",
        "intptr_t",
        "uintptr_t",
        "int32_t",
        "int64_t",
        "uint32_t",
        "uint64_t",
    }
)
_ATOM = re.compile(r"-?\w+")
# A cast to a narrow type wraps the value: `(char)(i + 1)` is not `i + 1`.
_NARROW_CAST = re.compile(
    r"\(\s*(?:(?:un)?signed\s+)?(?:char|short)\b|\bu?int(?:8|16)_t\b"
)
_TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|([-+*()<]{1,2}))"
)
_MAX_CHAIN = 8


@dataclass(frozen=True, slots=True)
class Definition:
    """`name = value;` as a whole statement (or an initializer) at refs[write]."""

    write: int  # index of the scalar's write in the walk's references
    name: str
    value: Subscript  # the right-hand side: its text and, macros expanded, its poly
    line: int


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a value is used: its branches, loops, and loops it must not change in."""

    context: tuple[int, ...]
    loops: tuple[int, ...]
    inside: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LoopEntry:
    """A loop's header, where its bounds are evaluated: before refs[start]."""

    id: int
    start: int
    context: tuple[int, ...]
    outer: tuple[int, ...]
    names: frozenset[str]  # the identifiers of its initializer and condition
    # Variables the header advances without setting them: their values on entry.
    entering: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Substituted:
    """The references rewritten, and the values of scalars in each loop's bounds."""

    refs: list[Ref]
    bounds: dict[int, tuple[dict[str, Poly], tuple[str, ...]]]
    # loop id -> the values of its `entering` variables when the loop starts
    entries: dict[int, dict[str, Subscript]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Function:
    """What the substitution needs to know of the whole function."""

    refs: Sequence[Ref]
    by_name: Mapping[str, list[Definition]]
    def_writes: Mapping[str, list[int]]  # name -> where its definitions write it
    writes: Mapping[str, list[int]]  # name -> indices of its writes, ascending
    loop_writes: Mapping[int, frozenset[str]]  # loop id -> names written inside
    cyclic: frozenset[int]  # contexts of `while`/`do` loops (and unmodelled `for`s)
    locals: frozenset[str]  # integer locals and parameters, address never taken
    globals: frozenset[str]  # integer globals, address not taken here
    constants: frozenset[str]  # object-like macros for integer constants
    calls: Sequence[tuple[int, tuple[int, ...]]]  # (refs before it, its loops)
    call_marks: Sequence[int]


def integer_scalar(var: Var) -> bool:
    """Whether `var` is a plain integer scalar (no pointer, no array)."""
    words = set(var.type.split())
    return bool(words) and words <= _INTEGER_WORDS and not var.pointers and not var.dims


def integer_macros(objects: Mapping[str, str], names: Iterable[str]) -> frozenset[str]:
    """The `names` that are object-like macros for integer constant expressions."""
    known: dict[str, bool] = {}

    def constant(name: str, depth: int) -> bool:
        if name in known:
            return known[name]
        body = objects.get(name)
        known[name] = False  # a cycle is not a constant
        if body is None or depth > _MAX_CHAIN or not body.strip():
            return False
        pos, ok = 0, True
        while ok and pos < len(body.rstrip()):
            match = _TOKEN.match(body, pos)
            if match is None or match.end() == pos:
                ok = False
                break
            pos = match.end()
            if match.group(2) is not None:
                ok = constant(match.group(2), depth + 1)
        known[name] = ok
        return ok

    return frozenset(n for n in names if constant(n, 0))


def forward_substitute(
    refs: Sequence[Ref],
    definitions: Sequence[Definition],
    variables: Sequence[Var],
    headers: Sequence[Var],
    globals_: Sequence[Var],
    calls: Sequence[tuple[int, tuple[int, ...]]],
    has_goto: bool,
    macros: Mapping[str, str],
    loops: Sequence[LoopEntry] = (),
    cyclic: frozenset[int] = frozenset(),
    skipped: frozenset[int] = frozenset(),
) -> Substituted:
    """`refs` with the dominating same-iteration values substituted into subscripts.

    `variables` are the function's parameters and locals, `headers` the variables
    declared in loop headers, `calls` the number of
    references recorded before each call and the call's loops, `macros` the
    object-like macros (integer constants among them stay as symbols), `cyclic`
    the contexts that repeat besides the `for` loops (`while`, `do`), `skipped`
    the references left as they are (those of `for` updates).
    """
    if has_goto or not definitions:
        return Substituted(list(refs), {})
    escaped = {r.name for r in refs if r.escapes}
    counts: dict[str, int] = {}
    unfit: set[str] = set()
    for var in (*variables, *headers):
        counts.setdefault(var.name, 0)
        if not integer_scalar(var) or var.static:
            unfit.add(var.name)
    for var in variables:
        counts[var.name] += 1
    # A name declared once in the body (or as a parameter), and else only in loop
    # headers (`for (int i = ...)`, whose scope is the loop), names one variable
    # wherever a definition and its use share a loop.
    locals_ = frozenset(n for n, c in counts.items() if c <= 1) - unfit - escaped
    by_name: dict[str, list[Definition]] = {}
    for item in definitions:
        if item.name in locals_:
            by_name.setdefault(item.name, []).append(item)
    if not by_name:
        return Substituted(list(refs), {})
    global_ints = (
        frozenset(
            g.name for g in globals_ if integer_scalar(g) and g.name not in counts
        )
        - escaped
    )
    writes: dict[str, list[int]] = {}
    loop_writes: dict[int, set[str]] = {}
    for index, ref in enumerate(refs):
        if ref.is_write:
            writes.setdefault(ref.name, []).append(index)
            for loop in ref.context:
                if loop >= 0 or loop in cyclic:
                    loop_writes.setdefault(loop, set()).add(ref.name)
    used = {
        n
        for d in definitions
        for n in (d.value.poly.names() if d.value.poly else division_names(d.value))
    }
    constants = integer_macros(macros, used - set(counts) - {g.name for g in globals_})
    facts = _Function(
        refs=refs,
        by_name=by_name,
        def_writes={k: [d.write for d in v] for k, v in by_name.items()},
        writes=writes,
        loop_writes={k: frozenset(v) for k, v in loop_writes.items()},
        cyclic=cyclic,
        locals=locals_,
        globals=global_ints,
        constants=constants,
        calls=calls,
        call_marks=[mark for mark, _ in calls],
    )
    out: list[Ref] = []
    for index, ref in enumerate(refs):
        if (
            index in skipped
            or not ref.subscripts
            or not any(
                s.poly is not None
                and not s.indirect
                and s.poly.names() & by_name.keys()
                for s in ref.subscripts
            )
        ):
            out.append(ref)
            continue
        subs = tuple(_rewrite(facts, s, index) for s in ref.subscripts)
        out.append(ref if subs == ref.subscripts else replace(ref, subscripts=subs))
    return Substituted(
        out,
        {e.id: _bounds(facts, e) for e in loops},
        {e.id: _entering(facts, e) for e in loops if e.entering},
    )


def _entering(facts: _Function, entry: LoopEntry) -> dict[str, Subscript]:
    """The values that reach a loop's header, whatever the loop then does to them."""
    place = _Place(entry.context, entry.outer)
    out: dict[str, Subscript] = {}
    for name in sorted(entry.entering & facts.by_name.keys()):
        value = _reaching(facts, name, entry.start, 0, place)
        if value is not None and value.poly is not None:
            line = _line(facts, name, entry.start)
            note = f"`{name}` is {value.text} when the loop starts (line {line})"
            out[name] = Subscript(value.text, value.poly, values=(note,))
    return out


def _bounds(
    facts: _Function, entry: LoopEntry
) -> tuple[dict[str, Poly], tuple[str, ...]]:
    """The values that reach a loop's header and that its body leaves unchanged."""
    place = _Place(entry.context, entry.outer, (entry.id,))
    values: dict[str, Poly] = {}
    notes: list[str] = []
    for name in sorted(entry.names & facts.by_name.keys()):
        value = _reaching(facts, name, entry.start, 0, place)
        if value is not None and value.poly is not None:
            values[name] = value.poly
            found = _latest(facts, name, entry.start)
            line = found.line if found is not None else 0
            notes.append(f"`{name}` is {value.text} here (line {line})")
    return values, tuple(notes)


def _rewrite(facts: _Function, sub: Subscript, at: int) -> Subscript:
    """`sub`, used by refs[at], with the values that reach it substituted."""
    if sub.poly is None or sub.indirect:
        return sub
    values: dict[str, Poly | None] = {}
    text = sub.text
    notes: list[str] = []
    for name in sorted(sub.poly.names() & facts.by_name.keys()):
        word = _word(name)
        if not word.search(text):
            continue  # it comes from a macro's body: the text could not show it
        value = _reaching(facts, name, at, 0)
        if value is None:
            continue
        values[name] = value.poly
        bare = _ATOM.fullmatch(value.text) or text.strip() == name
        text = word.sub(value.text if bare else f"({value.text})", text)
        notes.append(f"`{name}` is {value.text} here (line {_line(facts, name, at)})")
    if not values:
        return sub
    polys = {k: v for k, v in values.items() if v is not None}
    return Subscript(
        text=text,  # a remainder's text only: the dependence test parses it again
        poly=sub.poly.substitute(polys) if len(polys) == len(values) else None,
        indirect=False,
        values=(*sub.values, *notes),
    )


def _word(name: str) -> re.Pattern[str]:
    """`name` as a variable in C text, not as a field (`s.name`, `p->name`)."""
    return re.compile(rf"(?<!\.)(?<!->)\b{re.escape(name)}\b")


def _line(facts: _Function, name: str, at: int) -> int:
    found = _latest(facts, name, at)
    return found.line if found is not None else 0


def _latest(facts: _Function, name: str, at: int) -> Definition | None:
    items = facts.by_name.get(name, [])
    pos = bisect_left(facts.def_writes.get(name, []), at)
    return items[pos - 1] if pos else None


def _reaching(
    facts: _Function, name: str, at: int, depth: int, place: _Place | None = None
) -> Value | None:
    """The value of `name` at refs[at] (or at `place`), if one definition gives it."""
    found = _latest(facts, name, at)
    if found is None or depth > _MAX_CHAIN:
        return None
    value = _resolved(facts, found, depth)
    if value is None:
        return None
    origin = facts.refs[found.write]
    use = place or _Place(facts.refs[at].context, facts.refs[at].loops)
    if not origin.loops or use.context[: len(origin.context)] != origin.context:
        return None
    watched = {name, *value.names}
    for var in watched:
        places = facts.writes.get(var, [])
        if bisect_left(places, at) - bisect_right(places, found.write):
            return None  # written in between
    entered = [
        c for c in use.context[len(origin.context) :] if c >= 0 or c in facts.cyclic
    ]
    entered.extend(use.inside)
    if any(watched & facts.loop_writes.get(loop, frozenset()) for loop in entered):
        return None  # written later in a loop the use repeats in
    if value.names & facts.globals:
        marks = facts.call_marks
        if bisect_right(marks, at) - bisect_right(marks, found.write):
            return None
        if any(set(loops) & set(entered) for _, loops in facts.calls):
            return None
        if any(c < 0 for c in entered):
            return None  # a `while` loop entered between: its calls are not placed
    return value


def _resolved(facts: _Function, item: Definition, depth: int) -> Value | None:
    """The definition's value, itself substituted, if it may be substituted at all."""
    value = item.value
    if value.indirect or _NARROW_CAST.search(value.text):
        return None
    if value.poly is None:
        return division_value(
            value, item.name, facts.locals | facts.globals | facts.constants
        )
    poly, text = value.poly, " ".join(value.text.split())
    for name in sorted(poly.names() & facts.by_name.keys()):
        word = _word(name)
        if not word.search(text):
            continue
        inner = _reaching(facts, name, item.write, depth + 1)
        if inner is None or inner.poly is None:
            continue
        poly = poly.substitute({name: inner.poly})
        shown = inner.text if _ATOM.fullmatch(inner.text) else f"({inner.text})"
        text = word.sub(shown, text)
    names = poly.names()
    if item.name in names:
        return None  # `j = j + 1`: the old value, which the use cannot name
    if not names <= facts.locals | facts.globals | facts.constants:
        return None  # a field, a float, an unknown name
    # What changes within the definition's outermost loop; the rest is invariant.
    loops = facts.refs[item.write].loops
    moving = names & facts.loop_writes.get(loops[0], frozenset()) if loops else names
    for mono, _ in poly.terms:
        if len(mono) > 1 and len(moving.intersection(mono)) > 1:
            return None  # not affine in what changes: `i*i`, `i*j`
        if len(mono) > 1 and len(mono) != len(set(mono)) and moving & set(mono):
            return None
    return Value(poly, text, frozenset(names))
