"""The one tree-sitter C parser, and cached parses of small snippets."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import tree_sitter_c
import tree_sitter_cpp
from tree_sitter import Language, Node, Parser, Tree

__all__ = ["parse_bytes", "parse_cpp_bytes", "parse_snippet", "top_level_nodes"]


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_c.language()))


def parse_bytes(data: bytes) -> Tree:
    """Parse a whole C buffer."""
    return _parser().parse(data)


@lru_cache(maxsize=1)
def _cpp_parser() -> Parser:
    return Parser(Language(tree_sitter_cpp.language()))


def parse_cpp_bytes(data: bytes) -> Tree:
    """Parse a whole C++ buffer (the grammar extends C's: the node names are C's)."""
    return _cpp_parser().parse(data)


@lru_cache(maxsize=512)
def _snippet_tree(text: str) -> Tree:
    return _parser().parse(text.encode("utf-8"))


def parse_snippet(text: str) -> Node:
    """The root node of a small C snippet (macro expansions); cached by text."""
    return _snippet_tree(text).root_node


_CONTAINERS = (
    "preproc_else",
    "preproc_elif",
    "linkage_specification",
    "declaration_list",
)
"""Nodes whose children are still top level: #if branches, `extern "C" { }`."""


def top_level_nodes(root: Node) -> Iterator[Node]:
    """The file-scope nodes of a tree in order, looking into #if blocks."""
    stack = list(reversed(root.named_children))
    while stack:
        node = stack.pop()
        if node.type.startswith("preproc_if") or node.type in _CONTAINERS:
            stack.extend(reversed(node.named_children))
        else:
            yield node
