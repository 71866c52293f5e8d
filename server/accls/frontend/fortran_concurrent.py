"""`do concurrent`: whether a `do` nest can replace it, and that nest's records."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.fortran_exprs import flat, name_of
from accls.frontend.fortran_statements import LoopRec
from accls.frontend.model import Directive

__all__ = ["concurrent_indices", "concurrent_nest", "nest_records"]


_NO_DIRECTIVE = (
    "a `do concurrent` loop, left as it is: compilers take no loop directive on it "
    "(gfortran: `!$ACC LOOP cannot be a DO CONCURRENT loop`), and the `do` nest "
    "that would take one is not written because "
)


def concurrent_nest(head: Node, control: Node, label: str) -> tuple[list[Node], str]:
    """The index controls of a `do concurrent` that a `do` nest can replace.

    Else no controls, and why it is left as it is.
    """
    header = next(
        (c for c in control.named_children if c.type == "concurrent_header"), None
    )
    why = ""
    if header is None:
        why = "its header did not parse"
    elif label:
        why = "it is labelled (the nest would need the label moved)"
    elif any(c.type == "concurrent_locality" for c in control.named_children):
        why = "its locality specifiers (`local`, `shared`, ...) have no `do` spelling"
    elif any(c.type == "concurrent_mask" for c in header.named_children):
        why = "its mask would become an `if` around the body"
    elif any(
        c.type not in ("concurrent_control", "comment") for c in header.named_children
    ):
        why = "its indices are declared in the header (`integer ::`)"
    elif head.start_point.row != head.end_point.row:
        why = "its header is continued over several lines"
    if why:
        return [], _NO_DIRECTIVE + why
    assert header is not None
    controls = [c for c in header.named_children if c.type == "concurrent_control"]
    if not controls or any(
        not c.named_children or c.named_children[0].type != "identifier"
        for c in controls
    ):
        return [], _NO_DIRECTIVE + "an index is not a plain name"
    return controls, ""


def concurrent_indices(control: Node) -> frozenset[str]:
    """The index names of a `do concurrent` statement's header."""
    names: set[str] = set()
    for header in control.named_children:
        if header.type != "concurrent_header":
            continue
        for part in header.named_children:
            first = part.named_children[0] if part.named_children else None
            if part.type == "concurrent_control" and first is not None:
                names.add(name_of(first))
    return frozenset(names)


def _do_header(control: Node) -> str:
    """`i = 1:n:2` as `do i = 1, n, 2`."""
    parts = [flat(c) for c in control.named_children if c.type != "comment"]
    return f"do {parts[0]} = {', '.join(parts[1:])}"


def nest_records(
    node: Node,
    body: list[Node],
    controls: list[Node],
    pragmas: tuple[Directive, ...],
    regions: tuple[int, ...],
) -> list[LoopRec]:
    """One record per index, outermost (the last index: column-major) first.

    Each is the parent of the next; the walk fills in where their refs start.
    """
    levels = list(reversed(controls))
    headers = tuple(_do_header(c) for c in levels)
    recs: list[LoopRec] = []
    for k, control in enumerate(levels):
        rec = LoopRec(
            node=node,
            id=node.start_byte + k,  # inside the `do` keyword: no other loop's
            control=control,
            label="",
            ref_start=0,
            call_start=0,
            pragmas=pragmas if k == 0 else (),
            regions=regions,
            body=body,
            concurrent=headers if k == 0 else (),
            in_concurrent=k > 0,
        )
        if recs:
            recs[-1].children.append(rec)
        recs.append(rec)
    return recs
