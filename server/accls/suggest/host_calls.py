"""C library calls that keep a loop on the host, though they are safe on a CPU.

`malloc` and `free` are thread-safe, so a CPU loop that allocates a block of its
own in every iteration runs in parallel; offloaded, the same call becomes a
device heap allocation per iteration: small by default, slow, and not every
compiler supports it, so an expert allocates before the loop. `memcpy`,
`strlen` and the other functions that go through memory are host library code:
device code needs an `acc routine` or `declare target` version of them.
"""

from __future__ import annotations

from accls.analysis import ProgramSummaries
from accls.frontend import Effect, Loop, SourceFile, library_function

__all__ = ["host_library_calls"]

_WHY = {
    Effect.ALLOC: "offloaded, every iteration would allocate on the device heap; "
    "allocate before the loop",
    Effect.FREE: "offloaded, every iteration would free on the device heap; "
    "allocate and free outside the loop",
    Effect.MEMORY: "C library code, which has no `acc routine` or `declare target` "
    "version for the device",
}


def host_library_calls(
    loop: Loop,
    source: SourceFile,
    program: ProgramSummaries | None = None,
    dialect: str = "",
) -> tuple[str, ...]:
    """Why `loop` cannot be offloaded as written: one reason per such call.

    A function of another file (`program`) runs on the device only when its
    definition is marked for `dialect` (`acc routine`, `omp declare target`).
    """
    out: list[str] = []
    seen: set[str] = set()
    for call in loop.calls:
        if call.name in seen or source.function(call.name) is not None:
            continue
        if source.headers is not None and source.headers.function(call.name):
            continue  # a header's `static inline` function: compiled with the file
        found = program.only(call.name) if program is not None else None
        if found is not None:
            seen.add(call.name)
            if dialect not in found.device:
                mark = "acc routine seq" if dialect == "acc" else "omp declare target"
                lead = "!$" if loop.fortran else "#pragma "
                out.append(
                    f"calls `{call.name}()` at line {call.span.line}, defined in "
                    f"{found.place} without `{lead}{mark}`: offloaded, the "
                    "device has no version of it"
                )
            continue
        known = library_function(call.name)
        if known is None or known.effect not in _WHY:
            continue
        seen.add(call.name)
        out.append(
            f"calls `{call.name}()` at line {call.span.line}: {_WHY[known.effect]}"
        )
    return tuple(out)
