"""Races between the teams of an OpenMP `teams` region (ACC125, ACC126).

Code of a `teams` region outside `distribute` is run by the initial thread of every
team; a `critical` construct excludes only the threads of one contention group,
which is one team, so it does not order the teams' updates of shared data.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from accls.analysis.concurrency_kinds import TEAMS_CRITICAL, TEAMS_REPLICATED
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_constructs import contains, pragma_at, within
from accls.analysis.pragma_scope import clause_names, list_names
from accls.analysis.races_index import int_at
from accls.analysis.teams_iterations import iteration_owned, iteration_values
from accls.frontend import AccessKind, Function, Ref, Region, SourceFile

__all__ = ["teams_findings"]

_PRIVATE = frozenset({"private", "firstprivate"})
_OWNING = frozenset({"private", "firstprivate", "reduction", "lastprivate"})
_SPLIT = frozenset({"distribute", "loop"})  # worksharing across the teams
_TEAM_GUARD = re.compile(r"\bomp_get_team_num\s*\(")
_TEAM_CALL = re.compile(r"\bomp_get_team_num\(\)")
_NAME = re.compile(r"[A-Za-z_]\w*")
_WRITTEN_MAP = re.compile(r"\b(?:from|tofrom)\s*:")


def _words(region: Region) -> set[str]:
    return set(region.directive.name.split())


def _teams(source: SourceFile) -> list[Region]:
    return [r for r in source.constructs if "teams" in _words(r)]


def _target_of(region: Region, source: SourceFile) -> Region | None:
    if "target" in _words(region):
        return region
    return next(
        (
            r
            for r in source.constructs
            if _words(r) >= {"target"}
            and "teams" not in _words(r)
            and within(region, r)
        ),
        None,
    )


def _mapped_out(target: Region | None) -> set[str]:
    """Scalars the target maps back to the host: `map(from|tofrom: x)`."""
    out: set[str] = set()
    if target is None:
        return out
    for clause in target.directive.clauses:
        if clause.name == "map" and clause.args and _WRITTEN_MAP.search(clause.args):
            out |= list_names(clause.args)
    return out


def _shared_across_teams(
    ref: Ref,
    fn: Function,
    teams: Region,
    inner: list[Region],
    mapped: set[str] | None,
    counters: set[str],
) -> bool:
    """True if every team writes the same object through `ref`.

    `mapped`: the scalars the enclosing `target` maps back; None for host `teams`.
    """
    pos = ref.span.start_byte
    var = fn.lookup(ref.name)
    if (
        var is not None
        and var.span is not None
        and contains(teams, var.span.start_byte)
    ):
        return False  # declared in the region: one per team
    holders = [teams, *(c for c in inner if contains(c, pos))]
    names = clause_names(tuple(h.directive for h in holders[:1]), _OWNING)
    names |= clause_names(tuple(h.directive for h in holders[1:]), _PRIVATE)
    if ref.name in names:
        return False
    if ref.subscripts or ref.deref:
        varying = _team_indexed(ref, fn, teams, counters)
        varying = varying and not _team_slots_meet(ref, teams)
        return (var is None or var.is_array) and not varying
    # A scalar of a target region is firstprivate unless mapped or global; host
    # `teams` share the function's variables declared before them, as `parallel`.
    if mapped is None:
        return True
    return ref.name in mapped or var is None or var.scope == "global"


def _team_indexed(ref: Ref, fn: Function, teams: Region, counters: set[str]) -> bool:
    """True if a subscript may differ between teams: the team number or a local.

    Loop counters of the region take the same values in every team.
    """
    for sub in ref.subscripts:
        if _TEAM_GUARD.search(sub.text):
            return True
        for name in set(_NAME.findall(sub.text)) - counters:
            var = fn.lookup(name)
            if (
                var is not None
                and var.span is not None
                and contains(teams, var.span.start_byte)
            ):
                return True
    return False


def _team_slots_meet(ref: Ref, teams: Region) -> bool:
    """True if two teams land on one element: `a[omp_get_team_num() / 2]`.

    Each subscript must be built from the team number and literals. With
    `num_teams(K)` the league has K teams; without, every league of 2 to 8 teams
    must meet.
    """
    clause = teams.directive.clause("num_teams")
    size = (clause.args or "").strip() if clause is not None else ""
    if clause is not None and not (size.isdigit() and 1 < int(size) <= 64):
        return False
    texts = [_TEAM_CALL.sub("team", "".join(s.text.split())) for s in ref.subscripts]
    sizes = [int(size)] if size else list(range(2, 9))
    for league in sizes:
        cells = [tuple(int_at(t, "team", k) for t in texts) for k in range(league)]
        if any(None in cell for cell in cells) or len(set(cells)) == league:
            return False
    return True


def _team_guarded(source: SourceFile, teams: Region, pos: int) -> bool:
    return any(
        b.kind != "loop"
        and b.span.start_byte <= pos < b.span.end_byte
        and contains(teams, b.span.start_byte)
        and _TEAM_GUARD.search(b.condition)
        for b in source.branches
    )


def _shared_writes(
    source: SourceFile, fn: Function, teams: Region, inner: list[Region]
) -> Iterator[tuple[Ref, list[Region]]]:
    target = _target_of(teams, source)
    mapped = None if target is None else _mapped_out(target)
    counters = {
        loop.var for loop in source.loops() if loop.var and contains(teams, loop.id)
    }
    for ref in fn.refs:
        pos = ref.span.start_byte
        if not ref.is_write or not contains(teams, pos):
            continue
        chain = [c for c in inner if contains(c, pos)]
        if any(c.directive.name.split()[0] == "atomic" for c in chain):
            continue
        if _team_guarded(source, teams, pos):
            continue
        split = next((c for c in (teams, *chain) if _words(c) & _SPLIT), None)
        mine = counters
        if split is not None and ref.subscripts:
            if iteration_owned(ref, split, source):
                continue  # one distributed iteration's element: one team writes it
            mine = counters | iteration_values(ref, fn, split, source)
        if _shared_across_teams(ref, fn, teams, inner, mapped, mine):
            yield ref, chain


def _distribute_fix(source: SourceFile, teams: Region) -> tuple[int, str] | None:
    """` distribute` after `teams` when the region is one `for` loop."""
    span = teams.directive.span
    if span is None:
        return None
    governed = source.data[teams.span.start_byte : teams.span.end_byte].lstrip()
    if not governed.startswith(b"for"):
        return None
    text = source.data[span.start_byte : span.end_byte]
    match = re.search(rb"\bteams\b", text)
    if match is None:
        return None
    return span.start_byte + match.end(), " distribute"


def _replicated(
    source: SourceFile, fn: Function, teams: Region, inner: list[Region]
) -> Finding | None:
    if _words(teams) & _SPLIT:
        return None
    for ref, chain in _shared_writes(source, fn, teams, inner):
        if any(_words(c) & _SPLIT for c in chain):
            continue
        if any(c.directive.name.split()[0] == "critical" for c in chain):
            continue  # reported as ACC126
        made = finding(
            TEAMS_REPLICATED,
            ref.span,
            var=ref.render(),
            write=ref.span.line,
            who="teams",
            one="team",
            meet=_meeting(ref),
            directive=teams.directive.name,
            line=teams.directive.span.line if teams.directive.span else ref.span.line,
            split="any `distribute`",
            fix=_fix_text(ref),
        )
        fix = _distribute_fix(source, teams)
        return made if fix is None else _with_insert(made, fix)
    return None


def _fix_text(ref: Ref) -> str:
    """A team's partial added into a shared scalar wants a team-level reduction."""
    if ref.kind is AccessKind.UPDATE and not ref.subscripts and not ref.deref:
        return f"add `reduction` of `{ref.render()}` to the `teams` construct"
    return "add `distribute`"


