"""What each pointer field of each struct may point to, over the whole program.

Every store of a pointer into a field is a fact: `atoms->gid = comdMalloc(..)`
puts the allocation of that call site in the set of `Atoms.gid`, `g->v = buf`
the global `buf`, `a->f = b->g` copies the set of `B.g` into `A.f`. Anything
that could store a value we do not see makes the field unknown: its address
taken (`&x->f`, except for `posix_memalign`), a store of a value we cannot
name, the struct initialised positionally, cast to another type, written by
`memcpy`/`fread`, or passed to a function defined nowhere in the program.

The sets are only right when every file that stores into the struct was read:
the analysis uses them with the workspace index (a compile database or a
project folder) only. Two accesses through fields are then distinct when both
sets are known and share no object.
"""

from __future__ import annotations

import re

from accls.analysis.field_calls import (
    accepts_struct,
    function_store_facts,
    holder_of,
    label_of,
)
from accls.analysis.field_facts import ALL, FieldFact
from accls.analysis.field_paths import (
    resolve_field,
    strip_casts,
    struct_of_value,
    walk_path,
)
from accls.analysis.field_rows import ROWS, bare_tables, row_field
from accls.analysis.field_slots import address_stores
from accls.analysis.field_values import FieldValues
from accls.analysis.field_void import file_void_facts, void_at
from accls.frontend import (
    Effect,
    FieldEvent,
    FieldEventKind,
    Function,
    SourceFile,
    library_function,
)

__all__ = ["file_field_facts"]

_CAST = re.compile(r"^\((?:const|volatile|struct|union)?[A-Za-z_]\w*\**\)")


