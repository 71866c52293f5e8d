"""The data members a method names bare from its class's bases.

In `struct Der : Base { double h(double x) { return k + x; } };` the `k` is
Base's member of this object, `this->k`. A base the file does not define, or
one written as a template instance (`Base<T>`: a dependent base's members are not
found by a bare name), adds nothing; nor does a base's static member (one
object for the whole class, not this one's).
"""

from __future__ import annotations

from accls.frontend.cpp_types import CxxScope

__all__ = ["inherited_fields"]


def inherited_fields(scope: CxxScope, cls: str) -> dict[str, str]:
    """The non-static data members of `cls`'s defined bases, nearest first."""
    start = scope.classes.get(cls)
    if start is None or start.template_bases:
        return {}
    out: dict[str, str] = {}
    seen = {cls}
    layer = list(start.bases)
    while layer:
        following: list[str] = []
        for name in layer:
            info = scope.classes.get(name)
            if name in seen or info is None:
                continue
            seen.add(name)
            for member, text in info.fields.items():
                if member not in info.statics:
                    out.setdefault(member, text)
            if not info.template_bases:
                following.extend(info.bases)
        layer = following
    return out
