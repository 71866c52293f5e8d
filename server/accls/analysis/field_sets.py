"""The objects each struct's pointer field may point to, from every file's facts.

field_points_to reads the facts of one file; this module joins those of the
whole program: copies (`a->f = b->g`) flow the sets until nothing changes, a
callee that is an allocator wrapper makes its call sites objects, and a struct
handed to a function no file defines (or seen as another type) makes every
field of it unknown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from accls.analysis.field_calls import IndirectCalls, indirect_calls
from accls.analysis.field_facts import ALL, FieldFact
from accls.analysis.field_rows import ROWS, rows_hold
from accls.analysis.field_void import void_accepts

__all__ = ["FieldSets", "field_sets"]


@dataclass(frozen=True, slots=True)
class FieldSets:
    """The objects each (struct, field) may point to; None means unknown."""

    facts: tuple[FieldFact, ...]
    _sets: dict[tuple[str, str], frozenset[str] | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _places: dict[tuple[str, str], tuple[str, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _calls: list[IndirectCalls] = field(
        default_factory=list, init=False, repr=False, compare=False
    )
    # "accepts" facts field_void derives for `void *` parameters.
    _extra: list[FieldFact] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        # A `void *` parameter may accept a struct only while the structs it is
        # typed back as stay known: start from every candidate and drop those
        # whose structs become unknown, until nothing changes (this ends: the
        # candidates only shrink).
        more = void_accepts(self.facts, set())
        while True:
            unknown_keys, calls = _unknown_keys((*self.facts, *more))
            kept = void_accepts(self.facts, unknown_keys)
            if set(kept) == set(more):
                break
            more = kept
        self._extra.extend(more)
        self._calls.append(calls)
        wrappers = {f.target for f in self.facts if f.kind == "wrapper"}
        unknown_names = {f.field for f in self.facts if f.kind == "unknown_name"}
        sets: dict[tuple[str, str], set[str] | None] = {}
        copies: dict[tuple[str, str], set[tuple[str, str]]] = {}
        places: dict[tuple[str, str], list[str]] = {}

        def mark(slot: tuple[str, str], what: str | None) -> None:
            current = sets.setdefault(slot, set())
            if what is None or current is None:
                sets[slot] = None
            else:
                current.add(what)

        for fact in self.facts:
            slot = (fact.key, fact.field)
            if fact.kind in ("object", "copy", "call", "unknown") and fact.field != ALL:
                places.setdefault(slot, []).append(
                    f"{fact.shown or 'a value'} at {fact.place}"
                )
            if fact.kind == "object":
                mark(slot, fact.target)
            elif fact.kind == "call":
                mark(slot, f"alloc {fact.place}" if fact.target in wrappers else None)
            elif fact.kind == "unknown" and fact.field != ALL:
                mark(slot, None)
            elif fact.kind == "copy":
                sets.setdefault(slot, set())
                key, _, name = fact.target.rpartition(".")
                copies.setdefault(slot, set()).add((key, name))
        for slot in list(sets):
            if slot[0] in unknown_keys or slot[1] in unknown_names:
                sets[slot] = None
        changed = True
        while changed:
            changed = False
            for slot, sources in copies.items():
                for source in sources:
                    incoming = (
                        sets.get(source, set())
                        if source[0] not in unknown_keys
                        else None
                    )
                    if source[1] in unknown_names:
                        incoming = None
                    current = sets.get(slot)
                    if current is None:
                        continue
                    if incoming is None:
                        sets[slot] = None
                        changed = True
                    elif not incoming <= current:
                        current |= incoming
                        changed = True
        copied = {src for slot, srcs in copies.items() for src in srcs if src != slot}
        for slot in list(sets):
            if slot[1].endswith(ROWS):
                table = sets.get((slot[0], slot[1].removesuffix(ROWS)))
                if not rows_hold(slot, table, copied):
                    sets[slot] = None
        for slot, value in sets.items():
            self._sets[slot] = None if value is None else frozenset(value)
        for slot, shown in places.items():
            self._places[slot] = tuple(dict.fromkeys(shown))
        self._sets.update({(k, "\0unknown"): None for k in unknown_keys})

    def objects(self, key: str, name: str) -> frozenset[str] | None:
        """What `key.name` may point to; None when unknown or never stored."""
        if (key, "\0unknown") in self._sets:
            return None
        return self._sets.get((key, name))

    def unknown_why(self, key: str, name: str) -> str:
        """Why `key.name` has no known set, as the message says it."""
        struct = f"`{key.removeprefix('struct ')}.{name}`"
        if name.endswith(ROWS):
            return self._rows_why(key, name)
        wrappers = {f.target for f in self.facts if f.kind == "wrapper"}
        for fact in self.facts:
            if fact.key != key or fact.field != name:
                continue
            what = fact.shown or "a value"
            if fact.kind == "unknown":
                return f"{struct} is set from {what} at {fact.place}, unknown"
            if fact.kind == "call" and fact.target not in wrappers:
                return (
                    f"{struct} is set from {what} at {fact.place}, which is not "
                    "known to return fresh memory"
                )
        # A function with a struct parameter anywhere is one the program defines.
        defined = {f.target: f.place for f in self.facts if f.kind == "accepts"}
        for fact in self.facts:
            if fact.key != key:
                continue
            if fact.kind == "unknown" and fact.field == ALL:
                return (
                    f"the fields of `{key.removeprefix('struct ')}` may be set "
                    f"unseen at {fact.place} (initialised, copied or cast as a whole)"
                )
            accepted = any(
                f.kind == "accepts"
                and f.key in (key, ALL)
                and (f.field, f.target) == (fact.field, fact.target)
                for f in (*self.facts, *self._extra)
            )
            through = (fact.key, fact.field, fact.target)
            if fact.kind == "indirect" and through in self._calls[0].why:
                return (
                    f"a pointer to `{key.removeprefix('struct ')}` is passed to "
                    f"`{fact.shown}()` at {fact.place}, a call through the field "
                    f"`{fact.target.partition('|')[2]}`: "
                    f"{self._calls[0].why[through]}"
                )
            opaque = [
                f.place
                for f in self.facts
                if f.kind == "vopaque" and (f.field, f.target) == through[1:]
            ]
            if fact.kind == "escape" and not accepted and opaque:
                shown = key.removeprefix("struct ")
                callee = fact.target.rpartition("::")[2]
                return (
                    f"a pointer to `{shown}` is passed to `{callee}()` "
                    f"({opaque[0]}) at {fact.place} as a `void *` that it uses "
                    f"other than by typing it back as a struct pointer"
                )
            if fact.kind == "escape" and not accepted and fact.target in defined:
                shown = key.removeprefix("struct ")
                return (
                    f"a pointer to `{shown}` is passed to `{fact.target}()` "
                    f"({defined[fact.target]}) at {fact.place}, whose parameter "
                    f"there is not declared a pointer to `{shown}` (a `void *` or "
                    "another type): what it does with it is not followed"
                )
            if fact.kind == "escape" and not accepted:
                return (
                    f"a pointer to `{key.removeprefix('struct ')}` is passed to "
                    f"`{fact.target}()` at {fact.place}, which no file of the "
                    "program shows"
                )
        if any(f.kind == "unknown_name" and f.field == name for f in self.facts):
            return f"a store to a field `{name}` the analysis cannot place"
        if (key, name) not in self._sets:
            return f"no store to {struct} was found in the program"
        return f"some store to {struct} may hold another field's pointer"

    def _rows_why(self, key: str, name: str) -> str:
        """Why the rows of a table field have no known set."""
        table = name.removesuffix(ROWS)
        struct = f"`{key.removeprefix('struct ')}.{table}`"
        for fact in self.facts:
            if (fact.key, fact.field, fact.kind) != (key, name, "unknown"):
                continue
            if fact.shown == "a use":
                return (
                    f"the table {struct} is used at {fact.place} other than by "
                    "its rows, so a row may be set unseen"
                )
            what = fact.shown or "a value"
            return f"a row of {struct} is set from {what} at {fact.place}"
        if self.objects(key, table) is None:
            return f"the table {struct} itself may point anywhere"
        return f"the table {struct} is not only fresh blocks of its own"

    def places(self, key: str, name: str) -> tuple[str, ...]:
        """Where the stores to `key.name` are, as the message names them."""
        return self._places.get((key, name), ())


def field_sets(facts: Iterable[FieldFact]) -> FieldSets:
    """The sets the facts of every file make."""
    return FieldSets(tuple(facts))


def _unknown_keys(facts: tuple[FieldFact, ...]) -> tuple[set[str], IndirectCalls]:
    """The structs that may be set unseen as a whole, and the indirect calls."""
    accepts = {(f.key, f.field, f.target) for f in facts if f.kind == "accepts"}
    unknown_keys = {f.key for f in facts if f.kind == "unknown" and f.field == ALL}
    unknown_keys |= {
        f.key
        for f in facts
        if f.kind == "escape"
        and (f.key, f.field, f.target) not in accepts
        and (ALL, f.field, f.target) not in accepts
    }
    calls = indirect_calls(facts)
    unknown_keys |= {
        f.key
        for f in facts
        if f.kind == "indirect" and (f.key, f.field, f.target) not in calls.accepted
    }
    return unknown_keys, calls
