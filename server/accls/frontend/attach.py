"""Pragmas written on a statement: directly above it, or closing an #ifdef above it."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text, span_of
from accls.frontend.model import Directive
from accls.frontend.pragmas import parse_directive
from accls.frontend.unbraced_pragmas import unmasked

__all__ = ["attached_pragmas", "mutual_exclusion"]


def _pragma_of(node: Node) -> Directive | None:
    hidden = unmasked(node_text(node)) if node.type == "comment" else None
    if hidden is not None:  # the unbraced body of a statement (unbraced_pragmas)
        return parse_directive(hidden, span_of(node))
    if node.type not in ("preproc_call", "preproc_directive"):
        return None
    text = node_text(node)
    if not text.lstrip().startswith("#"):
        return None
    return parse_directive(text, span_of(node))


def mutual_exclusion(directive: Directive) -> bool:
    """True for `atomic ...`, `critical` and `ordered` blocks: updates never race.

    An `ordered` block (not the standalone `ordered depend(...)`/`doacross`
    form) runs one iteration at a time, in the loop's order.
    """
    first = directive.name.split()[0] if directive.name else ""
    if first == "ordered":
        return not any(directive.clause(c) for c in ("depend", "doacross"))
    return first in ("atomic", "critical")


def _trailing_conditional_pragmas(node: Node) -> list[Directive]:
    """Pragmas that end a branch of an `#if`/`#ifdef` block, in source order."""
    if not node.type.startswith("preproc_if"):
        return []
    found: list[Directive] = []
    branch: Node | None = node
    while branch is not None:
        fields = ("name", "condition", "alternative")
        skip = [branch.child_by_field_name(f) for f in fields]
        body = [
            c
            for c in branch.named_children
            if c.type != "comment" and not any(c == other for other in skip)
        ]
        tail: list[Directive] = []
        for child in reversed(body):
            directive = _pragma_of(child)
            if directive is None:
                break
            tail.append(directive)
        found.extend(reversed(tail))
        branch = branch.child_by_field_name("alternative")
    return found


def attached_pragmas(node: Node) -> tuple[Directive, ...]:
    """The acc/omp pragmas written directly above a statement, outermost first."""
    found: list[Directive] = []
    prev = node.prev_sibling
    while prev is not None:
        if prev.type == "comment" and unmasked(node_text(prev)) is None:
            prev = prev.prev_sibling
            continue
        directive = _pragma_of(prev)
        if directive is None:
            # `#ifdef X / #pragma ... / #endif` right above: a conditional pragma
            # that the compiler may see, so it counts as written on the statement.
            found.extend(reversed(_trailing_conditional_pragmas(prev)))
            break
        found.append(directive)
        prev = prev.prev_sibling
    return tuple(reversed(found))
