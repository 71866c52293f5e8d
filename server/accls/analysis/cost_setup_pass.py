"""Light passes in code that runs once: a copy, a sum or a scale in setup or teardown.

`for (i = 0; i < n; i++) energy[i] = grid[i].energy;` in a grid setup, `for (i...)
if (n_poles[i] > max) max = n_poles[i];` before an allocation, `for (i...) hash +=
v[i];` after the kernel: about a load and an operation per element, in a function
that runs once per run of the program. Such a pass pays in parallel only from tens
of thousands of elements on, and saves a part of one kernel's time where it does;
experts leave it serial and spend the pragma on the loops that repeat.

The rule needs all of:

- the loop is light: at most LIGHT_UNITS work units per innermost iteration, its
  control included, and it reads memory (a fill that reads none is cost_light's);
- it runs once: it lies in no loop of its function (`for`, `while`, `do`), and
  every call of its function in the program lies outside any loop of a caller
  that itself runs once, up to `main`. A loop of `main` itself is left to
  cost_once and cost_verify: in a program that repeats nothing, it may be the
  computation the program exists for. Across files this needs the
  workspace index of the whole program (`remote_calls.ProgramCalls`), which
  proves that no call is unseen (no function pointer, no library caller);
- no loop proved parallel elsewhere in the file shares out an array it writes
  (the pass would be the first touch of the kernel's data, which experts share out).

A light loop that repeats (a vector update in a solver's iteration, a copy back
in a time loop) keeps its pragma, and so does any loop when the program's calls
are not all known.
"""

from __future__ import annotations

from accls.analysis.analyze import FileAnalysis
from accls.analysis.call_site_lists import Callee, CallSiteLists, Site, callee_of
from accls.analysis.cost_light import LIGHT_UNITS, light_reason, shared_out_elsewhere
from accls.analysis.cost_once import runs_once as runs_once_here
from accls.analysis.sequential_loops import in_sequential_loop
from accls.frontend import Loop, SourceFile

__all__ = ["light_pass_reason", "setup_pass_reason"]

_DEPTH = 4  # callers followed up towards `main`


def _in_loop(source: SourceFile, function: str, start: int, own: int = -1) -> bool:
    """True when byte `start` of `function` lies in one of its loops (not `own`)."""
    return in_sequential_loop(source, function, start) or any(
        n.function == function
        and n.id != own
        and n.span.start_byte <= start < n.span.end_byte
        for n in source.nests
    )


def _repeats(lists: CallSiteLists, site: Site) -> bool:
    """True when the call `site` lies in a loop of its caller."""
    if site.record is not None:
        return site.record.in_loop
    if site.caller is None or site.call is None:
        return True  # no call to place: assume it repeats
    return _in_loop(lists.source, site.caller.name, site.call.span.start_byte)


def _once(lists: CallSiteLists, callee: Callee, depth: int) -> bool:
    """True when every call of `callee` runs once per run of the program."""
    if callee.name == "main":
        return True
    if depth > _DEPTH:
        return False
    sites = lists.only_called(callee)
    if not sites:
        return False  # never called, or called where the program cannot see
    return all(
        not _repeats(lists, site)
        and site.calling().name != callee.name
        and _once(lists, site.calling(), depth + 1)
        for site in sites
    )


def runs_once(analysis: FileAnalysis, name: str) -> bool:
    """True when function `name` of the file runs once per run of the program."""
    fn = analysis.source.function(name)
    if fn is None:
        return False
    if runs_once_here(analysis.source, name):
        return True  # the file holds the whole program
    program = analysis.program
    calls = program.calls if program is not None else None
    return _once(CallSiteLists(analysis.source, calls), callee_of(fn), 0)


def setup_pass_reason(
    analysis: FileAnalysis, loop: Loop, per_iteration: int | None
) -> str:
    """Why `loop` is a light pass in code that runs once, or ""."""
    source = analysis.source
    name = loop.function
    if name is None or name == "main":
        return ""
    if per_iteration is None or per_iteration > LIGHT_UNITS:
        return ""
    memory = [r for r in loop.refs if r.subscripts or r.deref]
    if not any(r.is_read for r in memory):
        return ""  # a fill: cost_light decides
    if _in_loop(source, name, loop.span.start_byte, loop.id):
        return ""
    written = {r.name for r in memory if r.is_write}
    if shared_out_elsewhere(analysis, loop, written) or not runs_once(analysis, name):
        return ""
    return (
        f"setup pass: `{name}()` runs once per run (no call of it repeats, up to "
        f"`main`), and the loop does about {per_iteration} work units per "
        f"{'innermost ' if loop.children else ''}iteration: a light pass there "
        "saves a part of one kernel's time; experts leave it serial"
    )


def light_pass_reason(
    analysis: FileAnalysis, loop: Loop, per_iteration: int | None
) -> str:
    """Why `loop` is a light fill of setup data or a light pass that runs once."""
    return light_reason(analysis, loop, per_iteration) or setup_pass_reason(
        analysis, loop, per_iteration
    )
