"""Minimal compilable units: a function plus the top-level declarations it needs.

The file is cut into top-level items (preprocessor lines, declarations, function
definitions) by a small scanner; quoted includes that resolve are expanded in
place, once each. Starting from the function, items whose declared names it uses
are kept until nothing new is needed. Conditional directives and system includes
always stay, so the kept text preprocesses the way the file did; other functions
the unit calls become prototypes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from accls_train.dataset import C_KEYWORDS

__all__ = ["Item", "UnitBuilder", "scan_items"]

MAX_HEADER_BYTES = 1 << 20  # larger headers stay as an #include line

_IDENT = re.compile(r"[A-Za-z_]\w*")
# Comments and literals are skipped when collecting names.
_NAMES = re.compile(
    r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|(?P<id>[A-Za-z_]\w*)""",
    re.DOTALL,
)
_DEFINE = re.compile(r"#\s*(?:define|undef)\s+([A-Za-z_]\w*)")
_INCLUDE = re.compile(r'#\s*include\s*(?:"([^"]+)"|<([^>]+)>)')
_CONDITIONAL = re.compile(r"#\s*(?:if|ifdef|ifndef|elif|else|endif)\b")
_KEPT_PRAGMA = re.compile(r"#\s*pragma\s+omp\s+(?:end\s+)?declare\s+target\b")


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """One top-level piece of a C file."""

    kind: str  # "pp", "function" or "decl"
    text: str
    defines: frozenset[str] = frozenset()
    uses: frozenset[str] = frozenset()
    prototype: str = ""  # functions: the declaration that stands in for the body
    header: str = ""  # functions: the text before the body, for prototype uses


def names_in(text: str) -> set[str]:
    """Identifiers in C text outside comments and literals, keywords excluded."""
    return {
        m.group("id")
        for m in _NAMES.finditer(text)
        if m.group("id") and m.group("id") not in C_KEYWORDS
    }


