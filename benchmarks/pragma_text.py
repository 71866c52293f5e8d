"""Parse and compare OpenACC/OpenMP pragma text for the quality benchmark.

Deliberately independent of `accls`: the benchmark must judge the product with its
own reading of the pragmas, not with the code under test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that name a construct (as opposed to a clause), per dialect, and which
# construct words may follow each one.  Parsing stops at the first word that may not
# follow, or that carries "(".  `None` as key lists the words that may start.
_ACC_FOLLOW: dict[str | None, frozenset[str]] = {
    None: _words(
        "parallel kernels serial loop data enter exit host_data update wait "
        "declare routine atomic cache init shutdown set"
    ),
    "parallel": frozenset({"loop"}),
    "kernels": frozenset({"loop"}),
    "serial": frozenset({"loop"}),
    "enter": frozenset({"data"}),
    "exit": frozenset({"data"}),
}
_OMP_LOOPISH = _words(
    "parallel for do simd teams distribute sections taskloop loop masked "
    "master single workshare"
)
_OMP_FOLLOW: dict[str | None, frozenset[str]] = {
    None: _OMP_LOOPISH
    | _words(
        "target task section critical barrier atomic ordered declare data enter "
        "exit update taskwait flush scope"
    ),
    "target": _OMP_LOOPISH | frozenset({"data", "enter", "exit", "update"}),
    "enter": frozenset({"data"}),
    "exit": frozenset({"data"}),
    "declare": frozenset({"target", "simd", "reduction", "mapper", "variant"}),
    **{word: _OMP_LOOPISH for word in _OMP_LOOPISH},
}
_CONSTRUCTS = {"acc": _ACC_FOLLOW, "omp": _OMP_FOLLOW}

# OpenACC 1.0 spellings that newer versions treat as the plain data clause.
_CLAUSE_ALIASES = {
    "pcopy": "copy",
    "present_or_copy": "copy",
    "pcopyin": "copyin",
    "present_or_copyin": "copyin",
    "pcopyout": "copyout",
    "present_or_copyout": "copyout",
    "pcreate": "create",
    "present_or_create": "create",
}

# Clauses whose argument is a list of variables; split one item per variable.
_LIST_CLAUSES = _words(
    "private firstprivate lastprivate shared copy copyin copyout create "
    "present deviceptr no_create attach detach delete reduction map linear "
    "aligned use_device use_device_ptr use_device_addr is_device_ptr "
    "has_device_addr device_resident link self host device nontemporal "
    "uniform in_reduction task_reduction allocate cache to from"
)
# List clauses where text before the first top-level ":" is a modifier that applies
# to every item (`reduction(+:a,b)`, `map(to:a,b)`, `copyin(readonly:a)`).
_PREFIX_MODIFIER = _words(
    "reduction in_reduction task_reduction map copyin copyout create "
    "lastprivate allocate to from"
)
# List clauses where text after the last top-level ":" is a step or alignment that
# applies to every item (`linear(i:1)`, `aligned(p:64)`).
_SUFFIX_MODIFIER = frozenset({"linear", "aligned"})

_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")

# Families for the relaxed directive match.
_FAMILIES = {
    "acc parallel loop": "acc compute loop",
    "acc kernels loop": "acc compute loop",
    "acc loop": "acc compute loop",
    "omp parallel for": "omp worksharing loop",
    "omp for": "omp worksharing loop",
    "omp parallel for simd": "omp worksharing loop",
    "omp for simd": "omp worksharing loop",
    "omp target teams distribute parallel for": "omp worksharing loop",
    "omp target teams distribute parallel for simd": "omp worksharing loop",
    "omp teams distribute parallel for": "omp worksharing loop",
    "omp distribute parallel for": "omp worksharing loop",
}


@dataclass(frozen=True, slots=True)
class Pragma:
    """A pragma split into dialect, construct words and clauses."""

    dialect: str  # "acc", "omp", or "" when not an acc/omp pragma
    construct: tuple[str, ...]
    clauses: tuple[tuple[str, str | None], ...]  # (name, argument text or None)

    @property
    def directive(self) -> str:
        """Dialect plus construct words, e.g. `acc parallel loop`."""
        return " ".join((self.dialect, *self.construct)).strip()

    @property
    def family(self) -> str:
        """The directive's family for the relaxed match."""
        return _FAMILIES.get(self.directive, self.directive)


