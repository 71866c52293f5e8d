"""Pairs `a[i]`, `a[i ^ j]` that only the lower index updates do not race."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text


def _parallel(body: str, guard: str = "l > i", head: str = "int l = i ^ j;") -> bool:
    """Whether the `i` loop of a bitonic stage with this pair body is parallel."""
    text = (
        "#define N 64\nint b[N];\n"
        "void stage(int j, int k) {\n"
        "  for (int i = 0; i < N; i++) {\n"
        f"    {head}\n"
        f"    if ({guard}) {{\n{body}\n    }}\n"
        "  }\n}\n"
    )
    facts = {f.loop.var: f for f in analyze_text(text).facts}
    return facts["i"].parallel


_SWAP = "int t = b[i]; b[i] = b[l]; b[l] = t;"
_BITONIC = (
    "if (((i & k) == 0) == (b[i] > b[l])) { int t = b[i]; b[i] = b[l]; b[l] = t; }"
)


@pytest.mark.parametrize("body", [_SWAP, _BITONIC])
def test_pairs_under_the_lower_index_are_parallel(body: str) -> None:
    assert _parallel(body)


def test_any_invariant_partner_pairs_are_disjoint() -> None:
    # `j` need not be a power of two: `x -> x ^ j` undoes itself for every `j`.
    assert _parallel(_SWAP, head="int l = (j + 1) ^ i;")


def test_an_integer_macro_is_an_invariant_partner() -> None:
    assert _parallel(_SWAP, head="int l = i ^ (N / 2);")


def test_the_mirrored_guard_counts() -> None:
    assert _parallel(_SWAP, guard="i < l")


@pytest.mark.parametrize(
    ("guard", "head"),
    [
        ("l != i", "int l = i ^ j;"),  # both members of a pair run the body
        ("l > i", "int l = i ^ (i >> 1);"),  # the partner's partner is not `i`
        ("l > i", "int l = i + j;"),  # no pairs: `i + j` meets `i + 2j`
        ("l > i", "int l = i ^ b[0];"),  # the loop writes b[0]
        ("l > i", "unsigned char l = i ^ j;"),  # cut short: no longer an involution
    ],
)
def test_other_partners_stay_serial(guard: str, head: str) -> None:
    assert not _parallel(_SWAP, guard, head)


def test_a_partner_set_in_a_branch_stays_serial() -> None:
    head = "int l = i; if (j > 2) l = i ^ j;"
    assert not _parallel(_SWAP, head=head)


def test_a_partner_that_changes_before_the_use_stays_serial() -> None:
    assert not _parallel(f"l = l + 1; {_SWAP}")


def test_a_reference_outside_the_guard_stays_serial() -> None:
    text = (
        "#define N 64\nint b[N];\n"
        "void stage(int j) {\n"
        "  for (int i = 0; i < N; i++) {\n"
        "    int l = i ^ j;\n"
        "    b[l] += 1;\n"
        "    if (l > i) { int t = b[i]; b[i] = b[l]; b[l] = t; }\n"
        "  }\n}\n"
    )
    (facts,) = analyze_text(text).facts
    assert not facts.parallel


def test_a_changing_mask_stays_serial() -> None:
    text = (
        "#define N 64\nint b[N];\n"
        "void stage(int j) {\n"
        "  for (int i = 0; i < N; i++) {\n"
        "    int l = i ^ j;\n"
        "    if (l > i) { int t = b[i]; b[i] = b[l]; b[l] = t; j = j + 1; }\n"
        "  }\n}\n"
    )
    (facts,) = analyze_text(text).facts
    assert not facts.parallel
