"""Collect `#define`s from a file and the headers it can reach, for expansion."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "FunctionMacro",
    "MacroTable",
    "collect_macros",
    "constant_macro",
    "define_into",
    "expand_calls",
    "expand_objects",
    "mask_qualifier_macros",
]

_DEFINE = re.compile(
    r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\(([^)]*)\))?[ \t]*(.*?)[ \t]*$",
    re.MULTILINE,
)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.MULTILINE)
_SYSTEM_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<([^>]+)>", re.MULTILINE)
_MAX_HEADER_BYTES = 2_000_000
_MAX_HEADERS = 64


_PARENTHESISED = re.compile(r"\(\s*([A-Za-z_]\w*)\s*\)")


@dataclass(frozen=True, slots=True)
class FunctionMacro:
    """A function-like macro: parameter names and replacement text."""

    params: tuple[str, ...]
    body: str

    def expand(
        self, args: Sequence[str], variables: frozenset[str] = frozenset()
    ) -> str | None:
        """The replacement with `args` substituted; None on an arity mismatch.

        An argument that is one of `variables` loses the parentheses the body
        puts around its parameter: `(a)*(b)` with `dx`, `dy` would read as a
        cast of `*(dy)` to the type `dx`.
        """
        if len(args) != len(self.params):
            return None
        table = dict(zip(self.params, args, strict=True))
        body = self.body
        loose = {p for p, a in table.items() if a.strip() in variables}
        if loose:

            def bare(match: re.Match[str]) -> str:
                before = body[: match.start()].rstrip()[-1:]
                called = before.isalnum() or before in ("_", ")", "]")
                keep = match.group(1) not in loose or called
                return match.group(0) if keep else match.group(1)

            body = _PARENTHESISED.sub(bare, body)
        return re.sub(
            r"[A-Za-z_]\w*", lambda m: table.get(m.group(0), m.group(0)), body
        )


@dataclass(slots=True)
class MacroTable:
    """Object-like and function-like macros known for one file."""

    objects: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionMacro] = field(default_factory=dict)
    # Later bodies of an object-like macro defined again differently (`#undef
    # LEN` / `#define LEN 16`, or two `#if` arms): `objects` keeps the first.
    others: dict[str, list[str]] = field(default_factory=dict)

    def object_pairs(self) -> tuple[tuple[str, str], ...]:
        """(name, body) by name; a macro defined again also with its other bodies.

        The kept body comes last, so `dict()` of the pairs reads it, while
        `integer_macros` sees that such a name has no one value.
        """
        return tuple(
            (name, body)
            for name, kept in sorted(self.objects.items())
            for body in (*self.others.get(name, ()), kept)
        )


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", text)


def _directives(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """`pattern.finditer(text)` for a pattern of lines starting with blanks and `#`.

    Only the lines with a `#` are tried: a buffer whose function bodies are
    blanked has long runs of spaces that every other line start would scan.
    """
    found: list[re.Match[str]] = []
    end = 0
    at = text.find("#")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        if start >= end and not text[start:at].strip(" \t"):
            match = pattern.match(text, start)
            if match is not None:
                found.append(match)
                end = match.end()
        at = text.find("#", at + 1)
    return found


def _includes(pattern: re.Pattern[str], text: str) -> list[str]:
    return [match.group(1) for match in _directives(pattern, text)]


def _add_defines(text: str, table: MacroTable) -> None:
    joined = re.sub(r"\\[ \t]*\r?\n", " ", text)
    for match in _directives(_DEFINE, _strip_comments(joined)):
        name, has_params, params, body = match.groups()
        if has_params is not None and match.group(0).find(name + "(") >= 0:
            names = tuple(p.strip() for p in params.split(",") if p.strip())
            table.functions.setdefault(name, FunctionMacro(names, body))
        else:
            kept = table.objects.setdefault(name, body)
            if kept.strip() != body.strip():
                table.others.setdefault(name, []).append(body)


def define_into(text: str, table: MacroTable) -> None:
    """Add the `#define`s of `text` to `table` (a redefinition keeps the first)."""
    _add_defines(text, table)


def _read_header(path: str) -> str | None:
    try:
        # A FIFO or device named like a header would block open() or never end.
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_HEADER_BYTES:
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(fd, encoding="utf-8", errors="replace") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return fh.read(_MAX_HEADER_BYTES)
    except OSError:
        return None


def collect_macros(
    text: str, path: str | None, include_dirs: Sequence[str] = ()
) -> MacroTable:
    """Macros defined in `text` and in the quoted headers it includes, transitively."""
    table = MacroTable()
    _add_defines(text, table)
    base = os.path.dirname(os.path.abspath(path)) if path else None
    dirs = ([base] if base else []) + list(include_dirs)
    pending = [(name, dirs) for name in _includes(_INCLUDE, text)]
    # `<...>` headers are looked up only in the -I folders, never the system ones.
    pending += [(name, list(include_dirs)) for name in _includes(_SYSTEM_INCLUDE, text)]
    seen: set[str] = set()
    while pending and len(seen) < _MAX_HEADERS:
        name, search = pending.pop(0)
        for folder in search:
            candidate = os.path.normpath(os.path.join(folder, name))
            if candidate in seen or not os.path.isfile(candidate):
                continue
            seen.add(candidate)
            header = _read_header(candidate)
            if header is not None:
                _add_defines(header, table)
                here = [os.path.dirname(candidate), *include_dirs]
                pending.extend((inc, here) for inc in _includes(_INCLUDE, header))
                pending.extend(
                    (inc, list(include_dirs))
                    for inc in _includes(_SYSTEM_INCLUDE, header)
                )
            break
    return table


def _split_args(text: str, start: int) -> tuple[list[str], int] | None:
    """Arguments of a call whose '(' is at `start`, and the index after ')'."""
    depth = 0
    args: list[str] = []
    current = start + 1
    for pos in range(start, len(text)):
        char = text[pos]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                args.append(text[current:pos].strip())
                return ([] if args == [""] else args), pos + 1
        elif char == "," and depth == 1:
            args.append(text[current:pos].strip())
            current = pos + 1
    return None


def expand_calls(text: str, table: MacroTable, limit: int = 8) -> str:
    """Expand function-like macro calls in an expression text."""
    if not table.functions:
        return text
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, table.functions)) + r")\s*\(")
    for _ in range(limit):
        match = pattern.search(text)
        if match is None:
            return text
        split = _split_args(text, match.end() - 1)
        if split is None:
            return text
        args, end = split
        body = table.functions[match.group(1)].expand(args)
        if body is None:
            return text
        text = f"{text[: match.start()]}({body}){text[end:]}"
    return text


# Words a macro of constants may hold besides numbers and other such macros:
# `(sizeof(double) * 8)`, `((unsigned long)1 << 20)`.
_CONSTANT_WORDS = frozenset(
    {
        "sizeof",
        "_Alignof",
        "alignof",
        "char",
        "short",
        "int",
        "long",
        "float",
        "double",
        "signed",
        "unsigned",
        "const",
        "_Bool",
        "bool",
        "void",
        "true",
        "false",
    }
)
# A string, a character or a number (`1e-9`, `0x1FUL`), then a name: a name's
# digits (`a1`) and a number's letters (`e9`) are never mistaken for the other.
_TOKEN = re.compile(
    r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|(?<![\w.])\.?\d(?:[eEpP][+-]|[\w.])*'
    r"|([A-Za-z_]\w*)"
)


def _words(text: str) -> list[str]:
    return [m.group(1) for m in _TOKEN.finditer(text) if m.group(1)]


def constant_macro(name: str, table: MacroTable) -> bool:
    """Whether the object-like macro `name` stands for constants only.

    `#define N 1000` or `#define SIZE (N * sizeof(double))` names no variable, calls
    nothing and writes nothing: a use of it reads no memory. A macro that names
    anything else (`#define PREV a[i - 1]`, `#define NEXT rand()`) is code.
    """
    known: dict[str, bool] = {}

    def constant(word: str) -> bool:
        if word in _CONSTANT_WORDS:
            return True
        if word not in known:
            body = table.objects.get(word)
            known[word] = False  # a macro within itself: not a constant
            words = _words(body) if body is not None else None
            known[word] = words is not None and all(constant(w) for w in words)
        return known[word]

    return name in table.objects and constant(name)


def expand_objects(text: str, table: MacroTable, limit: int = 8) -> str:
    """`text` with its object-like macros that are not constants replaced, as cpp does.

    No parentheses are added (`#define OFF i + 1` makes `2 * OFF` `2 * i + 1`), and
    a macro is not expanded again inside its own expansion.
    """
    done: set[str] = set()
    for _ in range(limit):
        names = {
            w
            for w in _words(text)
            if w in table.objects and w not in done and not constant_macro(w, table)
        }
        if not names:
            return text
        done |= names
        text = _replace_words(text, {name: table.objects[name] for name in names})
    return text


def _replace_words(text: str, bodies: dict[str, str]) -> str:
    def swap(match: re.Match[str]) -> str:
        word = match.group(1)
        return bodies.get(word, match.group(0)) if word else match.group(0)

    return _TOKEN.sub(swap, text)


_QUALIFIERS = {
    "restrict": "restrict",
    "__restrict": "restrict",
    "__restrict__": "restrict",
    "const": "const",
    "volatile": "volatile",
    "inline": "inline",
    "__inline": "inline",
    "__inline__": "inline",
    "static": "static",
    "register": "register",
    "": "",
}


def mask_qualifier_macros(text: str, table: MacroTable) -> str:
    """Rewrite macros that stand for a qualifier (`RESTRICT`) so tree-sitter parses.

    Byte offsets must not move, so the name is overwritten in place: by the keyword
    padded with spaces when it fits, else by spaces (losing only the qualifier).
    """
    names = {
        name: _QUALIFIERS[body.strip()]
        for name, body in table.objects.items()
        if body.strip() in _QUALIFIERS and name not in _QUALIFIERS
    }
    if not names:
        return text
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")

    def swap(match: re.Match[str]) -> str:
        word = match.group(1)
        keyword = names[word]
        return (
            keyword.ljust(len(word)) if len(keyword) <= len(word) else " " * len(word)
        )

    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("#"):
            lines[i] = pattern.sub(swap, line)
    return "\n".join(lines)
