"""A kernel's pointer parameter that a caller in another file holds on the device.

The workspace index records, at each call, which arguments the caller's data
directives hold around it (`analysis.call_holds`). A loop of the kernel
offloaded here finds that data present, so its copy clauses move nothing: the
hold must be proved coherent at every such call (the device copy is the host's
where the loop reads first, and what it writes comes back to the host), and
must cover the section the loop touches; else the loop is refused. When every
call of the program holds the parameter so, the copy clauses say `present`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse
from accls.analysis.call_holds import ArgHold, Dims
from accls.analysis.inequalities import proves_nonnegative
from accls.analysis.remote_calls import CallRecord
from accls.frontend import Function
from accls.frontend.exprs import expression_poly
from accls.frontend.poly import Poly

__all__ = ["remote_calls", "remote_present", "remote_refusals"]


def remote_calls(analysis: FileAnalysis, fn: Function) -> list[tuple[str, CallRecord]]:
    """The other files' calls of `fn`, each with its file."""
    program = analysis.program
    if fn.static or program is None or program.calls is None:
        return []
    return program.calls.calls_of(fn.name)


def _box(
    use: ArrayUse, fn: Function, call: CallRecord
) -> list[tuple[Poly, Poly]] | None:
    """The use's section in the caller's names (None: not expressible there)."""
    if use.box is None or len(call.texts) != len(fn.params):
        return None
    values: dict[str, Poly] = {}
    for param, text in zip(fn.params, call.texts, strict=True):
        poly = None if param.is_array else expression_poly(text)
        if poly is not None:
            values[param.name] = poly
    box: list[tuple[Poly, Poly]] = []
    for start, length in use.box:
        if any(n not in values for n in start.names() | length.names()):
            return None  # the callee's locals or globals: no meaning at the call
        box.append((start.substitute(values), length.substitute(values)))
    return box


def _covers(dims: Dims, box: list[tuple[Poly, Poly]] | None) -> bool:
    if not dims:
        return True  # the whole array
    if box is None or len(dims) > len(box):
        return False
    for (start_text, length_text), (start, length) in zip(dims, box, strict=False):
        low, size = expression_poly(start_text), expression_poly(length_text)
        if low is None or size is None:
            return False
        if not proves_nonnegative(start - low, []):
            return False
        if not proves_nonnegative(low + size - start - length, []):
            return False
    return True


def _why(
    hold: ArgHold, use: ArrayUse, box: list[tuple[Poly, Poly]] | None
) -> str | None:
    """Why offloading the loop breaks this hold, or None when it is proved."""
    if not hold.quiet:
        return (
            "host code may touch it while it is held, or the hold has no end "
            "there: offloaded, the loop would use a device copy the host's may "
            "not match"
        )
    if not _covers(hold.dims, box):
        return "the hold does not cover what the loop touches"
    if use.read_first and not hold.fresh:
        return "its device copy is not the host's when the loop starts"
    if use.written and not any(_covers(d, box) for d in hold.back):
        return "what the loop writes never comes back to the host there"
    return None


def _split(name: str) -> tuple[str, str]:
    """`p->a` as (`p`, `->a`); `a` as (`a`, "")."""
    name = re.sub(r"\s+", "", name)
    found = re.match(r"[A-Za-z_]\w*", name)
    base = found.group(0) if found else name
    return base, name[len(base) :]


def _held(
    fn: Function, use: ArrayUse, sentinel: str, calls: list[tuple[str, CallRecord]]
) -> list[tuple[str, CallRecord, ArgHold | None]]:
    base, member = _split(use.name)
    at = next((k for k, p in enumerate(fn.params) if p.name == base), None)
    var = fn.lookup(base)
    if at is None and (var is None or var.scope == "global"):
        at, member = -1, base  # a global: held by name around the call
    out: list[tuple[str, CallRecord, ArgHold | None]] = []
    for file, call in calls:
        hold = next(
            (
                h
                for h in call.holds
                if h.at == at and h.sentinel == sentinel and h.member == member
            ),
            None,
        )
        out.append((file, call, hold))
    return out


def remote_refusals(
    analysis: FileAnalysis,
    fn: Function,
    uses: Sequence[ArrayUse],
    sentinel: str,
    kernel: bool,
) -> list[str]:
    """Why other files' holds of `fn`'s parameters bar offloading its loop.

    `kernel`: `fn` runs no host code on its pointer parameters' data.
    """
    calls = remote_calls(analysis, fn)
    out: list[str] = []
    for use in uses:
        for file, call, hold in _held(fn, use, sentinel, calls):
            if hold is None:
                continue
            why = _why(hold, use, _box(use, fn, call))
            if why is None and not kernel:
                why = "the function's host code would use the host copy"
            if why is not None:
                where = f"{file}:{call.line}"
                kind = "a parameter" if hold.at >= 0 else "a global"
                out.append(
                    f"`{use.name}` ({kind}): `{call.caller}()` calls "
                    f"`{fn.name}()` at {where} inside a hold from line {hold.line}: "
                    + why
                )
                break
    return out


def remote_present(
    analysis: FileAnalysis, fn: Function, uses: Sequence[ArrayUse], sentinel: str
) -> bool:
    """True when every call of the program holds what `fn`'s loops touch, proved.

    The other files' calls must be all there are (a sealed whole program, the
    name never taken other than in a direct call); the file's own calls are
    the caller's to check.
    """
    program = analysis.program
    calls = remote_calls(analysis, fn)
    if (
        not calls
        or program is None
        or program.calls is None
        or not program.calls.usable(analysis.source)
        or program.calls.open_name(fn.name)
        or program.calls.definers(fn.name)
    ):
        return False
    return all(
        hold is not None and _why(hold, use, _box(use, fn, call)) is None
        for use in uses
        for _, call, hold in _held(fn, use, sentinel, calls)
    )
