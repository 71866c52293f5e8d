"""`accls.explainLoop`: the full report on a loop, and a clear answer elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
At = Callable[..., types.Position]


async def explain(
    client: LanguageClient, uri: str, position: types.Position
) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
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
    assert isinstance(result, dict)
    return result


async def test_the_full_report_of_a_parallel_loop(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    # Anywhere in the loop, not only its header.
    answer = await explain(client, uri, at(text, "s += x[i]"))
    markdown = answer["markdown"]
    print(markdown)
    assert answer["loop"] == {"line": 18, "function": "dot"}
    assert markdown.startswith("# accls: `for (i)` at line 19 is parallel\n")
    assert "- `s`: reduction(+)" in markdown
    assert "## Suggested pragmas" in markdown
    assert "- OpenACC (GPU): `#pragma acc parallel loop" in markdown
    assert "- `x[0:n]` to device: n x double" in markdown


async def test_the_full_report_of_a_refused_loop(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "prefix_sum.c")
    markdown = (await explain(client, uri, at(text, "for (int i = 1")))["markdown"]
    assert "is not parallel" in markdown
    assert "## Why not\n\n- line 20: flow dependence on `out`" in markdown
    assert "- `out`: flow dependence, line 20, distance 1" in markdown


async def test_a_position_that_is_not_a_loop_says_so(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    answer = await explain(client, uri, at(text, "#include"))
    assert answer["loop"] is None
    assert answer["markdown"].startswith("# accls: no loop at line")
    assert "Put the cursor on a `for` loop" in answer["markdown"]
