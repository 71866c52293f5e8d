"""The training dataset: one pragma-loop pair a JSONL line, its I/O and its splits."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from accls.files import WriteError, replace_file

__all__ = [
    "DatasetError",
    "Pair",
    "Split",
    "ingest_pairs",
    "insert_pragma",
    "json_records",
    "near_key",
    "normalise_pragma",
    "read_pairs",
    "split_by_repo",
    "target_of",
    "write_pairs",
]


class DatasetError(Exception):
    """A dataset file is missing, unreadable or holds a malformed record."""


class Split(StrEnum):
    """Which part of the data a pair belongs to; a repository is in exactly one."""

    TRAIN = "train"
    VALID = "valid"
    TEST = "test"


_MODELS = ("openacc", "openmp")
_TARGETS = ("gpu", "cpu")


@dataclass(frozen=True, slots=True, kw_only=True)
class Pair:
    """One (pragma, loop) example with the minimal compilable unit around the loop."""

    id: str
    repo: str
    path: str
    line: int  # 1-based line of the loop's `for` in `mcu`
    model: str  # "openacc" | "openmp"
    target: str  # "gpu" | "cpu"
    pragma: str  # the reference pragma line
    loop: str
    mcu: str  # enclosing function + the declarations it needs, without `pragma`
    region: str | None = None  # the enclosing data-region pragma text
    origin: str = "mined"  # mined | augmented:<kind> | synthesized:<t> | feedback
    weight: float = 1.0
    split: str = Split.TRAIN.value

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict, in the contract's field order."""
        return asdict(self)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Pair:
        """A record from a parsed JSON object; raises DatasetError when malformed."""
        try:
            pair = cls(
                id=str(raw["id"]),
                repo=str(raw["repo"]),
                path=str(raw["path"]),
                line=int(raw["line"]),
                model=str(raw["model"]),
                target=str(raw["target"]),
                pragma=str(raw["pragma"]),
                loop=str(raw["loop"]),
                mcu=str(raw["mcu"]),
                region=None if raw.get("region") is None else str(raw["region"]),
                origin=str(raw.get("origin", "mined")),
                weight=float(raw.get("weight", 1.0)),
                split=str(raw.get("split", Split.TRAIN.value)),
            )
        except KeyError as exc:
            raise DatasetError(f"missing field {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            raise DatasetError(f"bad field value: {exc}") from None
        if pair.model not in _MODELS:
            raise DatasetError(f"model must be one of {_MODELS}, not {pair.model!r}")
        if pair.target not in _TARGETS:
            raise DatasetError(f"target must be one of {_TARGETS}, not {pair.target!r}")
        if pair.split not in tuple(Split):
            raise DatasetError(f"unknown split {pair.split!r}")
        if pair.line < 1:
            raise DatasetError(f"line must be 1 or more, not {pair.line}")
        return pair

    def with_split(self, split: Split) -> Pair:
        """The same pair, assigned to `split`."""
        return replace(self, split=split.value)


def json_records(path: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(`file:line`, object) for every non-blank line of a JSONL file.

    Raises DatasetError, naming the file and line, for unreadable files, lines that
    are not JSON and values that are not objects.
    """
    file = Path(path)
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DatasetError(f"cannot read {file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise DatasetError(f"cannot read {file}: not UTF-8 text") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{file}:{number}: not JSON: {exc.msg}") from None
        if not isinstance(raw, dict):
            raise DatasetError(f"{file}:{number}: not a JSON object")
        yield f"{file}:{number}", raw


def read_pairs(path: str | Path, split: str | None = None) -> list[Pair]:
    """Every record of a dataset JSONL file (only `split`'s when given)."""
    pairs: list[Pair] = []
    for where, raw in json_records(path):
        try:
            pair = Pair.from_json(raw)
        except DatasetError as exc:
            raise DatasetError(f"{where}: {exc}") from None
        if split is None or pair.split == split:
            pairs.append(pair)
    return pairs


def write_pairs(path: str | Path, pairs: Iterable[Pair]) -> int:
    """Write records as JSONL, atomically; DatasetError leaves the old file as it was.

    A reader never sees half a file, and a full disk keeps the previous version.
    """
    file = Path(path)
    lines = [json.dumps(pair.to_json(), ensure_ascii=False) + "\n" for pair in pairs]
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        replace_file(str(file), "".join(lines).encode("utf-8"))
    except WriteError as exc:
        raise DatasetError(str(exc)) from None
    except OSError as exc:
        raise DatasetError(f"{file}: cannot write: {exc.strerror or exc}") from None
    return len(lines)


def insert_pragma(mcu: str, line: int, pragma: str) -> str:
    """`mcu` with `pragma` on its own line above 1-based `line`, indented alike."""
    lines = mcu.splitlines(keepends=True)
    if not 1 <= line <= len(lines) + 1:
        raise DatasetError(f"line {line} is outside the unit ({len(lines)} lines)")
    anchor = lines[line - 1] if line <= len(lines) else ""
    indent = anchor[: len(anchor) - len(anchor.lstrip(" \t"))]
    lines.insert(line - 1, f"{indent}{pragma.strip()}\n")
    return "".join(lines)


def normalise_pragma(text: str) -> str:
    """A pragma line with continuations joined and whitespace collapsed."""
    joined = re.sub(r"\\\s*\n", " ", text)
    return " ".join(joined.split())


def target_of(model: str, pragma: str) -> str:
    """`gpu` for OpenACC and `omp target`, `cpu` for other OpenMP."""
    if model == "openacc":
        return "gpu"
    return "gpu" if re.search(r"\btarget\b", pragma) else "cpu"


# Tokens for near-duplicate keys: comments and strings go first so that their
# words are not taken for identifiers.
_TOKEN = re.compile(
    r"""(?P<comment>//[^\n]*|/\*.*?\*/)
      |(?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
      |(?P<ident>[A-Za-z_]\w*)
      |(?P<number>\d[\w.]*(?:[eEpP][+-]\d+)?)
      |(?P<punct>\S)""",
    re.VERBOSE | re.DOTALL,
)

C_KEYWORDS = frozenset(
    """auto break case char const continue default do double else enum extern float
    for goto if inline int long register restrict return short signed sizeof static
    struct switch typedef union unsigned void volatile while _Bool bool size_t
    true false NULL""".split()
)


def _tokens(text: str) -> list[tuple[str, str]]:
    return [
        (str(m.lastgroup), m.group())
        for m in _TOKEN.finditer(text)
        if m.lastgroup != "comment"
    ]


def near_key(pragma: str, loop: str) -> str:
    """A key equal for pairs that differ only in whitespace, comments and names.

    Identifiers of the loop are renamed v0, v1, ... in order of first appearance
    (C keywords kept); the pragma's words are renamed with the same map, so its
    clause arguments follow the loop while directive and clause names stay.
    """
    names: dict[str, str] = {}
    loop_tokens = _tokens(loop)
    for kind, text in loop_tokens:
        if kind == "ident" and text not in C_KEYWORDS and text not in names:
            names[text] = f"v{len(names)}"

    def render(tokens: list[tuple[str, str]]) -> str:
        return " ".join(names.get(text, text) for _kind, text in tokens)

    return render(_tokens(normalise_pragma(pragma))) + "\n" + render(loop_tokens)


def _stable_rank(seed: int, repo: str) -> str:
    return hashlib.sha256(f"{seed}:{repo}".encode()).hexdigest()


def _pick(sizes: Mapping[str, int], budget: float, seed: int) -> set[str]:
    """Repositories, in a seeded order, whose pairs add up to at most `budget`.

    When every repository alone is over budget, the smallest one is taken, so a
    split asked for is never empty; at least one repository is always left out.
    """
    if budget <= 0 or len(sizes) < 2:
        return set()
    chosen: set[str] = set()
    used = 0
    for repo in sorted(sizes, key=lambda r: _stable_rank(seed, r)):
        if used + sizes[repo] <= budget and len(chosen) < len(sizes) - 1:
            chosen.add(repo)
            used += sizes[repo]
    if not chosen:
        chosen.add(min(sizes, key=lambda r: (sizes[r], _stable_rank(seed, r))))
    return chosen


def split_by_repo(
    pairs: Sequence[Pair],
    *,
    test_repos: Sequence[str] = (),
    test_frac: float = 0.2,
    valid_frac: float = 0.1,
    seed: int = 0,
) -> list[Pair]:
    """Assign every pair a split so that each repository lies in exactly one.

    `test_repos` fixes the test repositories; otherwise a seeded choice takes
    repositories up to `test_frac` of the pairs. The valid split is then chosen
    the same way among the remaining repositories, up to `valid_frac`.
    """
    sizes: dict[str, int] = {}
    for pair in pairs:
        sizes[pair.repo] = sizes.get(pair.repo, 0) + 1
    total = len(pairs)
    if test_repos:
        unknown = sorted(set(test_repos) - set(sizes))
        if unknown:
            raise DatasetError(f"no pairs from test repositories: {', '.join(unknown)}")
        test = set(test_repos)
    else:
        test = _pick(sizes, test_frac * total, seed)
    rest = {repo: n for repo, n in sizes.items() if repo not in test}
    valid = _pick(rest, valid_frac * total, seed + 1)
    out: list[Pair] = []
    for pair in pairs:
        if pair.repo in test:
            out.append(pair.with_split(Split.TEST))
        elif pair.repo in valid:
            out.append(pair.with_split(Split.VALID))
        else:
            out.append(pair.with_split(Split.TRAIN))
    return out


# The headers every ingested unit includes, and the library names they declare,
# so that calls to them are not declared again with a guessed type.
_INGEST_HEADERS = ("math.h", "stdio.h", "stdlib.h", "string.h", "stdbool.h")
_LIBRARY = frozenset(
    """abs labs fabs fabsf sqrt sqrtf exp expf log logf log10 pow powf sin sinf cos
    cosf tan tanh atan atan2 floor ceil fmin fmax fmod round malloc calloc free
    realloc rand srand exit abort printf fprintf sprintf memcpy memset strlen""".split()
)
_ARRAY_EXTENT = "ACCLS_N"
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _ingest_mcu(loop: str) -> tuple[str, int]:
    """A best-effort compilable unit around a bare loop, and the loop's line in it.

    Kept simple on purpose: every name the loop uses but does not declare becomes
    a parameter; subscripted names are `double` arrays (rank 1 a pointer, rank k
    a pointer to `double[ACCLS_N]...`), loop variables and names in subscripts or
    bounds are `int`, other scalars `double`, unknown calls `double f();`. Struct
    members and typedef'd types are not recovered: such units may not compile.
    """
    from accls.frontend import parse_source  # the front end only when ingesting

    probe = parse_source("void accls_probe(void) {\n" + loop + "\n}\n")
    loops = probe.loops()
    ranks: dict[str, int] = {}
    ints: set[str] = set()
    scalars: list[str] = []
    declared: set[str] = set()
    calls: list[str] = []
    for node in loops:
        if node.var is not None:
            ints.add(node.var)
            if node.var_declared:
                declared.add(node.var)
        declared.update(v.name for v in node.locals)
        ints.update(_IDENT.findall(node.lower_text + " " + node.upper_text))
        calls.extend(c.name for c in node.calls)
        for ref in node.refs:
            if ref.member or not _IDENT.fullmatch(ref.name):
                continue
            for sub in ref.subscripts:
                ints.update(_IDENT.findall(sub.text))
            if ref.subscripts:
                ranks[ref.name] = max(ranks.get(ref.name, 0), len(ref.subscripts))
            elif ref.name not in scalars:
                scalars.append(ref.name)
    callees = sorted({c for c in calls if c not in _LIBRARY} - declared)
    params: list[str] = []
    for name in sorted(ranks):
        if name in declared or name in callees:
            continue
        rank = ranks[name]
        extents = f"[{_ARRAY_EXTENT}]" * (rank - 1)
        params.append(f"double (*{name}){extents}" if rank > 1 else f"double *{name}")
    for name in scalars:
        if name in declared or name in ranks or name in callees:
            continue
        if name in C_KEYWORDS or name in _LIBRARY:
            continue
        params.append(f"{'int' if name in ints else 'double'} {name}")
    head = [f"#include <{h}>" for h in _INGEST_HEADERS]
    head.append(f"#define {_ARRAY_EXTENT} 1024")
    head.extend(f"double {name}();" for name in callees)
    signature = f"void accls_kernel({', '.join(params) or 'void'})"
    body = "\n".join("    " + text if text else text for text in loop.splitlines())
    unit = "\n".join([*head, signature, "{", body, "}"]) + "\n"
    return unit, len(head) + 3


def ingest_pairs(path: str | Path) -> list[Pair]:
    """Records from a dev-pairs JSONL file (no MCU there): loops wrapped by guess.

    Real units come from `accls-train mine` on the sources; this is for data that
    has only (pragma, loop). The region is the innermost enclosing data pragma.
    """
    pairs: list[Pair] = []
    for where, raw in json_records(path):
        try:
            model = str(raw["model"])
            pragma = normalise_pragma(str(raw["pragma"]))
            loop = str(raw["loop"])
            enclosing = [str(p) for p in raw.get("enclosing_pragmas") or ()]
            mcu, at = _ingest_mcu(loop)
            pairs.append(
                Pair(
                    id=str(raw["id"]),
                    repo=str(raw["repo"]),
                    path=str(raw["path"]),
                    line=at,
                    model=model,
                    target=target_of(model, pragma),
                    pragma=pragma,
                    loop=loop,
                    mcu=mcu,
                    region=next((p for p in reversed(enclosing) if _is_data(p)), None),
                    origin="mined",
                )
            )
        except (KeyError, TypeError) as exc:
            raise DatasetError(f"{where}: not a dev pair: {exc}") from None
    return pairs


def _is_data(pragma: str) -> bool:
    words = pragma.split()
    return len(words) > 2 and (words[2] == "data" or words[2:4] == ["target", "data"])
