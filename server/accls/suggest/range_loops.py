"""What a dialect that does not accept C++'s range-based `for` says about one."""

from __future__ import annotations

from accls.frontend import RangeFor

__all__ = ["range_for_reason"]


def range_for_reason(form: RangeFor) -> str:
    """Why OpenACC refuses `for (T x : v)`, with the exact index loop to write."""
    # An iterator loop is read as a range-based one whose element is `*it`.
    form_name = (
        "an iterator loop" if form.element.startswith("*") else "a range-based `for`"
    )
    reason = (
        f"OpenACC's loop construct does not accept {form_name} (only OpenMP 5.0 does)"
    )
    if not form.rewrite:
        return f"{reason}; rewrite it as an index loop"
    return f"{reason}; the same loop as an index loop is `{form.rewrite}`"
