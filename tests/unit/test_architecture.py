"""The layer rules of ARCHITECTURE.md, checked on every import of the code.

Each package of `accls` (and `accls_train`) may import only the packages below
it; the libraries that define a layer are imported only there. Function-local
imports count like any other, so a cycle cannot hide inside a function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    "accls": ROOT / "server" / "accls",
    "accls_train": ROOT / "training" / "accls_train",
}

# Each unit, and the units it may import (besides itself). Lower layers first.
LAYERS: dict[str, frozenset[str]] = {}


def _layer(unit: str, *below: str) -> None:
    allowed = set(below)
    for name in below:
        allowed |= LAYERS[name]
    LAYERS[unit] = frozenset(allowed)


_layer("accls")  # the package root: the version
_layer("accls.files")
_layer("accls.frontend")
_layer("accls.analysis", "accls.frontend")
_layer("accls.project", "accls.analysis", "accls.files")
_layer("accls.suggest", "accls.analysis")
_layer("accls.validation", "accls.suggest", "accls.project", "accls.files")
_layer("accls.hybrid", "accls.validation")
_layer("accls.settings", "accls.validation")
_layer("accls.feedback", "accls.files")
_layer("accls.pipeline", "accls.hybrid", "accls.settings")
_layer("accls.server", "accls", "accls.pipeline", "accls.feedback")
_layer("accls.screening", "accls", "accls.pipeline")
_layer("accls.cli", "accls.server", "accls.screening")
_layer("accls.__main__", "accls.cli")
_layer("accls_train", "accls", "accls.pipeline", "accls.files")

THIRD_PARTY = {
    "tree_sitter": "accls.frontend",
    "tree_sitter_c": "accls.frontend",
    "islpy": "accls.analysis",
    "networkx": "accls.analysis",
    "pygls": "accls.server",
    "lsprotocol": "accls.server",
    "httpx": "accls.suggest.backends",
    "torch": "accls.suggest.backends",
    "transformers": "accls.suggest.backends",
}
"""Libraries that belong to one layer (training has its own model code)."""


def _unit(module: str) -> str:
    """The layer a dotted module name belongs to."""
    if module.startswith("accls_train"):
        return "accls_train"
    parts = module.split(".")
    if len(parts) == 1:
        return "accls"
    return ".".join(parts[:2])


def _modules() -> Iterator[tuple[str, Path]]:
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            yield ".".join([package, *parts]), path


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module


MODULES = list(_modules())


def test_every_package_has_a_layer() -> None:
    units = {_unit(name) for name, _ in MODULES}
    assert units == set(LAYERS)


def violations(module: str, path: Path) -> list[str]:
    """The imports of one module that break the layer rules."""
    unit = _unit(module)
    allowed = LAYERS[unit] | {unit}
    wrong = []
    for line, name in _imports(path):
        top = name.split(".")[0]
        if top in ("accls", "accls_train"):
            target = _unit(name)
            if target not in allowed:
                wrong.append(f"line {line}: {name} ({unit} may not import {target})")
        elif (
            top in THIRD_PARTY
            and unit != "accls_train"
            and not module.startswith(THIRD_PARTY[top])
        ):
            wrong.append(f"line {line}: {name} belongs to {THIRD_PARTY[top]}")
    return wrong


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_imports_follow_the_layers(module: str, path: Path) -> None:
    wrong = violations(module, path)
    assert not wrong, "\n".join(wrong)


def test_the_rules_catch_a_layer_break(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import pygls\n"
        "def late():\n"
        "    from accls.server import app\n"
        "from accls.frontend import parse_source\n",
        encoding="utf-8",
    )
    assert violations("accls.analysis.bad", bad) == [
        "line 1: pygls belongs to accls.server",
        "line 3: accls.server (accls.analysis may not import accls.server)",
    ]
    assert violations("accls.cli.bad", bad) == ["line 1: pygls belongs to accls.server"]
