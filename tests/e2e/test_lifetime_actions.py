"""The offer that keeps a function's arrays on the device across its kernel calls."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from support.gcc import syntax_check
from support.lsp import actions_at

Need = Callable[[str], str]
OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
OpenSource = Callable[[LanguageClient, str, Path], str]
SOLVER = Path(__file__).resolve().parents[1] / "fixtures" / "project" / "solver"
At = Callable[..., types.Position]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]

TITLE = (
    "Keep `r`, `u` on the device in `main()` across `axpy()`, `scal()`, `vdot()` "
    "(about 1152*n bytes moved before, about 0 bytes after)"
)


async def _lifetime_actions(
    client: LanguageClient, uri: str, position: types.Position
) -> list[types.CodeAction]:
    """The lifetime actions listed at `position`."""
    actions = await actions_at(client, uri, position)
    return [a for a in actions if a.title.startswith("Keep ")]


async def test_the_owner_offers_one_lifetime_and_the_whole_edit_compiles(
    client: LanguageClient,
    open_fixture: OpenFixture,
    at: At,
    apply_edits: ApplyEdits,
    need: Need,
    tmp_path: Path,
) -> None:
    gcc = need("gcc")
    uri, text = open_fixture(client, "blas_lifetime.c")
    (action,) = await _lifetime_actions(client, uri, at(text, "for (int it = 0"))
    assert action.title == TITLE
    resolved = await client.code_action_resolve_async(action)
    assert resolved.disabled is None, resolved.disabled
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    new = apply_edits(text, list(resolved.edit.changes[uri]), "utf-16")
    assert "    #pragma acc enter data create(r[0:n], u[0:n])\n" in new
    assert "    #pragma acc exit data delete(r[0:n], u[0:n])\n" in new
    assert new.count("present(") == 5  # three kernels, the init and checksum loops
    assert "copyin(" not in new
    result = syntax_check(gcc, new, "-fopenacc", tmp_path)
    assert result.returncode == 0, result.stderr
    data = resolved.data
    assert isinstance(data, dict)
    assert any("bytes before" in reason for reason in data["reasons"])


async def test_a_kernel_function_offers_no_lifetime(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "blas_lifetime.c")
    assert await _lifetime_actions(client, uri, at(text, "y[i] = a * x[i]")) == []


async def test_a_kernel_called_from_elsewhere_keeps_its_own_clauses(
    client: LanguageClient, open_fixture: OpenFixture, at: At, apply_edits: ApplyEdits
) -> None:
    # Another function calls scal(): its data may not be on the device there.
    uri, text = open_fixture(client, "blas_lifetime.c")
    text = text.replace(
        "int main(int argc",
        "void rescale(int n, double *v)\n{\n    scal(n, 2.0, v);\n}\n\n"
        "int main(int argc",
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    (action,) = await _lifetime_actions(client, uri, at(text, "for (int it = 0"))
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    new = apply_edits(text, list(resolved.edit.changes[uri]), "utf-16")
    assert "#pragma acc parallel loop copy(x[0:n])" in new
    assert "present(y[0:n], x[0:n])" in new


async def test_the_hover_shows_the_bytes_the_lifetime_saves(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "blas_lifetime.c")
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at(text, "for (int it = 0"),
        )
    )
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    value = result.contents.value
    assert (
        "- device data: `r`, `u` kept in `main()` (code action): "
        "about 1152*n bytes moved before, about 0 bytes after\n"
    ) in value
    assert len(value.rstrip("\n").splitlines()) <= 12


async def test_a_loop_outside_every_lifetime_has_no_device_data_line(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at(text, "i < n"),
        )
    )
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    assert "device data" not in result.contents.value


async def test_the_hover_shows_the_bytes_a_data_region_saves(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    # Two sweeps in a time loop: the region around the time loop moves A and B once.
    uri, text = open_fixture(client, "jacobi2d.c")
    actions = await actions_at(client, uri, at(text, "A[i][j] = B[i][j]"))
    assert any(a.title.startswith("Wrap ") for a in actions)
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at(text, "for (int i = 1; i < N - 1; i++)"),
        )
    )
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    line = next(
        (x for x in result.contents.value.splitlines() if "data region:" in x), ""
    )
    # Per step, each sweep copies A and B in and the one it writes back out
    # (interior writes: no exact cover): 6 * 120 * 120 * 8 bytes; the region: 4.
    assert line == (
        "- data region: lines 31-36 (code action): "
        "about 691200*tsteps bytes moved before, about 460800 bytes after"
    )


async def _open_solver(client: LanguageClient, tmp_path: Path) -> Path:
    """A copy of the solver project, opened as the session's workspace folder."""
    root = tmp_path / "solver"
    shutil.copytree(SOLVER, root)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)  # type: ignore[untyped-decorator]
    def register(params: types.RegistrationParams) -> None:
        del params  # the file watcher the index asks for

    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="s")],
            initialization_options={"indexCache": str(tmp_path / "cache")},
        )
    )
    return root


