"""May two accesses of a region touch one element? isl decides affine subscripts."""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from accls.analysis.mhp_bounds import Sweep, bound_rows
from accls.analysis.mhp_constructs import NESTED_TID
from accls.analysis.mhp_env import Environment, Location
from accls.analysis.mhp_every_run import meets_every_run
from accls.analysis.mhp_products import width_split
from accls.analysis.mhp_rows import flat_rows, leaves_row
from accls.analysis.polyhedra import Row, build, is_empty, row
from accls.frontend import Poly

__all__ = ["Overlap", "distinct_instances", "overlap"]

_TID = "omp_get_thread_num"


@dataclass(frozen=True, slots=True)
class Overlap:
    """`same`: surely one element; `maybe`: undecided, and what would decide it."""

    verdict: str  # "same" or "maybe"
    decides: str = ""


def _side(poly: Poly, side: int, env: Environment) -> dict[str, int] | None:
    """The poly's coefficients with per-thread names renamed for one side."""
    out: dict[str, int] = {}
    constants = dict(env.constants)
    for mono, coeff in poly.terms:
        if len(mono) > 1:
            return None  # not affine
        if not mono or mono[0] in constants:
            value = constants[mono[0]] if mono else 1
            out["1"] = out.get("1", 0) + coeff * value
            continue
        name = mono[0]
        if name in env.tid_vars or name == _TID:
            key = f"tid@{side}"
        elif name in env.invariant or name == NESTED_TID:
            key = name  # one value for every thread (or every inner team has it)
        else:
            key = f"{name}@{side}"  # a sequential loop each thread runs
        out[key] = out.get(key, 0) + coeff
    return out


def _rows(
    a: Location, b: Location, env: Environment, flat: bool = False
) -> list[Row] | None:
    """Equal subscripts, one row per dimension; None when one is not affine."""
    rows: list[Row] = []
    for pa, pb in zip(a.polys, b.polys, strict=True):
        if pa is None or pb is None:
            return None
        la, lb = _side(pa, 1, env), _side(pb, 2, env)
        if la is None or lb is None:
            return None
        diff = dict(la)
        for key, coeff in lb.items():
            diff[key] = diff.get(key, 0) - coeff
        const = diff.pop("1", 0)
        rows.append(row(diff, const, equality=True))
    return _flattened(a, b, env, rows) if flat else rows


def _flattened(
    a: Location, b: Location, env: Environment, rows: list[Row]
) -> list[Row]:
    """The rows as one of row-major offsets when an inner subscript leaves its row."""
    extents = dict(env.extents).get(a.name)
    if a.name != b.name or extents is None or len(extents) + 1 != len(rows):
        return rows
    for loc, side in ((a, 1), (b, 2)):
        for poly, extent in zip(loc.polys[1:], extents, strict=True):
            lin = _side(poly, side, env) if poly is not None else None
            if lin is not None and leaves_row(lin, extent, loc.bounds, side):
                return flat_rows(rows, extents)
    return rows


def _feasible(rows: list[Row], by_threads: bool, team: int | None) -> bool:
    """True when some integer point solves the rows, on two different threads."""
    keys = {key for item in rows for key, _ in item.coeffs}
    base = list(rows)
    for side in (1, 2):
        if f"tid@{side}" in keys:
            base.append(row({f"tid@{side}": 1}))  # thread numbers are >= 0
            if team is not None:
                base.append(row({f"tid@{side}": -1}, team - 1))
    if not by_threads:
        return not is_empty(build(base))
    base += [row({"tid@1": 1}), row({"tid@2": 1})]
    # Different threads: tid@1 < tid@2 or tid@1 > tid@2.
    before = row({"tid@2": 1, "tid@1": -1}, -1)
    after = row({"tid@1": 1, "tid@2": -1}, -1)
    return any(not is_empty(build([*base, order])) for order in (before, after))


