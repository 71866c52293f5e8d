"""Resolve takes what the listing offered: the same edit, and never a stale one."""

from __future__ import annotations

from pathlib import Path

from accls.server.documents import FUNCTIONS_KEPT
from lsprotocol import types
from pytest_lsp import LanguageClient
from support.lsp import actions_at

KERNEL = """\
double combine_{k}(const double *x, int n)
{{
    double s = {start};
    for (int i = 0; i < n; i++)
        s {op}= x[i];
    return s;
}}
"""


def _kernels(count: int, op: str = "+") -> str:
    return "\n".join(
        KERNEL.format(k=k, op=op, start="1.0" if op == "*" else "0.0")
        for k in range(count)
    )


def _open(client: LanguageClient, text: str, path: Path) -> str:
    uri = path.resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=text
            )
        )
    )
    return uri


def _loop_of(text: str, k: int) -> types.Position:
    """The accumulation line of kernel `k`."""
    lines = text.split("\n")
    start = lines.index(f"double combine_{k}(const double *x, int n)")
    row = next(
        r
        for r in range(start, len(lines))
        if "s " in lines[r] and "=" in lines[r] and "x[i]" in lines[r]
    )
    return types.Position(line=row, character=8)


async def _openacc(
    client: LanguageClient, uri: str, where: types.Position
) -> types.CodeAction:
    actions = await actions_at(client, uri, where)
    return next(a for a in actions if a.title.startswith("Parallelize with OpenACC"))


def _inserted(resolved: types.CodeAction, uri: str) -> str:
    assert resolved.disabled is None
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    return "".join(e.new_text for e in resolved.edit.changes[uri])


async def test_resolve_after_the_listing_analysis_was_dropped(
    client: LanguageClient, tmp_path: Path
) -> None:
    # More functions listed than the server keeps analyses of: the first
    # action's analysis is gone when it is resolved, and the edit is the same.
    count = FUNCTIONS_KEPT + 4
    text = _kernels(count)
    uri = _open(client, text, tmp_path / "many.c")
    first = await _openacc(client, uri, _loop_of(text, 0))
    for k in range(1, count):
        await actions_at(client, uri, _loop_of(text, k))
    pragma = first.title.split("`")[1]
    assert "reduction(+:s)" in pragma
    resolved = await client.code_action_resolve_async(first)
    assert f"{pragma}\n" in _inserted(resolved, uri)


async def test_resolve_after_an_edit_inserts_the_edited_loops_pragma(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = _kernels(3)
    uri = _open(client, text, tmp_path / "edited.c")
    where = _loop_of(text, 1)
    before = await client.code_action_resolve_async(await _openacc(client, uri, where))
    assert "reduction(+:s)" in _inserted(before, uri)
    # `s += x[i]` becomes `s *= x[i]`: the same loop, another reduction.
    line = text.split("\n")[where.line]
    column = line.index("+=")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=where.line, character=column),
                        end=types.Position(line=where.line, character=column + 1),
                    ),
                    text="*",
                )
            ],
        )
    )
    after = await client.code_action_resolve_async(await _openacc(client, uri, where))
    inserted = _inserted(after, uri)
    assert "reduction(*:s)" in inserted
    assert "reduction(+:s)" not in inserted
