"""Whether each element's pointer member reaches a block of its own (`bl[l].a`).

`struct blk { double *a; } bl[N]` is a row table whose rows are `bl[l].a`:
when every store to a member `a` of an element is an allocation
(`bl[l].a = malloc(..)`) and the pointers go nowhere else, two elements'
members never reach the same bytes, and `bl[l].a[k]` may be tested as
`bl.a[l][k]`. The proof reads every use of the array's name where the name
means it (the function for a local, the file for a `static` global): each must
be an element's member subscripted (`bl[l].a[k]`, not its address), a fresh
store to it, its `free`, another member of an element (not its address), or
the declaration. Anything else (`bl[3].a = bl[2].a`, `bl[l].a = buf + l`,
`g(bl)`, `bl[1] = bl[0]`, `p = &bl[0]`) leaves the fact unproved.
"""

from __future__ import annotations

import re

from accls.analysis.access_paths import Target
from accls.analysis.lent_arguments import lent
from accls.frontend import Function, SourceFile, Var

__all__ = ["member_rows_apart", "members_apart"]

# A loaded target's path, `bl.a` (or `bl[l].a`): an array's elements, one member.
_PATH = re.compile(r"^([A-Za-z_]\w*)((?:\[[^\[\]]*\])*)\.([A-Za-z_]\w*)$")

_ELEMENTS = r"(?:\s*\[[^\[\]]*\])+"
_ALLOCATORS = ("malloc", "calloc", "aligned_alloc")
_ADDRESS = r"(?<![&\w\])])\s*&(?!&)"  # `&x`, not `a && b` nor `a & b`
_CAST = r"(?:\(\s*[A-Za-z_][\w\s]*\*+\s*\)\s*)?"


def _scope(var: Var, fn: Function | None, source: SourceFile) -> str | None:
    """The text where `var`'s name means it: its function, or the file."""
    code = source.code
    if var.scope == "local" and fn is not None and not var.static:
        data = code.encode()
        return data[fn.span.start_byte : fn.span.end_byte].decode(errors="replace")
    # Another file may re-point a non-static global's members.
    return code if var.scope == "global" and var.static else None


def _declared(text: str, at: int, end: int, var: Var, elements: str) -> bool:
    """`struct blk bl[64];` (`struct field cur, deep;`): no initializer."""
    before = text[max(0, at - 80) : at]
    kind = re.escape(var.type.split()[-1])
    if not re.search(rf"\b{kind}\s+(?:[A-Za-z_]\w*{elements}\s*,\s*)*$", before):
        return False
    return re.match(rf"{elements}\s*[;,]", text[end:]) is not None


def _use_allowed(
    text: str, at: int, end: int, member: str, elements: str = _ELEMENTS
) -> bool:
    """Whether the use of the name spanning `at..end` keeps the members apart."""
    line = text[text.rfind("\n", 0, at) + 1 : at]
    if line.lstrip().startswith("#"):
        return False  # a macro's body: its uses are not seen as written here
    before = text[:at].rstrip()
    if before.endswith("&") and not before.endswith("&&"):
        return False  # `&bl[l]`, `&bl[l].a`, `&bl[l].a[k]`: an address escapes
    path = re.match(rf"({elements})\s*\.\s*([A-Za-z_]\w*)", text[end:])
    if path is None:
        return False  # the array whole, or an element whole
    rest = text[end + path.end() :]
    if path.group(2) != member:
        return True  # another member: bytes of its own
    if re.match(r"\s*\[", rest):
        return True  # `bl[l].a[k]`: a double read or written
    if re.match(rf"\s*=(?!=)\s*{_CAST}(?:{'|'.join(_ALLOCATORS)})\s*\(", rest):
        # A fresh store, as a statement of its own (not `q = bl[l].a = ..`).
        return before.endswith((";", "{", "}", ")")) or before.endswith("else")
    if bool(re.search(r"\bfree\s*\(\s*$", before)) and rest.lstrip()[:1] == ")":
        return True
    return re.match(r"\s*[,)]", rest) is not None and lent(before)


def _unseen_uses(text: str, source: SourceFile) -> bool:
    """Whether code not read here may use the name.

    A header included after the declaration (it may define code that uses
    the array), or a function-like macro that takes an address
    (`PTR(bl[2].a[0])`).
    """
    if re.search(r"^\s*#\s*include", text, re.MULTILINE):
        return True
    takers = [n for n, _, body in source.function_macros if re.search(_ADDRESS, body)]
    return any(re.search(rf"\b{re.escape(n)}\s*\(", text) for n in takers)


def members_apart(
    var: Var, member: str, fn: Function | None, source: SourceFile
) -> bool:
    """Whether every element of `var` holds in `member` a block of its own.

    A struct variable (`struct field deep`: no elements) counts as its one
    element: `deep.v` is then a block only `deep.v` reaches.
    """
    text = _scope(var, fn, source)
    if text is None or var.pointers:
        return False
    elements = _ELEMENTS if var.dims else ""
    fields = source.types.fields_of(var.type)
    decl = fields.get(member) if fields is not None else None
    if decl is None or decl.pointers != 1 or decl.dims or decl.unknown_shape:
        return False  # `double **a`: a row read from the block may be copied
    declarations, after = 0, len(text)
    for found in re.finditer(rf"(?<![\w.>]){re.escape(var.name)}(?!\w)", text):
        at, end = found.span()
        if _declared(text, at, end, var, elements):
            declarations, after = declarations + 1, at
        elif not _use_allowed(text, at, end, member, elements):
            return False
    return declarations == 1 and not _unseen_uses(text[after:], source)


def _member(target: Target) -> str:
    """`a` for a pointer read from memory at `bl[l].a`, else ""."""
    match = _PATH.match(target.path) if target.kind == "loaded" else None
    root = target.root
    return match.group(3) if match and root and match.group(1) == root.name else ""


def member_rows_apart(
    pairs: list[tuple[Target, Target]], fn: Function | None, source: SourceFile
) -> str | None:
    """Why each pair (an element's own block, `bl[l].a`, and another name) is apart."""
    shown: dict[str, str] = {}
    for a, b in pairs:
        one, other = (a, b) if _member(a) else (b, a)
        member, root = _member(one), one.root
        if not member or root is None or not members_apart(root, member, fn, source):
            return None
        if other.root is root and _member(other) == member:
            return None  # two elements' members: their subscripts decide
        shown[one.path] = (
            f"`{one.path}` is a block of its own: every `{root.name}[..].{member}` "
            "is set only from an allocation and reaches no other name"
        )
    return "; ".join(shown.values()) if shown else None
