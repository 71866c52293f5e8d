"""Code actions: listing on a loop, resolve with validation, apply and compile."""

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


async def test_listing_offers_each_model_with_the_pragma_in_the_title(
    any_client: LanguageClient, open_fixture: OpenFixture, at: At, encoding: Encoding
) -> None:
    uri, text = open_fixture(any_client, "dot_product.c")
    actions = await actions_at(
        any_client, uri, at(text, "for (int i = 0; i < n", encoding(any_client))
    )
    titles = [a.title for a in actions]
    assert titles[0].startswith("Parallelize with OpenACC: `#pragma acc parallel loop")
    assert "reduction(+:s)" in titles[0]
    assert any(
        t.startswith("Parallelize with OpenMP (CPU): `#pragma omp parallel for")
        for t in titles
    )
    assert any(
        t.startswith("Offload with OpenMP target: `#pragma omp target teams")
        for t in titles
    )
    assert all(a.edit is None for a in actions)  # both editors resolve lazily


async def test_resolve_inserts_the_pragma_above_the_loop_and_it_compiles(
    any_client: LanguageClient,
    open_fixture: OpenFixture,
    at: At,
    apply_edits: ApplyEdits,
    encoding: Encoding,
    need: Need,
    tmp_path: Path,
) -> None:
    gcc = need("gcc")
    uri, text = open_fixture(any_client, "dot_product.c")
    actions = await actions_at(
        any_client, uri, at(text, "s += x[i]", encoding(any_client))
    )
    flags = {
        "OpenACC": "-fopenacc",
        "OpenMP (CPU)": "-fopenmp",
        "OpenMP target": "-fopenmp",
    }
    assert len(actions) == 3
    for action in actions:
        resolved = await any_client.code_action_resolve_async(action)
        assert resolved.disabled is None
        assert resolved.edit is not None
        assert resolved.edit.changes is not None
        edits = list(resolved.edit.changes[uri])
        new = apply_edits(text, edits, encoding(any_client))
        pragma = action.title.split("`")[1]
        assert f"    {pragma}\n    for (int i = 0; i < n; i++)\n" in new
        flag = next(f for k, f in flags.items() if k in action.title)
        result = syntax_check(gcc, new, flag, tmp_path)
        assert result.returncode == 0, result.stderr


async def test_refused_loop_offers_nothing(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "prefix_sum.c")
    position = at(text, "for (int i = 1")
    assert await actions_at(client, uri, position) == []


async def test_an_offload_action_marks_the_callees_in_the_same_edit(
    client: LanguageClient,
    open_fixture: OpenFixture,
    at: At,
    apply_edits: ApplyEdits,
    need: Need,
    tmp_path: Path,
) -> None:
    gcc = need("gcc")
    uri, text = open_fixture(client, "particles_kernel.c")
    actions = await actions_at(client, uri, at(text, "f[i] = damped"))
    flags = {"OpenACC": "-fopenacc", "OpenMP target": "-fopenmp"}
    offload = [a for a in actions if any(k in a.title for k in flags)]
    assert len(offload) == 2
    for action in offload:
        assert "on `damped()`, `spring()`" in action.title
        resolved = await client.code_action_resolve_async(action)
        assert resolved.disabled is None
        assert resolved.edit is not None
        assert resolved.edit.changes is not None
        new = apply_edits(text, list(resolved.edit.changes[uri]), "utf-16")
        mark = (
            "#pragma acc routine seq"
            if "OpenACC" in action.title
            else ("#pragma omp declare target")
        )
        assert f"{mark}\nstatic double damped(double pos, double vel);" in new
        assert f"{mark}\nstatic double damped(double pos, double vel)\n{{" in new
        flag = next(f for k, f in flags.items() if k in action.title)
        result = syntax_check(gcc, new, flag, tmp_path)
        assert result.returncode == 0, result.stderr
