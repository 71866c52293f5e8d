"""C++ buffers in both editors' sessions: offers on C++ loops, none on stream I/O."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient
from support.lsp import actions_at

At = Callable[..., types.Position]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]
Encoding = Callable[[LanguageClient], str]
Need = Callable[[str], str]

CPP = Path(__file__).resolve().parents[1] / "fixtures" / "cpp"


def _open_cpp(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="cpp",
                version=1,
                text=path.read_text(encoding="utf-8") if text is None else text,
            )
        )
    )
    return uri


async def test_a_vector_loop_gets_an_openmp_offer_that_compiles_with_gxx(
    any_client: LanguageClient,
    at: At,
    apply_edits: ApplyEdits,
    encoding: Encoding,
    need: Need,
    tmp_path: Path,
) -> None:
    gxx = need("g++")
    path = CPP / "vector_index.cpp"
    text = path.read_text(encoding="utf-8")
    uri = _open_cpp(any_client, path)
    where = at(text, "v[i] = std::sqrt", encoding(any_client))
    actions = await actions_at(any_client, uri, where)
    offers = [a for a in actions if a.title.startswith("Parallelize with OpenMP (CPU)")]
    assert offers, [a.title for a in actions]
    resolved = await any_client.code_action_resolve_async(offers[0])
    assert resolved.disabled is None
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    new = apply_edits(text, list(resolved.edit.changes[uri]), encoding(any_client))
    assert "#pragma omp parallel for\n  for (std::size_t i = 0; i < v.size()" in new
    unit = tmp_path / "annotated.cpp"
    unit.write_text(new, encoding="utf-8")
    proc = subprocess.run(
        [gxx, "-std=c++17", "-fopenmp", "-fsyntax-only", str(unit)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


async def test_a_stream_loop_offers_nothing(
    any_client: LanguageClient, at: At, encoding: Encoding
) -> None:
    path = CPP / "stream_io.cpp"
    text = path.read_text(encoding="utf-8")
    uri = _open_cpp(any_client, path)
    where = at(text, "in >> a[i]", encoding(any_client))
    assert await actions_at(any_client, uri, where) == []


async def test_a_module_file_keeps_the_server_up(
    client: LanguageClient, at: At, tmp_path: Path
) -> None:
    text = (
        "export module kernels;\nimport std;\n"
        "export void scale(double *a, int n) {\n"
        "  for (int i = 0; i < n; i++) a[i] *= 2.0;\n}\n"
    )
    path = tmp_path / "kernels.cpp"
    path.write_text(text, encoding="utf-8")
    uri = _open_cpp(client, path, text)
    await actions_at(client, uri, at(text, "a[i] *= 2.0"))
    # Still answering: a second request on a plain C++ buffer works.
    other = CPP / "push_back.cpp"
    body = other.read_text(encoding="utf-8")
    second = _open_cpp(client, other)
    assert await actions_at(client, second, at(body, "out.push_back")) == []
