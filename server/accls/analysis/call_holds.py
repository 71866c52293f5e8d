"""What a caller holds on the device around each call, argument by argument.

`main` does `#pragma acc enter data copyin(a[0:n]) create(b[0:n])`, calls
`kernel(a, b, n)` and ends the hold with `update self(b[0:n])` and `exit data`.
The kernel, in another file, reads this record from the workspace index: a
loop of it offloaded there finds its data present (its copy clauses move
nothing), so it may say `present`, or must be refused when the hold is not
proved coherent (see `suggest/held_copies`).

The proof here is deliberately narrow: between the directive that starts the
hold and the one that ends it, in the caller's own block, the text names the
argument nowhere but in the call and in directives, calls nothing else, stores
through no pointer and never leaves (`return`, `break`, `goto`). Then the
device copy is the host's at the call when the hold copies it in (or an
`update device` does), and what the call writes comes back where the copy
back sections say. Anything else is recorded as held but not quiet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from accls.analysis.data_clauses import split_top
from accls.frontend import Call, Directive, Function, SourceFile, parse_directive

__all__ = ["ArgHold", "Dims", "call_holds"]

Dims = tuple[tuple[str, str], ...]  # (start, length) texts; () for the whole array

_PATH = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*$")
_DIM = re.compile(r"\[([^\[\]:]*):([^\[\]]*)\]")
_ENTER = frozenset({"enter data", "target enter data"})
_EXIT = frozenset({"exit data", "target exit data"})
_REGION = frozenset({"data", "target data"})
_UPDATE = frozenset({"update", "target update"})
_IN = frozenset({"copy", "copyin", "pcopy", "pcopyin", "present_or_copy"})
_IN |= frozenset({"present_or_copyin", "to", "tofrom"})
_OUT = frozenset({"copy", "copyout", "pcopy", "pcopyout", "present_or_copy"})
_OUT |= frozenset({"present_or_copyout", "from", "tofrom"})
_HOLD = _IN | _OUT | frozenset({"create", "pcreate", "present_or_create", "alloc"})
_TO_DEVICE = frozenset({"device", "to"})
_TO_HOST = frozenset({"self", "host", "from"})
_SKIP = re.compile(
    rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*'
    rb"|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*",
    re.DOTALL | re.MULTILINE,
)
_PRAGMA = re.compile(rb"#[ \t]*pragma[ \t]+(acc|omp)\b(?:[^\n]*\\\r?\n)*[^\n]*")
_BRACE = re.compile(rb"[{}]")
_NOT_NL = re.compile(rb"[^\n]")
_KEYWORDS = frozenset({b"for", b"while", b"if", b"switch", b"sizeof", b"do"})
_CALLED = re.compile(rb"([A-Za-z_]\w*)\s*\(")
_LEAVES = re.compile(rb"\b(?:return|break|continue|goto|exit|abort|longjmp)\b")


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgHold:
    """A hold of one argument around one call, and what the narrow proof found."""

    at: int  # the argument's position
    sentinel: str  # `acc` or `omp`
    line: int  # the line of the directive that starts the hold
    dims: Dims  # the section held
    quiet: bool  # the hold ends in the block and nothing else touches the data
    fresh: bool  # the device copy is the host's at the call
    back: tuple[Dims, ...]  # the sections copied back to the host after the call
    # The member held, in the callee's terms: `->a` for `p->a` held and `p`
    # (or `s.a` and `&s`) passed; "" for the argument's own data. For a global
    # of the program held around the call (`at` is -1), its name.
    member: str = ""


@dataclass(frozen=True, slots=True)
class _Item:
    name: str
    kind: str
    dims: Dims


@lru_cache(maxsize=1024)  # each call of the caller reads the same directives
def _items(directive: Directive) -> tuple[_Item, ...]:
    """Every data item of the directive's clauses (member paths too)."""
    out: list[_Item] = []
    for clause in directive.clauses:
        args, kind = clause.args or "", clause.name
        if kind == "map":
            head, _, rest = args.partition(":")
            kind = head.split(",")[-1].strip() if rest else "tofrom"
            args = rest or args
        for item in split_top(args):
            name, _, tail = item.partition("[")
            dims = tuple(
                (a.strip(), b.strip())
                for a, b in _DIM.findall("[" + tail if tail else "")
            )
            out.append(_Item(re.sub(r"\s+", "", name), kind, dims))
    return tuple(out)


def _directives(
    data: bytes, caller: Function, sentinel: str
) -> list[tuple[int, Directive]]:
    """The caller's well-formed pragmas of `sentinel`, with their offsets."""
    out: list[tuple[int, Directive]] = []
    span = caller.span
    for match in _PRAGMA.finditer(data, span.start_byte, span.end_byte):
        text = match.group(0)
        if not any(w in text for w in (b"data", b"update", b"declare")):
            continue  # no data directive: nothing held
        if match.group(1).decode() == sentinel:
            directive = parse_directive(match.group(0).decode("utf-8", "replace"))
            if directive is not None and not directive.malformed:
                out.append((match.start(), directive))
    return out


