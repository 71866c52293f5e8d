"""Where a loop sits: enclosing compute constructs and data regions of a dialect."""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import Directive, Loop
from accls.suggest.pragma import Dialect

__all__ = ["Placement", "data_clause_names", "placement"]

_LEVELS = ("gang", "worker", "vector")
_DATA_CLAUSES = frozenset(
    [
        "copy",
        "copyin",
        "copyout",
        "create",
        "present",
        "pcopy",
        "pcopyin",
        "pcopyout",
        "pcreate",
        "present_or_copy",
        "present_or_copyin",
        "present_or_copyout",
        "present_or_create",
        "deviceptr",
        "no_create",
        "attach",
        "map",
        "use_device_ptr",
    ]
)


@dataclass(frozen=True, slots=True)
class Placement:
    """The constructs around a loop that decide which directive it may take."""

    compute: Directive | None = None  # innermost enclosing compute construct
    loop_levels: tuple[str, ...] = ()  # acc levels taken by enclosing loops
    inside_loop: Directive | None = None  # an enclosing worksharing/loop directive
    present: tuple[tuple[str, str], ...] = ()  # (array name, section text) on device


def data_clause_names(directive: Directive) -> dict[str, str]:
    """Array name -> section text, for every data clause of a directive."""
    out: dict[str, str] = {}
    for clause in directive.clauses:
        if clause.name not in _DATA_CLAUSES or not clause.args:
            continue
        args = clause.args
        if clause.name == "map" and ":" in args.split("[")[0]:
            args = args.split(":", 1)[1]
        depth = 0
        item = ""
        items: list[str] = []
        for char in args:
            if char in "([":
                depth += 1
            elif char in ")]":
                depth -= 1
            if char == "," and depth == 0:
                items.append(item)
                item = ""
            else:
                item += char
        items.append(item)
        for raw in items:
            text = "".join(raw.split())
            match = re.match(r"[A-Za-z_][\w.>-]*", text)
            if match:
                out.setdefault(match.group(0), text)
    return out


def _is_compute(directive: Directive) -> bool:
    words = set(directive.name.split())
    if directive.dialect == "acc":
        return bool(words & {"parallel", "kernels", "serial"})
    return bool(words & {"parallel", "target", "teams"})


def _is_loop(directive: Directive) -> bool:
    words = set(directive.name.split())
    if directive.dialect == "acc":
        return "loop" in words
    return bool(words & {"for", "distribute", "simd", "loop", "taskloop"})


def placement(loop: Loop, dialect: Dialect) -> Placement:
    """The enclosing constructs of `dialect` around `loop`."""
    sentinel = dialect.sentinel
    compute: Directive | None = None
    inside: Directive | None = None
    levels: list[str] = []
    present: dict[str, str] = {}
    for region in loop.regions:
        directive = region.directive
        if directive.dialect != sentinel:
            continue
        words = set(directive.name.split())
        if "data" in words and not words & {"enter", "exit"}:
            present.update(data_clause_names(directive))
            continue
        if _is_compute(directive):
            compute = directive
            present.update(data_clause_names(directive))
        if _is_loop(directive) and region.span.start_byte != loop.id:
            inside = directive
            named = [c.name for c in directive.clauses if c.name in _LEVELS]
            levels.extend(named or (["gang"] if not levels else []))
    return Placement(
        compute=compute,
        loop_levels=tuple(levels),
        inside_loop=inside,
        present=tuple(sorted(present.items())),
    )
