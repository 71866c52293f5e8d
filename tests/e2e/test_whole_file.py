"""The editor's code action inserts what `accls annotate` inserts.

The language server analyses a slice of the buffer around the cursor's function;
the passes that need the whole file (`present` in a kernel function every call of
which runs in the caller's data region, `present` after the user's `enter data`,
`routine vector` for a callee whose loop is parallel) and the project index's
allocator wrappers must still reach the editor's pragma, as they reach the CLI's.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from accls.cli import main
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from support.lsp import actions_at, hover_text

At = Callable[..., types.Position]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]

CALLEE_PRESENT = """\
static void smooth(int n, double *restrict b, const double *restrict a)
{
    for (int i = 1; i < n - 1; i++)
        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
}
void run(int n, int steps, double *restrict a, double *restrict b)
{
    #pragma acc data copy(a[0:n]) create(b[0:n])
    for (int t = 0; t < steps; t++)
        smooth(n, b, a);
}
"""
ENTERED_PRESENT = """\
void run(int n, double *restrict a, double *restrict b)
{
    #pragma acc enter data copyin(a[0:n]) create(b[0:n])
    double s = 2.0;
    for (int i = 0; i < n; i++)
        b[i] = s * a[i];
    #pragma acc exit data copyout(b[0:n]) delete(a[0:n])
}
"""
ROUTINE_VECTOR = """\
static double rowsum(const double *restrict r, int m)
{
    double s = 0.0;
    for (int j = 0; j < m; j++)
        s += r[j];
    return s;
}
void run(int n, int m, double a[n][m], double *restrict out)
{
    for (int i = 0; i < n; i++)
        out[i] = rowsum(a[i], m);
}
"""
FIELD_C = """\
#include <stdlib.h>
double *alloc_field(int n) {
  double *f = malloc(sizeof(double) * (size_t)n);
  return f;
}
"""
MAIN_C = """\
double *alloc_field(int n);
double run(int n) {
  double *u = alloc_field(n);
  double *w = alloc_field(n);
  for (int i = 0; i < n; i++) u[i] = 0.5 * i;
  for (int i = 0; i < n; i++) w[i] = 2.0 * u[i] + 1.0;
  return w[n - 1];
}
"""
PENDING = "whole file: still being analysed"  # the hover while it is pending


def cli_annotated(path: Path, model: str, *extra: str) -> str:
    """What `accls annotate --all` writes for the file."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["annotate", "--all", "--model", model, *extra, str(path)])
    assert code == 0, err.getvalue()
    return out.getvalue()


def _header(text: str, loop: str) -> types.Position:
    """Where the header of the loop whose body holds `loop` starts."""
    start = text.rindex("for (", 0, text.index(loop))
    line = text.count("\n", 0, start)
    return types.Position(line=line, character=start - text.rfind("\n", 0, start) - 1)


async def _settled(client: LanguageClient, uri: str, at: types.Position) -> str:
    """The hover once the whole-file facts of this version are in.

    `at` must be on a loop's header: elsewhere there is no hover, and no hover
    would say nothing of the facts.
    """
    value = ""
    for _ in range(150):
        value = await hover_text(client, uri, at) or ""
        if value and PENDING not in value:
            return value
        await asyncio.sleep(0.2)
    raise AssertionError(f"the whole-file facts never came:\n{value}")


async def _applied(
    client: LanguageClient,
    uri: str,
    text: str,
    at: types.Position,
    label: str,
    apply_edits: ApplyEdits,
) -> str:
    """The buffer after the `label` action listed at `at` is resolved and applied."""
    actions = await actions_at(client, uri, at)
    chosen = [a for a in actions if a.title.startswith(label)]
    assert chosen, [a.title for a in actions]
    resolved = await client.code_action_resolve_async(chosen[0])
    assert resolved.disabled is None, resolved.disabled
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    return apply_edits(text, list(resolved.edit.changes[uri]), "utf-16")


async def _same_as_cli(
    client: LanguageClient,
    tmp_path: Path,
    text: str,
    loop: str,
    at: At,
    apply_edits: ApplyEdits,
) -> str:
    path = tmp_path / "kernel.c"
    path.write_text(text)
    uri = path.resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=text
            )
        )
    )
    position = at(text, loop)
    await _settled(client, uri, _header(text, loop))
    new = await _applied(
        client, uri, text, position, "Parallelize with OpenACC", apply_edits
    )
    assert new == cli_annotated(path, "openacc")
    return new