def _balanced_end(text: str, start: int) -> int:
    """Index just past the parenthesis group opening at `text[start]`."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def parse_pragma(text: str) -> Pragma:
    """Split `#pragma acc parallel loop copyin(a[0:n])` into its parts."""
    body = re.sub(r"\\\s*\n", " ", text)
    body = re.sub(r"^\s*#\s*pragma\s+", "", body).strip()
    words = body.split(None, 1)
    if not words or words[0] not in _CONSTRUCTS:
        return Pragma("", (), ())
    dialect = words[0]
    follow = _CONSTRUCTS[dialect]
    rest = words[1] if len(words) > 1 else ""
    construct: list[str] = []
    clauses: list[tuple[str, str | None]] = []
    pos = 0
    in_clauses = False
    while pos < len(rest):
        ch = rest[pos]
        if ch.isspace() or ch == ",":
            pos += 1
            continue
        match = _WORD.match(rest, pos)
        if match is None:
            pos += 1  # stray punctuation: skip it
            continue
        name = match.group(0)
        pos = match.end()
        after = pos
        while after < len(rest) and rest[after].isspace():
            after += 1
        arg: str | None = None
        if after < len(rest) and rest[after] == "(":
            end = _balanced_end(rest, after)
            arg = rest[after + 1 : end - 1]
            pos = end
        previous = construct[-1] if construct else None
        if not in_clauses and arg is None and name in follow.get(previous, ()):
            construct.append(name)
            continue
        in_clauses = True
        clauses.append((_CLAUSE_ALIASES.get(name, name), arg))
    return Pragma(dialect, tuple(construct), tuple(clauses))


def _split_top_level(text: str, sep: str) -> list[str]:
    """Split on `sep` where it is outside (), [] and {}."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def clause_names(pragma: Pragma) -> frozenset[str]:
    """The set of clause names, e.g. {"collapse", "reduction"}."""
    return frozenset(name for name, _ in pragma.clauses)


def clause_items(pragma: Pragma) -> frozenset[str]:
    """Normalised clause+argument items, list clauses split one per variable."""
    items: set[str] = set()
    for name, arg in pragma.clauses:
        if arg is None:
            items.add(name)
            continue
        squeezed = re.sub(r"\s+", "", arg)
        if name not in _LIST_CLAUSES:
            items.add(f"{name}({squeezed})")
            continue
        prefix = suffix = ""
        body = squeezed
        colons = _split_top_level(body, ":")
        if len(colons) > 1 and name in _PREFIX_MODIFIER:
            prefix = colons[0] + ":"
            body = ":".join(colons[1:])
        elif len(colons) > 1 and name in _SUFFIX_MODIFIER:
            suffix = ":" + colons[-1]
            body = ":".join(colons[:-1])
        for var in _split_top_level(body, ","):
            if var:
                items.add(f"{name}({prefix}{var}{suffix})")
    return frozenset(items)


def jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    """Jaccard index; two empty sets agree fully."""
    union = left | right
    return 1.0 if not union else len(left & right) / len(union)


def is_sequential(pragma: Pragma) -> bool:
    """Whether the pragma asks for sequential execution (`loop seq`, `serial`)."""
    return pragma.dialect == "acc" and (
        "serial" in pragma.construct or "seq" in clause_names(pragma)
    )


def normalised(pragma: Pragma) -> tuple[str, tuple[str, ...]]:
    """A key equal for pragmas that differ only in spacing and clause order."""
    return pragma.directive, tuple(sorted(clause_items(pragma)))
