"""Whether every call of a function passes non-overlapping objects to two pointers.

`static void relax(double *dst, const double *src, int n)` may be called with
the same buffer twice; nothing in its body says otherwise. But when the file
holds every call of it (it is `static` and its address is never taken) and each
call passes distinct objects (two arrays, two `malloc` blocks, a parameter and
a local array of the caller), `dst` and `src` never overlap. This module proves
that, following parameters up through callers that are themselves static.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.field_paths import balanced
from accls.analysis.pointer_rotations import ALLOCATION, local_in_scope, swapped
from accls.frontend import Call, Function, SourceFile, Var

__all__ = [
    "apart_from_global_at_call_sites",
    "distinct_at_call_sites",
    "same_or_apart_at_call_sites",
    "sealed_at_call_sites",
]

_CAST = re.compile(r"^\(\s*(?:const\s+)?[A-Za-z_][\w\s]*\**\s*\)\s*")
_PATH = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*")
_OFFSET = re.compile(r"^([A-Za-z_]\w*)\s*[-+]")
_NAME = re.compile(r"[A-Za-z_]\w*")
_DEPTH = 4  # callers followed upwards before giving up


@dataclass(frozen=True, slots=True)
class _Origin:
    """What an argument points into: `kind` is param, local, fresh or global."""

    kind: str
    function: str  # the caller, for locals, fresh blocks and parameters
    path: str  # `a`, or `s.a` for an array field of a struct object
    union: bool = False


def _strip(arg: str) -> str:
    text = arg.strip()
    while True:
        if text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
            text = text[1:-1].strip()
            continue
        cast = _CAST.match(text)
        if cast is None or cast.end() == len(text):
            return text
        text = text[cast.end() :].strip()


def _origin(arg: str, caller: Function, source: SourceFile) -> _Origin | None:
    """The object an argument's pointer value lies in, when the text shows it."""
    text = _strip(arg)
    address = text.startswith("&")
    indexed = False
    if address:
        text = text[1:].strip()
        indexed = "[" in text
        text = text.split("[", 1)[0].strip()  # `&a[k]`: into the object `a`
        if indexed:
            # `&p[k]` of a pointer `p` is `p + k`: into what `p` points to.
            address = False
    else:
        offset = _OFFSET.match(text)
        if offset is not None:
            text = offset.group(1)  # `a + k`: into the object `a`
    path = _PATH.fullmatch(text)
    if path is None:
        return None
    path_text = re.sub(r"\s+", "", text)
    root = path_text.split(".", 1)[0]
    var = caller.lookup(root)
    if var is None:
        var = next((g for g in source.globals if g.name == root), None)
    if var is None:
        return None
    union = source.types.is_union(var.type)
    object_ = address or var.shape.startswith("[") or "." in path_text
    if object_ and var.scope != "param":
        if "." in path_text and not (address or var.shape == ""):
            return None  # `p.f` of an array or pointer: not a plain object
        pointer_field = not address and not _array_field(var, path_text, source)
        if "." in path_text and pointer_field:
            return None  # `s.p` of a pointer field: it may point anywhere
        kind = "local" if var.scope == "local" and not var.static else "global"
        return _Origin(kind, caller.name, path_text, union)
    if address or "." in path_text or var.shape != "*":
        return None
    if var.scope == "param":
        return _Origin("param", caller.name, root)
    if var.scope == "local" and var.fresh and not var.address_taken:
        return _Origin("fresh", caller.name, root)
    return None


def _array_field(var: Var, path: str, source: SourceFile) -> bool:
    """True when `s.f.g` names an array field reached through plain struct fields."""
    type_, shape = var.type, var.shape
    for name in path.split(".")[1:]:
        if shape != "":
            return False  # through an array or a pointer: not one object
        fields = source.types.fields_of(type_)
        field = None if fields is None else fields.get(name)
        if field is None:
            return False
        type_, shape = field.type, field.shape
    return shape.startswith("[")


def _overlap(a: _Origin, b: _Origin) -> bool:
    """Two objects named by paths overlap unless they are distinct fields."""
    if a.kind != b.kind or (a.function != b.function and a.kind != "global"):
        return False
    left, right = a.path.split("."), b.path.split(".")
    size = min(len(left), len(right))
    if left[0] != right[0]:
        return False
    return a.union or left[:size] == right[:size]