async def test_a_kernel_held_by_its_callers_data_region_gets_present(
    client: LanguageClient, tmp_path: Path, at: At, apply_edits: ApplyEdits
) -> None:
    new = await _same_as_cli(
        client, tmp_path, CALLEE_PRESENT, "b[i] = (a", at, apply_edits
    )
    assert "#pragma acc parallel loop present(a[0:n], b[1:" in new


async def test_a_kernel_after_the_users_enter_data_gets_present(
    client: LanguageClient, tmp_path: Path, at: At, apply_edits: ApplyEdits
) -> None:
    new = await _same_as_cli(
        client, tmp_path, ENTERED_PRESENT, "b[i] = s", at, apply_edits
    )
    assert "#pragma acc parallel loop present(a[0:n], b[0:n])" in new


async def test_a_parallel_callee_loop_gets_routine_vector(
    client: LanguageClient, tmp_path: Path, at: At, apply_edits: ApplyEdits
) -> None:
    new = await _same_as_cli(
        client, tmp_path, ROUTINE_VECTOR, "out[i] = rowsum", at, apply_edits
    )
    assert "#pragma acc routine vector\nstatic double rowsum" in new
    assert "#pragma acc parallel loop gang " in new


async def test_the_hover_says_when_the_whole_file_facts_are_pending(
    client: LanguageClient, tmp_path: Path, at: At
) -> None:
    path = tmp_path / "kernel.c"
    uri = path.resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=ENTERED_PRESENT
            )
        )
    )
    position = at(ENTERED_PRESENT, "for (int i")
    # Listing never waits for the whole file; once its facts are in, the hover
    # drops the note and shows the pragma the command line writes.
    await actions_at(client, uri, position)
    value = await _settled(client, uri, position)
    assert "present(a[0:n], b[0:n])" in value


async def _indexed(client: LanguageClient) -> None:
    """Wait until the workspace index reports its end."""
    for _ in range(300):
        for reports in client.progress_reports.values():
            if any(isinstance(r, types.WorkDoneProgressEnd) for r in reports):
                return
        await asyncio.sleep(0.1)
    raise AssertionError("the workspace index never finished")


async def test_an_allocator_wrapper_of_another_file_gives_fresh_blocks(
    raw_client: LanguageClient, tmp_path: Path, at: At, apply_edits: ApplyEdits
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "field.c").write_text(FIELD_C)
    (root / "main.c").write_text(MAIN_C)
    cache = tmp_path / "cache"

    @raw_client.feature(types.CLIENT_REGISTER_CAPABILITY)  # type: ignore[untyped-decorator]
    def register(params: types.RegistrationParams) -> None:
        return None

    await raw_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="proj")],
            initialization_options={"indexCache": str(cache)},
        )
    )
    await _indexed(raw_client)
    uri = (root / "main.c").as_uri()
    raw_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=MAIN_C
            )
        )
    )
    position = at(MAIN_C, "w[i] = 2.0")
    await _settled(raw_client, uri, _header(MAIN_C, "w[i] = 2.0"))
    new = await _applied(
        raw_client,
        uri,
        MAIN_C,
        position,
        "Parallelize with OpenMP (CPU)",
        apply_edits,
    )
    cli = cli_annotated(
        root / "main.c", "openmp", "--project", str(root), "--index-cache", str(cache)
    )
    assert "  #pragma omp parallel for\n  for (int i = 0; i < n; i++) w[i]" in cli
    expected = cli.replace(
        "  #pragma omp parallel for\n  for (int i = 0; i < n; i++) u[i]",
        "  for (int i = 0; i < n; i++) u[i]",
    )
    assert new == expected


async def test_a_buffer_that_does_not_parse_says_it_is_not_read_whole(
    client: LanguageClient, tmp_path: Path, at: At
) -> None:
    text = ENTERED_PRESENT + "int broken = ;\n"
    uri = (tmp_path / "kernel.c").resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=text
            )
        )
    )
    value = await hover_text(client, uri, at(text, "for (int i")) or ""
    # A call in the part that does not parse would be missed: no whole-file pass.
    assert "not analysed whole while it does not parse" in value
    assert "copyin(a[0:n])" in value
