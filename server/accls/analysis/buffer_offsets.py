"""Pointers into one buffer at offsets: apart only when the accessed ranges are.

PRK's Nstream carves one allocation: `b = a + length + offset`, `c = b + ...`.
In `for (j = 0; j < length; j++) a[j] += b[j]` the ranges `a[0:length]` and
`b[0:length]` are disjoint exactly when `offset >= 0`, which the program checks
before (`if (offset < 0) exit(1);`). Two pointers reduced to one root plus an
affine offset are proved apart, with isl, from the loop bounds and such guards;
when nothing proves it, the reason says what would.
"""

from __future__ import annotations

import re

from accls.analysis.field_inits import field_initializer
from accls.analysis.field_pointers import field_pointer
from accls.analysis.fresh_roots import fresh_root, unreached
from accls.analysis.offset_symbols import moved_unseen
from accls.analysis.product_inequalities import proves_nonnegative_products
from accls.analysis.subscript_ranges import access_range
from accls.frontend import Function, Loop, Poly, Ref, SourceFile, Var
from accls.frontend.exprs import expression_poly

__all__ = ["buffer_apart", "root_offset", "same_offset"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_LINK = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")  # `b`, or the field `v.b`
_ASSIGN = re.compile(rb"\s*=\s*([^;{}]*);")
# `if (x < 0) { ...; exit(..); }` with no nested braces: afterwards `x >= 0`.
_GUARD = re.compile(
    r"\bif\s*\(\s*([A-Za-z_]\w*)\s*(<|<=)\s*([A-Za-z_]\w*|\d+)\s*\)\s*"
    r"(?:\{[^{}]*?\b(?:exit|abort)\s*\([^{}]*\}|(?:exit|abort)\s*\([^;]*;)"
)
_ONE = Poly.const(1)
# `root + offset` where the offset is arithmetic on names and numbers only (no
# call, no subscript, no assignment): a division there is no polynomial.
_OPAQUE_OFFSET = re.compile(r"([A-Za-z_]\w*)\s*\+\s*([\w\s+\-*/%()]+)")
_DEPTH = 8  # pointer chains longer than this are not followed


def _writes(fn: Function, name: str) -> list[Ref]:
    return [
        r
        for r in fn.refs
        if r.name == name and r.is_write and not r.subscripts and not r.deref
    ]


def _global(name: str, source: SourceFile) -> Var | None:
    return next((g for g in source.globals if g.name == name), None)


def _pointer(name: str, fn: Function, source: SourceFile) -> Var | None:
    """A local pointer, or a `static` global pointer only `fn` assigns.

    No other file can reach a `static` global; in this one, no other function
    assigns it and its address is never taken.
    """
    local = fn.lookup(name)
    if local is not None:
        return local
    if "." in name:
        return field_pointer(name, fn, source)
    found = _global(name, source)
    if found is None or not found.static:
        return None
    if any(_writes(other, name) for other in source.functions if other is not fn):
        return None
    if re.search(rf"&\s*{re.escape(name)}\b", source.code):
        return None
    return found


def _field(name: str, fn: Function, source: SourceFile) -> Var | None:
    return field_pointer(name, fn, source) if "." in name else None


def _value(ref: Ref, source: SourceFile, opaque: bool) -> Poly | None:
    """The value assigned by the write `ref` (`b = a + k`), as a polynomial.

    With `opaque`, an offset that is no polynomial (`a + n / 2`) is one symbol.
    """
    found = _ASSIGN.match(source.data, ref.span.end_byte)
    if found is None:
        return None
    return _parsed(_first_operand(found.group(1).decode("utf-8", "replace")), opaque)


def _parsed(text: str, opaque: bool) -> Poly | None:
    """An assigned value's text as a polynomial (`opaque`: see `_value`)."""
    poly = expression_poly(text)
    if poly is not None or not opaque:
        return poly
    # `p = buf + n / 2`: the offset as one symbol, spelled as a loop bound
    # `i < n / 2` spells it, so the two compare (an opaque bound is `(text)`).
    split = _OPAQUE_OFFSET.fullmatch(text.strip())
    if split is None or re.search(r"\+\+|--|\w\s*\(", split.group(2)):
        return None  # a side effect, or a call whose value may change
    return Poly.sym(split.group(1)) + Poly.sym(f"({split.group(2).strip()})")


def _first_operand(text: str) -> str:
    """The text up to its first comma outside brackets.

    `double *lo = pool, *hi = pool + n;` assigns `lo` the value `pool`: the
    comma ends the declarator (or, in a statement, the comma operator's left
    operand, which is the whole assignment).
    """
    depth = 0
    for k, ch in enumerate(text):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            return text[:k]
    return text


def root_offset(
    name: str, fn: Function, source: SourceFile, pos: int, *, opaque: bool = False
) -> tuple[str, Poly, list[int]] | None:
    """`name` as a root pointer plus an offset, and where the chain assigns.

    Each pointer of the chain is assigned once, before `pos` (or is a
    parameter never assigned), never has its address taken, and has the
    element type of `name`; the root's one value may come from anywhere.
    """
    decl = _pointer(name, fn, source)
    if decl is None or decl.pointers != 1 or decl.dims or decl.address_taken:
        return None
    offset, at = Poly.const(0), list[int]()
    current = name
    later = pos  # each link is set before the pointer it feeds
    for _ in range(_DEPTH):
        var = _pointer(current, fn, source)
        if var is None or var.address_taken or var.type != decl.type:
            return None
        writes = _writes(fn, current)
        if var.scope == "param" and not writes:
            return current, offset, at
        init = field_initializer(current, fn, source) if "." in current else None
        if init is not None and writes:
            return None  # set by the initializer and again: which value is unknown
        if init is not None and init[1] < later:
            later = init[1]  # `struct v s = {buf, buf + n};`: set where declared
            value = _parsed(init[0], opaque)
            at.append(init[1])
        elif len(writes) != 1 or writes[0].span.start_byte >= later:
            return None
        else:
            later = writes[0].span.start_byte
            value = _value(writes[0], source, opaque)
            at.append(writes[0].span.end_byte)
        pointers = [
            n
            for n in (value.names() if value is not None else ())
            if (v := fn.lookup(n) or _global(n, source) or _field(n, fn, source))
            is not None
            and v.pointers
            and not v.dims
        ]
        if value is None or not pointers:
            # An allocation, a call, a load: one value, the root of the chain.
            return current, offset, at
        if len(pointers) != 1 or not _plus_offset(value, pointers[0]):
            return None
        offset = offset + value - Poly.sym(pointers[0])
        current = pointers[0]
    return None


def _plus_offset(value: Poly, pointer: str) -> bool:
    """Whether `value` is `pointer` plus terms without it (`A + n*n`)."""
    return (
        all(
            mono == (pointer,) and coeff == 1
            for mono, coeff in value.terms
            if pointer in mono
        )
        and value.coeff(pointer) == 1
    )


def _running(loop: Loop, a: Ref, b: Ref) -> list[Poly]:
    """What holds when `a` and `b` both run: each loop around either runs."""
    around = set(a.loops) | set(b.loops) | {loop.id}
    facts: list[Poly] = []
    for inner in loop.walk():
        if inner.id not in around or inner.cond_op not in ("<", "<="):
            continue
        if inner.lower is not None and inner.upper is not None:
            gap = inner.upper - inner.lower
            facts.append(gap - _ONE if inner.cond_op == "<" else gap)
    return facts


def _guards(loop: Loop, fn: Function, source: SourceFile) -> list[Poly]:
    """What holds when the nest runs: the guards before it passed."""
    facts: list[Poly] = []
    start = fn.span.start_byte
    text = source.code[start : loop.span.start_byte]
    for found in _GUARD.finditer(text):
        left, op, right = found.groups()
        early, late = start + found.start(), start + found.end()
        head = text[: found.start()]
        if head.count("{") - head.count("}") != 1 or head.rstrip()[-1:] not in ";{}":
            continue  # inside a branch: it does not hold on every path to the loop
        if not any(
            r.name == left and early <= r.span.start_byte < late for r in fn.refs
        ):
            continue  # in an #if branch the build skips
        changed = [
            r
            for r in fn.refs
            if r.name in (left, right) and r.is_write and r.span.start_byte > late
        ]
        if changed:
            continue
        rhs = Poly.const(int(right)) if right.isdigit() else Poly.sym(right)
        fact = Poly.sym(left) - rhs  # not (left < right): left - right >= 0
        facts.append(fact if op == "<" else fact - _ONE)
    return facts


def _unranged(ref: Ref, names: tuple[str, str], root: str) -> str:
    """Why two pointers into one buffer are not proved apart: a range is unknown."""
    written, other = names
    subs = "".join(f"[{s.text}]" for s in ref.subscripts)
    place = f"`{ref.name}{subs}` (line {ref.span.line})"
    why = (
        "its index reads another array, so the range it accesses is not known"
        if any(s.indirect for s in ref.subscripts)
        else "the range it accesses over the loop is not known"
    )
    return (
        f"`{written}` and `{other}` point into one buffer (`{root}`): for "
        f"{place} {why}, and the two are not proved apart"
    )


def buffer_apart(
    written: str, other: str, loop: Loop, fn: Function | None, source: SourceFile
) -> tuple[bool, str] | None:
    """Whether two pointers into one buffer access disjoint ranges, and why.

    None when they are not pointers of one buffer at affine offsets.
    """
    if fn is None or not (_LINK.fullmatch(written) and _LINK.fullmatch(other)):
        return None
    at = loop.span.start_byte
    left = root_offset(written, fn, source, at, opaque=True)
    right = root_offset(other, fn, source, at, opaque=True)
    for one, two, name in ((left, other, written), (right, written, other)):
        block = fresh_root(one[0], fn) if one is not None and "." in name else None
        if block is not None and unreached(two, fn, source):
            return True, (
                f"`{name}` points into the block `{block}` allocated here, which "
                f"`{two}` cannot reach"
            )
    if left is None or right is None or left[0] != right[0]:
        return None
    # (an opaque offset `(n / 2)` holds the names inside it)
    symbols = {x for n in (left[1] + right[1]).names() for x in _NAME.findall(n)}
    # The offsets' variables hold still from the first assignment of the chains.
    late = min(left[2] + right[2], default=0)
    if any(
        r.is_write and r.name in symbols and r.span.start_byte > late for r in fn.refs
    ) or any(moved_unseen(n, late, fn, source) for n in symbols):
        return None  # an offset's variable changes after the pointers are set
    guards = _guards(loop, fn, source)
    needs: list[tuple[Poly, Poly]] = []
    for a in (r for r in loop.refs if r.name == written):
        for b in (r for r in loop.refs if r.name == other):
            facts = [*guards, *_running(loop, a, b)]
            ra, rb = access_range(a, loop, facts), access_range(b, loop, facts)
            if ra is None or rb is None:
                return False, _unranged(
                    a if ra is None else b, (written, other), left[0]
                )
            below = rb[0] + right[1] - ra[1] - left[1] - _ONE  # b's range above a's
            above = ra[0] + left[1] - rb[1] - right[1] - _ONE  # or below it
            if not (
                proves_nonnegative_products(below, facts)
                or proves_nonnegative_products(above, facts)
            ):
                needs.append((below, above))
    root = left[0]
    if not needs:
        return True, (
            f"`{written}` and `{other}` point into one buffer (`{root}`) at offsets "
            "whose accessed ranges are disjoint"
        )
    return False, (
        f"`{written}` and `{other}` point into one buffer (`{root}`): their accessed "
        f"ranges are disjoint only if `{needs[0][0].render()} >= 0` or "
        f"`{needs[0][1].render()} >= 0`, which nothing before the loop proves "
        "(a check that stops the program otherwise would)"
    )


def same_offset(
    one: str, two: str, loop: Loop, fn: Function | None, source: SourceFile
) -> bool:
    """Whether two pointers are one root pointer at one offset (`p = a;` and `a`)."""
    if fn is None or not (_NAME.fullmatch(one) and _NAME.fullmatch(two)):
        return False
    at = loop.span.start_byte
    left, right = root_offset(one, fn, source, at), root_offset(two, fn, source, at)
    if left is None or right is None or left[0] != right[0]:
        return False
    apart = left[1] - right[1]
    return apart.is_constant and apart.constant == 0
