"""Calls through a struct's function-pointer field: which functions they reach.

`s->pot->force(s)` hands `s` to whatever function `force` holds. The field
points-to counts such a call as an escape (a function no file shows) unless
every value the program stores into a field called `force` is known: a
function defined in the program (`pot->force = eamForce;`), NULL, or a copy of
another such field. The stores are matched by the field's name, whatever struct
holds it, so that structs cast to each other (`BasePotential` and
`EamPotential`) share one set. The call then reaches each function of the set:
it is no escape when every one of them declares the parameter at that position
a pointer to the struct passed (its own file's facts then cover its stores).

Anything that may set the field unseen keeps it unknown: its address taken, a
value of unknown origin stored, a positional initializer of a struct that may
hold it, or that struct written as a whole (`memcpy`, an unknown callee).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from accls.analysis.field_paths import strip_casts, walk_path
from accls.frontend import Effect, Function, TypeTable, Var, library_function

if TYPE_CHECKING:
    from accls.analysis.field_facts import FieldFact

__all__ = [
    "FN_KINDS",
    "IndirectCalls",
    "accepts_struct",
    "base_key",
    "callee_path",
    "function_store_facts",
    "functions_held",
    "holder_of",
    "indirect_calls",
    "label_of",
]

_NAME = re.compile(r"[A-Za-z_]\w*")
_FIELD_PATH = re.compile(r"[A-Za-z_]\w*(?:\[[^\[\]]*\])*(?:(?:->|\.)[A-Za-z_]\w*)+")
ANY = "*"  # field_points_to's ALL: a parameter that accepts any struct
_NULL = frozenset({"0", "NULL", "((void*)0)", "(void*)0", "nullptr"})
# The kinds of FieldFact this module makes and reads (field_points_to's others).
FN_KINDS = frozenset({"fnstore", "fnunknown", "fncopy", "init", "cast", "indirect"})


def label_of(name: str, fn: Function | None, file: str) -> str:
    """How facts name a function: a static one with its file, others by name."""
    return f"{file}::{name}" if fn is not None and fn.static else name


def callee_path(name: str) -> tuple[str, str] | None:
    """`s->pot->force` into (`s->pot`, `force`); None for a plain callee name."""
    text = "".join(name.split())
    if not _FIELD_PATH.fullmatch(text):
        return None
    cut = max(text.rfind("->") + 2, text.rfind(".") + 1)
    step = 2 if text[cut - 2 : cut] == "->" else 1
    return text[: cut - step], text[cut:]


def base_key(
    base: str,
    arrow: bool,
    fn: Function | None,
    globals_: tuple[Var, ...],
    types: TypeTable,
) -> str | None:
    """The struct whose field a call path `base->f` (or `base.f`) reads.

    None for a union (another member may overwrite the pointer) or a path
    through one.
    """
    walked = walk_path(base, fn, globals_, types)
    if walked is None or walked.union or types.is_union(walked.type_):
        return None
    wanted = "*" if arrow else ""
    if walked.levels != wanted:
        return None
    return types.struct_key(walked.type_)


def holder_of(
    path: str, fn: Function | None, globals_: tuple[Var, ...], types: TypeTable
) -> tuple[str, str] | None:
    """(struct holding the field or "", field name) of a path like `s->pot->force`."""
    found = callee_path(path)
    if found is None:
        return None
    base, name = found
    arrow = "".join(path.split())[len(base) : len(base) + 2] == "->"
    return base_key(base, arrow, fn, globals_, types) or "", name


def function_store_facts(
    holder: str,
    field: str,
    value: str,
    fn: Function | None,
    globals_: tuple[Var, ...],
    defined: dict[str, Function],
    file: str,
) -> tuple[tuple[str, str, str, str], ...]:
    """(kind, key, field, target) of a store into a field that is no data pointer.

    The field may be a function pointer: a function's name is a "fnstore", a
    field of the same kind a "fncopy", anything else a "fnunknown".
    """
    text = strip_casts("".join(value.split()))
    if text in _NULL:
        return ()
    if text.startswith("&"):
        text = strip_casts(text[1:])
    if _NAME.fullmatch(text):
        local = fn.lookup(text) if fn is not None else None
        shadow = local is not None or any(g.name == text for g in globals_)
        if not shadow and text in defined:  # a function this file shows
            label = label_of(text, defined.get(text), file)
            return (("fnstore", holder, field, label),)
    found = callee_path(text)
    if found is not None and "[" not in found[0]:
        return (("fncopy", holder, field, found[1]),)
    return (("fnunknown", holder, field, ""),)


@dataclass(frozen=True, slots=True)
class IndirectCalls:
    """The indirect calls the program's stores account for, and why the others fail."""

    accepted: frozenset[tuple[str, str, str]]  # (key, position, target) of facts
    why: dict[tuple[str, str, str], str]  # the same triple of a failed one


