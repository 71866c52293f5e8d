"""Every OpenMP pragma of a file with the statement it governs, and branch spans."""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Language, Node, Query, QueryCursor

from accls.frontend.exprs import node_text, span_of
from accls.frontend.model import Branch, Directive, Region, Span
from accls.frontend.pragmas import parse_directive
from accls.frontend.unbraced_pragmas import MARK, unmasked

__all__ = ["STANDALONE", "find_constructs", "standalone"]

STANDALONE = frozenset(
    {
        "barrier",
        "taskwait",
        "taskyield",
        "flush",
        "threadprivate",
        "declare",
        "enter",
        "exit",
        "update",
        "cancel",
        "cancellation",
        "depobj",
        "scan",
        "end",
    }
)
"""First words of directives that govern no statement."""

# OpenACC's executable directives that govern no statement, and OpenMP's
# standalone `target` data directives.
_ACC_STANDALONE = frozenset(
    {"enter", "exit", "update", "wait", "init", "shutdown", "set", "declare"}
    | {"routine", "cache"}
)
_TARGET_STANDALONE = frozenset({"enter", "exit", "update"})


def standalone(directive: Directive) -> bool:
    """True for a directive that governs no statement (`enter data`, `barrier`)."""
    words = directive.name.split()
    if not words:
        return False
    if directive.dialect == "acc":
        return words[0] in _ACC_STANDALONE
    if words[0] == "target":
        return len(words) > 1 and words[1] in _TARGET_STANDALONE
    return words[0] in STANDALONE


_SKIP = ("comment", "preproc_call")
_LOOPS = ("for_statement", "while_statement", "do_statement")


def _governed(node: Node) -> Node | None:
    """The statement a pragma governs: the next sibling that is not a pragma."""
    nxt = node.next_named_sibling
    while nxt is not None and nxt.type in _SKIP:
        nxt = nxt.next_named_sibling
    return nxt


def _body_span(body: Node) -> Span:
    """The span of a branch's statement, with the hidden pragmas written on it.

    `for (...)` / `#pragma omp task` / `work();`: the task is the loop's body,
    so the pragma line lies in the branch (see `unbraced_pragmas`).
    """
    span = span_of(body)
    prev = body.prev_sibling
    while prev is not None and prev.type == "comment":
        if unmasked(node_text(prev)) is not None:
            span = replace(span, start_byte=prev.start_byte, start=span_of(prev).start)
        prev = prev.prev_sibling
    return span


def _header(node: Node) -> str:
    """The text that decides whether (or how often) a branch runs."""
    if node.type == "for_statement":
        body = node.child_by_field_name("body")
        end = body.start_byte if body is not None else node.end_byte
        text = (node.text or b"")[: end - node.start_byte]
        return text.split(MARK)[0].decode("utf-8", "replace")
    cond = node.child_by_field_name("condition")
    return node_text(cond) if cond is not None else ""


def _branches(node: Node) -> list[Branch]:
    """Spans executed only on some paths (if arms) or repeatedly (loop bodies)."""
    if node.type == "if_statement":
        arms = [node.child_by_field_name(f) for f in ("consequence", "alternative")]
        cond = _header(node)
        return [
            Branch(kind=kind, span=_body_span(a), condition=cond)
            for kind, a in zip(("if", "else"), arms, strict=True)
            if a is not None
        ]
    if node.type in _LOOPS:
        body = node.child_by_field_name("body")
        if body is None:
            return []
        return [
            Branch(
                kind="loop",
                span=_body_span(body),
                condition=_header(node),
                statement=node.type.removesuffix("_statement"),
            )
        ]
    if node.type in ("switch_statement", "conditional_expression"):
        return [Branch(kind="if", span=span_of(node), condition=_header(node))]
    return []


_PATTERN = (
    "[(if_statement) (for_statement) (while_statement) (do_statement)"
    " (switch_statement) (conditional_expression) (preproc_call) (comment)] @node"
)
_QUERIES: dict[int, Query] = {}


def _nodes(root: Node, language: Language | None) -> list[Node]:
    """The branching statements and pragma lines under `root`, in document order."""
    if language is None:
        out: list[Node] = []
        stack = [root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.named_children))
        return out
    query = _QUERIES.get(id(language))
    if query is None:
        query = _QUERIES[id(language)] = Query(language, _PATTERN)
    found = QueryCursor(query).captures(root).get("node", [])
    return sorted(found, key=lambda n: (n.start_byte, -n.end_byte))


def _pragma_text(node: Node) -> str:
    """A pragma line's text, a hidden one's too (`unbraced_pragmas`); else ""."""
    if node.type == "preproc_call":
        return node_text(node)
    if node.type == "comment":
        return unmasked(node_text(node)) or ""
    return ""


def find_constructs(
    root: Node, language: Language | None = None
) -> tuple[tuple[Region, ...], tuple[Branch, ...]]:
    """OpenMP pragmas (statement span, or the pragma's own for standalone ones).

    With the tree's `language`, a query finds the nodes (C code, fast); else a walk.
    """
    regions: list[Region] = []
    branches: list[Branch] = []
    for node in _nodes(root, language):
        branches.extend(_branches(node))
        text = _pragma_text(node)
        if "omp" not in text:
            continue
        directive = parse_directive(text, span_of(node))
        if directive is not None and directive.dialect == "omp":
            first = directive.name.split()[0] if directive.name else ""
            stmt = None if first in STANDALONE else _governed(node)
            span = span_of(stmt if stmt is not None else node)
            regions.append(Region(directive=directive, span=span))
    regions.sort(key=lambda r: (r.span.start_byte, -r.span.end_byte))
    branches.sort(key=lambda b: b.span.start_byte)
    return tuple(regions), tuple(branches)
