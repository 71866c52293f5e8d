"""The argument of the commands that name a loop: `{uri, position}` or `{uri, line}`."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

__all__ = ["loop_position"]


def loop_position(command: str, args: tuple[Any, ...]) -> tuple[str, types.Position]:
    """`{uri, position: {line, character}}` or `{uri, line}` (0-based)."""
    arg = args[0] if args else None
    if isinstance(arg, dict) and isinstance(arg.get("uri"), str):
        position = arg.get("position")
        if isinstance(position, dict):
            line, character = position.get("line"), position.get("character", 0)
        else:
            line, character = arg.get("line"), 0
        if isinstance(line, int) and isinstance(character, int) and line >= 0:
            return arg["uri"], types.Position(line=line, character=max(0, character))
    raise JsonRpcInvalidParams(
        f"{command}: expected {{uri, position: {{line, character}}}}"
    )
