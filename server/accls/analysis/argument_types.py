"""The type of a C++ call's argument, read from its text, for picking an overload.

`f(a[i])`, `f(s.x)`, `f(p->v[k])`, `f(2.0)`, `f(&r)`: the declared type of the
variable the argument starts from, followed through subscripts, members and
`&`/`*`, or the type of a literal (`2.0` a double, `2.0f` a float, `2` an int).
Anything else (a call, arithmetic, a cast, a class with its own operators) has
no type here, and the call is not resolved by types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["ArgType", "argument_type", "binds"]

_INT = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|[0-9]+)([uUlL]*)")
_FLOAT = re.compile(
    r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))([eE][+-]?[0-9]+)?([fFlL]?)"
)
_INT_SUFFIX = {
    "": "int",
    "u": "unsignedint",
    "l": "long",
    "ul": "unsignedlong",
    "lu": "unsignedlong",
    "ll": "longlong",
    "ull": "unsignedlonglong",
    "llu": "unsignedlonglong",
}
_FLOAT_SUFFIX = {"": "double", "f": "float", "l": "longdouble"}
_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class ArgType:
    """An argument's type text (`double*`, no `const`), and what it can bind to."""

    text: str
    lvalue: bool = False  # a named object: a `T &` parameter may bind to it
    const: bool = False  # its declaration says `const`: a `T &` may not


def _literal(arg: str) -> ArgType | None:
    """The type of a number, character or `true`/`false` literal."""
    if arg in ("true", "false"):
        return ArgType("bool")
    if len(arg) >= 3 and arg[0] == arg[-1] == "'":
        return ArgType("char")
    found = _FLOAT.fullmatch(arg)
    if found is not None:
        return ArgType(_FLOAT_SUFFIX[found.group(3).lower()])
    found = _INT.fullmatch(arg)
    if found is not None:
        kind = _INT_SUFFIX.get(found.group(2).lower())
        return ArgType(kind) if kind is not None else None
    return None


def _steps(path: str) -> list[str] | None:
    """`a[i].x->y` -> ["[", ".x", "->y"]: the postfix steps after the first name."""
    out: list[str] = []
    pos = 0
    while pos < len(path):
        if path[pos] == "[":
            depth = 0
            for end in range(pos, len(path)):
                depth += {"[": 1, "]": -1}.get(path[end], 0)
                if depth == 0:
                    break
            else:
                return None
            out.append("[")
            pos = end + 1
            continue
        arrow = path.startswith("->", pos)
        if not (arrow or path[pos] == "."):
            return None
        start = pos + (2 if arrow else 1)
        name = _NAME.match(path, start)
        if name is None:
            return None
        out.append(("->" if arrow else ".") + name.group())
        pos = name.end()
    return out


def _levels(var: Var) -> int | None:
    """How many `*` and `[]` levels its declarator has; None if not all written.

    The C++ front end reads a reference (`double &r`) and a container
    (`std::vector<double> v`) as one more pointer level than the declarator
    writes: their type is not that pointer's, and is not told here.
    """
    stars, rows = var.levels.count("*"), var.levels.count("[")
    if var.container or stars != var.pointers or rows != len(var.dims):
        return None
    return stars + rows


def _field(base: str, stars: int, step: str, source: SourceFile) -> Var | None:
    """The member a `.x` or `->x` step reaches of an object of type `base`."""
    arrow = step.startswith("->")
    if stars != (1 if arrow else 0):
        return None
    fields = source.types.fields_of(base)
    return fields.get(step.lstrip(".->")) if fields is not None else None


def argument_type(
    arg: str, host: Function, loop: Loop, source: SourceFile
) -> ArgType | None:
    """The type of the argument text `arg` of a call in `loop`, if it can be told."""
    arg = "".join(arg.split())
    literal = _literal(arg)
    if literal is not None:
        return literal
    prefix = arg[0] if arg[:1] in ("&", "*") else ""
    name = _NAME.match(arg, len(prefix))
    if name is None:
        return None
    root = name.group()
    var = next((v for v in loop.locals if v.name == root), None) or host.lookup(root)
    if var is None or not var.type or host.declarations(root) > 1:
        return None
    steps = _steps(arg[name.end() :])
    if steps is None:
        return None
    levels = _levels(var)
    if levels is None:
        return None
    base, stars, const = var.type, levels, var.const
    for step in steps:
        if step == "[":
            if stars == 0:
                return None  # a class's operator[]: not followed
            stars -= 1
            continue
        member = _field(base, stars, step, source)
        levels = _levels(member) if member is not None else None
        if member is None or not member.type or levels is None:
            return None
        base, stars = member.type, levels
        const = const or member.const
    if prefix == "*":
        if stars == 0:
            return None
        stars -= 1
    text = "".join(base.replace("const", "").split()) + "*" * stars
    if prefix == "&":
        return ArgType(text + "*")
    return ArgType(text, lvalue=True, const=const)


def binds(param: str, arg: ArgType) -> bool:
    """Whether the parameter type text `param` takes `arg` without a conversion.

    `double`, `const double &` and (for a non-const named object) `double &`
    take a double exactly; an rvalue reference is never matched here.
    """
    if param.endswith("&&"):
        return False
    ref = param.endswith("&")
    core = param.removesuffix("&").replace("const", "")
    if core != arg.text:
        return False
    return not ref or "const" in param or (arg.lvalue and not arg.const)