def _named(directive: Directive, name: str) -> list[_Item]:
    return [i for i in _items(directive) if i.name == name]


def _code(data: bytes, start: int, end: int) -> bytes:
    """The text between the offsets without comments, strings and pragma lines."""
    return _SKIP.sub(lambda m: _NOT_NL.sub(b" ", m.group(0)), data[start:end])


def _quiet(data: bytes, spans: list[tuple[int, int]], base: str) -> bool:
    """Nothing in the spans names `base`, calls, stores through a pointer or leaves."""
    word = re.compile(rb"\b" + re.escape(base.encode()) + rb"\b")
    for start, end in spans:
        code = _code(data, start, end)
        if word.search(code) or _LEAVES.search(code):
            return False
        if any(c in code for c in (b"[", b"->", b"*")):
            return False
        if any(m.group(1) not in _KEYWORDS for m in _CALLED.finditer(code)):
            return False
    return True


def _steady(data: bytes, spans: list[tuple[int, int]], dims: Dims) -> bool:
    """No name of the section's bounds is assigned in the spans (`n = n / 2`)."""
    names = {n for d in dims for t in d for n in re.findall(r"[A-Za-z_]\w*", t)}
    for name in names:
        word = re.escape(name.encode())
        written = re.compile(
            rb"\b" + word + rb"\s*(?:[-+*/%&|^]?=(?!=)|\+\+|--)"
            rb"|(?:\+\+|--|&)\s*" + word + rb"\b"
        )
        if any(written.search(_code(data, a, b)) for a, b in spans):
            return False
    return True


def _balanced(data: bytes, start: int, end: int) -> bool:
    """The braces between the offsets never close the block `start` lies in."""
    depth = 0
    for brace in _BRACE.finditer(_code(data, start, end)):
        depth += 1 if brace.group(0) == b"{" else -1
        if depth < 0:
            return False
    return depth == 0


@lru_cache(maxsize=256)  # every call in a `data` block asks again
def _block_end(data: bytes, start: int, end: int) -> int | None:
    """The offset after the `{` block right after `start`, if one opens before `end`."""
    code = _code(data, start, end)
    at = len(code) - len(code.lstrip())
    if code[at : at + 1] != b"{":
        return None
    depth = 0
    for offset in range(at, len(code)):
        depth += code[offset] == 0x7B
        depth -= code[offset] == 0x7D
        if code[offset] == 0x7D and depth == 0:
            return start + offset + 1
    return None


def _hold(
    source: SourceFile,
    directives: list[tuple[int, Directive]],
    call: Call,
    name: str,
    limit: int,
) -> tuple[int, int | None, Directive, Directive | None] | None:
    """The innermost hold of `name` around the call: start, end, opening, closing.

    `limit`: the end of the caller, where every block of it ends.
    """
    data, start = source.data, call.span.start_byte
    found: tuple[int, int | None, Directive, Directive | None] | None = None
    for at, directive in directives:
        if at >= start or not any(i.kind in _HOLD for i in _named(directive, name)):
            continue
        line_end = data.find(b"\n", at)
        if directive.name in _REGION:
            until = _block_end(data, line_end if line_end >= 0 else at, limit)
            if until is None:
                found = (at, None, directive, None)
            elif until > call.span.end_byte:
                found = (at, until, directive, None)
        elif directive.name in _ENTER:
            closing = next(
                (
                    (c, d)
                    for c, d in directives
                    if c > at and d.name in _EXIT and _named(d, name)
                ),
                None,
            )
            if closing is None:
                found = (at, None, directive, None)
            elif closing[0] > start:
                found = (at, closing[0], directive, closing[1])
    return found


def _held_names(
    text: str, directives: list[tuple[int, Directive]]
) -> list[tuple[str, str]]:
    """The names held that an argument reaches, each with its callee-side member."""
    text = re.sub(r"\s+", "", text)
    named = {i.name for _, d in directives for i in _items(d)}
    out: list[tuple[str, str]] = []
    if _PATH.match(text):
        out.append((text, ""))
        prefix = text + "->"
    elif text.startswith("&") and _PATH.match(text[1:]):
        prefix = text[1:] + "."
    else:
        return out
    out += [
        (n, "->" + n[len(prefix) :])
        for n in sorted(named)
        if n.startswith(prefix) and _PATH.match(n[len(prefix) :])
    ]
    return out


