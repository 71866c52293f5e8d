"""A call inside a summarised function, mapped onto the caller's own effects.

`l(v) { k = find(tx, v); }`: the callee reads through its first parameter, and
the caller passes the global table `tx`, so the caller reads `tx`. A write
through a global argument is shared state (no summary); an argument that is
neither a parameter, a local nor a global cannot be placed (no summary).
"""

from __future__ import annotations

import re

from accls.frontend import Call

__all__ = ["NULL_ARGUMENT", "map_call"]

NULL_ARGUMENT = re.compile(r"\s*(?:NULL|0|\(\s*void\s*\*\s*\)\s*0|nullptr)\s*")
# An argument that points into one object: `a`, `&a[k]`, `a + k`, `&s->f`.
_INTO = re.compile(r"\(?\s*&?\s*\(?\s*([A-Za-z_]\w*)\s*(?:$|[\[+\-.)]|->)")


def map_call(
    call: Call,
    effects: tuple[frozenset[int], frozenset[int]],
    params: dict[str, int],
    pointers: set[str],
    local: set[str],
    globals_: set[str],
) -> tuple[set[int], set[int], set[str]] | None:
    """The caller's parameters a call writes and reads through, and globals it reads.

    `effects` are the callee's parameter positions written and read through.
    None when the call writes through a global or an argument cannot be placed.
    """
    callee_writes, callee_reads = effects
    writes: set[int] = set()
    reads: set[int] = set()
    globals_read: set[str] = set()
    for index in callee_writes | callee_reads:
        if index >= len(call.args):
            return None
        arg = call.args[index]
        if NULL_ARGUMENT.fullmatch(arg):
            continue  # `strtod(s, NULL)`: nothing is written through it
        match = _INTO.match(arg)
        if match is None or "(" in arg[match.end() :]:
            return None  # a call or an expression we cannot place
        base = match.group(1)
        if base in pointers:
            (writes if index in callee_writes else reads).add(params[base])
            if index in callee_writes and index in callee_reads:
                reads.add(params[base])
        elif base in globals_ and index not in callee_writes:
            globals_read.add(base)  # a global table the callee only reads
        elif base not in local:
            return None  # a global written, or something we cannot name
    return writes, reads, globals_read
