"""A struct handed on as `void *`: followed where the callee only types it back.

CoMD's `haloExchange(HaloExchange *h, void *data)` takes the simulation as
`void *`, hands `data` on to `exchangeData()` and from there to the functions
the fields `h->loadBuffer` and `h->unloadBuffer` hold, which do
`SimFlat *s = (SimFlat *) data;`. A store through `s` is then a store through
a typed lvalue, which the callee's file's facts already hold. So a `void *`
parameter accepts any struct when every use of it in the body is one of:

- the value of a local declared a pointer to a struct (`T *x = (T *) data;`,
  `x = data;`), where `T` is a struct never written as a whole (an object of
  another type is then only ever reached through `T`'s fields, which C's
  effective-type rule forbids, or by one of `T`'s stores, which are facts);
- a whole argument of a call to a function of the program whose parameter
  there accepts it the same way (directly, or through a function-pointer field
  whose every function is known).

Anything else (indexed, stored, copied, handed to a library function, its
address taken, passed to a function no file shows) keeps the escape unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from accls.analysis.field_calls import (
    callee_path,
    functions_held,
    holder_of,
    label_of,
)
from accls.analysis.field_facts import ALL, FieldFact
from accls.analysis.lent_arguments import call_argument
from accls.frontend import Effect, Function, SourceFile, TypeTable, Var
from accls.frontend import library_function as _library

__all__ = ["file_void_facts", "void_accepts", "void_at"]

_KINDS = ("vparam", "vcast", "vforward", "vindirect")
_INIT = re.compile(
    r"([A-Za-z_]\w*)\s*=\s*"
    r"(?:\(\s*(?:const\s+)?(?:struct\s+)?([A-Za-z_]\w*)\s*\*\s*\)\s*)?$"
)


def void_at(fn: Function, position: int) -> bool:
    """Whether `fn`'s parameter at `position` is a plain `void *`."""
    if position >= len(fn.params):
        return False
    param = fn.params[position]
    return param.type == "void" and param.shape == "*" and not param.dims


def file_void_facts(
    source: SourceFile,
    file: str,
    callable_: dict[str, Function],
    globals_: tuple[Var, ...],
    types: TypeTable,
    place: Callable[[int], str],
) -> list[FieldFact]:
    """The `void *` parameter facts of every function of `source`."""
    labels = {n: label_of(n, f, file) for n, f in callable_.items()}
    out: list[FieldFact] = []
    for fn in source.functions:
        out += _param_facts(
            fn,
            source,
            labels.get(fn.name, fn.name),
            callable_,
            labels,
            globals_,
            types,
            place(fn.span.line),
        )
    return out


def _struct_pointer(var: Var | None, types: TypeTable) -> str | None:
    """The struct a local is declared a single pointer to, if it is one."""
    if var is None or var.dims or var.shape != "*":
        return None
    if types.levels_of(var.type) != "":
        return None
    return types.struct_key(var.type)


def _param_facts(
    fn: Function,
    source: SourceFile,
    label: str,
    callable_: dict[str, Function],
    labels: dict[str, str],
    globals_: tuple[Var, ...],
    types: TypeTable,
    place: str,
) -> list[FieldFact]:
    """The facts of `fn`'s `void *` parameters whose every use is accounted for.

    `labels`: how the facts name each function a call may reach by name.
    """
    if len(source.data) != len(source.text):
        return []  # non-ASCII text: byte offsets are not character offsets
    text = source.code[fn.span.start_byte : fn.span.end_byte]
    brace = text.find("{")
    if brace < 0 or ";" in text[:brace]:
        return []  # a K&R definition: its parameters' order is not the list's
    body = text[brace:]
    out: list[FieldFact] = []
    for position, param in enumerate(fn.params):
        if not void_at(fn, position):
            continue
        found = _uses(fn, param.name, body, callable_, labels, globals_, types)
        if found is None:
            out.append(FieldFact("vopaque", "", str(position), label, place))
            continue
        out.append(FieldFact("vparam", "", str(position), label, place))
        for kind, key, at in found:
            out.append(FieldFact(kind, key, f"{position}>{at}", label, place))
    return out