def _arg_hold(
    source: SourceFile,
    directives: list[tuple[int, Directive]],
    call: Call,
    at: int,
    sentinel: str,
    held_name: tuple[str, str],
    limit: int,
) -> ArgHold | None:
    name, member = held_name
    hold = _hold(source, directives, call, name, limit)
    if hold is None:
        return None
    data = source.data
    opened, until, opening, closing = hold
    held = [i for i in _named(opening, name) if i.kind in _HOLD]
    line = data.count(b"\n", 0, opened) + 1
    body = data.find(b"\n", opened) + 1
    if until is None or not _balanced(data, body, until):
        return ArgHold(
            at=at, sentinel=sentinel, line=line, dims=held[0].dims, quiet=False,
            fresh=False, back=(), member=member,
        )  # fmt: skip
    base = re.split(r"->|\.", name)[0]
    spans = [(body, call.span.start_byte), (call.span.end_byte, until)]
    quiet = _quiet(data, spans, base) and _steady(data, spans, held[0].dims)
    after = call.span.end_byte
    between = [d for c, d in directives if after < c < until and d.name in _UPDATE]
    before = [d for c, d in directives if opened < c < call.span.start_byte]
    fresh = any(i.kind in _IN for i in held) or any(
        i.kind in _TO_DEVICE
        for d in before
        if d.name in _UPDATE
        for i in _named(d, name)
    )
    back = [i.dims for i in held if i.kind in _OUT and opening.name in _REGION]
    if closing is not None:
        back += [i.dims for i in _named(closing, name) if i.kind in _OUT]
    back += [i.dims for d in between for i in _named(d, name) if i.kind in _TO_HOST]
    return ArgHold(
        at=at, sentinel=sentinel, line=line, dims=held[0].dims, quiet=quiet,
        fresh=fresh, back=tuple(back), member=member,
    )  # fmt: skip


def _declared(source: SourceFile, caller: Function, sentinel: str) -> set[str]:
    """The names a `declare` (OpenMP: `declare target`) of the file holds for good.

    Its own and the file's; a `link` holds nothing. OpenMP blocks hold the
    globals declared inside them.
    """
    data, out = source.data, set()
    spans: list[tuple[int, int]] = []
    for match in _PRAGMA.finditer(data):
        if b"declare" not in match.group(0):
            continue
        inside = caller.span.start_byte <= match.start() < caller.span.end_byte
        mine = inside or not any(
            f.span.start_byte <= match.start() < f.span.end_byte
            for f in source.functions
        )
        directive = parse_directive(match.group(0).decode("utf-8", "replace"))
        if not mine or directive is None or directive.dialect != sentinel:
            continue
        if "declare" in directive.name and "end" not in directive.name:
            items = [i.name for i in _items(directive) if i.kind != "link"]
            out.update(items)
            if sentinel == "omp" and not directive.clauses:
                close = data.find(b"end declare target", match.end())
                spans.append((match.end(), close if close >= 0 else len(data)))
    out |= {
        g.name
        for g in source.globals
        for a, b in spans
        if g.span is not None and a < g.span.start_byte < b
    }
    return out


def _global_names(
    source: SourceFile, caller: Function, directives: list[tuple[int, Directive]]
) -> list[tuple[str, str]]:
    """The program's globals the caller's directives name, each as its own member."""
    names = {g.name for g in source.globals}
    named = {i.name for _, d in directives for i in _items(d)}
    out: list[tuple[str, str]] = []
    for n in sorted(named & names):
        var = caller.lookup(n)
        if var is None or var.scope == "global":
            out.append((n, n))
    return out


def call_holds(
    source: SourceFile,
    caller: Function,
    call: Call,
    memo: dict[tuple[str, str], tuple[set[str], list[tuple[int, Directive]]]]
    | None = None,
) -> tuple[ArgHold, ...]:
    """The holds of the call's arguments (and of globals) by the caller's directives.

    A `declare` holds for good: an argument it names is recorded held, never
    quiet. `memo` keeps each caller's directives for its other calls.
    """
    data = source.data
    span = (caller.span.start_byte, call.span.start_byte)
    if b"declare" not in data and data.find(b"data", *span) < 0:
        return ()
    out: list[ArgHold] = []
    end = caller.span.end_byte
    for sentinel in ("acc", "omp"):
        key = (caller.name, sentinel)
        scan = None if memo is None else memo.get(key)
        if scan is None:
            scan = (
                _declared(source, caller, sentinel),
                _directives(source.data, caller, sentinel),
            )
            if memo is not None:
                memo[key] = scan
        declared, directives = scan
        for at, text in enumerate(call.args):
            name = re.sub(r"\s+", "", text).lstrip("&")
            if name in declared:  # held for good, whatever else holds it
                out.append(_forever(at, sentinel, call, ""))
            for held in _held_names(text, directives):
                if held[1] == "" and name in declared:
                    continue
                found = _arg_hold(source, directives, call, at, sentinel, held, end)
                if found is not None:
                    out.append(found)
        forever = declared & {g.name for g in source.globals}
        for name in sorted(forever):
            out.append(_forever(-1, sentinel, call, name))
        for held in _global_names(source, caller, directives):
            if held[0] in forever:
                continue
            found = _arg_hold(source, directives, call, -1, sentinel, held, end)
            if found is not None:
                out.append(found)
    return tuple(out)


def _forever(at: int, sentinel: str, call: Call, member: str) -> ArgHold:
    """A hold by a `declare`: for the whole program, never proved coherent here."""
    return ArgHold(
        at=at, sentinel=sentinel, line=call.span.line, dims=(), quiet=False,
        fresh=False, back=(), member=member,
    )  # fmt: skip
