"""Whether every call of a function passes non-overlapping objects to two pointers.

`static void relax(double *dst, const double *src, int n)` may be called with
the same buffer twice; nothing in its body says otherwise. But when the file
holds every call of it (it is `static` and its address is never taken) and each
call passes distinct objects (two arrays, two `malloc` blocks, a parameter and
a local array of the caller), `dst` and `src` never overlap. This module proves
that, following parameters up through callers that are themselves static; with
the project's calls (`remote_calls`), an external function's calls in every
file count, and callers are followed across files. A parameter the function
reassigns (`dst = src + 1;`) no longer holds what its callers passed.
"""

from __future__ import annotations

import re

from accls.analysis.call_origins import (
    Origin,
    argument_origin,
    origins_overlap,
    reassigned,
    strip_argument,
)
from accls.analysis.call_site_lists import Callee, CallSiteLists, Site, callee_of
from accls.analysis.field_sets import FieldSets
from accls.analysis.pointer_rotations import ALLOCATION, local_in_scope, swapped
from accls.analysis.remote_calls import ProgramCalls
from accls.frontend import Call, Function, SourceFile, Var

__all__ = [
    "apart_from_global_at_call_sites",
    "distinct_at_call_sites",
    "same_or_apart_at_call_sites",
    "sealed_at_call_sites",
]

_NAME = re.compile(r"[A-Za-z_]\w*")
_DEPTH = 4  # callers followed upwards before giving up


class _Prover:
    """Follows call sites upwards; remembers the pairs being proved (recursion)."""

    def __init__(
        self,
        source: SourceFile,
        program: ProgramCalls | None = None,
        fields: FieldSets | None = None,
    ):
        self.source = source
        self.fields = fields
        self.lists = CallSiteLists(source, program)
        self.only_called = self.lists.only_called
        self.visiting: set[tuple[str, str, str, str]] = set()
        self.sites: list[str] = []

    def distinct(self, fn: Callee, first: str, second: str, depth: int) -> bool:
        low, high = sorted((first, second))
        key = (fn.file, fn.name, low, high)
        if key in self.visiting:
            return True  # a recursive call passes them along: decided elsewhere
        if depth > _DEPTH:
            return False
        if first not in fn.params or second not in fn.params:
            return False
        calls = self.only_called(fn)
        if calls is None:
            return False
        at = (fn.params.index(first), fn.params.index(second))
        self.visiting.add(key)
        try:
            for site in calls:
                if max(at) >= site.count() or not self._site_apart(site, at, depth):
                    return False
                if depth == 0:
                    self.sites.append(site.where)
        finally:
            self.visiting.discard(key)
        return True

    def _site_apart(self, site: Site, at: tuple[int, int], depth: int) -> bool:
        if site.caller is not None and site.call is not None:
            one, two = site.call.args[at[0]], site.call.args[at[1]]
            return self._apart(site.caller, one, two, depth, site.call)
        assert site.record is not None
        args = site.record.args
        return self._origins_apart(site.calling(), args[at[0]], args[at[1]], depth)

    def _origins_apart(
        self, caller: Callee, a: Origin | None, b: Origin | None, depth: int
    ) -> bool:
        if a is None or b is None:
            return False
        if "field" in (a.kind, b.kind):
            return self._fields_apart(a, b)
        if a.kind == "param" and b.kind == "param":
            if a.path == b.path:
                return False
            return self.distinct(caller, a.path, b.path, depth + 1)
        if "param" in (a.kind, b.kind):
            # A parameter's value was set before the caller ran: it cannot point
            # into the caller's own arrays or blocks it allocated, but it may
            # point into a global.
            other = b if a.kind == "param" else a
            return other.kind in ("local", "fresh", "row")
        return not origins_overlap(a, b)

    def _field_objects(self, origin: Origin) -> frozenset[str] | None:
        if self.fields is None:
            return None
        key, _, name = origin.path.rpartition(" ")
        return self.fields.objects(key, name)

    def _fields_apart(self, a: Origin, b: Origin) -> bool:
        """Two fields whose stores hold distinct objects, or fresh blocks and an array.

        A pointer field whose every store is an allocated block never points into
        an array of the caller or a global.
        """
        if a.kind == "field" and b.kind == "field":
            left, right = self._field_objects(a), self._field_objects(b)
            return left is not None and right is not None and not left & right
        field, other = (a, b) if a.kind == "field" else (b, a)
        return other.kind in ("local", "global") and self._only_blocks(field)

    def _only_blocks(self, field: Origin) -> bool:
        """Every store to the field is a block allocated (never a named array)."""
        found = self._field_objects(field)
        return found is not None and all(n.startswith("alloc ") for n in found)

    def off_global(self, fn: Callee, param: str, root: str, depth: int) -> bool:
        """Whether no call passes `param` a pointer into the global object `root`."""
        key = (fn.file, fn.name, param, f"global {root}")
        if key in self.visiting:
            return True  # a recursive call passes it along: decided elsewhere
        calls = self.only_called(fn) if depth <= _DEPTH else None
        if param not in fn.params or calls is None:
            return False
        at = fn.params.index(param)
        self.visiting.add(key)
        try:
            for site in calls:
                if at >= site.count():
                    return False
                caller = site.calling()
                if site.caller is not None and site.call is not None:
                    got = argument_origin(site.call.args[at], site.caller, self.source)
                else:
                    assert site.record is not None
                    got = site.record.args[at]
                if got is None or (
                    got.kind == "global"
                    and origins_overlap(got, Origin("global", "", root))
                ):
                    return False
                if got.kind == "field" and not self._only_blocks(got):
                    return False
                if got.kind == "param" and not self.off_global(
                    caller, got.path, root, depth + 1
                ):
                    return False
                if depth == 0:
                    self.sites.append(site.where)
        finally:
            self.visiting.discard(key)
        return True

    def _apart(
        self, caller: Function, one: str, two: str, depth: int, call: Call | None
    ) -> bool:
        a = argument_origin(one, caller, self.source)
        b = argument_origin(two, caller, self.source)
        if (a is None or b is None) and call is not None:
            return self._rotated(
                caller, strip_argument(one), strip_argument(two), depth, call
            )
        return self._origins_apart(callee_of(caller), a, b, depth)

    def _rotated(
        self, caller: Function, one: str, two: str, depth: int, call: Call
    ) -> bool:
        """Two locals the caller swaps in turn (`t = a; a = b; b = t;`), apart."""
        at = call.span.start_byte
        a, b = local_in_scope(one, caller, at), local_in_scope(two, caller, at)
        if a is None or b is None or a is b:
            return False
        held = swapped(a, b, caller, self.source, call.span)
        if held == (ALLOCATION, ALLOCATION):
            return True
        return held is not None and self.distinct(callee_of(caller), *held, depth + 1)


