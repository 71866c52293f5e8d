"""Incremental parsing for the editor: one tree-sitter tree per buffer, edited in place.

The language server keeps an `IncrementalTree` per open document. Each text change
is applied with `Tree.edit` and the buffer is re-parsed with the old tree, so
tree-sitter re-uses every subtree the edit did not touch. The tree also answers the
cheap questions the server asks on every request (which function holds an offset)
and builds the function slice that the analysis of one function needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import tree_sitter_c
import tree_sitter_cpp
from tree_sitter import Language, Node, Parser, Point, Tree

from accls.frontend.tsparser import top_level_nodes

__all__ = ["ByteRange", "Definition", "FunctionSlice", "IncrementalTree"]


@dataclass(frozen=True, slots=True)
class ByteRange:
    """A half-open byte range [start, end) of the buffer."""

    start: int
    end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionSlice:
    """The buffer with everything one function does not need blanked out.

    Offsets and lines are those of the whole buffer: other function bodies are
    replaced by spaces (newlines kept) behind a `;`, which leaves their
    prototypes, so calls still compile. Bodies of the functions it calls are kept.
    """

    text: str
    function: ByteRange  # the function the slice is for
    kept: tuple[ByteRange, ...]  # every function definition kept whole


@dataclass(frozen=True, slots=True, kw_only=True)
class Definition:
    """One top-level function definition: its name and its bytes."""

    name: str
    range: ByteRange


_SPACES = bytes(0x20 if b not in (0x0A, 0x0D) else b for b in range(256))
"""A translation table: every byte but line breaks becomes a space."""


@lru_cache(maxsize=2)
def _parser(cpp: bool = False) -> Parser:
    # Its own parser: the shared one in tsparser is not for incremental use.
    grammar = tree_sitter_cpp.language() if cpp else tree_sitter_c.language()
    return Parser(Language(grammar))


def _point(data: bytes, offset: int) -> Point:
    row = data.count(b"\n", 0, offset)
    return Point(row, offset - (data.rfind(b"\n", 0, offset) + 1))


def _definitions(root: Node) -> list[Node]:
    """Top-level function definitions, looking into #if blocks."""
    return [n for n in top_level_nodes(root) if n.type == "function_definition"]


def _name(node: Node) -> str | None:
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type not in ("function_declarator", "identifier"):
        decl = decl.child_by_field_name("declarator")
    if decl is not None and decl.type == "function_declarator":
        decl = decl.child_by_field_name("declarator")
    while decl is not None and decl.type != "identifier":
        decl = decl.child_by_field_name("declarator")
    return decl.text.decode("utf-8", "replace") if decl and decl.text else None


def _identifiers(node: Node) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier" and current.text is not None:
            found.add(current.text.decode("utf-8", "replace"))
        stack.extend(current.named_children)
    return found


def _blank(data: bytearray, start: int, end: int) -> None:
    """Overwrite [start, end) with spaces, keeping line breaks."""
    data[start:end] = bytes(data[start:end]).translate(_SPACES)


class IncrementalTree:
    """A buffer's bytes and its tree-sitter tree, kept in step edit by edit."""

    def __init__(self, data: bytes, *, cpp: bool = False) -> None:
        self._data = data
        self.cpp = cpp  # C++: no function slices (methods live in classes)
        self._tree: Tree = _parser(cpp).parse(data)

    @property
    def data(self) -> bytes:
        """The buffer as UTF-8 bytes."""
        return self._data

    @property
    def tree(self) -> Tree:
        """The current tree (for the front end only; never leaves the package)."""
        return self._tree

    @property
    def has_errors(self) -> bool:
        """Whether tree-sitter found syntax errors anywhere."""
        return self._tree.root_node.has_error

    def definitions(self) -> tuple[Definition, ...]:
        """Every named top-level function definition, in source order."""
        out: list[Definition] = []
        for node in _definitions(self._tree.root_node):
            name = _name(node)
            if name is not None:
                out.append(
                    Definition(
                        name=name, range=ByteRange(node.start_byte, node.end_byte)
                    )
                )
        return tuple(out)

    def snapshot(self) -> IncrementalTree:
        """A copy that later edits leave alone (for work on another thread)."""
        copy = IncrementalTree.__new__(IncrementalTree)
        copy._data = self._data
        copy._tree = self._tree.copy()
        return copy

    def edit(self, start: int, old_end: int, new: bytes) -> tuple[ByteRange, ...]:
        """Replace bytes [start, old_end) by `new`, re-parse; the changed ranges."""
        if not 0 <= start <= old_end <= len(self._data):
            raise ValueError(f"edit [{start}, {old_end}) outside the buffer")
        old = self._data
        data = old[:start] + new + old[old_end:]
        new_end = start + len(new)
        self._tree.edit(
            start_byte=start,
            old_end_byte=old_end,
            new_end_byte=new_end,
            start_point=_point(old, start),
            old_end_point=_point(old, old_end),
            new_end_point=_point(data, new_end),
        )
        fresh = _parser(self.cpp).parse(data, self._tree)
        changed = self._tree.changed_ranges(fresh)
        self._tree, self._data = fresh, data
        # The edited text itself counts as changed even when its structure is not.
        ranges = [ByteRange(r.start_byte, r.end_byte) for r in changed]
        ranges.append(ByteRange(start, new_end))
        return tuple(sorted(set(ranges), key=lambda r: (r.start, r.end)))

    def function_at(self, offset: int) -> ByteRange | None:
        """The top-level function definition holding byte `offset`, if any."""
        for node in _definitions(self._tree.root_node):
            if node.start_byte <= offset < node.end_byte:
                return ByteRange(node.start_byte, node.end_byte)
        return None

    def function_slice(self, offset: int) -> FunctionSlice | None:
        """The slice for the function holding `offset`; None outside one."""
        if self.cpp:
            return None  # a C++ buffer is analysed whole
        definitions = _definitions(self._tree.root_node)
        target = next(
            (n for n in definitions if n.start_byte <= offset < n.end_byte), None
        )
        if target is None:
            return None
        by_name: dict[str, Node] = {}
        for node in definitions:
            name = _name(node)
            if name is not None:
                by_name.setdefault(name, node)
        kept = {target.start_byte: target}
        pending = [target]
        while pending:  # the functions it calls, transitively: their purity matters
            for word in _identifiers(pending.pop()):
                callee = by_name.get(word)
                if callee is not None and callee.start_byte not in kept:
                    kept[callee.start_byte] = callee
                    pending.append(callee)
        out = bytearray(self._data)
        for node in definitions:
            body = node.child_by_field_name("body")
            if node.start_byte in kept or body is None:
                continue
            _blank(out, body.start_byte, body.end_byte)
            out[body.start_byte] = ord(";")
        return FunctionSlice(
            text=bytes(out).decode("utf-8", errors="surrogateescape"),
            function=ByteRange(target.start_byte, target.end_byte),
            kept=tuple(
                ByteRange(n.start_byte, n.end_byte)
                for n in sorted(kept.values(), key=lambda n: n.start_byte)
            ),
        )
