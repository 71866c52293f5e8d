"""What a function's returns hand its caller: a fresh block, or a table of fresh rows.

`return malloc(..)` (or a local that holds only allocators' blocks and goes
nowhere else) makes an allocator wrapper. A row-table wrapper (`alloc2d`)
returns a fresh table whose every row was stored from an allocator
(`t[i] = malloc(..)`), never from another row (`t[1] = t[0]`, a swap), and
which no call was handed before the return: its caller's rows overlap nothing.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.allocator_calls import DEVICE_ALLOCATORS
from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.freshness import PointerFlow, fresh_rows_refuted
from accls.frontend.model import Var
from accls.frontend.pointer_flow import is_null

__all__ = ["returns_fresh", "returns_fresh_rows"]


def _returned_name(value: Node) -> str:
    """The local a return gives, through casts ("" when it is not a name)."""
    value = strip_parens(value)
    while value.type == "cast_expression":
        inner = value.child_by_field_name("value")
        if inner is None:
            return ""
        value = strip_parens(inner)
    return node_text(value) if value.type == "identifier" else ""


def _fresh_local(flow: PointerFlow, name: str) -> bool:
    """`name` holds only host allocators' blocks and goes nowhere but a return."""
    return (
        name in flow.pointers
        and flow.fresh.get(name) is False
        and name not in flow.not_fresh
        and name not in flow.kept
        and name not in flow.address
        and not flow.sources.get(name)
    )


def returns_fresh(
    body: Node,
    locals_: list[Var],
    params: frozenset[str],
    wrappers: frozenset[str] = frozenset(),
    borrows: frozenset[tuple[str, int]] = frozenset(),
) -> bool:
    """True when every `return` of `body` gives a fresh host block or a null pointer.

    A returned local must hold only blocks of allocators (`malloc`, a wrapper in
    `wrappers`, `posix_memalign(&p, ..)`) or null, and its value must go nowhere
    but the `return`: a block also kept in a global or a field is not fresh.
    """
    flow = PointerFlow(
        [v for v in locals_ if not v.static], params, wrappers, borrows=borrows
    )
    flow.walk(body)
    some = False
    for value in flow.returns:
        if value is None:
            return False
        if is_null(value):
            continue
        source = flow._allocator(value)
        if source is not None:
            if source in DEVICE_ALLOCATORS:
                return False
            some = True
            continue
        if not _fresh_local(flow, _returned_name(value)):
            return False
        some = True
    return some


def returns_fresh_rows(
    body: Node,
    locals_: list[Var],
    params: frozenset[str],
    wrappers: frozenset[str],
    makers: frozenset[str],
    borrows: frozenset[tuple[str, int]] = frozenset(),
    steady: frozenset[tuple[str, int]] = frozenset(),
) -> bool:
    """True when every `return` of `body` gives a fresh table of fresh, distinct rows.

    `wrappers` are the allocator wrappers, `makers` the row-table wrappers known
    so far. A null return, or a direct `return malloc(..)`, gives no rows and
    does not qualify.
    """
    flow = PointerFlow(
        [v for v in locals_ if not v.static],
        params,
        wrappers,
        borrows=borrows,
        makers=makers,
        steady=steady,
    )
    flow.walk(body)
    rows = flow.row_stores - flow.bad_rows - fresh_rows_refuted(flow)
    names = [_returned_name(v) if v is not None else "" for v in flow.returns]
    return bool(names) and all(
        n in flow.tables
        and n in rows
        and n not in flow.passed
        and _fresh_local(flow, n)
        for n in names
    )
