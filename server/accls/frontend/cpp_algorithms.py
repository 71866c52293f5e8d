"""Reductions of `<numeric>` and `<algorithm>` over a range: their types and calls.

`std::accumulate(first, last, init)` reads `[first, last)` and returns a value
of `init`'s type; `std::inner_product(f1, l1, f2, init)` reads two ranges;
`std::max_element(first, last)` and `min_element` return an iterator into the
range; `std::sort(first, last)` reorders it. The table of C++ library effects
says what they read and write. On elements or an initial value of a class type
they also call its `operator+`, `operator*` or `operator<` (a sort given a
comparison of the caller's calls that), which the table cannot tell: such a
call is named apart so that its effects are unknown.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from accls.frontend.cpp_types import UNKNOWN, CxxType

__all__ = [
    "RANGE_OPERANDS",
    "RANGE_OPERATORS",
    "RANGE_RESULTS",
    "numeric_operands",
    "range_type",
]

# The operator a class type's elements would be combined with, named apart.
RANGE_OPERATORS = {
    "std::accumulate": "auto::operator+",
    "std::inner_product": "auto::operator*",
    "std::max_element": "auto::operator<",
    "std::min_element": "auto::operator<",
    "std::sort": "auto::operator<",
    "std::stable_sort": "auto::operator<",
}
# The argument whose type a call returns: the initial value, or (an iterator)
# the range's first iterator.
RANGE_RESULTS = {
    "std::accumulate": 2,
    "std::inner_product": 3,
    "std::max_element": 0,
    "std::min_element": 0,
}
# The arguments whose elements (iterators) or values the algorithm combines
# with operators: all of them must be numbers for its effects to be the table's.
RANGE_OPERANDS = {
    "std::accumulate": ((0, 1), (2,)),
    "std::inner_product": ((0, 1, 2), (3,)),
    "std::max_element": ((0, 1), ()),
    "std::min_element": ((0, 1), ()),
    "std::sort": ((0, 1), ()),
    "std::stable_sort": ((0, 1), ()),
}


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in (args.named_children if args else ()) if a.type != "comment"]


def range_type(name: str, call: Node, type_of: Callable[[Node], CxxType]) -> CxxType:
    """The type of a call of one of RANGE_RESULTS: that of the argument it names."""
    args = _arguments(call)
    position = RANGE_RESULTS[name]
    return type_of(args[position]) if position < len(args) else UNKNOWN


def numeric_operands(
    name: str,
    call: Node,
    type_of: Callable[[Node], CxxType],
    of_text: Callable[[str], CxxType],
) -> bool:
    """Whether a call of one of RANGE_OPERANDS combines numbers only.

    Its iterators point to numbers, its values are numbers, and it passes no
    argument past them (an operation of the caller's: `accumulate(f, l, 0, op)`).
    """
    iterators, values = RANGE_OPERANDS[name]
    args = _arguments(call)
    if len(args) != len(iterators) + len(values):
        return False
    for k in iterators:
        kind = type_of(args[k])
        element = of_text(kind.element) if kind.pointer else UNKNOWN
        if not element.builtin or element.pointer:
            return False
    found = [type_of(args[k]) for k in values]
    return all(kind.builtin and not kind.pointer for kind in found)