_Slot = tuple[str, str]  # (holder struct key, "" when unresolved; field name)


def _reach(
    name: str,
    keys: frozenset[str],
    stores: dict[_Slot, set[str]],
    copies: dict[_Slot, set[str]],
    unknown: dict[_Slot, str],
) -> tuple[set[str], str | None]:
    """The functions fields `name` of `keys` may hold; a reason when unknown.

    A copy from another field (`a->f = b->g`) brings in what a field `g` of any
    struct may hold.
    """
    todo: list[tuple[str, frozenset[str] | None]] = [(name, keys)]
    seen: set[tuple[str, frozenset[str] | None]] = set()
    out: set[str] = set()
    while todo:
        each = todo.pop()
        if each in seen:
            continue
        seen.add(each)
        field_name, wanted = each
        mine = [
            slot
            for slot in (*unknown, *stores, *copies)
            if slot[1] == field_name and (wanted is None or slot[0] in wanted)
        ]
        for slot in sorted(set(mine)):
            if slot in unknown:
                return set(), f"a field `{slot[1]}`: {unknown[slot]}"
            out |= stores.get(slot, set())
            todo.extend((n, None) for n in copies.get(slot, set()))
    return out, None


def _related(key: str, casts: dict[str, set[str]]) -> set[str]:
    seen = {key}
    todo = [key]
    while todo:
        for other in casts.get(todo.pop(), set()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def functions_held(
    facts: Sequence[FieldFact], holder: str, name: str, unknown: set[str]
) -> set[str] | None:
    """The functions a field `name` of `holder` may hold; None when unknown.

    `unknown`: the structs that may be set unseen as a whole.
    """
    stores: dict[_Slot, set[str]] = {}
    copies: dict[_Slot, set[str]] = {}
    unseen: dict[_Slot, str] = {}
    casts: dict[str, set[str]] = {}
    for fact in facts:
        slot = (fact.key, fact.field)
        if fact.kind == "fnstore":
            stores.setdefault(slot, set()).add(fact.target)
        elif fact.kind == "fncopy":
            copies.setdefault(slot, set()).add(fact.target)
        elif fact.kind == "fnunknown":
            unseen.setdefault(slot, "unknown")
        elif fact.kind == "cast":
            casts.setdefault(fact.key, set()).add(fact.field)
            casts.setdefault(fact.field, set()).add(fact.key)
    related = _related(holder, casts) | {""}
    if not holder or related & unknown:
        return None
    reached, reason = _reach(name, frozenset(related), stores, copies, unseen)
    return reached if reason is None and reached else None


def indirect_calls(facts: Sequence[FieldFact]) -> IndirectCalls:
    """Which "indirect" facts every function their field may hold accepts."""
    stores: dict[_Slot, set[str]] = {}
    copies: dict[_Slot, set[str]] = {}
    unknown: dict[_Slot, str] = {}
    casts: dict[str, set[str]] = {}
    whole: dict[str, str] = {}  # struct key: why it may be set unseen as a whole
    accepts: set[tuple[str, str, str]] = set()
    escapes: list[tuple[str, str, str, str]] = []
    indirect: list[tuple[str, str, str, str]] = []
    for fact in facts:
        kind, key, field = fact.kind, fact.key, fact.field
        target, place = fact.target, fact.place
        if kind == "fnstore":
            stores.setdefault((key, field), set()).add(target)
        elif kind == "fncopy":
            copies.setdefault((key, field), set()).add(target)
        elif kind == "fnunknown":
            told = f"a value of unknown origin is stored at {place}"
            unknown.setdefault((key, field), told)
        elif kind == "cast":
            casts.setdefault(key, set()).add(field)
            casts.setdefault(field, set()).add(key)
        elif kind == "init":
            whole.setdefault(key, f"initialised positionally at {place}")
        elif kind == "unknown" and field == "*":
            whole.setdefault(key, f"written as a whole at {place}")
        elif kind == "accepts":
            accepts.add((key, field, target))
        elif kind == "escape":
            escapes.append((key, field, target, place))
        elif kind == "indirect":
            indirect.append((key, field, target, place))
    for key, position, callee, place in escapes:
        if (key, position, callee) in accepts or ("*", position, callee) in accepts:
            continue
        whole.setdefault(key, f"passed to `{callee}()` at {place}, unseen")
    accepted: set[tuple[str, str, str]] = set()
    why: dict[tuple[str, str, str], str] = {}
    for key, position, target, _place in indirect:
        holder, _, name = target.partition("|")
        triple = (key, position, target)
        reached: set[str] = set()
        reason = _blocked(holder, casts, whole)
        if reason is None:
            keys = frozenset(_related(holder, casts) | {""})
            reached, reason = _reach(name, keys, stores, copies, unknown)
            if reason is None and not reached:
                reason = f"no store of a function into a field `{name}` was found"
        if reason is None:
            refused = sorted(
                t
                for t in reached
                if (key, position, t) not in accepts
                and (ANY, position, t) not in accepts
            )
            if refused:
                shown = refused[0].rpartition("::")[2]
                reason = (
                    f"it may hold `{shown}()`, which does not take a pointer to "
                    f"`{key.removeprefix('struct ')}` there"
                )
        if reason is None:
            accepted.add(triple)
        else:
            why[triple] = reason
    return IndirectCalls(frozenset(accepted), why)


def _blocked(
    holder: str, casts: dict[str, set[str]], whole: dict[str, str]
) -> str | None:
    """Why the struct holding a function-pointer field may be set unseen."""
    if not holder:
        return "the struct that holds the field is not known"
    for key in sorted(_related(holder, casts) | {""}):
        if key in whole:
            shown = key.removeprefix("struct ") or "a struct of unknown type"
            return f"`{shown}` may hold it and is {whole[key]}"
    return None


def _releases(fn: Function, name: str) -> bool:
    """Whether the parameter `name` is only ever handed to `free()` (`comdFree`)."""
    uses = [r for r in fn.refs if r.name == name]
    if any(r.subscripts or r.deref or r.member or r.escapes for r in uses):
        return False
    word = re.compile(rf"(?<![\w.>]){re.escape(name)}(?!\w)")
    freed = 0
    for call in fn.call_sites:
        for arg in call.args:
            if not word.search(arg):
                continue
            known = library_function(call.name)
            if arg.strip() != name or known is None or known.effect is not Effect.FREE:
                return False
            freed += 1
    return freed > 0 and freed == len(uses)


def accepts_struct(fn: Function, position: int, types: TypeTable) -> str | None:
    """The struct a parameter points to, when it is declared a pointer to one.

    ALL for a `void *` parameter the function only frees: any struct is safe.
    """
    if position >= len(fn.params):
        return None
    param = fn.params[position]
    levels = types.levels_of(param.type)
    if levels is None or param.shape + levels not in ("*", "["):
        return None
    if param.type == "void" and _releases(fn, param.name):
        return ANY
    return types.struct_key(param.type)