def distinct_at_call_sites(
    fn: Function,
    first: str,
    second: str,
    source: SourceFile,
    program: ProgramCalls | None = None,
    fields: FieldSets | None = None,
) -> tuple[str, ...] | None:
    """The call sites that show two pointer parameters never overlap, else None.

    With the `program`'s calls, an external function's calls in every file count
    (see `remote_calls` for when they are all known); a site of another file is
    named `file.c:42`, one of this file `line 42`. With the program's `fields`,
    pointer fields passed (`w.p`) count by the objects their stores hold.
    """
    if reassigned(first, fn) or reassigned(second, fn):
        return None  # `dst = src + 1;`: no longer what the callers passed
    prover = _Prover(source, program, fields)
    if not prover.distinct(callee_of(fn), first, second, 0):
        return None
    return tuple(prover.sites)


def apart_from_global_at_call_sites(
    fn: Function,
    param: str,
    root: str,
    source: SourceFile,
    program: ProgramCalls | None = None,
    fields: FieldSets | None = None,
) -> tuple[str, ...] | None:
    """The call sites that show a pointer parameter never points into a global."""
    prover = _Prover(source, program, fields)
    if not prover.off_global(callee_of(fn), param, root, 0):
        return None
    return tuple(prover.sites)


def same_or_apart_at_call_sites(
    fn: Function, first: str, second: str, source: SourceFile
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The calls passing two pointer parameters one plain name, and the others.

    Every call of `fn` must either pass the same variable to both (`f(u, u)`:
    one pointer value, so the two alias exactly, at offset 0) or objects shown
    apart (`f(v, u)`); any other call (`f(u + 1, u)`, unknown origins) gives None.
    Returns the lines of the calls passing one name, then those of the others.
    """
    prover = _Prover(source)
    names = [p.name for p in fn.params]
    calls = _own_sites(prover, fn)
    if first not in names or second not in names or first == second or not calls:
        return None
    at = (names.index(first), names.index(second))
    same: list[str] = []
    apart: list[str] = []
    for caller, call in calls:
        if max(at) >= len(call.args):
            return None
        one = strip_argument(call.args[at[0]])
        two = strip_argument(call.args[at[1]])
        if one == two and _NAME.fullmatch(one) and _variable(one, caller, source):
            same.append(f"line {call.span.line}")
        elif prover._apart(caller, one, two, 0, call):
            apart.append(f"line {call.span.line}")
        else:
            return None
    return tuple(same), tuple(apart)


def _own_sites(prover: _Prover, fn: Function) -> list[tuple[Function, Call]]:
    """The calls of `fn` in the file, when it holds them all (a static `fn`)."""
    found = prover.only_called(callee_of(fn)) if fn.static else None
    return [(s.caller, s.call) for s in found or () if s.caller and s.call]


def _variable(name: str, caller: Function, source: SourceFile) -> bool:
    """A variable of the caller or a global: the same text is the same value."""
    return caller.lookup(name) is not None or any(
        g.name == name for g in source.globals
    )


def sealed_at_call_sites(
    fn: Function, param: str, source: SourceFile
) -> tuple[str, ...] | None:
    """The calls of `fn`, when each passes `param` a block no pointer in memory reaches.

    Each call must pass a local of its caller that holds only fresh blocks
    (`double *y = malloc(..)`) whose value never leaves the caller's locals: it
    is never stored in memory, returned, or passed to a call that may keep it
    (the front end's `leaves`), and its address is never taken.
    """
    prover = _Prover(source)
    names = [p.name for p in fn.params]
    calls = _own_sites(prover, fn)
    if param not in names or not calls:
        return None
    at = names.index(param)
    sites: list[str] = []
    for caller, call in calls:
        if at >= len(call.args):
            return None
        got = argument_origin(call.args[at], caller, source)
        var = caller.lookup(got.path) if got is not None else None
        if got is None or got.kind != "fresh" or var is None:
            return None
        if var.device or not _sealed(var, caller):
            return None
        sites.append(f"line {call.span.line}")
    return tuple(sites)


def _sealed(var: Var, caller: Function) -> bool:
    """No local copy of `var`'s value (`q = var + 1`, and copies of those) escapes."""
    held = {var.name}
    locals_ = [v for v in caller.locals if v.pointers or v.dims]
    grew = True
    while grew:
        grew = False
        for other in locals_:
            if other.name not in held and set(other.sources) & held:
                held.add(other.name)
                grew = True
    return not any(
        v.leaves or v.address_taken for v in (var, *locals_) if v.name in held
    )