def _skip_literal(text: str, i: int) -> int:
    """Index just past the comment or literal starting at `i`, else `i`."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    if text[i] in "\"'":
        quote, j = text[i], i + 1
        while j < len(text) and text[j] not in (quote, "\n"):
            j += 2 if text[j] == "\\" else 1
        return j + 1
    return i


def _pp_end(text: str, i: int) -> int:
    """End of the preprocessor line at `i`, continuation lines included."""
    while True:
        end = text.find("\n", i)
        if end < 0:
            return len(text)
        if not text[:end].rstrip("\r").endswith("\\"):
            return end + 1
        i = end + 1


def _code_end(text: str, i: int) -> tuple[int, bool]:
    """End of the declaration or function at `i`, and whether it is a function."""
    depth = 0
    body_start = -1
    j = i
    while j < len(text):
        skipped = _skip_literal(text, j)
        if skipped != j:
            j = skipped
            continue
        ch = text[j]
        if ch in "({[":
            if ch == "{" and depth == 0 and body_start < 0:
                body_start = j
            depth += 1
        elif ch in ")}]":
            depth = max(0, depth - 1)
            if ch == "}" and depth == 0 and body_start >= 0:
                head = _strip_comments(text[i:body_start]).rstrip()
                if head.endswith(")"):
                    return j + 1, True
        elif ch == ";" and depth == 0:
            return j + 1, False
        elif ch == "#" and text[text.rfind("\n", 0, j) + 1 : j].strip() == "":
            j = _pp_end(text, j)  # a directive inside a declaration or body
            continue
        j += 1
    return len(text), False


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.DOTALL)


def _declared(text: str) -> frozenset[str]:
    """Names a declaration introduces: depth-0 declarators, tags, enum constants."""
    body = _strip_comments(text)
    names: set[str] = set()
    depth = 0
    initializer = False
    tokens = list(re.finditer(r"[A-Za-z_]\w*|\S", body))
    is_enum = bool(re.match(r"\s*(?:typedef\s+)?enum\b", body))
    for index, token in enumerate(tokens):
        value = token.group()
        if value in "([{":
            depth += 1
        elif value in ")]}":
            depth -= 1
        elif value == "=" and depth == 0:
            initializer = True
        elif value == "," and depth == 0:
            initializer = False
        elif _IDENT.fullmatch(value) and value not in C_KEYWORDS:
            following = tokens[index + 1].group() if index + 1 < len(tokens) else ""
            declarator = depth == 0 and not initializer
            declarator = declarator and not (
                _IDENT.fullmatch(following) or following == "*"
            )
            if declarator or (is_enum and depth == 1 and not initializer):
                names.add(value)
    return frozenset(names)


def _function_item(text: str) -> Item:
    head = text[: text.index("{")]
    plain = _strip_comments(head)
    before_paren = plain[: plain.find("(")] if "(" in plain else plain
    found = _IDENT.findall(before_paren)
    name = found[-1] if found else ""
    return Item(
        kind="function",
        text=text,
        defines=frozenset({name} if name else ()),
        uses=frozenset(names_in(text)),
        prototype=" ".join(plain.split()) + ";",
        header=head,
    )


def scan_items(text: str) -> list[Item]:
    """Cut C text into top-level items, in order; comments between them dropped."""
    items: list[Item] = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        skipped = _skip_literal(text, i)
        if skipped != i and text[i] == "/":
            i = skipped
            continue
        if text[i] == "#":
            end = _pp_end(text, i)
            line = text[i:end].rstrip()
            match = _DEFINE.match(line)
            items.append(
                Item(
                    kind="pp",
                    text=line,
                    defines=frozenset({match.group(1)} if match else ()),
                    uses=frozenset(names_in(line[match.end() :] if match else "")),
                )
            )
            i = end
            continue
        end, is_function = _code_end(text, i)
        chunk = text[i:end]
        if is_function:
            items.append(_function_item(chunk))
        else:
            items.append(
                Item(
                    kind="decl",
                    text=chunk,
                    defines=_declared(chunk),
                    uses=frozenset(names_in(chunk)),
                )
            )
        i = end
    return items


class UnitBuilder:
    """Builds units for the functions of one repository, caching parsed headers."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._headers: dict[Path, list[Item]] = {}
        self._index: dict[str, list[Path]] | None = None

    def _by_name(self, name: str) -> list[Path]:
        """Repository headers whose path ends with `name` (the build's -I dirs)."""
        if self._index is None:
            self._index = {}
            for header in sorted(self._root.rglob("*.h")):
                self._index.setdefault(header.name, []).append(header)
        suffix = "/" + name.lstrip("./")
        named = self._index.get(Path(name).name, [])
        return [p for p in named if p.as_posix().endswith(suffix)]

    def _resolve(self, name: str, folder: Path) -> Path | None:
        for base in (folder, self._root):
            candidate = base / name
            if candidate.is_file():
                return candidate.resolve()
        # Not beside the file: some -I folder of the build; the shallowest wins.
        found = self._by_name(name)
        return min(found, key=lambda p: (len(p.parts), p)).resolve() if found else None

    def _header_items(self, path: Path) -> list[Item] | None:
        if path not in self._headers:
            try:
                if path.stat().st_size > MAX_HEADER_BYTES:
                    return None
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
            self._headers[path] = scan_items(text)
        return self._headers[path]

    def _expand(
        self, items: list[Item], folder: Path, seen: set[Path]
    ) -> Iterator[Item]:
        """Items with resolvable quoted includes replaced by the header's items."""
        for item in items:
            match = _INCLUDE.match(item.text) if item.kind == "pp" else None
            if match is None:
                yield item
                continue
            # <...> is expanded too when the repository has it (a -I folder).
            path = self._resolve(match.group(1) or match.group(2), folder)
            if path is not None and path in seen:
                continue  # included once already: an include guard would skip it
            inner = self._header_items(path) if path is not None else None
            if path is None or inner is None:
                yield item
                continue
            seen.add(path)
            yield from self._expand(inner, path.parent, seen)

    def build(
        self, text: str, folder: Path, span: tuple[int, int], function: str
    ) -> tuple[str, int]:
        """The unit for the function at char `span` of `text`, written as `function`.

        Returns the unit and the 1-based line where `function` starts in it.
        """
        seen: set[Path] = set()
        target = (
            _function_item(function)
            if "{" in function
            else Item(
                kind="function", text=function, uses=frozenset(names_in(function))
            )
        )
        before = list(self._expand(scan_items(text[: span[0]]), folder, seen))
        after = list(self._expand(scan_items(text[span[1] :]), folder, seen))
        items = [*before, target, *after]
        index = len(before)
        needed = _needed(items, index)
        kept: list[str] = []
        at_line = 1
        for position, item in enumerate(items):
            if position == index:
                at_line = sum(part.count("\n") + 1 for part in kept) + 1
                kept.append(item.text.rstrip())
            elif _emitted(items, position, needed):
                kept.append(item.prototype if item.kind == "function" else item.text)
        return "\n".join(kept) + "\n", at_line


def _needed(items: list[Item], target: int) -> set[int]:
    """Indices of the items the target needs, directly or through other items."""
    needed = {target}
    used = set(items[target].uses)
    changed = True
    while changed:
        changed = False
        for index, item in enumerate(items):
            if index in needed or not item.defines & used:
                continue
            needed.add(index)
            changed = True
            used |= names_in(item.header) if item.kind == "function" else item.uses
    return needed


def _emitted(items: list[Item], index: int, needed: set[int]) -> bool:
    item = items[index]
    if item.kind != "pp":
        return index in needed
    text = item.text
    if _DEFINE.match(text):
        return index in needed
    if re.match(r"#\s*pragma\b", text) and not _KEPT_PRAGMA.match(text):
        # A pragma before a declaration (`acc routine`) goes with it.
        following = next(
            (i for i in range(index + 1, len(items)) if items[i].kind != "pp"), None
        )
        return following is not None and following in needed
    return True  # includes, conditionals and the rest keep the file's structure
