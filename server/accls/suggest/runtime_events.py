"""The OpenACC runtime's data calls as events of the user's hold model.

`acc_copyin(a, n * sizeof(*a))` holds `a[0:n]` exactly as `#pragma acc enter
data copyin(a[0:n])` does, `acc_copyout`/`acc_delete` end a hold as `exit
data` does, and `acc_update_self`/`acc_update_device` are `update`s of the
bytes they name. Each such call is read as the directive it stands for, so
`held_proof` judges a loop between them the same way. A call is read only
when its section is certain: the host address is a plain name, and the byte
count is an element count times the size of the array's element
(`n * sizeof(real_t)`, `sizeof(*a) * n`, `sizeof a` for an array object).
Other calls (the `_async` forms, whose queue accls does not follow,
`acc_map_data`, `acc_attach`, counts it cannot relate to the array) are not
events: the loop stays refused (`runtime_holds`).
"""

from __future__ import annotations

import re

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse
from accls.analysis.data_clauses import clause_sections
from accls.frontend import Call, Directive, Function, parse_directive
from accls.suggest.held_text import names_in, quiet
from accls.suggest.region_present import covers_use

__all__ = ["RUNTIME_EVENTS", "event_refusal", "modeled_events", "runtime_directive"]

# The routine (its `_finalize` form too) -> the directive and clause it stands for.
RUNTIME_EVENTS = {
    "acc_copyin": ("enter data", "copyin"),
    "acc_pcopyin": ("enter data", "copyin"),
    "acc_present_or_copyin": ("enter data", "copyin"),
    "acc_create": ("enter data", "create"),
    "acc_pcreate": ("enter data", "create"),
    "acc_present_or_create": ("enter data", "create"),
    "acc_copyout": ("exit data", "copyout"),
    "acc_copyout_finalize": ("exit data", "copyout"),
    "acc_delete": ("exit data", "delete"),
    "acc_delete_finalize": ("exit data", "delete"),
    "acc_update_device": ("update", "device"),
    "acc_update_self": ("update", "self"),
}
_NAME = re.compile(r"^[A-Za-z_]\w*$")
# An element count: names, numbers, `+ - *` and parentheses (no call, no write).
_COUNT = re.compile(r"^[\w\s+*()-]+$")
_TIMES = re.compile(r"^(?P<n>.+?)\s*\*\s*sizeof\s*\(\s*(?P<t>[^()]+?)\s*\)$")
_TIMES_FIRST = re.compile(r"^sizeof\s*\(\s*(?P<t>[^()]+?)\s*\)\s*\*\s*(?P<n>.+)$")
_WHOLE = re.compile(r"^sizeof\s*(?:\(\s*(?P<p>\w+)\s*\)|(?P<b>\w+))$")


def _element(fn: Function, name: str, sized: str) -> bool:
    """`sized` (the text in `sizeof(..)`) is the size of one element of `name`."""
    var = fn.lookup(name)
    if var is None or var.unknown_shape:
        return False
    one = len(var.dims) + var.pointers == 1
    words = re.sub(r"\s+", " ", sized)
    own = {f"*{name}", f"* {name}", f"(*{name})", f"{name}[0]"}
    return one and (words in own or words == var.type)


def _item(fn: Function, name: str, count: str) -> str | None:
    """The clause item the byte count `count` covers of `name`, if certain."""
    whole = _WHOLE.match(count)
    if whole is not None:
        var = fn.lookup(name)
        named = whole.group("p") or whole.group("b")
        if named == name and var is not None and var.dims and not var.pointers:
            return name if all(d is not None for d in var.dims) else None
        return None
    found = _TIMES.match(count) or _TIMES_FIRST.match(count)
    if found is None or not _element(fn, name, found.group("t")):
        return None
    n = found.group("n").strip()
    if not _COUNT.match(n) or "sizeof" in n:
        return None
    return f"{name}[0:{n}]"


