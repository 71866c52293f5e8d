"""Parse `#pragma acc|omp ...` text into a Directive: the one pragma parser."""

from __future__ import annotations

import re

from accls.frontend.model import Clause, Directive, Span

__all__ = ["COMPUTE_WORDS", "DIRECTIVE_WORDS", "clause_items", "parse_directive"]

# Words that make up a directive name, per dialect. Anything else starts a clause.
DIRECTIVE_WORDS: dict[str, frozenset[str]] = {
    "acc": frozenset(
        [
            "parallel",
            "kernels",
            "serial",
            "loop",
            "data",
            "enter",
            "exit",
            "host_data",
            "update",
            "wait",
            "routine",
            "declare",
            "atomic",
            "cache",
            "init",
            "shutdown",
            "set",
        ]
    ),
    "omp": frozenset(
        [
            "parallel",
            "for",
            "simd",
            "target",
            "teams",
            "distribute",
            "data",
            "enter",
            "exit",
            "update",
            "declare",
            "sections",
            "section",
            "single",
            "master",
            "masked",
            "critical",
            "atomic",
            "barrier",
            "task",
            "taskloop",
            "taskwait",
            "taskgroup",
            "loop",
            "scope",
            "ordered",
            "threadprivate",
            "flush",
            "end",
        ]
    ),
}
# acc `loop`/`atomic` modifiers that read like words but are clauses.
_ACC_CLAUSE_WORDS = frozenset(
    [
        "gang",
        "worker",
        "vector",
        "seq",
        "independent",
        "auto",
        "read",
        "write",
        "capture",
        "finalize",
        "nohost",
    ]
)
# OpenMP words that name a directive only when they come first.
_OMP_LEADING_ONLY = frozenset(
    ["ordered", "critical", "flush", "barrier", "taskwait", "scope"]
)

COMPUTE_WORDS = frozenset({"parallel", "kernels", "serial", "target", "teams"})
"""Directive words that open a compute (parallel or offload) construct."""

_HEAD = re.compile(r"^\s*#\s*pragma\s+(acc|omp)\b(.*)$", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _join_lines(text: str) -> str:
    """Join backslash continuations, drop comments and collapse whitespace."""
    joined = re.sub(r"\\\s*\n", " ", text)
    joined = re.sub(r"/\*.*?\*/", " ", joined, flags=re.DOTALL)
    joined = re.sub(r"//.*", "", joined)
    return " ".join(joined.split())


def _clauses(rest: str) -> tuple[tuple[Clause, ...], str]:
    """Split clause text into clauses; return them and any unparsed tail."""
    out: list[Clause] = []
    pos = 0
    n = len(rest)
    while pos < n:
        while pos < n and rest[pos] in " ,\t":
            pos += 1
        if pos >= n:
            break
        word = _WORD.match(rest, pos)
        if not word and rest[pos] != "(":
            return tuple(out), rest[pos:]
        name = word.group(0) if word else ""
        pos = word.end() if word else pos
        probe = pos
        while probe < n and rest[probe] == " ":
            probe += 1
        if probe < n and rest[probe] == "(":
            depth = 0
            end = probe
            while end < n:
                if rest[end] == "(":
                    depth += 1
                elif rest[end] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                end += 1
            if depth != 0:
                return tuple(out), rest[pos:]
            out.append(Clause(name, rest[probe + 1 : end].strip()))
            pos = end + 1
        else:
            out.append(Clause(name, None))
    return tuple(out), ""


def parse_directive(text: str, span: Span | None = None) -> Directive | None:
    """Parse one pragma line (continuations allowed); None if not acc/omp."""
    flat = _join_lines(text)
    head = _HEAD.match(flat)
    if not head:
        return None
    dialect, rest = head.group(1), head.group(2).strip()
    words: list[str] = []
    vocab = DIRECTIVE_WORDS[dialect]
    stop = _ACC_CLAUSE_WORDS if dialect == "acc" else _OMP_LEADING_ONLY
    pos = 0
    while True:
        word = _WORD.match(rest, pos)
        if not word:
            break
        token = word.group(0)
        if token not in vocab or (words and token in stop):
            break
        if rest[word.end() : word.end() + 1] == "(" and words:
            break  # a clause that shares its name with a directive word
        words.append(token)
        pos = word.end()
        while pos < len(rest) and rest[pos] == " ":
            pos += 1
        if rest[pos : pos + 1] == "(":
            break  # `acc wait(1)`, `omp critical(name)`: the word takes an argument
    clauses, tail = _clauses(rest[pos:])
    return Directive(
        dialect=dialect,
        name=" ".join(words),
        clauses=clauses,
        text=flat,
        span=span,
        malformed=bool(tail.strip()),
    )


def clause_items(args: str) -> list[str]:
    """The comma-separated items of a clause list, brackets kept whole."""
    items: list[str] = []
    depth = 0
    cur = ""
    for char in args:
        depth += char in "(["
        depth -= char in ")]"
        if char == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += char
    if cur.strip():
        items.append(cur.strip())
    return items
