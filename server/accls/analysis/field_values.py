"""What a store into a pointer field adds: an allocation, an object, a copy, unknown.

The base of a file's field facts (field_points_to): its declarations and types,
its allocator wrappers, and the facts one stored value or cast gives.
"""

from __future__ import annotations

import re

from accls.analysis.field_facts import ALL, FieldFact, object_of_var
from accls.analysis.field_paths import balanced, resolve_field, strip_casts, top_offset
from accls.frontend import (
    Effect,
    FieldEventKind,
    Function,
    SourceFile,
    TypeTable,
    Var,
    library_function,
)

__all__ = ["FieldValues"]

# `f(args)`, or C++'s `f<T>(args)` (LULESH's `Allocate<Real_t>(n)`).
_CALL = re.compile(r"^([A-Za-z_]\w*)(?:<[^()<>]*>)?\((.*)\)$")
_NEW = re.compile(r"^new\s+[A-Za-z_]")  # C++ `new T[n]`, not a placement new
_NULL = frozenset({"0", "NULL", "((void*)0)", "(void*)0", "nullptr"})


class FieldValues:
    """The facts of one file's stored values, read with its declarations and types."""

    def __init__(
        self,
        source: SourceFile,
        file: str,
        outer: SourceFile | None = None,
    ) -> None:
        """`outer`: the file whose headers' code `source` is (its types, globals)."""
        self.source = source
        self.file = file
        self.types: TypeTable = (
            source.types if outer is None else outer.types.merged(source.types)
        )
        self.globals: tuple[Var, ...] = source.globals + (
            outer.globals if outer is not None else ()
        )
        self.out: list[FieldFact] = []
        self.wrappers = self._wrappers() | set(source.allocators)
        if outer is not None:
            self.wrappers |= outer.allocators
        # The functions a call may name besides the file's own: the headers'.
        other = outer if outer is not None else source.headers
        self.callable = {f.name: f for f in other.functions} if other else {}
        self.callable.update({f.name: f for f in source.functions})

    def _wrappers(self) -> set[str]:
        returns: dict[str, list[str]] = {}
        for event in self.source.field_events:
            if event.kind is FieldEventKind.RETURN and event.function:
                returns.setdefault(event.function, []).append(strip_casts(event.value))
        found: set[str] = set()
        for name, values in returns.items():
            calls = [_CALL.match(v) for v in values]
            if all(c is not None and _is_allocator(c.group(1)) for c in calls):
                found.add(name)
        return found

    def place(self, line: int) -> str:
        """The place a fact names for `line`: this file's line, or a header's."""
        if self.source.places:
            return self.source.place(line)  # the headers' code: the header's line
        return f"{self.file}:{line}"

    def unknown_struct(self, key: str, line: int, seen: set[str] | None = None) -> None:
        """Every pointer field of `key`, and of the structs it holds by value."""
        seen = seen if seen is not None else set()
        if key in seen:
            return
        seen.add(key)
        self.out.append(FieldFact("unknown", key, ALL, "", self.place(line)))
        for member in (self.types.fields_of(key) or {}).values():
            inner = self.types.struct_key(member.type)
            levels = self.types.levels_of(member.type)
            if (
                inner is not None
                and levels is not None
                and "*" not in member.shape + levels
            ):
                self.unknown_struct(inner, line, seen)

    def recast(self, pointed: str, target: str | None, line: int) -> None:
        """A pointer to `pointed` seen as one to `target` (None: not a struct).

        When one struct's fields begin the other's (`BasePotential` and
        `EamPotential`), stores through either reach only those shared first
        fields; otherwise any field of both may change.
        """
        mine = list(self.types.fields_of(pointed) or {})
        theirs = list(self.types.fields_of(target) or {}) if target else []
        short, long_ = sorted((mine, theirs), key=len)
        if target is None or not short or long_[: len(short)] != short:
            if target is not None:
                self.out.append(
                    FieldFact("cast", pointed, target, "", self.place(line))
                )
            self.unknown_struct(pointed, line)
            if target is not None:
                self.unknown_struct(target, line)
            return
        place = self.place(line)
        self.out.append(FieldFact("cast", pointed, target, "", place))
        for key in (pointed, target):
            for name in short:
                self.out.append(FieldFact("unknown", key, name, "", place))

    def value_facts(
        self, key: str, name: str, value: str, fn: Function | None, line: int
    ) -> None:
        """What storing `value` into `key.name` adds."""
        text = strip_casts(value)
        place = self.place(line)
        if text in _NULL:
            return
        if _NEW.match(text):
            self.out.append(
                FieldFact("object", key, name, f"alloc {place}", place, "`new`")
            )
            return
        call = _CALL.match(text)
        if call is not None and balanced(call.group(2)):
            callee = call.group(1)
            if callee == "realloc":
                first = call.group(2).split(",", 1)[0]
                self.value_facts(key, name, first, fn, line)
            if _is_allocator(callee) or callee in self.wrappers:
                self.out.append(
                    FieldFact(
                        "object", key, name, f"alloc {place}", place, f"`{callee}()`"
                    )
                )
            else:
                self.out.append(
                    FieldFact("call", key, name, callee, place, f"`{callee}()`")
                )
            return
        address = text.startswith("&")
        body = top_offset(text[1:] if address else text)
        if address and body.endswith("]"):
            body, address = body[: body.rindex("[")], False
            if "[" in body and body.count("[") != body.count("]"):
                body = ""
        globals_ = self.globals
        found = resolve_field(body, fn, globals_, self.types) if body else None
        if found is not None and not address and found.levels.startswith("*"):
            target = f"{found.key}.{found.field}"
            self.out.append(FieldFact("copy", key, name, target, place, f"`{value}`"))
            return
        var = None
        if body and re.fullmatch(r"[A-Za-z_]\w*", body):
            var = fn.lookup(body) if fn is not None else None
            if var is None:
                var = next((g for g in globals_ if g.name == body), None)
        if var is not None:
            levels = self.types.levels_of(var.type)
            full = var.shape + (levels or "")
            storage = address or (levels is not None and full.startswith("["))
            fresh = var.fresh and not var.device and var.scope == "local"
            if storage or fresh:
                target = object_of_var(var, fn, self.file)
                self.out.append(
                    FieldFact("object", key, name, target, place, f"`{value}`")
                )
                return
        self.out.append(FieldFact("unknown", key, name, "", place, f"`{value}`"))


def _is_allocator(name: str) -> bool:
    found = library_function(name)
    return found is not None and found.effect is Effect.ALLOC and not found.device
