"""Induction variables: the rewrite-and-parallelize action and its hover."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient
from support.gcc import syntax_check
from support.lsp import actions_at

Need = Callable[[str], str]
OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
At = Callable[..., types.Position]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]
Encoding = Callable[[LanguageClient], str]

FLAGS = {
    "OpenACC": "-fopenacc",
    "OpenMP (CPU)": "-fopenmp",
    "OpenMP target": "-fopenmp",
}


async def test_a_counter_loop_offers_the_rewrite_for_each_model_and_it_compiles(
    any_client: LanguageClient,
    open_fixture: OpenFixture,
    at: At,
    apply_edits: ApplyEdits,
    encoding: Encoding,
    need: Need,
    tmp_path: Path,
) -> None:
    gcc = need("gcc")
    uri, text = open_fixture(any_client, "induction_counters.c")
    position = at(text, "a[i] = buf[t++]", encoding(any_client))
    actions = await actions_at(any_client, uri, position)
    titles = [a.title for a in actions]
    assert len(titles) == 3, titles
    assert all(
        t.startswith("Rewrite `t` in closed form and parallelize") for t in titles
    )
    assert any(t.endswith("OpenMP (CPU): `#pragma omp parallel for`") for t in titles)
    for action in actions:
        resolved = await any_client.code_action_resolve_async(action)
        assert resolved.disabled is None, resolved.disabled
        assert resolved.edit is not None
        assert resolved.edit.changes is not None
        new = apply_edits(text, list(resolved.edit.changes[uri]), encoding(any_client))
        pragma = action.title.split("`")[-2]
        assert (
            f"    {pragma}\n    for (int i = 0; i < n; i++) {{\n"
            "        a[i] = buf[t + 2*i];\n        b[i] = buf[t + 2*i + 1];\n    }\n"
            "    if (0 < n) t += 2*n;\n" in new
        )
        flag = next(f for k, f in FLAGS.items() if k in action.title)
        result = syntax_check(gcc, new, flag, tmp_path)
        assert result.returncode == 0, result.stderr


async def test_a_conditional_counter_offers_no_rewrite(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "counter_as_value.c")
    actions = await actions_at(client, uri, at(text, "out[c++] = tmp[i]"))
    assert actions == []


async def test_the_hover_explains_the_rewrite(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "induction_counters.c")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at(text, "for (int i = 0; i < n; i++) {\n        c[i]"),
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    value = hover.contents.value
    assert '- fix: the code action "Rewrite ... in closed form"' in value
    assert "`t + 3*i`" in value
    assert "`if (0 < n) t += 3*n;`" in value
    position = hover.range.start if hover.range is not None else None
    assert position is not None
    report = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="accls.explainLoop",
            arguments=[
                {
                    "uri": uri,
                    "position": {
                        "line": position.line,
                        "character": position.character,
                    },
                }
            ],
        )
    )
    assert isinstance(report, dict)
    markdown = report["markdown"]
    assert "## Induction variables" in markdown
    assert "`t` advances by 3 in every iteration" in markdown
    assert "`if (0 < n) t += 3*n;`" in markdown
