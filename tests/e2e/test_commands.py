"""Commands and the feedback hook; the data-region action; withdrawn suggestions."""

from __future__ import annotations

import stat
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from accls.feedback import FeedbackStore
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from support.lsp import actions_at

OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
At = Callable[..., types.Position]
Start = Callable[..., Awaitable[types.InitializeResult]]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]
Need = Callable[[str], str]


def change(
    uri: str, version: int, line: int, start: int, end: int, text: str
) -> types.DidChangeTextDocumentParams:
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=line, character=start),
                    end=types.Position(line=line, character=end),
                ),
                text=text,
            )
        ],
    )


async def test_feedback_records_the_applied_action_and_the_later_edit(
    raw_client: LanguageClient,
    initialize: Start,
    open_fixture: OpenFixture,
    at: At,
    apply_edits: ApplyEdits,
    tmp_path: Path,
) -> None:
    db = tmp_path / "feedback.sqlite"
    await initialize(
        raw_client,
        "visual-studio-code",
        {"feedback": {"enabled": True, "path": str(db)}},
    )
    uri, text = open_fixture(raw_client, "dot_product.c")
    (first, *_) = await actions_at(raw_client, uri, at(text, "s += x[i]"))
    resolved = await raw_client.code_action_resolve_async(first)
    assert resolved.command is not None
    assert resolved.command.command == "accls.recordApplied"
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    edits = list(resolved.edit.changes[uri])
    new = apply_edits(text, edits, "utf-16")
    # The client applies the edit, then runs the command.
    raw_client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
                for e in sorted(
                    edits,
                    key=lambda e: (e.range.start.line, e.range.start.character),
                    reverse=True,
                )
            ],
        )
    )
    answer = await raw_client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command=resolved.command.command, arguments=resolved.command.arguments
        )
    )
    assert isinstance(answer, dict)
    assert answer["recorded"] is True
    args = (resolved.command.arguments or [{}])[0]
    assert isinstance(args, dict)
    line = args["line"]
    pragma = new.split("\n")[line].strip()
    assert pragma == args["pragma"]
    assert pragma.startswith("#pragma acc parallel loop")
    # The user edits the pragma: `copyin` becomes `present`.
    column = new.split("\n")[line].index("copyin")
    raw_client.text_document_did_change(
        change(uri, 3, line, column, column + 6, "present")
    )
    hover = await raw_client.text_document_hover_async(  # a round trip: edits are in
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        )
    )
    assert hover is None
    with FeedbackStore(db) as store:
        (record,) = store.applied()
    assert record.suggested == args["pragma"]
    assert record.edited
    assert record.final == args["pragma"].replace("copyin", "present")
    assert record.model == "openacc"
    assert record.source == "analysis"
    assert record.prompt.endswith("pragma:\n")


async def test_no_command_without_opt_in(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    (first, *_) = await actions_at(client, uri, at(text, "s += x[i]"))
    resolved = await client.code_action_resolve_async(first)
    assert resolved.command is None


def _check_loop(
    command: str, uri: str, position: types.Position
) -> types.ExecuteCommandParams:
    return types.ExecuteCommandParams(
        command=command,
        arguments=[
            {
                "uri": uri,
                "position": {"line": position.line, "character": position.character},
            }
        ],
    )


async def test_check_loop(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    position = at(text, "s += x[i]")
    answer = await client.workspace_execute_command_async(
        _check_loop("accls.checkLoop", uri, position)
    )
    assert isinstance(answer, dict)
    assert answer["pragma"].startswith("#pragma acc parallel loop reduction(+:s)")
    assert answer["withdrawn"] is None
    assert answer["validation"]["race_free"] is True
    with pytest.raises(JsonRpcException, match=r"accls\.checkLoop: expected"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="accls.checkLoop", arguments=[{"uri": 3}]
            )
        )


async def test_verify_loop_is_an_alias_of_check_loop(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    position = at(text, "s += x[i]")
    old = await client.workspace_execute_command_async(
        _check_loop("accls.verifyLoop", uri, position)
    )
    new = await client.workspace_execute_command_async(
        _check_loop("accls.checkLoop", uri, position)
    )
    assert isinstance(old, dict)
    assert old == new
    assert old["pragma"].startswith("#pragma acc parallel loop reduction(+:s)")
    # Errors name the command the client called, as before the rename.
    with pytest.raises(JsonRpcException, match=r"accls\.verifyLoop: expected"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="accls.verifyLoop", arguments=[{"uri": 3}]
            )
        )


async def test_data_region_action(
    client: LanguageClient,
    open_fixture: OpenFixture,
    at: At,
    apply_edits: ApplyEdits,
    need: Need,
    tmp_path: Path,
) -> None:
    uri, text = open_fixture(client, "jacobi2d.c")
    actions = await actions_at(client, uri, at(text, "A[i][j] = B[i][j]"))
    regions = [a for a in actions if a.title.startswith("Wrap ")]
    assert len(regions) == 1
    assert "`#pragma acc data" in regions[0].title
    resolved = await client.code_action_resolve_async(regions[0])
    assert resolved.disabled is None
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    new = apply_edits(text, list(resolved.edit.changes[uri]), "utf-16")
    assert new.count("#pragma acc parallel loop") == 2
    assert "present(" in new
    source = tmp_path / "region.c"
    source.write_text(new, encoding="utf-8")
    result = subprocess.run(
        [need("gcc"), "-fsyntax-only", "-fopenacc", str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


async def test_a_pragma_that_does_not_compile_is_withdrawn(
    raw_client: LanguageClient,
    initialize: Start,
    open_fixture: OpenFixture,
    at: At,
    need: Need,
    tmp_path: Path,
) -> None:
    # A compiler that rejects every OpenACC pragma, as one without OpenACC would.
    script = tmp_path / "noacc"
    script.write_text(
        "#!/bin/sh\n"
        "for last; do :; done\n"
        'if grep -q "pragma acc" "$last"; then\n'
        '  echo "$last:1:1: error: OpenACC is not supported" >&2; exit 1\n'
        "fi\n"
        f'exec "{need("gcc")}" "$@"\n',
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    await initialize(
        raw_client, "visual-studio-code", {"compiler": {"path": str(script)}}
    )
    uri, text = open_fixture(raw_client, "saxpy_restrict.c")
    position = at(text, "y[i] = a * x[i]")
    first = (await actions_at(raw_client, uri, position))[0]
    assert first.title.startswith("Parallelize with OpenACC")
    resolved = await raw_client.code_action_resolve_async(first)
    assert resolved.edit is None
    assert resolved.disabled is not None
    assert "does not compile" in resolved.disabled.reason
    # Listing again at the same version omits it; the OpenMP ones stay.
    again = [a.title for a in await actions_at(raw_client, uri, position)]
    assert not any(t.startswith("Parallelize with OpenACC") for t in again)
    assert any(t.startswith("Parallelize with OpenMP (CPU)") for t in again)
    hover = await raw_client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at(text, "for (int i = 0; i < n"),
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert "the pragma does not compile" in hover.contents.value
