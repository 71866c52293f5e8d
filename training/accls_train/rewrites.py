"""Semantics-preserving rewrites of a pair: the seed's four augmentations.

- `rename`: rename the enclosing function's parameters and locals.
- `equivalent`: OpenACC `parallel loop` -> `kernels loop` (not with
  `firstprivate`, which `kernels` lacks); `kernels loop independent` ->
  `parallel loop`; OpenMP `omp for` alone inside `omp parallel` ->
  `omp parallel for` and back.
- `reorder`: the same clauses in another order.
- `redundant`: drop clauses that say what the rules already imply:
  `independent` on `parallel loop`; `private` of the loop's own index;
  OpenMP `default(shared)` and `shared(...)` on a `parallel` construct
  without `default(none)` (variables from outside are shared anyway).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import replace

from accls.frontend import (
    Clause,
    Directive,
    Loop,
    SourceFile,
    parse_directive,
    parse_source,
)

from accls_train.dataset import Pair
from accls_train.units import names_in

__all__ = ["REWRITES", "rename_tokens", "render"]

_TOKENS = re.compile(
    r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|(?P<id>[A-Za-z_]\w*)""",
    re.DOTALL,
)
_POOL = """arr vec mat buf tmp idx cnt lim val src dst xs ys zs alpha beta gamma fld
grid acc0 nrm len0 sz num pos ptr data2 aux w1 w2 lhs rhs""".split()
_PARALLEL_CLAUSES = frozenset(
    "private firstprivate shared default num_threads if proc_bind copyin".split()
)


def _rename_pragma(line: str, names: dict[str, str]) -> str:
    """Rename only clause arguments: never directive words or `op:` modifiers."""
    out: list[str] = []
    parens = brackets = 0
    for token in re.finditer(r"[A-Za-z_]\w*|\s+|.", line):
        text = token.group()
        if text == "(":
            parens += 1
        elif text == ")":
            parens -= 1
        elif text == "[":
            brackets += 1
        elif text == "]":
            brackets -= 1
        elif text in names and parens > 0:
            modifier = (
                parens == 1
                and brackets == 0
                and line[token.end() :].lstrip().startswith(":")
                and not line[token.end() :].lstrip().startswith("::")
            )
            before = line[: token.start()].rstrip()
            if not modifier and not before.endswith((".", "->")):
                text = names[text]
        out.append(text)
    return "".join(out)


def rename_tokens(text: str, names: dict[str, str]) -> str:
    """`text` with identifiers renamed; comments, strings and members untouched.

    In `#pragma` lines only clause arguments are renamed, so a variable called
    `data` or `max` does not turn `enter data` or `reduction(max:...)` around.
    """

    def swap(match: re.Match[str]) -> str:
        name = match.group("id")
        if name is None or name not in names:
            return match.group()
        before = match.string[max(0, match.start() - 64) : match.start()].rstrip()
        if before.endswith((".", "->")):
            return match.group()  # a struct member, not the variable
        return names[name]

    lines = text.split("\n")
    plain = [i for i, line in enumerate(lines) if not line.lstrip().startswith("#")]
    out = list(lines)
    for index, line in enumerate(lines):
        if line.lstrip().startswith("#pragma"):
            out[index] = _rename_pragma(line, names)
    # Other lines are renamed together, so comments spanning lines are seen whole.
    chunk = "\n".join(lines[i] for i in plain)
    renamed = _TOKENS.sub(swap, chunk).split("\n") if plain else []
    for index, line in zip(plain, renamed, strict=True):
        out[index] = line
    return "\n".join(out)


def render(directive: Directive, name: str, clauses: list[Clause]) -> str:
    """A pragma line from a directive name and clauses."""
    parts = [f"#pragma {directive.dialect} {name}"]
    parts += [c.name if c.args is None else f"{c.name}({c.args})" for c in clauses]
    return " ".join(parts)


def _context(pair: Pair) -> tuple[SourceFile, Loop, Directive] | None:
    directive = parse_directive(pair.pragma)
    if directive is None or directive.malformed:
        return None
    source = parse_source(pair.mcu)
    loop = next((lp for lp in source.loops() if lp.line == pair.line), None)
    return (source, loop, directive) if loop is not None else None


def rename(pair: Pair, rng: random.Random) -> Pair | None:
    """Rename the function's own variables everywhere the pair mentions them."""
    found = _context(pair)
    if found is None:
        return None
    source, loop, _ = found
    function = source.function(loop.function)
    if function is None:
        return None
    data = source.data
    start = len(data[: function.span.start_byte].decode())
    end = len(data[: function.span.end_byte].decode())
    outside = names_in(pair.mcu[:start] + pair.mcu[end:])
    taken = names_in(pair.mcu) | outside
    own = sorted(
        {v.name for v in (*function.params, *function.locals)} - outside - {""}
    )
    names: dict[str, str] = {}
    for old in own:
        choices = [n for n in _POOL if n not in taken]
        new = rng.choice(choices) if choices else f"{old}_{len(names)}"
        taken.add(new)
        names[old] = new
    if not names:
        return None
    body = rename_tokens(pair.mcu[start:end], names)
    return replace(
        pair,
        mcu=pair.mcu[:start] + body + pair.mcu[end:],
        loop=rename_tokens(pair.loop, names),
        pragma=rename_tokens(pair.pragma, names),
        region=None if pair.region is None else rename_tokens(pair.region, names),
    )


