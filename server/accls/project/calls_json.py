"""The index's records of a file's calls (`FileCalls`) to and from plain JSON.

Compact: an argument's origin leaves out its function (the call's caller), each
caller's parameters are listed once, and names are interned when read back.
"""

from __future__ import annotations

import sys
from typing import Any

from accls.analysis.call_holds import ArgHold
from accls.analysis.call_origins import Origin
from accls.analysis.remote_calls import CallRecord, FileCalls

__all__ = ["file_calls_from_json", "file_calls_to_json"]


def _origin_to_json(found: Origin | None) -> list[Any] | None:
    if found is None:
        return None
    return [found.kind, found.path, found.union, *([True] if found.rows else [])]


def _origin_from_json(raw: Any, caller: str) -> Origin | None:
    if raw is None:
        return None
    kind, path, union, *rows = raw
    return Origin(
        sys.intern(str(kind)), caller, sys.intern(str(path)), bool(union), bool(rows)
    )


def _dims_json(dims: Any) -> tuple[tuple[str, str], ...]:
    return tuple((str(a), str(b)) for a, b in dims)


def _hold_to_json(hold: ArgHold) -> list[Any]:
    dims = [list(d) for d in hold.dims]
    back = [[list(d) for d in dims] for dims in hold.back]
    return [
        *(hold.at, hold.sentinel, hold.line, dims),
        *(hold.quiet, hold.fresh, back, hold.member),
    ]


def _hold_from_json(raw: Any) -> ArgHold:
    at, sentinel, line, dims, quiet, fresh, back, member = raw
    return ArgHold(
        at=int(at),
        sentinel=str(sentinel),
        line=int(line),
        dims=_dims_json(dims),
        quiet=bool(quiet),
        fresh=bool(fresh),
        back=tuple(_dims_json(d) for d in back),
        member=str(member),
    )


def file_calls_to_json(found: FileCalls) -> dict[str, Any]:
    """The record as plain JSON values."""
    params = {c.caller: list(c.caller_params) for c in found.calls}
    return {
        "file": found.file,
        "params": params,
        "calls": [
            [
                c.callee,
                c.caller,
                c.caller_static,
                c.line,
                [_origin_to_json(a) for a in c.args],
                c.in_loop,
                list(c.texts),
                [_hold_to_json(h) for h in c.holds],
                c.errno_after,
                list(c.values),
            ]
            for c in found.calls
        ],
        "escaped": sorted(found.escaped),
        "statics": sorted(found.statics),
        "defined": sorted(found.defined),
        "c_file": found.c_file,
        "main": found.main,
        "pastes": found.pastes,
    }


def file_calls_from_json(raw: dict[str, Any]) -> FileCalls:
    """The record `file_calls_to_json` wrote; KeyError/TypeError/ValueError if not."""
    params = {
        sys.intern(str(name)): tuple(sys.intern(str(p)) for p in names)
        for name, names in raw["params"].items()
    }
    calls: list[CallRecord] = []
    for record in raw["calls"]:
        callee, caller, static, line, args, in_loop, texts, holds, errno, values = (
            record
        )
        caller = sys.intern(str(caller))
        calls.append(
            CallRecord(
                callee=sys.intern(str(callee)),
                caller=caller,
                caller_params=params[caller],
                caller_static=bool(static),
                line=int(line),
                args=tuple(_origin_from_json(a, caller) for a in args),
                in_loop=bool(in_loop),
                texts=tuple(str(t) for t in texts),
                holds=tuple(_hold_from_json(h) for h in holds),
                errno_after=bool(errno),
                values=tuple(None if v is None else int(v) for v in values),
            )
        )
    return FileCalls(
        file=str(raw["file"]),
        calls=tuple(calls),
        escaped=frozenset(sys.intern(str(n)) for n in raw["escaped"]),
        statics=frozenset(str(n) for n in raw["statics"]),
        defined=frozenset(str(n) for n in raw["defined"]),
        c_file=bool(raw["c_file"]),
        main=bool(raw["main"]),
        pastes=bool(raw["pastes"]),
    )
