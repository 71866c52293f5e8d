"""Two names the program visibly points into one object, for data clauses.

An offload construct (or a data region) that maps `a[0:n]` and `base[0:n]`
where `a = base + 10` maps one storage under two names: OpenACC stops with a
"partially present" error at run time, and OpenMP leaves it unspecified. Only
a visible derivation counts (an assignment `a = base + k`, `a = &base[k]`, a
global set from another, a call passing `base + k` and `base`): pointers of
unknown origin are left as they are, or every read-only pair would cost its
offload.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from accls.analysis.aliasing import array_decl
from accls.analysis.array_params import passed_twice
from accls.analysis.array_sections import ArrayUse
from accls.analysis.buffer_offsets import buffer_apart, same_offset
from accls.analysis.global_sources import shared_source
from accls.analysis.mapped_sections import sections_apart
from accls.analysis.pointer_rotations import origin_pairs
from accls.analysis.program import ProgramSummaries
from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["SharedStorage", "same_sections", "shared_storage"]


@dataclass(frozen=True, slots=True)
class SharedStorage:
    """Two mapped names into one object, and what shows it."""

    one: str
    two: str
    why: str  # "both are set from `base`", "line 7 passes `base + 10` and `base`"

    def reason(self, what: str) -> str:
        """The one-line refusal of mapping both in `what` ("one construct")."""
        return (
            f"`{self.one}` and `{self.two}` point into one object ({self.why}): "
            f"mapping both in {what} maps one storage under two names, which "
            "OpenACC rejects at run time (partially present) and OpenMP leaves "
            "unspecified; index the loop through one pointer, or map the object "
            "once with an enclosing data region"
        )


def _pointer_like(var: Var | None) -> bool:
    return var is not None and (var.pointers > 0 or bool(var.dims))


def _harmless(
    one: str,
    two: str,
    sections: Mapping[str, str],
    loops: Sequence[Loop],
    fn: Function | None,
    source: SourceFile,
    at: int | None = None,
) -> bool:
    """Whether two names of one object map the same elements, or disjoint ones.

    Only a partial overlap is wrong: one section mapped twice is present the
    second time, and disjoint ranges of one buffer are two separate mappings.
    `sections` holds the exact sections ("[0:n]", the name left out), one
    per name for all `loops`; a name missing from it is mapped whole or
    unknown, so nothing is proved.
    """
    if one not in sections or two not in sections:
        return False
    if at is not None and sections_apart(one, two, sections, at, fn, source):
        return True  # disjoint ranges of one buffer, wherever the loops reach
    if not loops:
        return False
    if sections[one] == sections[two] and all(
        same_offset(one, two, loop, fn, source) for loop in loops
    ):
        return True
    for loop in loops:
        # Each section is the same in every loop (`sections`), so ranges apart
        # in each loop that touches both are apart in the mapping too.
        touched = {r.name for r in loop.refs}
        if one not in touched or two not in touched:
            return False
        carved = buffer_apart(one, two, loop, fn, source)
        if carved is None or not carved[0]:
            return False
    return True


def _rotated(
    one: Var, two: Var, fn: Function | None, source: SourceFile, loops: Sequence[Loop]
) -> tuple[tuple[str, str], ...] | None:
    """The parameter pairs two local pointers hold in every loop, or None.

    Locals that only hold parameters (a copy, or two buffers swapped in turn:
    `origin_pairs`) are one object only where those parameters are; `()` for
    two blocks the function allocated, apart outright. None when a local is
    anything else, or both may hold one parameter.
    """
    if fn is None or not loops or "local" not in (one.scope, two.scope):
        return None
    pairs: set[tuple[str, str]] = set()
    for loop in loops:
        found = origin_pairs(one, two, fn, source, loop)
        if found is None or any(p == q for p, q in found[0]):
            return None
        pairs.update(found[0])
    return tuple(sorted(pairs))


def shared_storage(
    names: Iterable[str],
    fn: Function | None,
    source: SourceFile,
    program: ProgramSummaries | None = None,
    *,
    sections: Mapping[str, str] | None = None,
    loops: Sequence[Loop] = (),
    at: int | None = None,
) -> SharedStorage | None:
    """The first pair of `names` the program visibly sets into one object, or None.

    With `sections` (each name's exact mapped section, the name left out) and
    the `loops` the mapping serves, a pair mapping the same elements through
    one pointer value, or disjoint ranges of one buffer, is let through.
    """
    exact = sections or {}
    decls: list[Var] = []
    for name in sorted(set(names)):
        var = array_decl(name, fn, source.globals)
        if _pointer_like(var) and var is not None:
            decls.append(var)
    for k, one in enumerate(decls):
        for two in decls[k + 1 :]:
            if one is two:
                continue
            links = program.global_links if program is not None else ()
            based = shared_source(one, two, fn, source, links)
            held = _rotated(one, two, fn, source, loops)
            if held is not None and fn is not None:
                # `shared_source` follows a swap's copies and would see `a`
                # behind both buffers; they are one only where the parameters
                # they hold are passed one object.
                for p, q in held:
                    call = passed_twice(fn, p, q, source, program, False)
                    if call:
                        return SharedStorage(one.name, two.name, call)
                continue
            if based:
                if _harmless(one.name, two.name, exact, loops, fn, source, at):
                    continue
                return SharedStorage(one.name, two.name, f"both are set from `{based}`")
            if fn is not None and one.scope == "param" and two.scope == "param":
                same = one.name in exact and exact.get(one.name) == exact.get(two.name)
                call = passed_twice(fn, one.name, two.name, source, program, same)
                if call:
                    return SharedStorage(one.name, two.name, call)
    return None


def same_sections(per_loop: Iterable[Iterable[ArrayUse]]) -> dict[str, str]:
    """Each name's section ("[0:n]", the name left out) where all loops agree on it.

    `per_loop`: the uses of each loop a data region would serve.
    """
    found: dict[str, set[str]] = {}
    unknown: set[str] = set()
    for uses in per_loop:
        for use in uses:
            section = use.section
            if not use.known or section is None or not section.startswith(use.name):
                unknown.add(use.name)
                continue
            texts = found.setdefault(use.name, set())
            texts.add(section[len(use.name) :].replace(" ", ""))
    return {
        name: next(iter(texts))
        for name, texts in found.items()
        if len(texts) == 1 and name not in unknown
    }
