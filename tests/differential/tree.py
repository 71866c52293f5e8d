"""A tiny C program tree: lines and braced blocks, rendered with indentation.

The generator builds programs from these nodes and the shrinker removes them, so
every candidate it tries is still well-formed C as far as braces go.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Block", "Line", "Node", "Program", "paths", "remove", "render"]


@dataclass(frozen=True, slots=True)
class Line:
    """One statement or declaration, without its newline."""

    text: str


@dataclass(frozen=True, slots=True)
class Block:
    """`head {` body `}` (a loop, an `if`, a function)."""

    head: str
    body: tuple[Node, ...]


Node = Line | Block


@dataclass(frozen=True, slots=True)
class Program:
    """A whole translation unit: its top-level nodes in order."""

    nodes: tuple[Node, ...]

    def text(self) -> str:
        """The C source."""
        return render(self.nodes)


def render(nodes: tuple[Node, ...], depth: int = 0) -> str:
    """C text of `nodes`, four spaces per level."""
    pad = "    " * depth
    out: list[str] = []
    for node in nodes:
        if isinstance(node, Line):
            out.append(f"{pad}{node.text}\n")
        else:
            out.append(f"{pad}{node.head} {{\n")
            out.append(render(node.body, depth + 1))
            out.append(f"{pad}}}\n")
    return "".join(out)


Path = tuple[int, ...]


def paths(nodes: tuple[Node, ...], prefix: Path = ()) -> Iterator[Path]:
    """Every node's path, parents before their children."""
    for index, node in enumerate(nodes):
        here = (*prefix, index)
        yield here
        if isinstance(node, Block):
            yield from paths(node.body, here)


def remove(nodes: tuple[Node, ...], path: Path) -> tuple[Node, ...]:
    """`nodes` without the node at `path`."""
    head, rest = path[0], path[1:]
    if not rest:
        return nodes[:head] + nodes[head + 1 :]
    block = nodes[head]
    assert isinstance(block, Block)
    inner = Block(block.head, remove(block.body, rest))
    return (*nodes[:head], inner, *nodes[head + 1 :])