def _meeting(ref: Ref) -> str:
    """Which teams write one location: all, or those a team-numbered slot pairs."""
    if any(_TEAM_GUARD.search(s.text) for s in ref.subscripts):
        return (
            f"teams whose numbers give one value of `{ref.render()}` write the same "
            "element"
        )
    return "the teams write the same location"


def _one_team(teams: Region) -> bool:
    """`num_teams(1)`: a league of one team, which nothing races with."""
    clause = teams.directive.clause("num_teams")
    return clause is not None and (clause.args or "").strip() == "1"


def _with_insert(made: Finding, fix: tuple[int, str]) -> Finding:
    return Finding(made.kind, made.span, made.args, made.severity, fix)


def _critical(
    source: SourceFile, fn: Function, teams: Region, inner: list[Region]
) -> Iterator[Finding]:
    seen: set[int] = set()
    for ref, chain in _shared_writes(source, fn, teams, inner):
        critical = next(
            (c for c in chain if c.directive.name.split()[0] == "critical"), None
        )
        if critical is None or pragma_at(critical) in seen:
            continue
        seen.add(pragma_at(critical))
        yield finding(
            TEAMS_CRITICAL,
            ref.span,
            var=ref.render(),
            write=ref.span.line,
            critical=critical.directive.span.line if critical.directive.span else 0,
            directive=teams.directive.name,
            line=teams.directive.span.line if teams.directive.span else 0,
        )


def teams_findings(source: SourceFile) -> list[Finding]:
    """ACC125 and ACC126 for every `teams` construct of the file."""
    out: list[Finding] = []
    for teams in _teams(source):
        if _one_team(teams):
            continue
        fn = next(
            (
                f
                for f in source.functions
                if f.span.start_byte <= teams.span.start_byte < f.span.end_byte
            ),
            None,
        )
        if fn is None:
            continue
        inner = [c for c in source.constructs if within(c, teams)]
        made = _replicated(source, fn, teams, inner)
        if made is not None:
            out.append(made)
        out.extend(_critical(source, fn, teams, inner))
    return out
