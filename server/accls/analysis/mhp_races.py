"""Races over the concurrency model: pairs of accesses that may happen in parallel."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from itertools import combinations

import networkx as nx

from accls.analysis.callee_wording import callee_fix, callee_what
from accls.analysis.concurrency_kinds import (
    CALLEE_STATE_RACE,
    EXCLUSION_RACE,
    PHASE_RACE,
    POSSIBLE_RACE,
    TASK_RACE,
)
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_callee_tasks import covers
from accls.analysis.mhp_callees import is_hidden_state
from accls.analysis.mhp_constructs import pragma_at, within
from accls.analysis.mhp_env import Location
from accls.analysis.mhp_exact import (
    FLAG_RULE,
    depend_doubt,
    own_iteration,
    plain_flag,
    thread_slots,
)
from accls.analysis.mhp_fixes import barrier_fix, critical_name_fix, taskwait_fix
from accls.analysis.mhp_guards import threads_meet
from accls.analysis.mhp_handoff import handoff_between, handoffs
from accls.analysis.mhp_insertions import call_critical_fix
from accls.analysis.mhp_model import Access, RegionModel, region_models
from accls.analysis.mhp_order import parallel_rule
from accls.analysis.mhp_overlap import Overlap, overlap
from accls.analysis.mhp_target import target_nowait_findings
from accls.analysis.mhp_taskloop_pairs import left_to_loop_checks
from accls.analysis.mhp_whole import whole_sweep
from accls.analysis.mhp_whole_cover import whole_cover
from accls.analysis.races_exclusion import guard_text
from accls.frontend import SourceFile

__all__ = ["concurrency_findings", "mhp_graph"]

_MAX_PER_NAME = 3
"""Pairs reported per variable and region: the first ones say what to fix."""


def _overlap(
    model: RegionModel, a: Access, b: Access, by_threads: bool
) -> Overlap | None:
    """Whether both may touch one location; None when they surely do not."""
    la, lb = a.location, b.location
    if (la.form == "scalar") != (lb.form == "scalar"):
        return None
    if la.form == lb.form == "some":
        return None  # two callees' tasks: which elements each writes is not followed
    if "some" in (la.form, lb.form):
        elem, whole = (la, lb) if la.form == "some" else (lb, la)
        if covers(whole, elem, dict(model.env.constants)):
            return Overlap("same")
        return Overlap("maybe", _varying(la, lb))
    if la.form == "scalar":
        return Overlap("same")
    if left_to_loop_checks(model, a, b):
        return None  # the dependence test, or ACC111 between loops, decides
    if "varying" in (la.form, lb.form):
        counted = thread_slots(model, la, lb, (a.pos, b.pos)) if by_threads else None
        if counted is not None:
            return Overlap("same") if counted else None
        return whole_cover(a, b, model.env) or Overlap("maybe", _varying(la, lb))
    # A guard may keep a row that runs past its end within it: no flattening.
    rows = not (a.ref.guarded or b.ref.guarded)
    found = overlap(la, lb, model.env, by_threads, rows)
    if found is None or found.verdict != "same" or "ws" not in (la.form, lb.form):
        return found
    split, other = (a, b) if la.form == "ws" else (b, a)
    if other.unit.kind == "team" and other.location.form != "tid":
        return found  # every thread runs the other access: one is not the loop's
    if other.unit.kind in ("single", "section") or other.tasks:
        return found  # whichever thread gets there runs it: no schedule pins it
    if not _handed_out(model, split):
        return Overlap(
            "maybe",
            f"the schedule of the loop at line {split.unit.line} decides whether "
            "the thread that runs the other access also runs the iteration",
        )
    return found


def _handed_out(model: RegionModel, access: Access) -> bool:
    """True when the loop around `access` hands out iterations at run time.

    `dynamic` and `guided` do, and a `taskloop`, whose iterations are tasks; a
    static or unnamed schedule may fix them.
    """
    if any(model.task(t).taskloop for t in access.tasks):
        return True
    for construct in model.constructs:
        if pragma_at(construct) == access.unit.id:
            clause = construct.directive.clause("schedule")
            kind = (clause.args or "") if clause is not None else ""
            return "dynamic" in kind or "guided" in kind
    return False


def _varying(a: Location, b: Location) -> str:
    """What would decide a pair whose subscripts the model cannot compare."""
    texts = [
        f"`{loc.name}[{']['.join(loc.index)}]`"
        for loc in (a, b)
        if loc.form in ("varying", "some")
    ]
    shown = " and ".join(dict.fromkeys(texts))
    return f"the values of the subscripts of {shown} decide"


def mhp_graph(model: RegionModel) -> nx.MultiGraph[int]:
    """Accesses as nodes; an edge joins two that may run in parallel, with its rule.

    Only accesses to one variable are paired, and a node has a self-loop when
    several threads or task instances run it at once.
    """
    graph: nx.MultiGraph[int] = nx.MultiGraph()
    found_handoffs = handoffs(model)
    by_name: dict[str, list[int]] = defaultdict(list)
    for index, access in enumerate(model.accesses):
        graph.add_node(index, access=access)
        by_name[access.location.name].append(index)
    for indices in by_name.values():
        if not any(model.accesses[i].ref.is_write for i in indices):
            continue
        pairs = [(i, i) for i in indices] + list(combinations(indices, 2))
        for i, j in pairs:
            a, b = model.accesses[i], model.accesses[j]
            if not (a.ref.is_write or b.ref.is_write):
                continue
            found = parallel_rule(model, a, b)
            if found is None:
                continue
            kind, rule = found
            sync = handoff_between(model, found_handoffs, a, b)
            if sync is not None and sync[0]:
                continue  # a release store and an acquire load order them
            if sync is not None:
                rule = f"{rule}; {sync[1]}"
            graph.add_edge(i, j, kind=kind, rule=rule)
    return graph


def _guards_meet(model: RegionModel, a: Access, b: Access) -> bool | None:
    """Whether two threads pass the thread-number guards of `a` and `b`.

    True when two of a pair of threads do (or of the `num_threads` team); False
    when none of the team do; None when the guards are not read or need a team
    larger than two threads whose size is not written.
    """
    if a.guards is None or b.guards is None:
        return None
    clause = model.region.directive.clause("num_threads")
    size = (clause.args or "").strip() if clause is not None else ""
    if size.isdigit():
        return threads_meet(a.guards, b.guards, int(size))
    return True if threads_meet(a.guards, b.guards, 2) else None


def _maybe_sync(model: RegionModel, a: Access, b: Access) -> str:
    lo, hi = sorted((a.pos, b.pos))
    for pos, name, line in model.maybe_syncs:
        if lo < pos < hi:
            return (
                f"the call to `{name}` at line {line} may hold a barrier; its "
                "definition decides"
            )
    return ""


def _exclusion(a: Access, b: Access) -> str:
    """Why the locks and critical names around the pair do not exclude them."""
    if a.atomic != b.atomic:
        plain = b if a.atomic else a
        if plain.held:
            held = guard_text(plain.held)
            return f"`atomic` does not exclude {held} (line {plain.ref.span.line})"
        return (
            "an `atomic` access does not order the plain access at line "
            f"{plain.ref.span.line}"
        )
    partial = a.partial | b.partial
    if partial:
        lock = sorted(partial)[0][5:]
        return f"the lock `{lock}` is taken on some paths only"
    if a.held and b.held:
        return (
            f"line {a.ref.span.line} holds {guard_text(a.held)} and line "
            f"{b.ref.span.line} holds {guard_text(b.held)}, which do not exclude "
            "each other"
        )
    if a.held or b.held:
        guarded, plain = (a, b) if a.held else (b, a)
        return (
            f"only line {guarded.ref.span.line} holds {guard_text(guarded.held)}; line "
            f"{plain.ref.span.line} holds nothing"
        )
    return ""


_EXCLUSION_FIX = (
    "guard every access with the same `critical` name or lock, or make all of them "
    "`atomic`"
)
_TASK_FIX = (
    "add `#pragma omp taskwait` before the later access, or `depend` clauses between "
    "the tasks"
)
_PHASE_FIX = (
    "make `{var}` private, a reduction, or guard the accesses with `single`, "
    "`critical` or `atomic`; put a `barrier` between them if they must be ordered"
)


def _callee_finding(
    first: Access, second: Access, kind: str, rule: str, args: dict[str, object]
) -> Finding:
    """ACC124 at the call whose callee writes the shared state."""
    sides = [x for x in (second, first) if x.via is not None]
    via = next((x for x in sides if x.ref.is_write), sides[0])
    assert via.via is not None
    name, callee = via.ref.name, via.via.name
    other = second if via is first else first
    line = other.ref.span.line
    word = "written" if other.ref.is_write else "read"
    also: dict[str, object] = {"also": ""}
    if line != via.ref.span.line:
        where = "" if other.via is not None else " in the region"
        also = {"also": f" and {word} at line {line}{where}", "other": line}
    hidden = is_hidden_state(name)  # `__libc_rand_state`: the C library's
    fix = f"make `{name}` `threadprivate`, or call `{callee}` in a `critical`"
    fix = callee_fix(name, callee, fix)
    who = "every thread" if kind == "threads" else "a task"
    if kind == "tasks" and via.via.span.end_byte - 1 in via.tasks:
        who = "the code"  # the callee's tasks race, not the caller's
        fix = (
            f"put the call to `{callee}` in a `taskgroup` (its end waits for every "
            f"descendant task), or make `{callee}` wait for the tasks it creates"
        )
    elif kind == "tasks" and via.location.form == "loop":  # a callee's sweep
        fix = "add `#pragma omp taskwait` before the later access, or `depend` clauses"
    elif hidden:
        fix = (
            f"use a reentrant form (`{callee}_r`) with a state per thread, or call "
            f"`{callee}` in a `critical`"
        )
    return finding(
        CALLEE_STATE_RACE,
        via.via.span,
        var=name,
        what=callee_what(name, via.via.args, hidden),
        callee=callee,
        write=via.ref.span.line,
        **also,
        who=who,
        call=via.via.span.line,
        region=args["region"],
        line=args["line"],
        rule=rule,
        fix=fix,
    )


def _pair_finding(
    model: RegionModel,
    data: bytes,
    pair: tuple[Access, Access],
    kind: str,
    rule: str,
    fence: str,
) -> Finding | None:
    a, b = pair
    if (a.atomic and b.atomic) or (a is b and a.pos in model.combines):
        return None  # a reduction's copies are combined in turn; a lastprivate once
    if a.held & b.held:
        return None
    touch = whole_sweep(model, data, a, b) or _overlap(model, a, b, kind == "threads")
    if touch is None or (kind == "tasks" and own_iteration(model, a, b)):
        return None
    first, second = (a, b) if a.pos <= b.pos else (b, a)
    region = model.region
    args: dict[str, object] = {
        "first": first.ref.render(),
        "first_access": first.ref.kind.value,
        "first_line": first.ref.span.line,
        "second": second.ref.render(),
        "second_access": second.ref.kind.value,
        "second_line": second.ref.span.line,
        "overlap": (
            "may run at once on several threads or tasks"
            if a is b
            else "may run in parallel"
        ),
        "region": region.directive.name,
        "line": region.directive.span.line
        if region.directive.span
        else region.span.line,
    }
    where = second.via.span if second.via is not None else second.ref.span
    exclusion = _exclusion(a, b)
    doubt = a.doubt or b.doubt or model.doubt or fence or _maybe_sync(model, a, b)
    if kind == "threads" and (a.guard or b.guard):
        meet = _guards_meet(model, a, b)
        if meet is False:
            return None  # no two threads of the team pass both guards
        if not meet:
            doubt = doubt or a.guard or b.guard
    else:
        doubt = doubt or depend_doubt(model, a, b)
    if touch.verdict == "maybe":
        doubt = doubt or (
            f"whether `{first.ref.render()}` and `{second.ref.render()}` can be the "
            f"same element: {touch.decides}"
        )
    if doubt:
        return finding(POSSIBLE_RACE, where, rule=rule, undecided=doubt, **args)
    if any(x.via is not None and x.ref.is_write for x in (first, second)):
        made = _callee_finding(first, second, kind, rule, args)
        if first.via is None or first.via != second.via or kind != "threads":
            return made
        return replace(made, insert=call_critical_fix(data, first.via))
    if exclusion:
        rule = f"{rule}; {exclusion}"
        made = finding(EXCLUSION_RACE, where, rule=rule, fix=_EXCLUSION_FIX, **args)
        return replace(made, insert=critical_name_fix(model, data, first, second))
    if kind == "tasks":
        made = finding(TASK_RACE, where, rule=rule, fix=_TASK_FIX, **args)
        return replace(made, insert=taskwait_fix(model, data, first, second))
    fix = _PHASE_FIX.format(var=first.location.name)
    made = finding(PHASE_RACE, where, rule=rule, fix=fix, **args)
    return replace(made, insert=barrier_fix(model, data, first, second))


def concurrency_findings(source: SourceFile) -> list[Finding]:
    """Race pairs inside the `parallel` regions of a file."""
    out: list[Finding] = []
    leagues = [c for c in source.constructs if "teams" in c.directive.name.split()]
    for model in region_models(source):
        graph = mhp_graph(model)
        teams = any(within(model.region, c) for c in leagues)
        # Hand-offs the model follows settle the region's fences: no blanket doubt.
        fence = "" if handoffs(model) else model.fence_doubt
        count: dict[str, int] = defaultdict(int)
        seen: set[tuple[str, int, int]] = set()
        for i, j, data in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1])):
            a, b = model.accesses[i], model.accesses[j]
            name = a.location.name
            lines = sorted((a.ref.span.line, b.ref.span.line))
            key = (name, lines[0], lines[1])
            if key in seen or count[name] >= _MAX_PER_NAME:
                continue
            flag = bool(fence) and not model.doubt and plain_flag(model, a, b)
            if (model.doubt or fence) and sum(count.values()) and not flag:
                continue  # one warning says why the whole region is undecided
            made = _pair_finding(
                model, source.data, (a, b), data["kind"], data["rule"], fence
            )
            if flag and made is not None and made.kind is POSSIBLE_RACE:
                # The spin loop's own condition is no doubt: it waits on the flag.
                spun = tuple(
                    x if x.ref.is_write else replace(x, doubt="", guard="", guards=())
                    for x in (a, b)
                )
                made = _pair_finding(
                    model,
                    source.data,
                    (spun[0], spun[1]),
                    data["kind"],
                    data["rule"] + FLAG_RULE,
                    "",
                )
            if made is not None and made.kind is CALLEE_STATE_RACE:
                key = (name, made.span.start_byte, 0)
                if key in seen:
                    continue
            if made is not None:
                if made.insert is not None and made.kind is CALLEE_STATE_RACE and teams:
                    made = replace(made, insert=None)  # `critical` spans one team
                seen.add(key)
                count[name] += 1
                out.append(made)
    out.extend(target_nowait_findings(source))
    return out
