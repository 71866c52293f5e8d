"""The editor sees a caller's hold in another file through the workspace index."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from support.lsp import hover_text

OpenSource = Callable[[LanguageClient, str, Path], str]
At = Callable[..., types.Position]

FIXTURE = Path(__file__).parent.parent / "fixtures" / "held_across"


async def _until(
    client: LanguageClient, uri: str, at: types.Position, want: str
) -> str:
    value = ""
    for _ in range(150):
        value = await hover_text(client, uri, at) or ""
        if want in value:
            return value
        await asyncio.sleep(0.2)
    raise AssertionError(f"never saw {want!r} in the hover:\n{value}")


async def _kernel_hover(
    client: LanguageClient,
    tmp_path: Path,
    main_c: str,
    open_source: OpenSource,
    at: At,
    want: str,
) -> str:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    (root / "main.c").write_text(main_c)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)  # type: ignore[untyped-decorator]
    def register(params: types.RegistrationParams) -> None:
        del params  # the file watchers: accepted

    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="proj")],
            initialization_options={"indexCache": str(tmp_path / "cache")},
        )
    )
    text = (root / "kern.c").read_text()
    uri = open_source(client, text, root / "kern.c")
    return await _until(client, uri, at(text, "for (int i"), want)


async def test_a_hold_of_every_call_in_another_file_gives_present(
    raw_client: LanguageClient, tmp_path: Path, open_source: OpenSource, at: At
) -> None:
    main_c = (FIXTURE / "main.c").read_text()
    want = "present(a[0:n], b[0:n])"
    await _kernel_hover(raw_client, tmp_path, main_c, open_source, at, want)


async def test_a_hold_whose_results_stay_on_the_device_refuses(
    raw_client: LanguageClient, tmp_path: Path, open_source: OpenSource, at: At
) -> None:
    main_c = (FIXTURE / "main.c").read_text()
    lost = main_c.replace("#pragma acc update self(b[0:n])\n", "")
    want = "`main()` calls `kernel()` at main.c:17 inside a hold"
    value = await _kernel_hover(raw_client, tmp_path, lost, open_source, at, want)
    assert "never comes back" in value
