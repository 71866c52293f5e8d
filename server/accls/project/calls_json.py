"""The index's records of a file's calls (`FileCalls`) to and from plain JSON."""

from __future__ import annotations

from typing import Any

from accls.analysis.call_origins import Origin
from accls.analysis.remote_calls import CallRecord, FileCalls

__all__ = ["file_calls_from_json", "file_calls_to_json"]


def _origin_to_json(found: Origin | None) -> list[Any] | None:
    if found is None:
        return None
    return [found.kind, found.function, found.path, found.union]


def _origin_from_json(raw: Any) -> Origin | None:
    if raw is None:
        return None
    kind, function, path, union = raw
    return Origin(str(kind), str(function), str(path), bool(union))


def file_calls_to_json(found: FileCalls) -> dict[str, Any]:
    """The record as plain JSON values."""
    return {
        "file": found.file,
        "calls": [
            [
                c.callee,
                c.caller,
                list(c.caller_params),
                c.caller_static,
                c.line,
                [_origin_to_json(a) for a in c.args],
            ]
            for c in found.calls
        ],
        "escaped": sorted(found.escaped),
        "statics": sorted(found.statics),
        "defined": sorted(found.defined),
        "c_file": found.c_file,
        "main": found.main,
    }


def file_calls_from_json(raw: dict[str, Any]) -> FileCalls:
    """The record `file_calls_to_json` wrote; KeyError/TypeError/ValueError if not."""
    calls = tuple(
        CallRecord(
            callee=str(callee),
            caller=str(caller),
            caller_params=tuple(str(p) for p in params),
            caller_static=bool(static),
            line=int(line),
            args=tuple(_origin_from_json(a) for a in args),
        )
        for callee, caller, params, static, line, args in raw["calls"]
    )
    return FileCalls(
        file=str(raw["file"]),
        calls=calls,
        escaped=frozenset(str(n) for n in raw["escaped"]),
        statics=frozenset(str(n) for n in raw["statics"]),
        defined=frozenset(str(n) for n in raw["defined"]),
        c_file=bool(raw["c_file"]),
        main=bool(raw["main"]),
    )
