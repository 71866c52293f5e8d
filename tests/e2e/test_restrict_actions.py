"""The add-`restrict`-and-parallelize action, its hover, and where it is not offered."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient
from support.gcc import syntax_check
from support.lsp import actions_at

Need = Callable[[str], str]
OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
OpenText = Callable[..., str]
At = Callable[..., types.Position]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]
Encoding = Callable[[LanguageClient], str]

FLAGS = {
    "OpenACC": "-fopenacc",
    "OpenMP (CPU)": "-fopenmp",
    "OpenMP target": "-fopenmp",
}


def _restrict(actions: list[types.CodeAction]) -> list[types.CodeAction]:
    return [a for a in actions if a.title.startswith("Add `restrict`")]


async def test_aliasing_alone_offers_restrict_on_definition_and_prototype(
    any_client: LanguageClient,
    open_fixture: OpenFixture,
    at: At,
    apply_edits: ApplyEdits,
    encoding: Encoding,
    need: Need,
    tmp_path: Path,
) -> None:
    gcc = need("gcc")
    uri, text = open_fixture(any_client, "restrict_offer.c")
    position = at(text, "out[i] = 0.25", encoding(any_client))
    actions = _restrict(await actions_at(any_client, uri, position))
    titles = [a.title for a in actions]
    assert len(titles) == 3, titles
    assert all(
        t.startswith(
            "Add `restrict` to `out`, `a`, `b` (promise they never overlap) "
            "and parallelize with "
        )
        for t in titles
    )
    assert any(t.endswith("OpenMP (CPU): `#pragma omp parallel for`") for t in titles)
    for action in actions:
        resolved = await any_client.code_action_resolve_async(action)
        assert resolved.disabled is None, resolved.disabled
        assert resolved.edit is not None
        assert resolved.edit.changes is not None
        new = apply_edits(text, list(resolved.edit.changes[uri]), encoding(any_client))
        header = (
            "void blend(int n, double *restrict out, const double *restrict a, "
            "const double *restrict b)"
        )
        assert new.count(header) == 2  # the prototype and the definition agree
        pragma = action.title.split("`")[-2]
        assert f"    {pragma}\n    for (int i = 0; i < n; i++)\n        out[i]" in new
        assert "double *restrict dst" not in new  # only the loop's own function
        flag = next(f for k, f in FLAGS.items() if k in action.title)
        result = syntax_check(gcc, new, flag, tmp_path)
        assert result.returncode == 0, result.stderr


async def test_no_restrict_when_a_caller_passes_one_buffer_twice(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "restrict_offer.c")
    actions = _restrict(await actions_at(client, uri, at(text, "dst[i] = 0.5")))
    # Listing sees only `smooth()`; resolving reads the whole buffer's callers.
    assert actions
    for action in actions:
        resolved = await client.code_action_resolve_async(action)
        assert resolved.disabled is not None
        assert "`smooth(N, buf, buf + 1)` at line" in resolved.disabled.reason
        assert resolved.edit is None


async def test_no_restrict_when_another_obstacle_remains(
    client: LanguageClient, open_source: OpenText, at: At, tmp_path: Path
) -> None:
    text = (
        "void scan(int n, double *out, const double *in)\n"
        "{\n"
        "    for (int i = 1; i < n; i++)\n"
        "        out[i] = out[i - 1] + in[i];\n"
        "}\n"
    )
    uri = open_source(client, text, tmp_path / "scan.c")
    actions = await actions_at(client, uri, at(text, "out[i] = out"))
    assert _restrict(actions) == []


async def test_the_hover_says_what_the_promise_means(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "restrict_offer.c")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at(text, "for (int i = 0; i < n; i++)\n        out[i]"),
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    value = hover.contents.value
    assert "`out`, `a`, `b` of `blend()` declared `restrict`" in value
    assert "never refer to overlapping memory" in value
    assert "if a caller passes overlapping buffers, the program is wrong" in value
