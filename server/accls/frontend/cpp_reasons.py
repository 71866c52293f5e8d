"""Why a C++ call's effects are unknown, from the name the C++ walk gave it."""

from __future__ import annotations

__all__ = ["cpp_call_reason"]


def cpp_call_reason(name: str) -> str | None:
    """The reason for a call the C++ walk named (`Vec::operator+`), else None."""
    if name == "<lambda>":
        return (
            "a lambda that is mutable, not defined in this function, called "
            "another way or sharing by reference a variable the loop writes: "
            "what its body does here is unknown"
        )
    if name.startswith("virtual "):
        return (
            f"`{name.removeprefix('virtual ')}`, a virtual method: an override in a "
            "derived class may run instead, and what it does is not known here"
        )
    owner, sep, member = name.rpartition("::")
    if not sep:
        return None
    if member.startswith("operator "):
        return (
            f"`{member}`, the conversion of a `{owner}` to `{member[9:]}`, which may "
            "run where the object is read: its side effects are unknown here"
        )
    if member.startswith("operator"):
        op = member.removeprefix("operator")
        if owner == "auto":
            return (
                f"the operator `{op}` on a value whose type is not known here (`auto`, "
                "a template parameter or an undeclared name): in C++ it may call any "
                "function"
            )
        return (
            f"the operator `{op}` of the class `{owner}`: a call whose side effects "
            "are unknown (neither this file nor the table of C++ library effects "
            "describes it)"
        )
    if owner == "auto":
        return (
            f"the method `{member}` of an object whose type is not known here: its "
            "side effects are unknown"
        )
    if member == "begin":
        return (
            f"a range-based `for` over `{owner}`, whose iterators are not random "
            "access here: OpenMP can split only a range of random-access iterators "
            "(a `std::vector`, `std::array`, `std::span` or an array)"
        )
    if owner.startswith("std"):
        return (
            f"`{name}`, which the table of C++ library effects does not list: its "
            "side effects are unknown"
        )
    return (
        f"a method of `{owner}` whose definition accls cannot read (declared only, "
        "defined in a file not given, or made by a macro): it may read and write "
        "its object"
    )
