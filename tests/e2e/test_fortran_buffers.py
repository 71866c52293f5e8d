"""A Fortran buffer in each editor profile: offers, resolve, the edit compiles."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from support.lsp import actions_at, hover_text

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "fortran" / "reductions.f90"
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]
At = Callable[..., types.Position]
Encoding = Callable[[LanguageClient], str]


@pytest.mark.parametrize("language_id", ["fortran90", "FortranFreeForm"])
async def test_a_fortran_buffer_gets_fortran_directives(
    any_client: LanguageClient,
    at: At,
    apply_edits: ApplyEdits,
    encoding: Encoding,
    tmp_path: Path,
    language_id: str,
) -> None:
    text = FIXTURE.read_text(encoding="utf-8")
    uri = FIXTURE.resolve().as_uri()
    any_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language_id, version=1, text=text
            )
        )
    )
    actions = await actions_at(
        any_client, uri, at(text, "s = s + x(i) * x(i)", encoding(any_client))
    )
    titles = [a.title for a in actions]
    assert any("`!$acc parallel loop" in t for t in titles), titles
    omp = next(a for a in actions if "`!$omp parallel do" in a.title)
    assert "reduction(+:s)" in omp.title
    resolved = await any_client.code_action_resolve_async(omp)
    assert resolved.disabled is None
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    new = apply_edits(text, list(resolved.edit.changes[uri]), encoding(any_client))
    assert "  !$omp parallel do reduction(+:s)\n  do i = 1, n\n" in new
    assert "  end do\n  !$omp end parallel do\n" in new
    compiler = shutil.which("gfortran")
    if compiler is None:
        return
    out = tmp_path / "edited.f90"
    out.write_text(new, encoding="utf-8")
    done = subprocess.run(
        [compiler, "-fsyntax-only", "-fopenmp", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


async def test_hover_on_a_fortran_loop_speaks_fortran(
    any_client: LanguageClient, at: At, encoding: Encoding, tmp_path: Path
) -> None:
    text = (
        "subroutine step(n, a)\n"
        "  use nowhere\n"
        "  integer, intent(in) :: n\n"
        "  real, intent(inout) :: a(n, n)\n"
        "  integer :: i, j\n"
        "  do j = 2, n\n"
        "    do i = 1, n\n"
        "      a(i, j) = a(i, j - 1) + w(i)\n"
        "    end do\n"
        "  end do\n"
        "end subroutine step\n"
    )
    path = tmp_path / "step.f90"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    any_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="fortran", version=1, text=text
            )
        )
    )
    value = await hover_text(
        any_client, uri, at(text, "j = 2, n", encoding(any_client))
    )
    assert value is not None
    print(value)
    assert "- modules: module `nowhere` not found in the workspace" in value
    assert "`do j` at line 6" in value
    assert "a[" not in value
