"""Settings: `initializationOptions`, `workspace/configuration` (section "accls")."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from accls.server.language_server import AcclsServer
from accls.settings import parse_settings

__all__ = ["apply", "merged", "refresh", "register"]

log = logging.getLogger(__name__)

SECTION = "accls"


def merged(base: Any, over: Any) -> Any:
    """`over` laid on `base`, objects merged key by key."""
    if not isinstance(base, Mapping) or not isinstance(over, Mapping):
        return over
    out = dict(base)
    for key, value in over.items():
        out[key] = merged(out.get(key), value) if key in out else value
    return out


def _warn(ls: AcclsServer, problems: list[str]) -> None:
    ls.window_show_message(
        types.ShowMessageParams(
            type=types.MessageType.Warning,
            message="accls: invalid settings, using defaults for: "
            + "; ".join(problems),
        )
    )


def apply(ls: AcclsServer, raw: Any) -> None:
    """Take new settings; warn about bad values; recompute what depends on them."""
    settings, problems = parse_settings(raw)
    ls.raw_settings = raw
    if problems:
        _warn(ls, problems)
    if settings != ls.settings:
        ls.settings = settings
        ls.forget_results()
        ls.events.settings_changed.emit()
    log.info("settings: %s", settings)


def _section(value: Any) -> Any:
    if isinstance(value, Mapping) and SECTION in value:
        return value[SECTION]
    return value


def _pulls(ls: AcclsServer) -> bool:
    workspace = ls.client_capabilities.workspace
    return bool(workspace is not None and workspace.configuration)


async def refresh(ls: AcclsServer, pushed: Any) -> None:
    """Settings from what the client pushed and what `workspace/configuration` says."""
    raw = ls.raw_settings
    if pushed is not None:
        raw = merged(raw, pushed)
    if _pulls(ls):
        try:
            answer = await ls.workspace_configuration_async(
                types.ConfigurationParams(
                    items=[types.ConfigurationItem(section=SECTION)]
                )
            )
        except Exception as exc:  # a client bug must not stop the server
            log.warning("workspace/configuration failed: %s", exc)
            answer = []
        if answer and answer[0] is not None:
            raw = merged(raw, answer[0])
    apply(ls, raw)


def register(server: AcclsServer) -> None:
    """Read settings at start-up and whenever the client says they changed."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: AcclsServer, params: types.InitializeParams) -> None:
        raw = _section(params.initialization_options)
        ls.raw_settings = raw
        ls.settings, ls.startup_problems = parse_settings(raw)
        ls.client_name = params.client_info.name if params.client_info else ""

    @server.feature(types.INITIALIZED)
    async def initialized(ls: AcclsServer, params: types.InitializedParams) -> None:
        if _pulls(ls):
            await refresh(ls, None)  # warns about bad initializationOptions too
        elif ls.startup_problems:
            _warn(ls, ls.startup_problems)
        ls.events.initialized.emit()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def changed(
        ls: AcclsServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await refresh(ls, _section(params.settings))
