"""Fortran declarations as Vars: shapes (reversed), lower bounds, intent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from tree_sitter import Node

from accls.frontend.exprs import node_text, span_of
from accls.frontend.fortran_exprs import flat, fortran_poly, name_of
from accls.frontend.fortran_kinds import real_precision
from accls.frontend.model import Var
from accls.frontend.poly import Poly

__all__ = ["FDecl", "declarations"]

_PUNCT = frozenset({"(", ")", ",", ":", "::", "&", "comment"})


@dataclass(frozen=True, slots=True, kw_only=True)
class FDecl:
    """One declared name: its Var and what Fortran says beyond the C model."""

    var: Var
    # Lower bound per dimension in Fortran order (first index first); None when
    # only an `allocate` knows it (deferred shape).
    lows: tuple[Poly | None, ...] = ()
    intent: str = ""  # "in", "out", "inout" or "" (none given)
    attrs: frozenset[str] = frozenset()  # allocatable, pointer, target, parameter, ...
    common: bool = False  # in a common block: storage shared across the program
    assumed_size: bool = False  # `a(*)`: the whole array has no known extent

    @property
    def is_array(self) -> bool:
        """Whether it has dimensions."""
        return bool(self.var.dims)


def _type_text(node: Node, kinds: Mapping[str, str]) -> str:
    text = " ".join(node_text(node).lower().split())
    if node.type == "derived_type":
        inner = [c for c in node.named_children if c.type == "type_name"]
        return "struct " + (name_of(inner[0]) if inner else text)
    if text.startswith("double"):
        return "double"
    if text.startswith("real"):
        kind = next((c for c in node.named_children if c.type == "kind"), None)
        return real_precision(kind, kinds)
    for word, c_type in (
        ("integer", "int"),
        ("logical", "_Bool"),
        ("character", "char"),
        ("complex", "complex"),
    ):
        if text.startswith(word):
            return c_type
    return text


def _dims(size: Node) -> tuple[list[str | None], list[Poly | None], bool]:
    """Extent text (None if unknown), lower bound, assumed size; Fortran order."""
    extents: list[str | None] = []
    lows: list[Poly | None] = []
    assumed = False
    for item in size.named_children:
        if item.type in _PUNCT:
            continue
        if item.type == "extent_specifier" or (
            item.type == "assumed_size" or node_text(item).strip() == "*"
        ):
            text = node_text(item)
            parts = [c for c in item.children if c.type not in ("comment", "&")]
            colon = next((i for i, c in enumerate(parts) if c.type == ":"), None)
            if colon is None:  # `*`
                assumed = "*" in text
                extents.append(None)
                lows.append(Poly.const(1))
                continue
            lo = parts[colon - 1] if colon > 0 else None
            hi = parts[colon + 1] if colon + 1 < len(parts) else None
            if hi is not None and node_text(hi).strip() == "*":
                assumed = True
                hi = None
            low = fortran_poly(lo) if lo is not None else Poly.const(1)
            if lo is None and hi is None:
                low = None  # deferred or assumed shape: set elsewhere
            high = fortran_poly(hi) if hi is not None else None
            if hi is None:
                extents.append(None)
            elif low is not None and high is not None:
                extents.append((high - low + Poly.const(1)).render())
            else:
                extents.append(f"({flat(hi)}) - ({flat(lo) if lo else '1'}) + 1")
            lows.append(low)
        else:
            extents.append(flat(item))
            lows.append(Poly.const(1))
    return extents, lows, assumed


def _qualifiers(decl: Node) -> tuple[set[str], str, Node | None]:
    attrs: set[str] = set()
    intent = ""
    dimension: Node | None = None
    for child in decl.children:
        if child.type != "type_qualifier":
            continue
        words = [c.type for c in child.children]
        head = child.children[0].type if child.children else ""
        if head == "intent":
            intent = next((w for w in words if w in ("in", "out", "inout")), "")
            if "in" in words and "out" in words:
                intent = "inout"
        elif head == "dimension":
            dimension = next(
                (c for c in child.named_children if c.type == "argument_list"), None
            )
        else:
            attrs.add(node_text(child).lower().split("(")[0].strip())
    return attrs, intent, dimension


def _initialised(decl: Node) -> set[str]:
    """Names given a value in the declaration (which implies `save`)."""
    out: set[str] = set()
    for child in decl.named_children:
        if child.type in ("init_declarator", "pointer_init_declarator"):
            first = child.named_children[0] if child.named_children else None
            if first is not None and first.type == "sized_declarator":
                first = next(
                    (c for c in first.named_children if c.type == "identifier"), None
                )
            if first is not None:
                out.add(name_of(first))
    return out


def _declarators(decl: Node) -> list[tuple[Node, Node | None]]:
    """(name node, size node or None) of each declared entity."""
    out: list[tuple[Node, Node | None]] = []
    for child in decl.named_children:
        target = child
        if child.type == "init_declarator" or child.type == "pointer_init_declarator":
            target = child.named_children[0] if child.named_children else child
        if target.type == "identifier":
            out.append((target, None))
        elif target.type == "sized_declarator":
            name = next(
                (c for c in target.named_children if c.type == "identifier"), None
            )
            size = next((c for c in target.named_children if c.type == "size"), None)
            if name is not None:
                out.append((name, size))
    return out


def _entity(
    name: Node,
    size: Node | None,
    type_text: str,
    scope: str,
    attrs: frozenset[str],
    intent: str,
) -> FDecl:
    extents: list[str | None] = []
    lows: list[Poly | None] = []
    assumed = False
    if size is not None:
        extents, lows, assumed = _dims(size)
    var = Var(
        name=name_of(name),
        type=type_text,
        dims=tuple(reversed(extents)),
        const="parameter" in attrs or intent == "in",
        scope=scope,
        span=span_of(name),
        static="save" in attrs,
    )
    return FDecl(
        var=var,
        lows=tuple(lows),
        intent=intent,
        attrs=attrs,
        assumed_size=assumed,
    )


def _merge(old: FDecl | None, new: FDecl) -> FDecl:
    """A later statement (`dimension`, `intent`, `common`) adds to an earlier one."""
    if old is None:
        return new
    var = old.var
    if new.var.dims and not var.dims:
        var = replace(var, dims=new.var.dims)
    if new.var.type and not var.type:
        var = replace(var, type=new.var.type)
    return replace(
        old,
        var=replace(
            var,
            const=var.const or new.var.const,
            static=var.static or new.var.static or "save" in new.attrs,
        ),
        lows=old.lows or new.lows,
        intent=old.intent or new.intent,
        attrs=old.attrs | new.attrs,
        common=old.common or new.common,
        assumed_size=old.assumed_size or new.assumed_size,
    )


def declarations(
    nodes: list[Node],
    params: frozenset[str],
    scope: str = "local",
    kinds: Mapping[str, str] | None = None,
) -> dict[str, FDecl]:
    """The declarations among a program unit's statements, by (lower-case) name.

    `kinds`: the file's named constants, which give `real(dp)` its precision.
    """
    kinds = kinds or {}
    found: dict[str, FDecl] = {}
    for node in nodes:
        if node.type == "variable_declaration":
            kind = next(
                (
                    c
                    for c in node.children
                    if c.type in ("intrinsic_type", "derived_type")
                ),
                None,
            )
            type_text = _type_text(kind, kinds) if kind is not None else ""
            attrs, intent, dimension = _qualifiers(node)
            initialised = _initialised(node)
            for name, size in _declarators(node):
                key = name_of(name)
                where = "param" if key in params else scope
                entity = _entity(
                    name, size or dimension, type_text, where, frozenset(attrs), intent
                )
                if key in initialised and "parameter" not in attrs:
                    entity = replace(
                        entity,
                        attrs=entity.attrs | {"save"},
                        var=replace(entity.var, static=True),
                    )
                found[key] = _merge(found.get(key), entity)
        elif node.type == "variable_modification":
            attrs, intent, dimension = _qualifiers(node)
            head = node.children[0] if node.children else None
            if head is not None and head.type == "type_qualifier":
                word = head.children[0].type if head.children else ""
                if word not in ("intent", "dimension"):
                    attrs.add(word)
            for name, size in _declarators(node):
                key = name_of(name)
                where = "param" if key in params else scope
                entity = _entity(
                    name, size or dimension, "", where, frozenset(attrs), intent
                )
                found[key] = _merge(found.get(key), entity)
        elif node.type == "common_statement":
            for group in node.named_children:
                for name, size in _declarators(group):
                    key = name_of(name)
                    entity = _entity(name, size, "", "global", frozenset(), "")
                    merged = _merge(found.get(key), replace(entity, common=True))
                    found[key] = replace(
                        merged, var=replace(merged.var, scope="global"), common=True
                    )
    for key, decl in found.items():
        if decl.var.scope == "local" and key in params:
            found[key] = replace(decl, var=replace(decl.var, scope="param"))
    return found
