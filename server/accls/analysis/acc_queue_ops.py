"""The OpenACC constructs of a function as queue operations: what each touches, where.

Each construct reads and writes host and device copies of arrays; a copy is named
by cells: a subscript (`x`, `n + x`), a section (`0:n`), or `*` for the whole array.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import Directive, Function, Ref, SourceFile, Span, parse_directive

__all__ = [
    "Cells",
    "QueueOp",
    "acc_pragmas",
    "overlap",
    "present_arrays",
    "queue_ops",
    "queue_text",
    "queues",
    "ref_cell",
]

Cells = frozenset[tuple[str, str]]
"""(array, cell) pairs."""

_PRAGMA = re.compile(rb"#[ \t]*pragma[ \t]+acc\b(?:[^\n]*\\\r?\n)*[^\n]*")
_ITEM = re.compile(r"([A-Za-z_]\w*)\s*((?:\[[^\]]*\])*)")
_COMPUTE = frozenset({"parallel", "kernels", "serial"})
_IN = frozenset({"copy", "copyin", "pcopy", "pcopyin"})
_IN |= {"present_or_copy", "present_or_copyin"}
_OUT = frozenset({"copy", "copyout", "pcopy", "pcopyout"})
_OUT |= {"present_or_copy", "present_or_copyout"}
_FALSE = frozenset({"0", "false", "(0)"})
_SMALL = re.compile(r"(?:[A-Za-z_]\w*|\d+)(?:\s*[+-]\s*\d+)?")


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueOp:
    """One OpenACC construct with its queue and the copies it touches."""

    directive: Directive
    pos: int  # the pragma
    end: int  # the end of what it governs (the pragma's end when standalone)
    line: int
    queue: str | None  # the `async` argument ("" when bare); None: synchronous
    waits: tuple[str, ...] | None  # the `wait` clause's queues, () for all
    host_reads: Cells
    host_writes: Cells
    dev_reads: Cells
    dev_writes: Cells
    compute: bool = False


def queue_text(args: str | None) -> str:
    """A queue expression with white space folded."""
    return " ".join((args or "").split())


def queues(args: str | None) -> tuple[str, ...]:
    """The queues of a `wait(...)` list, () for every queue."""
    return tuple(q for q in (queue_text(p) for p in (args or "").split(",")) if q)


def _first_dim(cell: str) -> str:
    return cell[1:].split("]", 1)[0].strip() if cell.startswith("[") else cell


def overlap(one: str, other: str) -> bool:
    """True if two cells surely share an element; different subscripts: unsure, no."""
    if "*" in (one, other) or one == other:
        return True
    a, b = _first_dim(one), _first_dim(other)
    if (":" in a) == (":" in b):
        return False
    section, element = (a, b) if ":" in a else (b, a)
    low = "".join(section.split(":", 1)[0].split())
    if low == "0":
        return _SMALL.fullmatch(element.strip()) is not None
    return "".join(element.split()).startswith(low)


def ref_cell(ref: Ref) -> str:
    """The cell a reference touches: `[x]`, or `*` for a scalar or `*p`."""
    if not ref.subscripts:
        return "*"
    return "".join(f"[{' '.join(s.text.split())}]" for s in ref.subscripts)


def _clause_cells(directive: Directive, names: frozenset[str]) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for clause in directive.clauses:
        if clause.name in names and clause.args:
            for match in _ITEM.finditer(clause.args):
                out.add((match.group(1), match.group(2).replace(" ", "") or "*"))
    return out


def acc_pragmas(source: SourceFile, fn: Function) -> list[tuple[int, int, Directive]]:
    """The function's well-formed OpenACC pragmas: (start, end, directive)."""
    data = source.data
    out: list[tuple[int, int, Directive]] = []
    for match in _PRAGMA.finditer(data, fn.span.start_byte, fn.span.end_byte):
        row = data.count(b"\n", 0, match.start())
        col = match.start() - (data.rfind(b"\n", 0, match.start()) + 1)
        span = Span(match.start(), match.end(), (row, col), (row, col))
        directive = parse_directive(match.group(0).decode("utf-8", "replace"), span)
        if directive is not None and not directive.malformed:
            out.append((match.start(), match.end(), directive))
    return out


def _governed_end(source: SourceFile, pos: int) -> int | None:
    """The end of the statement a compute construct governs, from its loops."""
    best: int | None = None
    for loop in source.loops():
        ends = [loop.span.end_byte for d in loop.pragmas if _at(d.span, pos)]
        ends += [r.span.end_byte for r in loop.regions if _at(r.directive.span, pos)]
        if ends:
            best = max([*ends, best or 0])
    return best


