"""The server's features import shared modules, never each other or app.py."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "server" / "accls" / "server"
FEATURES = sorted((SERVER / "features").glob("*.py"))


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, at the top or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("path", FEATURES, ids=lambda p: p.stem)
def test_a_feature_imports_no_other_feature_and_not_app(path: Path) -> None:
    wrong = {
        name
        for name in _imports(path)
        if name.startswith("accls.server.features") or name == "accls.server.app"
    }
    assert wrong == set()


@pytest.mark.parametrize(
    "path",
    sorted(
        p
        for p in SERVER.rglob("*.py")
        if "features" not in p.relative_to(SERVER).parts and p.name != "app.py"
    ),
    ids=lambda p: str(p.relative_to(SERVER)),
)
def test_only_app_imports_the_features(path: Path) -> None:
    assert not {n for n in _imports(path) if n.startswith("accls.server.features")}


def test_app_imports_the_features_at_the_top() -> None:
    tree = ast.parse((SERVER / "app.py").read_text(encoding="utf-8"))
    top = {
        node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    assert "accls.server.features" in top
    nested = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and node not in tree.body
    ]
    assert nested == []
