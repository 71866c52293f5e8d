"""Where g++ takes `#pragma acc routine`: at file scope only, never in a class.

g++ 12 rejects `#pragma acc routine seq` inside a class body ("must be at file
scope"), and its named form, `#pragma acc routine(C::f) seq` after the class,
for a method ("names a set of overloads"), or after any definition ("must be
applied before definition"). A method defined in its class has no place for
the mark, so a loop that calls it is not offloaded with OpenACC. OpenMP's
`declare target` ... `end declare target` may wrap a member. Marks go by name,
so a function with several definitions (overloads) is not marked either.
"""

from __future__ import annotations

from accls.frontend import Function, SourceFile
from accls.suggest.pragma import Dialect

__all__ = ["routine_scope_blocker"]


def routine_scope_blocker(
    fn: Function, source: SourceFile, dialect: Dialect
) -> str | None:
    """Why no routine mark of `fn` compiles or fits, or None."""
    if sum(1 for f in source.functions if f.name == fn.name) > 1:
        # The marks are placed by name: each overload would need its own.
        return f"`{fn.name}()` has several definitions (overloads), marked by name"
    if dialect is not Dialect.OPENACC or not fn.in_class:
        return None
    return (
        f"`{fn.name}()` is defined inside its class, where `#pragma acc routine` "
        "does not compile (g++ takes it only at file scope, and its named form "
        "not for a method): define the method outside the class, after "
        "`#pragma acc routine seq`"
    )