def _parallel_region(source: SourceFile, loop: Loop) -> Directive | None:
    """The `omp parallel` region around the loop when the loop is all it holds."""
    if not loop.regions:
        return None
    region = loop.regions[-1]
    if region.directive.dialect != "omp" or region.directive.name != "parallel":
        return None
    data = source.data
    block = data[
        region.directive.span.end_byte
        if region.directive.span
        else 0 : region.span.end_byte
    ]
    inner = data[loop.span.start_byte : loop.span.end_byte]
    stripped = re.sub(rb"//[^\n]*|/\*.*?\*/", b"", block, flags=re.DOTALL).strip()
    if stripped.startswith(b"{") and stripped.endswith(b"}"):
        stripped = stripped[1:-1].strip()
    return region.directive if stripped == inner.strip() else None


def equivalent(pair: Pair, rng: random.Random) -> Pair | None:
    """The same loop under an equivalent construct."""
    found = _context(pair)
    if found is None:
        return None
    source, loop, directive = found
    clauses = list(directive.clauses)
    names = [c.name for c in clauses]
    if directive.dialect == "acc":
        if directive.name == "parallel loop" and "firstprivate" not in names:
            return replace(pair, pragma=render(directive, "kernels loop", clauses))
        if directive.name == "kernels loop" and "independent" in names:
            kept = [c for c in clauses if c.name != "independent"]
            return replace(pair, pragma=render(directive, "parallel loop", kept))
        return None
    if directive.name == "for":
        region = _parallel_region(source, loop)
        if region is None or region.span is None or "nowait" in names:
            return None
        lines = pair.mcu.split("\n")
        top, bottom = region.span.start[0], region.span.end[0]
        bottom -= region.span.end[1] == 0
        del lines[top : bottom + 1]
        merged = [*region.clauses, *clauses]
        return replace(
            pair,
            mcu="\n".join(lines),
            line=pair.line - (bottom - top + 1),
            pragma=render(directive, "parallel for", merged),
            region=pair.region,
        )
    if directive.name == "parallel for":
        outer = [c for c in clauses if c.name in _PARALLEL_CLAUSES]
        inner = [c for c in clauses if c.name not in _PARALLEL_CLAUSES]
        lines = pair.mcu.split("\n")
        first, last = loop.span.start[0], loop.span.end[0]
        pad = re.match(r"[ \t]*", lines[first]).group()  # type: ignore[union-attr]
        head = render(directive, "parallel", outer)
        new = [
            *lines[:first],
            pad + head,
            pad + "{",
            *lines[first : last + 1],
            pad + "}",
            *lines[last + 1 :],
        ]
        return replace(
            pair,
            mcu="\n".join(new),
            line=pair.line + 2,
            pragma=render(directive, "for", inner),
        )
    return None


def reorder(pair: Pair, rng: random.Random) -> Pair | None:
    """The same clauses, shuffled into a different order."""
    directive = parse_directive(pair.pragma)
    if directive is None or len(directive.clauses) < 2:
        return None
    clauses = list(directive.clauses)
    while clauses == list(directive.clauses):
        rng.shuffle(clauses)
    return replace(pair, pragma=render(directive, directive.name, clauses))


def redundant(pair: Pair, rng: random.Random) -> Pair | None:
    """The pragma without clauses the language rules already imply."""
    found = _context(pair)
    if found is None:
        return None
    _, loop, directive = found
    names = {c.name: c for c in directive.clauses}
    omp_parallel = (
        directive.dialect == "omp" and directive.name.split()[0] == "parallel"
    )
    none = names.get("default") is not None and (names["default"].args or "") == "none"
    kept: list[Clause] = []
    changed = False
    for clause in directive.clauses:
        args = (clause.args or "").strip()
        implied_shared = clause.name == "shared" or (
            clause.name == "default" and args == "shared"
        )
        if (clause.name == "independent" and directive.name == "parallel loop") or (
            omp_parallel and not none and implied_shared
        ):
            changed = True
            continue
        if clause.name == "private" and loop.var is not None:
            items = [a.strip() for a in args.split(",")]
            if loop.var in items:
                changed = True
                items.remove(loop.var)
                if items:
                    kept.append(Clause(clause.name, ", ".join(items)))
                continue
        kept.append(clause)
    if not changed:
        return None
    return replace(pair, pragma=render(directive, directive.name, kept))


REWRITES: dict[str, Callable[[Pair, random.Random], Pair | None]] = {
    "rename": rename,
    "equivalent": equivalent,
    "reorder": reorder,
    "redundant": redundant,
}