async def test_with_the_workspace_index_main_keeps_another_file_s_kernel_arrays(
    raw_client: LanguageClient,
    tmp_path: Path,
    open_source: OpenSource,
    at: At,
    apply_edits: ApplyEdits,
    need: Need,
) -> None:
    gcc = need("gcc")
    root = await _open_solver(raw_client, tmp_path)
    text = (root / "main.c").read_text()
    uri = open_source(raw_client, text, root / "main.c")
    where = at(text, "for (int it = 0")
    found: list[types.CodeAction] = []
    for _ in range(150):  # until the index has summarised kernels.c
        found = await _lifetime_actions(raw_client, uri, where)
        if found:
            break
        await asyncio.sleep(0.2)
    (action,) = found
    assert action.title.startswith(
        "Keep `u`, `w` on the device in `main()` across `smooth()`, `copy_back()`"
    )
    resolved = await raw_client.code_action_resolve_async(action)
    assert resolved.disabled is None, resolved.disabled
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    assert list(resolved.edit.changes) == [uri]  # the kernels keep their clauses
    new = apply_edits(text, list(resolved.edit.changes[uri]), "utf-16")
    assert "#pragma acc update self(u[5:1])" in new
    (root / "main.c").write_text(new)
    built = subprocess.run(
        [gcc, "-fopenacc", "-c", str(root / "main.c"), "-o", str(tmp_path / "m.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr


def _with_lifetime(text: str) -> str:
    """main.c of the solver with the lifetime the action writes."""
    text = text.replace(
        "    for (int it = 0; it < 40; it++) {\n",
        "#pragma acc enter data copyin(u[0:n]) create(w[0:n])\n"
        "    for (int it = 0; it < 40; it++) {\n",
    )
    text = text.replace(
        "        if (it % 10 == 0)\n            printf",
        "        if (it % 10 == 0) {\n#pragma acc update self(u[0:n])\n"
        "            printf",
    )
    return text.replace(
        "u[5]);\n    }\n",
        "u[5]);\n        }\n    }\n"
        "#pragma acc exit data copyout(u[0:n]) delete(w[0:n])\n",
    )


async def _codes(client: LanguageClient, uri: str) -> list[str]:
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri)
        )
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    return [str(d.code) for d in report.items]


async def test_a_lifetime_made_stale_in_another_file_gets_a_diagnostic(
    raw_client: LanguageClient, tmp_path: Path, open_source: OpenSource
) -> None:
    root = await _open_solver(raw_client, tmp_path)
    text = _with_lifetime((root / "main.c").read_text())
    (root / "main.c").write_text(text)
    uri = open_source(raw_client, text, root / "main.c")
    assert "ACC206" not in await _codes(
        raw_client, uri
    )  # the kernels run on the device
    kernels = root / "kernels.c"
    kernels.write_text(
        "".join(
            line
            for line in kernels.read_text().splitlines(keepends=True)
            if "#pragma acc" not in line
        )
    )
    changed = types.DidChangeWatchedFilesParams(
        changes=[
            types.FileEvent(uri=kernels.as_uri(), type=types.FileChangeType.Changed)
        ]
    )
    codes: list[str] = []
    for _ in range(150):  # until the index has summarised kernels.c again
        # Said again each time: a change while the first build runs is skipped.
        raw_client.workspace_did_change_watched_files(changed)
        await asyncio.sleep(0.2)
        codes = await _codes(raw_client, uri)
        if "ACC206" in codes:
            break
    assert "ACC206" in codes
