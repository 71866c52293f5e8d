"""File-scope enumerators and the C text of their values."""

from __future__ import annotations

from accls.frontend.enumerators import file_enumerators
from accls.frontend.tsparser import parse_bytes, parse_cpp_bytes


def test_values_count_on_from_the_last_explicit_one() -> None:
    root = parse_bytes(
        b"enum T { a, b = N * 2, c };\ntypedef enum { x } X;\nenum Q { q } v;\n"
    ).root_node
    assert file_enumerators(root) == (
        ("a", "0"),
        ("b", "N * 2"),
        ("c", "(N * 2) + 1"),
        ("x", "0"),
        ("q", "0"),
    )


def test_scoped_and_local_enumerations_are_left_out() -> None:
    root = parse_cpp_bytes(
        b"enum class Color { red, green };\nvoid f() { enum { k = 3 }; }\n"
    ).root_node
    assert file_enumerators(root) == ()
