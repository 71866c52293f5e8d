"""C++ containers built in a declaration own a buffer no other name reaches."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text

__all__ = ["constructs_buffer"]


def constructs_buffer(value: Node | None) -> bool:
    """Constructor arguments, `v(n)` or `v(n, 0.0)`: a new buffer, not a moved one.

    `std::vector<double> w(std::move(v))` takes `v`'s buffer; any other
    constructor of a standard container allocates its own.
    """
    return (
        value is not None
        and value.type == "argument_list"
        and "move" not in node_text(value)
    )
