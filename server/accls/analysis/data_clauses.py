"""Data clauses as transfers: `copyin(a)` and `map(to: a)` both mean "copyin"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.pragma_scope import list_names
from accls.frontend import Directive, SourceFile, parse_directive

__all__ = [
    "ACC_TRANSFERS",
    "OMP_MAP_TRANSFERS",
    "Section",
    "clause_sections",
    "managed_arrays",
    "pragma_lines",
    "reduction_sections",
    "split_top",
    "transfer_kinds",
]

ACC_TRANSFERS: dict[str, str] = {
    "copy": "copy",
    "pcopy": "copy",
    "present_or_copy": "copy",
    "copyin": "copyin",
    "pcopyin": "copyin",
    "present_or_copyin": "copyin",
    "copyout": "copyout",
    "pcopyout": "copyout",
    "present_or_copyout": "copyout",
    "create": "create",
    "pcreate": "create",
    "present_or_create": "create",
    "present": "present",
    "deviceptr": "present",
    "no_create": "present",
    "attach": "present",
}
OMP_MAP_TRANSFERS: dict[str, str] = {
    "to": "copyin",
    "from": "copyout",
    "tofrom": "copy",
    "alloc": "create",
}
_OMP_OTHER = {"is_device_ptr": "present", "has_device_addr": "present"}


def transfer_kinds(directive: Directive) -> dict[str, str]:
    """Array name -> normalised transfer kind for every data clause of a directive."""
    out: dict[str, str] = {}
    twice: set[str] = set()
    for clause in directive.clauses:
        args = clause.args or ""
        if args.replace(" ", "").startswith(("zero:", "readonly:")):
            args = args.split(":", 1)[1]
            if clause.name in ACC_TRANSFERS and clause.name != "copyin":
                for name in list_names(args):
                    out.setdefault(name, "zero")  # zeroed on entry: reads are fine
                continue
        if directive.dialect == "acc":
            kind = ACC_TRANSFERS.get(clause.name)
        elif clause.name == "map":
            head = args.split("[")[0]
            words = (
                head.split(":", 1)[0].replace(",", " ").split() if ":" in head else []
            )
            kind = OMP_MAP_TRANSFERS.get(words[-1], "other") if words else "copy"
            args = args.split(":", 1)[1] if ":" in head else args
        else:
            kind = _OMP_OTHER.get(clause.name)
        if kind is None or not args:
            continue
        for name in list_names(args):
            if name in out:
                twice.add(name)
            out.setdefault(name, kind)
    return {name: kind for name, kind in out.items() if name not in twice}


def pragma_lines(source: SourceFile, start: int, end: int) -> list[Directive]:
    """Every acc/omp pragma written between two byte offsets."""
    text = source.data[start:end].decode("utf-8", errors="replace")
    lines = re.findall(r"#\s*pragma(?:[^\n]*\\\r?\n)*[^\n]*", text)
    return [d for d in (parse_directive(line) for line in lines) if d is not None]


def managed_arrays(source: SourceFile, dialect: str) -> set[str]:
    """Arrays some `update`, `enter`/`exit data` or `declare` in the file names."""
    out: set[str] = set()
    for d in pragma_lines(source, 0, len(source.data)):
        words = set(d.name.split())
        if d.dialect == dialect and words & {"update", "enter", "exit", "declare"}:
            for clause in d.clauses:
                out |= list_names(clause.args or "")
    return out


@dataclass(frozen=True, slots=True)
class Section:
    """One array named in a data clause, as written: `copyin(a[0:n])`."""

    name: str
    kind: str  # normalised: copy, copyin, copyout, create, present, other
    clause: str  # the clause for this array: `copyin(a[0:n])`, `map(to: a[0:n])`
    dims: tuple[tuple[str, str], ...]  # (start, length) texts; () for the whole array


def split_top(text: str) -> list[str]:
    """Split at commas outside brackets and parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "(["
        depth -= char in ")]"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


_ITEM = re.compile(r"\s*([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$")


def _dims(brackets: str) -> tuple[tuple[str, str], ...] | None:
    out: list[tuple[str, str]] = []
    for inner in re.findall(r"\[([^\]]*)\]", brackets):
        if ":" not in inner:
            return None  # `a[i]`: one element, not a section this check models
        start, length = inner.split(":", 1)
        if not length.strip():
            return None  # `a[lo:]`: to the declared end
        out.append((start.strip() or "0", length.strip()))
    return tuple(out)


def clause_sections(directive: Directive) -> list[Section]:
    """Every array a data clause names, with its section, in clause order."""
    out: list[Section] = []
    for clause in directive.clauses:
        args = clause.args or ""
        head = args.split("[")[0]
        modifier, body = args.split(":", 1) if ":" in head else ("", args)
        if directive.dialect == "acc":
            kind = ACC_TRANSFERS.get(clause.name, "")
            spell = f"{clause.name}({{}})"
        elif clause.name == "map":
            words = modifier.replace(",", " ").split()
            kind = OMP_MAP_TRANSFERS.get(words[-1], "other") if words else "copy"
            spell = f"map({modifier.strip()}: {{}})" if modifier else "map({})"
        else:
            continue
        if kind not in ("copy", "copyin", "copyout", "create", "present", "other"):
            continue
        for item in split_top(body):
            match = _ITEM.match(item)
            dims = _dims(match.group(2)) if match else None
            if match is not None and dims is not None:
                text = spell.format(item.strip())
                out.append(Section(match.group(1), kind, text, dims))
    return out


def reduction_sections(directive: Directive) -> list[Section]:
    """Every array section a `reduction` clause names: `reduction(+:c[0:10])`."""
    out: list[Section] = []
    for clause in directive.clauses:
        args = clause.args or ""
        head = args.split("[")[0]
        if clause.name != "reduction" or ":" not in head:
            continue
        at = head.rindex(":")
        op, body = args[:at], args[at + 1 :]
        for item in split_top(body):
            match = _ITEM.match(item)
            dims = _dims(match.group(2)) if match and match.group(2) else None
            if match is not None and dims:
                text = f"reduction({op.strip()}:{item.strip()})"
                out.append(Section(match.group(1), "reduction", text, dims))
    return out
