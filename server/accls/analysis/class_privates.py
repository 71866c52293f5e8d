"""C++: a private copy of a class-type variable needs a default constructor.

`private(t)` gives each thread a copy made by `T`'s default constructor, and
`lastprivate(t)` also copies it back by assignment. A class that declares
constructors but none without arguments has no such copy: the pragma would not
compile. The loop is refused with the rewrite that needs no copy: declare the
variable inside the loop where it is first assigned.
"""

from __future__ import annotations

from accls.analysis.model import Obstacle, ObstacleCode, ScalarClass, ScalarFact
from accls.frontend import Function, Loop, SourceFile

__all__ = ["class_privates"]

_COPIES = frozenset({ScalarClass.PRIVATE, ScalarClass.LASTPRIVATE})


def class_privates(
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
    scalars: tuple[ScalarFact, ...],
    obstacles: tuple[Obstacle, ...],
) -> tuple[tuple[ScalarFact, ...], tuple[Obstacle, ...]]:
    """The scalar facts less the copies that cannot be made, and why not."""
    if not source.no_default_constructor or fn is None:
        return scalars, obstacles
    kept: list[ScalarFact] = []
    refused: list[Obstacle] = []
    for fact in scalars:
        var = fn.lookup(fact.name)
        plain = var.type if var is not None and not var.is_array else ""
        if (
            fact.cls not in _COPIES
            or fact.declared_inside
            or plain not in source.no_default_constructor
        ):
            kept.append(fact)
            continue
        clause = "private" if fact.cls is ScalarClass.PRIVATE else "lastprivate"
        refused.append(
            Obstacle(
                code=ObstacleCode.CLASS_PRIVATE,
                line=fact.line,
                variable=fact.name,
                message=f"`{fact.name}` needs a copy per thread ({clause}), and "
                f"`{plain}` has no default constructor to make one: declare "
                f"`{fact.name}` inside the loop where it is first assigned (line "
                f"{fact.line}: `{plain} {fact.name} = ...;`)",
            )
        )
    if not refused:
        return scalars, obstacles
    return tuple(kept), (*obstacles, *refused)
