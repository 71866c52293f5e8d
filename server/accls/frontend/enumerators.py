"""The enumerators a file (or its headers) declares at file scope, with their values.

`enum TimerHandle { totalTimer, loopTimer, numberOfTimers };` makes
`numberOfTimers` the integer constant 2, as surely as `#define`. Each value is kept
as C text (`(4) + 1` after `b = 4`), for the cost model to evaluate. Scoped C++
enumerations (`enum class`) are left out: their names are not bare.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text
from accls.frontend.tsparser import top_level_nodes

__all__ = ["file_enumerators"]

_HOLDERS = frozenset({"enum_specifier", "declaration", "type_definition"})


def _enum_nodes(node: Node) -> list[Node]:
    if node.type == "enum_specifier":
        return [node]
    return [c for c in node.named_children if c.type == "enum_specifier"]


def file_enumerators(root: Node) -> tuple[tuple[str, str], ...]:
    """Each file-scope enumerator under `root`: its name and its value's text."""
    out: list[tuple[str, str]] = []
    for top in top_level_nodes(root):
        if top.type not in _HOLDERS:
            continue
        for enum in _enum_nodes(top):
            body = enum.child_by_field_name("body")
            scoped = any(c.type in ("class", "struct") for c in enum.children)
            if body is None or scoped:
                continue
            base, offset = "0", 0
            for item in body.named_children:
                if item.type != "enumerator":
                    continue
                name = item.child_by_field_name("name")
                value = item.child_by_field_name("value")
                if name is None:
                    continue
                if value is not None:
                    base, offset = node_text(value), 0
                text = base if offset == 0 else f"({base}) + {offset}"
                out.append((node_text(name), text))
                offset += 1
    return tuple(out)
