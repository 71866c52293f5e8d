"""The workspace index: hover and code actions before and after it is built."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from support.lsp import actions_at

OpenSource = Callable[[LanguageClient, str, Path], str]
At = Callable[..., types.Position]

MAIN_C = """\
void fill(double x, double *tmp);
void bump(int i);
void run(int n, double *restrict a, double *restrict b) {
  for (int i = 0; i < n; i++) {
    double tmp[5];
    fill(a[i], tmp);
    b[i] = tmp[0] + tmp[4];
  }
}
"""
LIB_C = """\
int calls;
void fill(double x, double *tmp) {
  for (int k = 0; k < 5; k++) tmp[k] = x * k;
}
"""


def _accept_registrations(client: LanguageClient) -> list[types.RegistrationParams]:
    seen: list[types.RegistrationParams] = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)  # type: ignore[untyped-decorator]
    def register(params: types.RegistrationParams) -> None:
        seen.append(params)

    return seen


async def _hover(client: LanguageClient, uri: str, at: types.Position) -> str:
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=at
        )
    )
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    return result.contents.value


async def _until(
    client: LanguageClient, uri: str, at: types.Position, want: str
) -> str:
    value = ""
    for _ in range(150):
        value = await _hover(client, uri, at)
        if want in value:
            return value
        await asyncio.sleep(0.2)
    raise AssertionError(f"never saw {want!r} in the hover:\n{value}")


async def _open_workspace(client: LanguageClient, root: Path, cache: Path) -> None:
    """Initialize as VS Code with `root` as the one workspace folder."""
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="proj")],
            initialization_options={"indexCache": str(cache)},
        )
    )


async def test_the_index_makes_a_cross_file_loop_parallel(
    raw_client: LanguageClient, tmp_path: Path, open_source: OpenSource, at: At
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.c").write_text(MAIN_C)
    (root / "lib.c").write_text(LIB_C)
    registrations = _accept_registrations(raw_client)
    await _open_workspace(raw_client, root, tmp_path / "cache")
    uri = open_source(raw_client, MAIN_C, root / "main.c")
    loop = at(MAIN_C, "for (int i")
    # Before the index is built the listing answers at once, with what it has.
    first = await _hover(raw_client, uri, loop)
    assert "`fill()`" in first
    await actions_at(raw_client, uri, loop)  # answers, whatever the index holds
    value = await _until(raw_client, uri, loop, "(lib.c:2)")
    assert "is parallel" in value
    actions = await actions_at(raw_client, uri, loop)
    omp = [a for a in actions if "OpenMP" in a.title and a.disabled is None]
    assert omp, [a.title for a in actions]
    watched = [r.method for p in registrations for r in p.registrations]
    assert watched == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    assert raw_client.progress_reports  # $/progress while indexing
    # A save of the other file re-summarises it.
    (root / "lib.c").write_text(LIB_C.replace("tmp[k] = x * k;", "calls++;"))
    raw_client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=(root / "lib.c").as_uri())
        )
    )
    value = await _until(raw_client, uri, loop, "which writes the global `calls`")
    assert "is not parallel" in value


async def test_a_callee_of_no_file_is_named_as_missing(
    raw_client: LanguageClient, tmp_path: Path, open_source: OpenSource, at: At
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.c").write_text(MAIN_C)
    _accept_registrations(raw_client)
    await raw_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            initialization_options={"indexCache": str(tmp_path / "cache")},
        )
    )
    uri = open_source(raw_client, MAIN_C, root / "main.c")
    loop = at(MAIN_C, "for (int i")
    value = await _until(raw_client, uri, loop, "defined in no file of the project")
    assert "is not parallel" in value


STEP_F90 = """\
subroutine step(n, a)
  use grid
  integer, intent(in) :: n
  real, intent(inout) :: a(n)
  integer :: i
  do i = 1, n
    a(i) = a(i) * scale
  end do
end subroutine step
"""
GRID_F90 = """\
module grid
  real, parameter :: scale = 2.0
end module grid
"""


async def test_a_fortran_module_added_later_is_found_without_a_restart(
    raw_client: LanguageClient, tmp_path: Path, at: At
) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "step.f90").write_text(STEP_F90)
    registrations = _accept_registrations(raw_client)
    await _open_workspace(raw_client, root, tmp_path / "cache")
    uri = (root / "src" / "step.f90").as_uri()
    raw_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="fortran", version=1, text=STEP_F90
            )
        )
    )
    loop = at(STEP_F90, "do i = 1, n")
    await _until(raw_client, uri, loop, "module `grid` not found in the workspace")
    for _ in range(150):  # the server registers its watchers after `initialized`
        if registrations:
            break
        await asyncio.sleep(0.1)
    globs = [  # the registration's options arrive as plain JSON
        str(w["globPattern"])
        for p in registrations
        for r in p.registrations
        for w in r.register_options["watchers"]  # type: ignore[index]
    ]
    assert "**/*.c" in globs, globs
    assert any("f90" in g for g in globs), globs
    # The module's file appears in another folder: the client reports it.
    (root / "lib").mkdir()
    (root / "lib" / "grid.f90").write_text(GRID_F90)
    raw_client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(
                    uri=(root / "lib" / "grid.f90").as_uri(),
                    type=types.FileChangeType.Created,
                )
            ]
        )
    )
    for _ in range(150):
        value = await _hover(raw_client, uri, loop)
        if "not found in the workspace" not in value:
            break
        await asyncio.sleep(0.2)
    assert "not found in the workspace" not in value, value
    assert "is parallel" in value, value


SHIFT_C = """\
void shift(double *out, const double *in, int n) {
  for (int i = 0; i < n - 1; i++)
    out[i] = in[i + 1] - in[i];
}
"""
CALLER_C = """\
double *grid_alloc(int n);
double *grid_cached(int n);
void shift(double *out, const double *in, int n);
int main(void) {
  double *a = grid_alloc(64);
  double *b = grid_alloc(64);
  for (int i = 0; i < 64; i++) a[i] = i;
  shift(b, a, 64);
  return (int)b[3];
}
"""
# Sorted after main.c: the index reads main.c before it knows the wrappers.
ZALLOC_C = """\
#include <stdlib.h>
double *grid_alloc(int n) { return malloc(sizeof(double) * (size_t)n); }
double *grid_cached(int n) {
  static double *kept;
  if (kept == NULL) kept = malloc(sizeof(double) * (size_t)n);
  return kept;
}
"""


async def test_blocks_of_another_files_allocator_are_apart_at_the_calls(
    raw_client: LanguageClient, tmp_path: Path, open_source: OpenSource, at: At
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "kernel.c").write_text(SHIFT_C)
    (root / "main.c").write_text(CALLER_C)
    (root / "zalloc.c").write_text(ZALLOC_C)
    _accept_registrations(raw_client)
    await _open_workspace(raw_client, root, tmp_path / "cache")
    uri = open_source(raw_client, SHIFT_C, root / "kernel.c")
    loop = at(SHIFT_C, "for (int i")
    value = await _until(raw_client, uri, loop, "(main.c:8)")
    assert "is parallel" in value
    # The same block twice (a cached one): the call proves nothing.
    (root / "main.c").write_text(CALLER_C.replace("= grid_alloc", "= grid_cached"))
    raw_client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=(root / "main.c").as_uri())
        )
    )
    value = await _until(raw_client, uri, loop, "is not parallel")
    assert "(main.c:8)" not in value
