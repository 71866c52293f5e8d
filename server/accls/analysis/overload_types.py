"""C++ overloads a file declares but does not define: `f(int *);` beside `f(double *)`.

A call of `f` resolved to the file's one definition may run another overload,
one a prototype declares (defined in another file) or a project header
defines, when that overload takes as many arguments and other parameter
types: its effects are not the definition's (one writes its argument, the
other does not). Such a call has no summary. Parameter lists are compared as
type texts without names and defaults; two lists that read differently count
as two overloads, which refuses at worst a call that was safe.
"""

from __future__ import annotations

import re

from accls.analysis.argument_types import ArgType, argument_type, binds
from accls.frontend import Call, Function, Loop, SourceFile
from accls.frontend.cpp_files import is_cpp

__all__ = ["other_overload", "parameter_types", "typed_definition", "unseen_overload"]

_WORD = re.compile(r"[A-Za-z_]\w*")
# Words that are part of a type, never a parameter's name.
_TYPE_WORDS = frozenset(
    {
        "bool",
        "char",
        "const",
        "double",
        "float",
        "int",
        "long",
        "restrict",
        "__restrict",
        "__restrict__",
        "short",
        "signed",
        "struct",
        "unsigned",
        "void",
        "volatile",
    }
)


def _split(params: str) -> list[str]:
    """Top-level comma-separated pieces of a parameter list."""
    out, depth, current = [], 0, ""
    for char in params:
        depth += {"(": 1, "<": 1, "[": 1, ")": -1, ">": -1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += char
    out.append(current)
    return [p for p in out if p.strip()]


def _type_text(param: str) -> str:
    """`const double *x = 0` -> `constdouble*`: the type, no name, no default."""
    text = param.split("=", 1)[0]
    text = re.sub(r"\[[^\]]*\]", "*", text)  # `double a[]` is `double *a`
    text = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", text)
    words = list(_WORD.finditer(text))
    if len(words) >= 2 and words[-1].group() not in _TYPE_WORDS:
        # `T name` or `T *name`: the last word names the parameter unless
        # only symbols follow a lone type word (`T *`).
        last = words[-1]
        text = text[: last.start()] + text[last.end() :]
    text = re.sub(r"\b(restrict|__restrict__|__restrict)\b", "", text)
    return "".join(text.split())


def parameter_types(params: str) -> tuple[str, ...]:
    """The type texts of a parameter list's text (without its parentheses)."""
    pieces = [_type_text(p) for p in _split(params)]
    return () if pieces == ["void"] else tuple(pieces)


def _definition_params(fn: Function, source: SourceFile) -> str | None:
    """The text of a definition's parameter list, from its text up to the body."""
    head = source.data[fn.span.start_byte : fn.span.end_byte].decode(
        "utf-8", errors="replace"
    )
    head = head.split("{", 1)[0]
    plain = re.escape(fn.name.rsplit("::", 1)[-1])
    found = re.search(rf"\b{plain}\s*\((.*)\)", head, re.DOTALL)
    return found.group(1) if found else None


def _definition_types(fn: Function, source: SourceFile) -> tuple[str, ...] | None:
    """The parameter types of a definition, from its text up to the body."""
    params = _definition_params(fn, source)
    return parameter_types(params) if params is not None else None


def _exact(fn: Function, types: list[ArgType], source: SourceFile) -> bool | None:
    """Whether `fn` takes these arguments without a conversion.

    None when it may take them otherwise, which is not compared here: through
    a default argument or `...`.
    """
    params = _definition_params(fn, source)
    if params is None:
        return None
    declared = parameter_types(params)
    if "..." in declared or ("=" in params and len(declared) > len(types)):
        return None
    if len(declared) != len(types):
        return False  # too few parameters, or too many without defaults
    return all(binds(p, a) for p, a in zip(declared, types, strict=True))


def _declared(name: str, text: str) -> list[tuple[tuple[str, ...], int, str]]:
    """`name(..);` declarations (not calls) of a text: their types and text."""
    plain = re.escape(name.rsplit("::", 1)[-1])
    out = []
    pattern = re.compile(
        rf"\b{plain}\s*\(([^;{{}}()]*(?:\([^;{{}}()]*\))*[^;{{}}()]*)\)"
    )
    for match in pattern.finditer(text):
        tail = text[match.end() : match.end() + 40].lstrip()
        if not re.match(r"(const\s*)?(noexcept\s*)?(override\s*)?;", tail):
            continue
        start = max(text.rfind(ch, 0, match.start()) for ch in ";{}:\n") + 1
        head = text[start : match.start()]
        if (
            not _WORD.search(head)
            or re.search(r"[=(,]|\b(return|else|do|throw)\b", head)
            or head.rstrip().endswith((".", "->"))
        ):
            continue  # a call `f(x);`, `y = f(x);` or `o.f(x);`: no declaration
        params = match.group(1)
        required = sum(1 for p in _split(params) if "=" not in p)
        types = parameter_types(params)
        out.append((types, min(required, len(types)), match.group().strip()))
    return out


def unseen_overload(fn: Function, count: int | None, source: SourceFile) -> str | None:
    """A declaration of `fn`'s name with other parameter types that a call may run.

    None in C, or when every declaration of the name that takes `count`
    arguments lists the parameter types of one of the file's definitions.
    """
    if not (is_cpp(source.path) or "::" in fn.name or fn.in_class):
        return None
    defined = {
        _definition_types(f, source) for f in source.functions if f.name == fn.name
    }
    texts = [source.code]
    if source.headers is not None:
        texts.append(source.headers.code)
        defined_there = [f for f in source.headers.functions if f.name == fn.name]
        for other in defined_there:
            found = _definition_types(other, source.headers)
            if found is not None and found not in defined:
                return f"one `{fn.name}` of a header"
    # A method's call passes its object first, a static one's does not.
    this = (0, 1) if "::" in fn.name else (0,)
    for text in texts:
        for types, required, shown in _declared(fn.name, text):
            if types in defined:
                continue
            if count is None or any(required <= count - k <= len(types) for k in this):
                return f"`{shown}`"
    return None


def other_overload(fn: Function, count: int, source: SourceFile) -> str:
    """Why a call of the file's one definition `fn` may run another overload."""
    unseen = unseen_overload(fn, count, source)
    if unseen is not None:
        return (
            f"which may run another overload, {unseen}, with other parameter "
            f"types than its definition here (line {fn.span.line}): which one "
            "runs is unknown"
        )
    return (
        f"whose definition here (line {fn.span.line}) does not take that many "
        "arguments: another overload runs, which the analysis does not see"
    )


def typed_definition(call: Call, loop: Loop, source: SourceFile) -> Function | None:
    """The one definition of `call.name` whose parameter types are its arguments'.

    For same-count overloads of a free C++ function (`f(int *)`, `f(double *)`)
    whose arguments' types are known (variables, their elements and members,
    literals): the definition that takes each argument without a conversion
    runs (an exact match beats any conversion). None when the types are not
    all known, or when none or several match (#if branches of one signature):
    no pick.
    """
    found = [f for f in source.functions if f.name == call.name]
    host = source.function(loop.function)
    if len(found) < 2 or "::" in call.name or host is None:
        return None
    if not is_cpp(source.path):
        return None
    types: list[ArgType] = []
    for arg in call.args:
        one = argument_type(arg, host, loop, source)
        if one is None:
            return None
        types.append(one)
    verdicts = [_exact(f, types, source) for f in found]
    if None in verdicts:
        return None
    exact = [f for f, ok in zip(found, verdicts, strict=True) if ok]
    return exact[0] if len(exact) == 1 else None