def _uses(
    fn: Function,
    name: str,
    body: str,
    callable_: dict[str, Function],
    labels: dict[str, str],
    globals_: tuple[Var, ...],
    types: TypeTable,
) -> list[tuple[str, str, int]] | None:
    """(kind, key, position) of each use of `name`; None when one is unaccounted."""
    if any(r.name == name and (r.subscripts or r.deref or r.member) for r in fn.refs):
        return None
    out: list[tuple[str, str, int]] = []
    # `p->data` and `s.data` are fields; `&data`, `*data` are uses like others.
    for match in re.finditer(rf"(?<![\w.>]){re.escape(name)}(?!\w)", body):
        before, after = body[: match.start()], body[match.end() :]
        init = _INIT.search(before)
        if init is not None and before[: init.start(1)].rstrip()[-1:] in (".", ">"):
            return None  # `s->f = data`: kept in a field, where anything may use it
        if init is not None and re.match(r"\s*;", after):
            pointed = _struct_pointer(fn.lookup(init.group(1)), types)
            cast = init.group(2)
            if pointed is None or (cast and types.struct_key(cast) != pointed):
                return None
            out.append(("vcast", pointed, 0))
            continue
        argument = call_argument(before) if re.match(r"\s*[,)]", after) else None
        if argument is None:
            return None
        callee, at = argument
        if callee_path(callee) is not None:
            held = holder_of(callee, fn, globals_, types)
            if held is None or not held[0]:
                return None
            out.append(("vindirect", "|".join(held), at))
        elif callee in callable_ and fn.lookup(callee) is None:
            out.append(("vforward", labels.get(callee, callee), at))
        else:
            known = _library(callee)
            if known is None or known.effect is not Effect.FREE:
                return None  # a library call, or a function no file shows
    return out


def void_accepts(
    facts: Sequence[FieldFact], unknown: set[str]
) -> tuple[FieldFact, ...]:
    """The "accepts" facts (any struct) of the `void *` parameters typed back.

    `unknown`: the structs that may be set unseen as a whole without these.
    """
    params: dict[tuple[str, str], str] = {}
    uses: dict[tuple[str, str], list[FieldFact]] = {}
    accepts: set[tuple[str, str, str]] = set()
    for fact in facts:
        if fact.kind == "vparam":
            params[fact.target, fact.field] = fact.place
        elif fact.kind in _KINDS:
            own = fact.field.partition(">")[0]
            uses.setdefault((fact.target, own), []).append(fact)
        elif fact.kind == "accepts":
            accepts.add((fact.key, fact.field, fact.target))

    def takes(function: str, position: str, ok: set[tuple[str, str]]) -> bool:
        # A parameter typed `T *` types it back as `T`, like a cast.
        return (function, position) in ok or any(
            k == ALL or k not in unknown
            for k, p, f in accepts
            if (p, f) == (position, function)
        )

    held: dict[str, set[str] | None] = {}

    def holds(use: FieldFact, ok: set[tuple[str, str]]) -> bool:
        at = use.field.partition(">")[2]
        if use.kind == "vcast":
            return use.key not in unknown
        if use.kind == "vforward":
            return takes(use.key, at, ok)
        if use.key not in held:
            holder, _, name = use.key.partition("|")
            held[use.key] = functions_held(facts, holder, name, unknown)
        found = held[use.key]
        return found is not None and all(takes(f, at, ok) for f in found)

    ok = set(params)
    changed = True
    while changed:
        changed = False
        for slot in sorted(ok):
            if not all(holds(use, ok) for use in uses.get(slot, [])):
                ok.discard(slot)
                changed = True
    return tuple(
        FieldFact("accepts", ALL, position, function, params[function, position])
        for function, position in sorted(ok)
    )
