"""The VS Code extension's manifest mirrors the server's settings and commands."""

from __future__ import annotations

import json
import re
import types
import typing
from dataclasses import is_dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from accls.settings import Settings, wire_names

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "clients" / "vscode"
# Settings only the client reads: how to start the server, and LSP tracing.
CLIENT_ONLY = {"accls.server.path", "accls.trace.server"}
# The fake backend exists for tests only: neither it nor its canned answers are
# offered to users.
HIDDEN_CHOICES = {"accls.backend.kind": {"fake"}}
HIDDEN_SETTINGS = {"accls.backend.candidates"}
EXPLAIN = "accls.explainLoop"
# Commands the extension itself registers (not the server's).
CLIENT_COMMANDS = {"accls.restartServer", "accls.showOutput"}


def _wire(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_wire(v) for v in value]
    return value


def _enum_of(hint: object) -> type[Enum] | None:
    candidates = typing.get_args(hint) if isinstance(hint, types.UnionType) else ()
    for candidate in (hint, *candidates):
        if isinstance(candidate, type) and issubclass(candidate, Enum):
            return candidate
    return None


def _server_settings(
    node: object, prefix: str = "accls."
) -> dict[str, tuple[object, type[Enum] | None]]:
    """Every leaf setting of the server: wire key -> (default, its enum if any)."""
    hints = typing.get_type_hints(type(node))
    out: dict[str, tuple[object, type[Enum] | None]] = {}
    assert is_dataclass(node)
    for name, wire in wire_names(type(node)).items():
        value = getattr(node, name)
        key = prefix + wire
        if key in HIDDEN_SETTINGS:
            continue
        if is_dataclass(value):
            out.update(_server_settings(value, key + "."))
        else:
            out[key] = (_wire(value), _enum_of(hints[name]))
    return out


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXTENSION / "package.json").read_text())
    return data


@pytest.fixture(scope="module")
def properties(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    props: dict[str, dict[str, Any]] = manifest["contributes"]["configuration"][
        "properties"
    ]
    return props


def test_every_server_setting_is_declared_and_nothing_else(
    properties: dict[str, dict[str, Any]],
) -> None:
    server = set(_server_settings(Settings()))
    client = set(properties) - CLIENT_ONLY
    assert sorted(server - client) == [], "server settings missing from package.json"
    assert sorted(client - server) == [], "package.json settings the server ignores"


def test_defaults_match_the_server(properties: dict[str, dict[str, Any]]) -> None:
    wrong = {
        key: (properties[key].get("default"), default)
        for key, (default, _) in _server_settings(Settings()).items()
        if properties[key].get("default") != default
    }
    assert wrong == {}


def test_choices_match_the_server_enums(
    properties: dict[str, dict[str, Any]],
) -> None:
    for key, (_, enum) in _server_settings(Settings()).items():
        if enum is None:
            assert "enum" not in properties[key] or key == "accls.backend.device", key
            continue
        offered = {v for v in properties[key]["enum"] if v is not None}
        expected = {e.value for e in enum} - HIDDEN_CHOICES.get(key, set())
        assert offered == expected, key


def test_activation_commands_and_entry_point(manifest: dict[str, Any]) -> None:
    assert manifest["activationEvents"][:2] == ["onLanguage:c", "onLanguage:cpp"]
    fortran = ["fortran", "fortran90", "FortranFreeForm", "FortranFixedForm"]
    assert manifest["activationEvents"][2:] == [f"onLanguage:{f}" for f in fortran]
    commands = {c["command"] for c in manifest["contributes"]["commands"]}
    assert commands == {
        "accls.restartServer",
        "accls.showOutput",
        "accls.checkLoop",
        "accls.explainLoop",
    }
    assert manifest["main"] == "./out/extension.js"
    source = (EXTENSION / "src" / "extension.ts").read_text()
    # The entry point is compiled from src/extension.ts and starts `<path> --stdio`.
    assert '"--stdio"' in source
    assert "configurationSection: SECTION" in source
    assert manifest["devDependencies"]["@types/vscode"].lstrip("^~") == manifest[
        "engines"
    ]["vscode"].lstrip("^~")


def test_readme_documents_every_setting(properties: dict[str, dict[str, Any]]) -> None:
    readme = (EXTENSION / "README.md").read_text(encoding="utf-8")
    assert sorted(k for k in properties if f"`{k}`" not in readme) == []


def test_explain_loop_opens_a_virtual_markdown_document(
    manifest: dict[str, Any],
) -> None:
    (explain,) = [
        c for c in manifest["contributes"]["commands"] if c["command"] == EXPLAIN
    ]
    assert explain["title"] == "Explain This Loop"
    source = (EXTENSION / "src" / "extension.ts").read_text()
    # The server's command is the one the hover links to and the lenses name; the
    # client turns its answer into an `accls-explain:` document and previews it.
    assert f'const EXPLAIN_LOOP = "{EXPLAIN}"' in source
    assert 'const EXPLAIN_SCHEME = "accls-explain"' in source
    assert "registerTextDocumentContentProvider(EXPLAIN_SCHEME" in source
    assert '"markdown.showPreviewToSide"' in source
    assert "enabledCommands: [EXPLAIN_LOOP]" in source  # the hover's link, no other
    assert "if (command === EXPLAIN_LOOP)" in source  # from the palette: the cursor


def test_every_server_command_the_client_names_exists() -> None:
    from accls.server.app import build_server

    server = build_server()
    known = set(server.protocol.fm.commands)
    source = (EXTENSION / "src" / "extension.ts").read_text()
    named = set(re.findall(r'"(accls\.[a-zA-Z]+)"', source)) - CLIENT_COMMANDS
    assert named <= known, named - known
