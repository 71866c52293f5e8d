"""What a GNU `asm` statement reads and writes: its operands and clobbers.

`__asm__("incq %0" : "+m"(counter))` updates `counter` though no C operator
does; a walk that read the operands as plain expressions saw only reads, and a
loop counting in `asm` got `parallel for` (harm blind batch 14). An output
operand (`=`) is written, an in-out one (`+`) updated, an input read; a
`"memory"` clobber says the text may write any memory: it is recorded as a
call to no known function (`ASM_CALL`), in a loop and in a callee's summary.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text
from accls.frontend.model import AccessKind

__all__ = ["ASM_CALL", "asm_clobbers_memory", "asm_operands"]

# The call a `"memory"` clobber stands for: `asm` is a keyword, so no function
# of the program is so named, and the call has unknown effects.
ASM_CALL = "asm"

_OUTPUTS = "gnu_asm_output_operand_list"
_INPUTS = "gnu_asm_input_operand_list"


def asm_operands(node: Node) -> tuple[tuple[Node, AccessKind], ...]:
    """The operand expressions of a `gnu_asm_expression`, with how each is used."""
    found: list[tuple[Node, AccessKind]] = []
    for group in node.named_children:
        if group.type not in (_OUTPUTS, _INPUTS):
            continue
        output = group.type == _OUTPUTS
        for operand in group.named_children:
            value = operand.child_by_field_name("value")
            constraint = operand.child_by_field_name("constraint")
            if value is None:
                continue
            text = node_text(constraint) if constraint is not None else ""
            if not output:
                found.append((value, AccessKind.READ))
            else:
                found.append(
                    (value, AccessKind.UPDATE if "+" in text else AccessKind.WRITE)
                )
    return tuple(found)


def asm_clobbers_memory(node: Node) -> bool:
    """True when the statement lists the `"memory"` clobber."""
    return any(
        group.type == "gnu_asm_clobber_list" and '"memory"' in node_text(group)
        for group in node.named_children
    )
