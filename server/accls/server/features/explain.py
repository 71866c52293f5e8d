"""`accls.explainLoop`: the full report on the loop at a position, as Markdown."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from accls.server.command_args import loop_position
from accls.server.explanation import EXPLAIN_LOOP, loop_report
from accls.server.language_server import AcclsServer
from accls.suggest.explain import explain_markdown

__all__ = ["register"]


async def explain_loop(ls: AcclsServer, args: tuple[Any, ...]) -> dict[str, Any]:
    """The full report on the innermost loop holding the position."""
    uri, position = loop_position(EXPLAIN_LOOP, args)
    doc = ls.documents.get(uri)
    if doc is None:
        raise JsonRpcInvalidParams(f"{EXPLAIN_LOOP}: {uri} is not open")
    offset = doc.index.offset(position)
    analysed = await ls.analysed(doc, offset)
    loops = analysed.loops_at(offset) if analysed is not None else ()
    if analysed is None or not loops:
        line = position.line + 1
        return {
            "loop": None,
            "title": "accls: no loop here",
            "markdown": f"# accls: no loop at line {line}\n\nPut the cursor on a "
            "`for` loop (its header or its body) and ask again.\n",
        }
    loop = loops[-1]
    report = loop_report(ls, doc, analysed, loop)
    return {
        "loop": {"line": loop.line - 1, "function": loop.function},
        "title": f"accls: loop at line {loop.line}",
        "markdown": explain_markdown(report),
    }


def register(server: AcclsServer) -> None:
    """`accls.explainLoop`."""

    @server.command(EXPLAIN_LOOP)
    async def explain(ls: AcclsServer, *args: Any) -> dict[str, Any]:
        return await explain_loop(ls, args)
