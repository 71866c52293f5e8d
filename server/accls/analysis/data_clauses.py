"""Data clauses as transfers: `copyin(a)` and `map(to: a)` both mean "copyin"."""

from __future__ import annotations

import re

from accls.analysis.pragma_scope import list_names
from accls.frontend import Directive, SourceFile, parse_directive

__all__ = ["managed_arrays", "pragma_lines", "transfer_kinds"]

_ACC_KINDS = {
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
_OMP_MAP = {"to": "copyin", "from": "copyout", "tofrom": "copy", "alloc": "create"}
_OMP_OTHER = {"is_device_ptr": "present", "has_device_addr": "present"}


def transfer_kinds(directive: Directive) -> dict[str, str]:
    """Array name -> normalised transfer kind for every data clause of a directive."""
    out: dict[str, str] = {}
    twice: set[str] = set()
    for clause in directive.clauses:
        args = clause.args or ""
        if args.replace(" ", "").startswith(("zero:", "readonly:")):
            args = args.split(":", 1)[1]
            if clause.name in _ACC_KINDS and clause.name != "copyin":
                for name in list_names(args):
                    out.setdefault(name, "zero")  # zeroed on entry: reads are fine
                continue
        if directive.dialect == "acc":
            kind = _ACC_KINDS.get(clause.name)
        elif clause.name == "map":
            head = args.split("[")[0]
            words = (
                head.split(":", 1)[0].replace(",", " ").split() if ":" in head else []
            )
            kind = _OMP_MAP.get(words[-1], "other") if words else "copy"
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
    lines = re.findall(r"#\s*pragma[^\n]*(?:\\\n[^\n]*)*", text)
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
