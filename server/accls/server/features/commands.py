"""Commands: `accls.checkLoop`, once called `accls.verifyLoop` (still answered).

`accls.recordApplied` belongs to the feedback feature.
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from accls.server import progress
from accls.server.command_args import loop_position
from accls.server.language_server import AcclsServer
from accls.server.offers import suggestions_for
from accls.server.suggestions import resolved
from accls.suggest import with_inner

__all__ = ["CHECK_LOOP", "CHECK_LOOP_ALIASES", "register"]

CHECK_LOOP = "accls.checkLoop"
"""Compile-check and race-check the pragma for the loop at a position (runs nothing)."""

CHECK_LOOP_ALIASES = ("accls.verifyLoop",)
"""Earlier names of CHECK_LOOP, registered so that older clients keep working."""


async def check_loop(
    ls: AcclsServer, command: str, args: tuple[Any, ...]
) -> dict[str, Any]:
    """Check the suggestion for the loop under the cursor, in the chosen model."""
    uri, position = loop_position(command, args)
    doc = ls.documents.get(uri)
    if doc is None:
        raise JsonRpcInvalidParams(f"{command}: {uri} is not open")
    offset = doc.index.offset(position)
    analysed = await ls.analysed(doc, offset)
    loops = analysed.loops_at(offset) if analysed is not None else ()
    if analysed is None or not loops:
        return {"loop": None, "reasons": ["no loop at this position"]}
    options = ls.settings.suggest_options
    all_ = suggestions_for(analysed, options, False)
    by_id = {s.loop.id: s for s in all_}
    loop = next((lp for lp in reversed(loops) if lp.id in by_id), loops[-1])
    found = by_id.get(loop.id)
    answer: dict[str, Any] = {
        "loop": {"line": loop.line - 1, "function": loop.function},
        "model": options.dialect.value,
        "target": options.target.value,
    }
    if found is None or found.pragma is None or found.existing is not None:
        reasons = list(found.reasons) if found is not None else []
        return {**answer, "pragma": None, "reasons": reasons, "validation": {}}
    chosen = with_inner(found, all_)
    text, settings, include = analysed.source.text, ls.settings, ls.include_dirs(doc)
    async with progress.report(ls, "accls: verifying the loop", "compile check"):
        checked = await ls.in_pool(
            doc,
            lambda: resolved(
                text, doc.path, chosen, settings, include, backends=ls.backends
            ),
        )
    top = checked.suggestions[0]
    return {
        **answer,
        "pragma": top.pragma.render() if top.pragma is not None else None,
        "withdrawn": checked.withdrawn,
        "reasons": list(top.reasons),
        "validation": checked.validation_json(top.loop.id),
    }


def register(server: AcclsServer) -> None:
    """Register the commands the editor clients call."""
    for name in (CHECK_LOOP, *CHECK_LOOP_ALIASES):
        _register_check_loop(server, name)


def _register_check_loop(server: AcclsServer, name: str) -> None:
    @server.command(name)
    async def check(ls: AcclsServer, *args: Any) -> dict[str, Any]:
        return await check_loop(ls, name, args)