def runtime_directive(fn: Function, call: Call) -> Directive | None:
    """The directive `call` stands for, or None when it is not a certain event."""
    event = RUNTIME_EVENTS.get(call.name)
    if event is None or len(call.args) != 2 or not _NAME.match(call.args[0]):
        return None
    item = _item(fn, call.args[0], call.args[1].strip())
    if item is None:
        return None
    directive, clause = event
    last = " finalize" if call.name.endswith("_finalize") else ""
    text = f"#pragma acc {directive} {clause}({item}){last}"
    return parse_directive(text, call.span)


def _statement(data: bytes, start: int, end: int) -> bool:
    """The call is a statement of its own in a block (not `if (c) f();`, `x = f()`)."""
    before = quiet(data, max(0, start - 400), start).rstrip()
    return before[-1:] in (b";", b"{", b"}") and data[end:].lstrip().startswith(b";")


def modeled_events(analysis: FileAnalysis, fn: Function) -> list[tuple[int, Directive]]:
    """`fn`'s runtime data calls that are certain events, as directives, in order."""
    key = ("runtime events", fn.name, fn.span.start_byte)
    kept = analysis.memo.get(key)
    if isinstance(kept, list):
        return kept
    out: list[tuple[int, Directive]] = []
    data = analysis.source.data
    for call in sorted(fn.call_sites, key=lambda c: c.span.start_byte):
        at = call.span.start_byte
        if not data.startswith(call.name.encode(), at) or not _statement(
            data, at, call.span.end_byte
        ):
            continue  # a macro spells it, or it is not a statement of its own
        directive = runtime_directive(fn, call)
        if directive is not None:
            out.append((call.span.start_byte, directive))
    analysis.memo[key] = out
    return out


def event_refusal(
    analysis: FileAnalysis,
    fn: Function,
    use: ArrayUse,
    start: int,
    directives: list[tuple[int, Directive]],
) -> str | None:
    """Why `fn`'s runtime events on `use`'s array bar the loop at `start`, or None.

    Each of them must cover every element the loop touches (a shorter byte
    count leaves part of it to the loop's own clause, on partly present
    data), and the array must be held once where the loop starts: a second
    `acc_copyin` counts the hold twice, and the first `acc_copyout` after the
    loop would then copy nothing back; a loop around it must open as many
    holds of the array as it ends.
    """
    name = use.name
    events = [(at, d) for at, d in modeled_events(analysis, fn) if names_in(d, name)]
    if not events:
        return None
    data = analysis.source.data
    for at, directive in events:
        sections = [s for s in clause_sections(directive) if s.name == name]
        if any(not covers_use(s, use) for s in sections):
            line = data.count(b"\n", 0, at) + 1
            return (
                f"the runtime call at line {line} holds only part of `{name}` "
                "that the loop touches: its data clause would find it partly present"
            )
    count = 0
    for at, directive in directives:
        if at >= start or not names_in(directive, name):
            continue
        if directive.name == "enter data":
            count += 1
        elif directive.name == "exit data":
            count = 0 if directive.clause("finalize") else max(0, count - 1)
    if count > 1:
        return (
            f"`{name}` is held {count} times where the loop starts (each "
            "`acc_copyin`/`enter data` counts): the first `acc_copyout` after it "
            "would copy nothing back"
        )
    if not _balanced(analysis, fn, start, name, directives):
        return (
            f"a loop around this one opens and ends the holds of `{name}` unevenly: "
            "its next iteration may find the array held where this one did not"
        )
    return None


def _balanced(
    analysis: FileAnalysis,
    fn: Function,
    start: int,
    name: str,
    directives: list[tuple[int, Directive]],
) -> bool:
    """Every loop around the one at `start` opens as many holds of `name` as it ends."""
    for outer in analysis.source.loops():
        a, b = outer.span.start_byte, outer.span.end_byte
        if outer.function != fn.name or not a < start < b:
            continue
        inside = [d for at, d in directives if a <= at < b and names_in(d, name)]
        opens = sum(d.name == "enter data" for d in inside)
        if opens != sum(d.name == "exit data" for d in inside):
            return False
    return True