def _at(span: Span | None, pos: int) -> bool:
    return span is not None and span.start_byte == pos


def present_arrays(source: SourceFile) -> set[str]:
    """Arrays some `data`, `enter data` or `declare` makes present on the device."""
    out: set[str] = set()
    for match in _PRAGMA.finditer(source.data):
        directive = parse_directive(match.group(0).decode("utf-8", "replace"))
        words = set(directive.name.split()) if directive is not None else set()
        if (
            directive is not None
            and words & {"data", "enter", "declare"}
            and not (words & _COMPUTE)
        ):
            out |= {name for name, _ in _clause_cells(directive, _ANY)}
    return out


_ANY = frozenset(
    {"copy", "copyin", "copyout", "create", "present", "deviceptr", "pcopy"}
    | {"pcopyin", "pcopyout", "pcreate", "present_or_copy", "link", "device_resident"}
)


def _body_cells(
    source: SourceFile, fn: Function, pos: int, end: int
) -> tuple[set[tuple[str, str]], set[tuple[str, str]], set[str]]:
    reads: set[tuple[str, str]] = set()
    writes: set[tuple[str, str]] = set()
    names: set[str] = set()
    globals_ = {g.name: g for g in source.globals}
    for ref in fn.refs:
        if not pos <= ref.span.start_byte < end:
            continue
        var = fn.lookup(ref.name) or globals_.get(ref.name)
        if var is None or not var.is_array or not (ref.subscripts or ref.deref):
            continue
        names.add(ref.name)
        if ref.is_write:
            writes.add((ref.name, ref_cell(ref)))
        if ref.is_read:
            reads.add((ref.name, ref_cell(ref)))
    return reads, writes, names


def _op(
    source: SourceFile,
    fn: Function,
    at: tuple[int, int, Directive],
    present: set[str],
) -> QueueOp | None:
    pos, end, directive = at
    words = set(directive.name.split())
    guard = directive.clause("if")
    if guard is not None and queue_text(guard.args) in _FALSE:
        return None  # `if(false)`: the construct does nothing
    host_in = _clause_cells(directive, _IN)
    host_out = _clause_cells(directive, _OUT)
    # A copy into fresh device memory, or none (the data is present): either way
    # no earlier device work sees it. Copies out read the device copy.
    dev_writes: set[tuple[str, str]] = set()
    dev_reads = set(host_out)
    compute = bool(words & _COMPUTE)
    if "update" in words:
        host_out = _clause_cells(directive, frozenset({"self", "host"}))
        host_in = _clause_cells(directive, frozenset({"device"}))
        dev_writes, dev_reads = set(host_in), set(host_out)
    elif compute:
        governed = _governed_end(source, pos)
        if governed is None:
            return None
        end = governed
        reads, writes, names = _body_cells(source, fn, pos, end)
        # A construct's clauses copy only what is not present yet: the file may
        # make it present, and then nothing moves.
        host_in = {c for c in host_in if c[0] not in present}
        host_out = {c for c in host_out if c[0] not in present}
        dev_reads = reads
        dev_writes = writes
        named = {name for name, _ in _clause_cells(directive, _ANY)}
        for name in sorted(names - named - present):
            # An array neither named nor present is copied in and out implicitly.
            host_in.add((name, "*"))
            host_out.add((name, "*"))
    elif "data" in words and not words & {"enter", "exit"}:
        # A data region's copies happen at its ends: only its queue and waits count.
        host_in, host_out, dev_writes, dev_reads = set(), set(), set(), set()
    elif not words & {"enter", "exit"}:
        return None
    async_clause = directive.clause("async")
    wait = directive.clause("wait")
    return QueueOp(
        directive=directive,
        pos=pos,
        end=end,
        line=directive.span.line if directive.span is not None else 0,
        queue=None if async_clause is None else queue_text(async_clause.args),
        waits=None if wait is None else queues(wait.args),
        host_reads=frozenset(host_in),
        host_writes=frozenset(host_out),
        dev_reads=frozenset(dev_reads),
        dev_writes=frozenset(dev_writes),
        compute=compute,
    )


def queue_ops(
    source: SourceFile, fn: Function, present: set[str]
) -> tuple[list[QueueOp], bool]:
    """The function's queue operations; False if a compute construct is unbounded."""
    ops: list[QueueOp] = []
    for at in acc_pragmas(source, fn):
        made = _op(source, fn, at, present)
        if made is None and set(at[2].name.split()) & _COMPUTE:
            return [], False
        if made is not None:
            ops.append(made)
    return ops, True
