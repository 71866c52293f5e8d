"""Hand-made producer/consumer sync: an atomic flag stored, then awaited in a loop."""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.mhp_model import Access, RegionModel
from accls.frontend import AccessKind, Span

__all__ = ["Handoff", "handoff_between", "handoffs"]

_RELEASES = frozenset({"release", "acq_rel", "seq_cst"})
_ACQUIRES = frozenset({"acquire", "acq_rel", "seq_cst"})
_ONE_THREAD = frozenset({"master", "single", "section"})


@dataclass(frozen=True, slots=True)
class Handoff:
    """One thread stores `flag` atomically; others spin on an atomic load of it."""

    store: Access
    load: Access
    spin: Span  # the loop body around the load


def handoffs(model: RegionModel) -> list[Handoff]:
    """Every store of a flag by one thread paired with a spinning load of it."""
    stores = [
        x
        for x in model.accesses
        if x.atomic and x.ref.is_write and x.unit.kind in _ONE_THREAD
    ]
    out: list[Handoff] = []
    for load in model.accesses:
        if not load.atomic or load.ref.kind is not AccessKind.READ:
            continue
        spins = [s for s in model.loops if s.start_byte <= load.pos < s.end_byte]
        if not spins:
            continue
        spin = min(spins, key=lambda s: s.end_byte - s.start_byte)
        for store in stores:
            if store.location.name == load.location.name and store.unit != load.unit:
                out.append(Handoff(store, load, spin))
    return out


def _flushed(model: RegionModel, low: int, high: int) -> bool:
    return any(low < at < high for at in model.flushes)


def handoff_between(
    model: RegionModel, found: list[Handoff], a: Access, b: Access
) -> tuple[bool, str] | None:
    """How a hand-off orders the pair: (True, "") when it does, (False, why) when not.

    The producer's access must come before the store, on the storing thread;
    the consumer's after the spin loop. The store must release (its memory
    order, or a `flush` before it) and the load acquire (its order, or a
    `flush` after the loop). None when no hand-off stands between them.
    """
    for made in found:
        store, load = made.store, made.load
        for first, second in ((a, b), (b, a)):
            if first.unit != store.unit or not first.pos < store.pos:
                continue
            if second.unit != load.unit or second.pos < made.spin.end_byte:
                continue
            releases = store.order in _RELEASES or _flushed(model, first.pos, store.pos)
            acquires = load.order in _ACQUIRES or _flushed(
                model, made.spin.end_byte - 1, second.pos
            )
            if releases and acquires:
                return True, ""
            flag, side = store.location.name, load if releases else store
            word = "load" if releases else "store"
            missing = "acquire" if releases else "release"
            return False, (
                f"the atomic {word} of `{flag}` at line {side.ref.span.line} is not "
                f"`{missing}` (nor next to a `flush`): seeing the flag set does not "
                f"make line {first.ref.span.line}'s access visible"
            )
    return None