def distinct_instances(a: Location, env: Environment, var: str) -> bool:
    """True when two instances that differ in `var` never reach one element of `a`.

    For the instances of a task created once per iteration of a loop over `var`:
    each captures its own `var`.
    """
    if a.form not in ("loop", "const") or not a.polys:
        return False
    key_1, key_2 = f"{var}@1", f"{var}@2"
    rows = _rows(a, a, env)
    if rows is None:
        return False
    keys = {key for item in rows for key, _ in item.coeffs}
    if key_1 not in keys:
        return False
    ranges = bound_rows(a.bounds, 1, keys) + bound_rows(a.bounds, 2, keys)
    before = row({key_2: 1, key_1: -1}, -1)
    after = row({key_1: 1, key_2: -1}, -1)
    return all(is_empty(build([*rows, *ranges, order])) for order in (before, after))


def _same_ranges(a: Location, b: Location) -> bool:
    """True when both sides' loops sweep one known range each, loop for loop.

    Two loops `for (i = 0; i < n; i++)` apart in the region cover the same
    values whatever `n` is, so the same index meets in both.
    """
    if a.bounds == b.bounds:
        return True
    sides = [[(s.var, s.low, s.high) for s in loc.bounds] for loc in (a, b)]
    known = all(s[1] is not None and s[2] is not None for s in sides[0])
    return known and sides[0] == sides[1]


def overlap(
    a: Location, b: Location, env: Environment, by_threads: bool, flat: bool = True
) -> Overlap | None:
    """Whether `a` and `b` may be one element when two threads (or tasks) run them.

    Thread numbers differ between the two sides when `by_threads`; names no
    thread writes in the region have one value; the variables of sequential
    loops range over their bounds. None when the element sets are disjoint. With
    `flat`, rows that run into each other are compared as row-major elements.
    """
    if len(a.polys) != len(b.polys) or not a.polys:
        return Overlap("maybe", _names(a, b, env))
    rows = _rows(a, b, env, flat)
    if rows is None:
        return _width_met(a, b, env, by_threads) or Overlap("maybe", _names(a, b, env))
    keys = {key for item in rows for key, _ in item.coeffs}
    ranges = bound_rows(a.bounds, 1, keys) + bound_rows(b.bounds, 2, keys)
    if not _feasible(rows + ranges, by_threads, _team(env)):
        return None
    if "ws" in (a.form, b.form):
        return _split(rows, ranges, by_threads)
    shared = {key for item in rows for key, _ in item.coeffs if "@" not in key}
    sweeps = {key for item in rows for key, _ in item.coeffs if "@" in key} - {
        "tid@1",
        "tid@2",
    }
    if not shared and not sweeps:
        return Overlap("same")  # constants and thread numbers only
    if a.index == b.index and not (by_threads and "tid" in (a.form, b.form)):
        symbolic = {k for r in ranges for k, _ in r.coeffs if "@" not in k}
        met = meets_every_run(rows, ranges, a, b)  # `i <= mid` and `i >= mid`
        if not _same_ranges(a, b) and symbolic and not met:
            shown = ", ".join(f"`{k.strip('[]')}`" for k in sorted(symbolic)[:3])
            return Overlap("maybe", f"the loop bounds {shown} decide")
        return Overlap("same")
    threads = _thread_orders(_team(env)) if by_threads else None
    if not shared and _apart_meet(rows, ranges, a, b, sweeps, threads):
        return Overlap("same")  # `out[i]` and `out[i + 1]` over literal bounds
    if meets_every_run(rows, ranges, a, b):
        return Overlap("same")  # `v[k]`, k < n, and `v[n - 1]`: met whenever run
    return Overlap("maybe", _names(a, b, env))


def _width_met(
    a: Location, b: Location, env: Environment, by_threads: bool
) -> Overlap | None:
    """`same` when the `w * P + Q` halves of a worksharing pair surely meet."""
    split = width_split(a, b, env) if "ws" in (a.form, b.form) else None
    rows = _rows(*split, env) if split is not None else None
    if split is None or rows is None:
        return None
    keys = {key for item in rows for key, _ in item.coeffs}
    ranges = bound_rows(a.bounds, 1, keys) + bound_rows(b.bounds, 2, keys)
    if not _feasible(rows + ranges, by_threads, _team(env)):
        return None  # the halves apart say nothing: `Q` may leave its row
    found = _split(rows, ranges, by_threads)
    return found if found.verdict == "same" else None