class _Prover:
    """Follows call sites upwards; remembers the pairs being proved (recursion)."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.visiting: set[tuple[str, str, str]] = set()
        self.sites: list[str] = []

    def only_called(self, fn: Function) -> list[tuple[Function, Call]] | None:
        """Every call of `fn`, when the file provably holds them all."""
        if not fn.static:
            return None
        name = re.escape(fn.name)
        for match in re.finditer(rf"\b{name}\b", self.source.code):
            start = self.source.code.rfind("\n", 0, match.start()) + 1
            if self.source.code[start : match.start()].lstrip().startswith("#"):
                return None  # a macro may call it with anything
            if not re.match(r"\s*\(", self.source.code[match.end() :]):
                return None  # its address is taken: unknown callers
        calls = [
            (caller, call)
            for caller in self.source.functions
            for call in caller.call_sites
            if call.name == fn.name
        ]
        return calls or None

    def distinct(self, fn: Function, first: str, second: str, depth: int) -> bool:
        low, high = sorted((first, second))
        key = (fn.name, low, high)
        if key in self.visiting:
            return True  # a recursive call passes them along: decided elsewhere
        if depth > _DEPTH:
            return False
        names = [p.name for p in fn.params]
        if first not in names or second not in names:
            return False
        calls = self.only_called(fn)
        if calls is None:
            return False
        at = (names.index(first), names.index(second))
        self.visiting.add(key)
        try:
            for caller, call in calls:
                if max(at) >= len(call.args):
                    return False
                one, two = call.args[at[0]], call.args[at[1]]
                if not self._apart(caller, one, two, depth, call):
                    return False
                if depth == 0:
                    self.sites.append(f"line {call.span.line}")
        finally:
            self.visiting.discard(key)
        return True

    def off_global(self, fn: Function, param: str, root: str, depth: int) -> bool:
        """Whether no call passes `param` a pointer into the global object `root`."""
        key = (fn.name, param, f"global {root}")
        if key in self.visiting:
            return True  # a recursive call passes it along: decided elsewhere
        names = [p.name for p in fn.params]
        calls = self.only_called(fn) if depth <= _DEPTH else None
        if param not in names or calls is None:
            return False
        at = names.index(param)
        self.visiting.add(key)
        try:
            for caller, call in calls:
                if at >= len(call.args):
                    return False
                got = _origin(call.args[at], caller, self.source)
                if got is None or (
                    got.kind == "global" and _overlap(got, _Origin("global", "", root))
                ):
                    return False
                if got.kind == "param" and not self.off_global(
                    caller, got.path, root, depth + 1
                ):
                    return False
                if depth == 0:
                    self.sites.append(f"line {call.span.line}")
        finally:
            self.visiting.discard(key)
        return True

    def _apart(
        self, caller: Function, one: str, two: str, depth: int, call: Call | None
    ) -> bool:
        a, b = _origin(one, caller, self.source), _origin(two, caller, self.source)
        if (a is None or b is None) and call is not None:
            return self._rotated(caller, _strip(one), _strip(two), depth, call)
        if a is None or b is None:
            return False
        if a.kind == "param" and b.kind == "param":
            if a.path == b.path:
                return False
            return self.distinct(caller, a.path, b.path, depth + 1)
        if "param" in (a.kind, b.kind):
            # A parameter's value was set before the caller ran: it cannot point
            # into the caller's own arrays or blocks it allocated, but it may
            # point into a global.
            other = b if a.kind == "param" else a
            return other.kind in ("local", "fresh")
        return not _overlap(a, b)

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
        return held is not None and self.distinct(caller, *held, depth + 1)


def distinct_at_call_sites(
    fn: Function, first: str, second: str, source: SourceFile
) -> tuple[str, ...] | None:
    """The call sites that show two pointer parameters never overlap, else None."""
    prover = _Prover(source)
    if not prover.distinct(fn, first, second, 0):
        return None
    return tuple(prover.sites)


def apart_from_global_at_call_sites(
    fn: Function, param: str, root: str, source: SourceFile
) -> tuple[str, ...] | None:
    """The call sites that show a pointer parameter never points into a global."""
    prover = _Prover(source)
    if not prover.off_global(fn, param, root, 0):
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
    calls = prover.only_called(fn)
    if first not in names or second not in names or first == second or not calls:
        return None
    at = (names.index(first), names.index(second))
    same: list[str] = []
    apart: list[str] = []
    for caller, call in calls:
        if max(at) >= len(call.args):
            return None
        one, two = _strip(call.args[at[0]]), _strip(call.args[at[1]])
        if one == two and _NAME.fullmatch(one) and _variable(one, caller, source):
            same.append(f"line {call.span.line}")
        elif prover._apart(caller, one, two, 0, call):
            apart.append(f"line {call.span.line}")
        else:
            return None
    return tuple(same), tuple(apart)


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
    calls = prover.only_called(fn)
    if param not in names or not calls:
        return None
    at = names.index(param)
    sites: list[str] = []
    for caller, call in calls:
        if at >= len(call.args):
            return None
        got = _origin(call.args[at], caller, source)
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
