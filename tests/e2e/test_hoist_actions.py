"""The offer that opens one OpenMP region around a sequential loop."""

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

TITLE = (
    "Open one OpenMP parallel region around the `t` loop (2 `omp for` inside, "
    "not 2 regions per iteration)"
)


async def test_a_time_loop_offers_one_region_and_the_edit_compiles(
    client: LanguageClient,
    open_fixture: OpenFixture,
    at: At,
    apply_edits: ApplyEdits,
    need: Need,
    tmp_path: Path,
) -> None:
    gcc = need("gcc")
    uri, text = open_fixture(client, "jacobi2d.c")
    actions = await actions_at(client, uri, at(text, "for (int t = 0"))
    (action,) = [a for a in actions if a.title.startswith("Open one OpenMP")]
    assert action.title == TITLE
    resolved = await client.code_action_resolve_async(action)
    assert resolved.disabled is None, resolved.disabled
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    new = apply_edits(text, list(resolved.edit.changes[uri]), "utf-16")
    assert "    #pragma omp parallel\n    for (int t = 0; t < tsteps; t++) {" in new
    assert new.count("        #pragma omp for\n") == 2  # rows alone: no collapse
    assert "parallel for" not in new.split("static void jacobi2d")[1].split("main")[0]
    result = syntax_check(gcc, new, "-fopenmp", tmp_path)
    assert result.returncode == 0, result.stderr


async def test_a_time_loop_around_serial_sweeps_offers_no_region(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    # Gauss-Seidel: the sweeps carry dependences, so there is nothing to share out.
    uri, text = open_fixture(client, "gauss_seidel.c")
    actions = await actions_at(client, uri, at(text, "for (int t = 0"))
    assert [a for a in actions if a.title.startswith("Open one OpenMP")] == []
