from __future__ import annotations

from textwrap import dedent

import pytest
from accls.frontend import parse_source
from accls.frontend.incremental import IncrementalTree

TEXT = dedent(
    """\
    static double half(double v) { return v * 0.5; }
    void unused(int n) { for (int k = 0; k < n; k++) ; }
    void f(int n, double *restrict a) {
        for (int i = 0; i < n; i++)
            a[i] = half(a[i]);
    }
    """
).encode()


def test_edit_matches_a_fresh_parse() -> None:
    tree = IncrementalTree(TEXT)
    at = TEXT.index(b"a[i] = half")
    changed = tree.edit(at, at + 4, b"a[i + 0]")
    fresh = IncrementalTree(tree.data)
    assert tree.data == TEXT.replace(b"a[i] = half", b"a[i + 0] = half")
    assert str(tree.tree.root_node) == str(fresh.tree.root_node)
    assert any(r.start <= at < r.end for r in changed)


def test_many_small_edits_stay_in_step() -> None:
    tree = IncrementalTree(TEXT)
    data = TEXT
    for i in range(30):
        at = (i * 37) % len(data)
        new = b"/*x*/" if i % 3 else b""
        end = min(len(data), at + (i % 4))
        tree.edit(at, end, new)
        data = data[:at] + new + data[end:]
    assert tree.data == data
    assert str(tree.tree.root_node) == str(IncrementalTree(data).tree.root_node)


def test_bad_edit() -> None:
    tree = IncrementalTree(TEXT)
    with pytest.raises(ValueError, match="outside the buffer"):
        tree.edit(10, 5, b"")
    with pytest.raises(ValueError, match="outside the buffer"):
        tree.edit(0, len(TEXT) + 1, b"")


def test_snapshot_is_not_edited() -> None:
    tree = IncrementalTree(TEXT)
    copy = tree.snapshot()
    tree.edit(0, 6, b"")
    assert copy.data == TEXT
    assert str(copy.tree.root_node) == str(IncrementalTree(TEXT).tree.root_node)


def test_function_slice_keeps_offsets_and_callees() -> None:
    tree = IncrementalTree(TEXT)
    piece = tree.function_slice(TEXT.index(b"a[i] = half"))
    assert piece is not None
    data = piece.text.encode()
    assert len(data) == len(TEXT)
    assert data.count(b"\n") == TEXT.count(b"\n")
    assert b"return v * 0.5;" in data  # called: its purity matters
    assert b"for (int k" not in data  # not called: only its prototype is left
    assert b"void unused(int n) ;" in data
    whole = parse_source(TEXT.decode())
    sliced = parse_source(piece.text)
    (loop,) = [lp for lp in whole.loops() if lp.function == "f"]
    (same,) = sliced.loops()
    assert (same.id, same.span, same.var) == (loop.id, loop.span, loop.var)
    assert tree.function_slice(len(TEXT)) is None


def test_parse_source_reuses_the_tree() -> None:
    tree = IncrementalTree(TEXT)
    at = TEXT.index(b"0.5")
    tree.edit(at, at + 3, b"0.25")
    text = tree.data.decode()
    assert parse_source(text, tree=tree) == parse_source(text)
    stale = IncrementalTree(TEXT)  # a tree of other text is not used
    assert parse_source(text, tree=stale) == parse_source(text)
