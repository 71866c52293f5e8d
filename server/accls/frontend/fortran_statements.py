"""The Fortran walk's statement kinds, the record of a loop, loop-head helpers."""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from accls.frontend.fortran_exprs import name_of
from accls.frontend.model import Directive, Exit

__all__ = [
    "END_OF_BODY",
    "IO",
    "LOOP_WORDS",
    "QUIET",
    "STANDALONE",
    "LoopRec",
    "bound_nodes",
    "is_sentinel",
    "loop_head",
]

LOOP_WORDS = frozenset({"for", "loop", "distribute", "simd", "taskloop"})
STANDALONE = frozenset(
    {
        "barrier",
        "taskwait",
        "flush",
        "update",
        "enter",
        "exit",
        "wait",
        "declare",
        "routine",
        "threadprivate",
        "cache",
        "init",
        "shutdown",
        "set",
        "cancel",
        "taskyield",
        "scan",
    }
)
END_OF_BODY = frozenset(
    {
        "end_do_loop_statement",
        "end_do_label_loop_statement",
        "do_statement",
        "block_label_start_expression",
        "end_do_label_statement",
    }
)
IO = {
    "print_statement": "printf",
    "write_statement": "printf",
    "read_statement": "scanf",
}
QUIET = frozenset(
    {
        "comment",
        "continue",
        "format_statement",
        "implicit_statement",
        "variable_declaration",
        "variable_modification",
        "use_statement",
        "common_statement",
        "include_statement",
        "import_statement",
        "statement_label",
        "end_do_loop_statement",
        "public_statement",
        "private_statement",
        "parameter_statement",
        "data_statement",
        "equivalence_statement",
        "save_statement",
        "interface",
        "derived_type_definition",
    }
)


@dataclass(slots=True)
class LoopRec:
    """What the walk saw of one counted `do` loop; turned into a Loop later."""

    node: Node
    id: int
    control: Node
    label: str
    ref_start: int
    call_start: int
    pragmas: tuple[Directive, ...]
    regions: tuple[int, ...]  # indices into the walk's open regions
    body: list[Node]
    ref_end: int = 0
    call_end: int = 0
    exits: list[Exit] = field(default_factory=list)
    children: list[LoopRec] = field(default_factory=list)
    concurrent: tuple[str, ...] = ()  # a `do concurrent`'s nest headers (outermost)
    in_concurrent: bool = False  # an inner level of a `do concurrent` nest


def is_sentinel(text: str) -> bool:
    """Whether a comment is an OpenACC or OpenMP sentinel line."""
    lowered = text.lstrip().lower()
    return lowered.startswith(("!$acc", "!$omp"))


def bound_nodes(control: Node) -> list[Node]:
    """The bound and step expressions of a loop control (not the variable)."""
    return [c for c in control.named_children[1:] if c.type != "comment"]


def loop_head(node: Node) -> tuple[Node | None, str, list[Node], Node | None]:
    """A `do` construct's statement, label, body and loop control."""
    head = next((c for c in node.named_children if c.type == "do_statement"), None)
    label_node = next(
        (c for c in node.named_children if c.type == "block_label_start_expression"),
        None,
    )
    label = ""
    if label_node is not None:
        label = next((name_of(c) for c in label_node.children if c.type == "label"), "")
    body = [c for c in node.named_children if c.type not in END_OF_BODY]
    control = None
    if head is not None:
        control = next(
            (
                c
                for c in head.named_children
                if c.type
                in (
                    "loop_control_expression",
                    "concurrent_statement",
                    "while_statement",
                )
            ),
            None,
        )
    return head, label, body, control