class _File(FieldValues):
    """The facts of one file, read with its declarations and types."""

    def event(self, event: FieldEvent) -> None:
        fn = self.source.function(event.function) if event.function else None
        globals_, types = self.globals, self.types
        kind = event.kind
        if kind is FieldEventKind.RETURN:
            return
        if kind is FieldEventKind.INIT:
            key, walked = None, None
            if event.path:
                walked = walk_path(event.path, fn, globals_, types)
                key = types.struct_key(walked.type_) if walked is not None else None
            else:
                key = types.struct_key(event.value.rstrip("*"))
            if key is not None:
                self.unknown_struct(key, event.line)
            elif not event.path or walked is None:
                # Of a type we cannot name: it may hold a function pointer.
                place = self.place(event.line)
                self.out.append(FieldFact("init", "", ALL, "", place))
            return
        if kind is FieldEventKind.CAST:
            pointed = struct_of_value(event.path, fn, globals_, types)
            target = types.struct_key(event.value.rstrip("*"))
            if pointed is not None and target != pointed:
                self.recast(pointed, target, event.line)
            return
        table = row_field(event.path, fn, globals_, types)
        if table is not None:
            rows = table.field + ROWS
            if kind is FieldEventKind.ADDRESS:
                place = self.place(event.line)
                self.out.append(FieldFact("unknown", table.key, rows, "", place))
            else:
                self.value_facts(table.key, rows, event.value, fn, event.line)
            return
        found = resolve_field(event.path, fn, globals_, types)
        last = event.path.replace("->", ".").rsplit(".", 1)[-1]
        if found is None and not event.path.endswith("]"):
            self.function_field(event, last, fn)
        if found is None:
            walked = walk_path(event.path, fn, globals_, types)
            if walked is None or walked.union or walked.last is None:
                self.out.append(
                    FieldFact("unknown_name", "", last, "", self.place(event.line))
                )
            return  # an element of the field, not the field itself
        if kind is FieldEventKind.ADDRESS:
            if event.value == "posix_memalign":
                place = self.place(event.line)
                target = f"alloc {place}"
                self.out.append(
                    FieldFact(
                        "object",
                        found.key,
                        found.field,
                        target,
                        place,
                        "`posix_memalign()`",
                    )
                )
                return
            if found.levels.startswith("*"):
                self.address(event, fn, found.key, found.field)
            else:
                inner = types.struct_key(found.member.type)
                if inner is not None:
                    self.unknown_struct(inner, event.line)
            return
        if found.levels.startswith("*"):
            self.value_facts(found.key, found.field, event.value, fn, event.line)
            return
        inner = types.struct_key(found.member.type)
        if inner is not None and found.levels == "":
            same = struct_of_value("&" + strip_casts(event.value), fn, globals_, types)
            if same != inner:
                self.unknown_struct(inner, event.line)

    def address(
        self, event: FieldEvent, fn: Function | None, key: str, name: str
    ) -> None:
        """`&x->f` passed to a function: the stores it makes through it, or unknown."""
        stores = address_stores(event, fn, self.source)
        if stores is None:
            self.out.append(FieldFact("unknown", key, name, "", self.place(event.line)))
            return
        for store in stores:
            self.value_facts(key, name, store.value, store.function, store.line)

    def function_field(self, event: FieldEvent, last: str, fn: Function | None) -> None:
        """A store into a field that is no data pointer: maybe a function pointer."""
        place = self.place(event.line)
        found = holder_of(event.path, fn, self.globals, self.types)
        holder = found[0] if found is not None else ""
        if event.kind is FieldEventKind.ADDRESS:
            self.out.append(FieldFact("fnunknown", holder, last, "", place))
            return
        shown = f"`{event.value}`"
        for kind, key, name, target in function_store_facts(
            holder, last, event.value, fn, self.globals, self.callable, self.file
        ):
            self.out.append(FieldFact(kind, key, name, target, place, shown))

    def indirect(
        self, fn: Function, name: str, key: str, position: int, line: int
    ) -> bool:
        """Record a call through a field (`s->pot->force(s)`); False if it is none."""
        found = holder_of(name, fn, self.globals, self.types)
        if found is None:
            return False
        target, place = "|".join(found), self.place(line)
        self.out.append(FieldFact("indirect", key, str(position), target, place, name))
        return True

    def calls(self) -> None:
        mine = self.callable
        globals_, types = self.globals, self.types
        for fn in self.source.functions:
            for call in fn.call_sites:
                known = library_function(call.name)
                callee = mine.get(call.name)
                # `E::~E(obj)`: `obj` dies, so what the destructor stores in its
                # fields is never read; its other effects are the call's own.
                dying = call.name.rpartition("::")[2].startswith("~")
                for position, arg in enumerate(call.args):
                    if dying and position == 0:
                        continue
                    raw = arg.replace(" ", "")
                    if _CAST.match(raw) and strip_casts(raw) != raw.strip("()"):
                        continue  # `(T *)a`: its CAST event says what it does
                    text = strip_casts(raw)
                    key = struct_of_value(text, fn, globals_, types)
                    if key is None:
                        continue
                    line = call.span.line
                    if callee is not None:
                        took = accepts_struct(callee, position, types)
                        if took is None and void_at(callee, position):
                            # field_void may show that it is typed back.
                            label = label_of(call.name, callee, self.file)
                            self.escape(key, position, label, line)
                        elif took not in (key, ALL):
                            self.unknown_struct(key, line)  # seen as another type
                    elif known is not None:
                        if position in known.writes and known.effect is not Effect.FREE:
                            self.unknown_struct(key, line)  # `memcpy`, `fread`
                    elif not self.indirect(fn, call.name, key, position, line):
                        self.escape(key, position, call.name, line)

    def escape(self, key: str, position: int, callee: str, line: int) -> None:
        place = self.place(line)
        self.out.append(FieldFact("escape", key, str(position), callee, place))

    def facts(self) -> tuple[FieldFact, ...]:
        for event in self.source.field_events:
            self.event(event)
        functions = self.source.functions
        for struct, name, line in bare_tables(functions, self.globals, self.types):
            place = self.place(line)
            fact = FieldFact("unknown", struct, name + ROWS, "", place, "a use")
            self.out.append(fact)
        self.calls()
        for fn in self.source.functions:
            if fn.static:
                continue
            for position in range(len(fn.params)):
                key = accepts_struct(fn, position, self.types)
                if key is not None:
                    place = self.place(fn.span.line)
                    self.out.append(
                        FieldFact("accepts", key, str(position), fn.name, place)
                    )
        self.out += file_void_facts(
            self.source, self.file, self.callable, self.globals, self.types,
            self.place,
        )  # fmt: skip
        stored = {f.target for f in self.out if f.kind == "fnstore"}
        for name, fn in self.callable.items():
            label = label_of(name, fn, self.file)
            if not fn.static or label not in stored:
                continue
            place = self.place(fn.span.line)
            for position in range(len(fn.params)):
                key = accepts_struct(fn, position, self.types)
                if key is not None:
                    self.out.append(
                        FieldFact("accepts", key, str(position), label, place)
                    )
        for name in sorted(self.wrappers):
            wrapper = self.source.function(name)
            if wrapper is not None and not wrapper.static:
                place = self.place(wrapper.span.line)
                self.out.append(FieldFact("wrapper", "", "", name, place))
        return tuple(dict.fromkeys(self.out))


def file_field_facts(source: SourceFile, file: str) -> tuple[FieldFact, ...]:
    """The field facts of one file and its headers' code; `file` names its places."""
    own = _File(source, file).facts()
    if source.headers is None:
        return own
    header = _File(source.headers, file, outer=source).facts()
    return tuple(dict.fromkeys((*own, *header)))