def _literal(sweep: Sweep) -> bool:
    """True for a sequential loop between two constants: `for (i = 0; i < 100; ...)`."""
    return all(
        side is not None and all(k == "1" for k, _ in side)
        for side in (sweep.low, sweep.high)
    )


def _apart_meet(
    rows: list[Row],
    ranges: list[Row],
    a: Location,
    b: Location,
    sweeps: set[str],
    threads: list[list[Row]] | None = None,
) -> bool:
    """True when two different iterations surely reach one element.

    Every sequential loop the subscripts use runs between literal bounds, so each
    integer point of the ranges is an iteration that runs; a point where the loop
    variables differ is then an element two instances (or threads) both touch.
    With thread numbers, `threads` orders them apart (None: not decided here).
    """
    tids = any(k.startswith("tid@") for r in rows for k, _ in r.coeffs)
    if not sweeps or (tids and threads is None):
        return False
    for key in sweeps:
        var, side = key.split("@")
        bounds = a.bounds if side == "1" else b.bounds
        found = [s for s in bounds if s.var == var]
        if not found or not all(_literal(s) for s in found):
            return False
    common = {k.split("@")[0] for k in sweeps if k.endswith("@1")} & {
        k.split("@")[0] for k in sweeps if k.endswith("@2")
    }
    orders: list[list[Row]] = [[]]
    if tids and threads is not None:
        orders = threads
    elif common:
        var = sorted(common)[0]
        one, two = f"{var}@1", f"{var}@2"
        orders = [[row({two: 1, one: -1}, -1)], [row({one: 1, two: -1}, -1)]]
    return any(not is_empty(build([*rows, *ranges, *order])) for order in orders)


def _thread_orders(team: int | None) -> list[list[Row]]:
    """Two different threads of the team, either one first."""
    base = [row({"tid@1": 1}), row({"tid@2": 1})]
    if team is not None:
        base += [row({"tid@1": -1}, team - 1), row({"tid@2": -1}, team - 1)]
    before = row({"tid@2": 1, "tid@1": -1}, -1)
    after = row({"tid@1": 1, "tid@2": -1}, -1)
    return [[*base, before], [*base, after]]


def _team(env: Environment) -> int | None:
    """The team size `num_threads(K)` gives the region, when a literal."""
    clause = env.region.directive.clause("num_threads")
    size = (clause.args or "").strip() if clause is not None else ""
    return int(size) if size.isdigit() and int(size) > 0 else None


def _split(rows: list[Row], ranges: list[Row], by_threads: bool) -> Overlap:
    """A worksharing loop's element against another access.

    Sure when the subscripts meet for every value of the region's unchanging names
    for which the loops run.
    """
    hit = rows + ranges
    if by_threads:
        hit += [row({"tid@1": 1}), row({"tid@2": 1})]
    keys = sorted({key for item in hit for key, _ in item.coeffs})
    front = [key for key in keys if "@" not in key]
    if not front:
        return Overlap("same")
    order = (*front, *(key for key in keys if "@" in key))

    def shadow(rows: list[Row]) -> isl.Set:
        poly = build(rows, order)
        return poly.bset.project_out(
            isl.dim_type.set, len(front), len(order) - len(front)
        ).to_set()

    if shadow(ranges).is_subset(shadow(hit)):
        return Overlap("same")
    shown = ", ".join(f"`{key.strip('[]')}`" for key in front[:3])
    return Overlap("maybe", f"the values of {shown} decide")


def _names(a: Location, b: Location, env: Environment) -> str:
    """The values that would decide an undecided pair, as message text."""
    names = sorted(
        {
            name
            for poly in (*a.polys, *b.polys)
            if poly is not None
            for mono, _ in poly.terms
            for name in mono
            if name not in env.tid_vars and name != _TID
        }
    )
    if not names:
        return "the values of their subscripts decide"
    shown = ", ".join(f"`{n}`" for n in names[:3])
    return f"the values of {shown} decide"
