"""Typed cache slots on a document: per version, per slot, bounded per function."""

from __future__ import annotations

from typing import assert_type

from accls.server.documents import FUNCTIONS_KEPT, Document, Slot

NUMBERS: Slot[str, int] = Slot("numbers")
OTHER_NUMBERS: Slot[str, int] = Slot("numbers")
PER_FUNCTION: Slot[int, str] = Slot("per function", per_function=True)
PER_LOOP: Slot[int, str] = Slot("per loop", per_function=True)


def _doc() -> Document:
    return Document("file:///a.c", 1, "int x;\n", "utf-16")


def test_a_slot_returns_what_was_stored_with_its_type() -> None:
    doc = _doc()
    assert doc.peek(NUMBERS, "a") is None
    doc.store(NUMBERS, "a", 3)
    found = doc.peek(NUMBERS, "a")
    assert_type(found, int | None)
    assert found == 3
    assert doc.peek(NUMBERS, "b") is None


def test_slots_with_the_same_name_do_not_share_entries() -> None:
    doc = _doc()
    doc.store(NUMBERS, "a", 1)
    doc.store(OTHER_NUMBERS, "a", 2)
    assert (doc.peek(NUMBERS, "a"), doc.peek(OTHER_NUMBERS, "a")) == (1, 2)
    assert doc.entries(NUMBERS) == [("a", 1)]


def test_entries_lists_one_slot_in_insertion_order() -> None:
    doc = _doc()
    doc.store(NUMBERS, "b", 2)
    doc.store(PER_FUNCTION, 7, "seven")
    doc.store(NUMBERS, "a", 1)
    entries = doc.entries(NUMBERS)
    assert_type(entries, list[tuple[str, int]])
    assert entries == [("b", 2), ("a", 1)]
    assert doc.entries(PER_FUNCTION) == [(7, "seven")]


def test_per_function_entries_keep_the_most_recently_used() -> None:
    doc = _doc()
    doc.store(NUMBERS, "kept", 0)
    for n in range(FUNCTIONS_KEPT):
        doc.store(PER_FUNCTION, n, str(n))
    assert doc.peek(PER_FUNCTION, 0) == "0"  # used: now the most recent
    doc.store(PER_FUNCTION, FUNCTIONS_KEPT, "new")
    assert doc.peek(PER_FUNCTION, 1) is None  # the least recently used went
    assert doc.peek(PER_FUNCTION, 0) == "0"
    assert doc.peek(PER_FUNCTION, FUNCTIONS_KEPT) == "new"
    assert len(doc.entries(PER_FUNCTION)) == FUNCTIONS_KEPT
    assert doc.peek(NUMBERS, "kept") == 0  # other slots are not bounded


def test_each_per_function_slot_keeps_its_own_most_recent() -> None:
    doc = _doc()
    doc.store(PER_FUNCTION, 0, "analysis")
    for n in range(2 * FUNCTIONS_KEPT):  # a listing's many per-loop entries
        doc.store(PER_LOOP, n, str(n))
    assert doc.peek(PER_FUNCTION, 0) == "analysis"
    assert len(doc.entries(PER_LOOP)) == FUNCTIONS_KEPT


def test_a_new_version_forgets_every_slot() -> None:
    doc = _doc()
    doc.store(NUMBERS, "a", 1)
    doc.store(PER_FUNCTION, 1, "one")
    doc.apply(2, [])
    assert doc.peek(NUMBERS, "a") is None
    assert doc.entries(PER_FUNCTION) == []
