"""Facts of scalars fixed before a loop nest: `ss == 4*r + 1`, `r >= 0`."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.analysis.symbol_facts import function_facts, nest_facts
from accls.frontend import parse_source

LOOP = """\
  for (int row = 0; row < n; row++) {
    int elm = row * width;
    col[elm] = row;
    for (int r = 1; r <= radius; r++, elm += 4) {
      col[elm + 1] = r;
      col[elm + 4] = -r;
    }
  }
"""


def _run(head: str, loop: str = LOOP) -> str:
    return (
        "void bump(int *p);\n"
        "void run(long *col, int n, int radius, int k) {\n"
        f"{head}{loop}}}\n"
    )


def _notes(text: str) -> list[str]:
    source = parse_source(text)
    nest = next(n for n in source.nests if n.var == "row")
    facts = function_facts(source.function("run"), source, {})
    return [f.note for f in nest_facts(facts, nest)]


def _parallel(text: str) -> bool:
    found = analyze_text(text).facts
    return next(f for f in found if f.loop.var == "row").parallel


GUARD = "  if (radius < 0) {\n    return;\n  }\n"
WIDTH = "  int width = 4 * radius + 1;\n"


def test_an_assignment_and_a_guard_make_the_rows_provable() -> None:
    text = _run(GUARD + WIDTH)
    assert _notes(text) == [
        "`width` is 4 * radius + 1 (line 6)",
        "not (radius < 0): that case leaves the function (line 3)",
    ]
    assert _parallel(text)
    facts = analyze_text(text).facts
    why = " ".join(next(f for f in facts if f.loop.var == "row").call_effects)
    assert "`width` is 4 * radius + 1" in why


def test_a_guard_of_several_cases_gives_each() -> None:
    text = _run("  if (radius < 0 || k != 3) exit(1);\n" + WIDTH)
    assert _notes(text)[1] == (
        "not (radius < 0 || k != 3): that case leaves the function (line 3)"
    )
    assert _parallel(text)


@pytest.mark.parametrize(
    "head",
    [
        WIDTH,  # `radius` may be negative: `width` may be 0
        GUARD + WIDTH + "  bump(&radius);\n",  # changed through its address
        GUARD + WIDTH + "  radius = radius + 1;\n",  # assigned after `width`
        GUARD + "  int width = 4 * radius + 1;\n  if (k) width = 1;\n",  # twice
        GUARD + "  int width;\n  if (k) width = 4 * radius + 1;\n",  # in a branch
        "  if (radius < 0) {\n    k = 1;\n  }\n" + WIDTH,  # the guard does not leave
        "  if (radius < 0) {\n    if (k) return;\n  }\n" + WIDTH,  # nor always
        "  if (radius < 0 && k) return;\n" + WIDTH,  # `&&`: no fact about radius
        "  switch (k) { case 1: if (radius < 0) return; }\n" + WIDTH,
        GUARD + WIDTH + "  again: k++;\n  if (k < 3) goto again;\n",
        GUARD + "  int width = 4 * radius;\n",  # `elm + 4` reaches the next row
        GUARD + "  unsigned width = 4 * radius + 1;\n",  # wraps around
        GUARD + "  int width = (short)(4 * radius + 1);\n",  # converted
        "  if ((short)radius < 0) return;\n" + WIDTH,
        # A GNU nested function writes them whenever it is called.
        GUARD + WIDTH + "  void wider(void) { width += 4; }\n  wider();\n",
        GUARD + WIDTH + "  void grow(void) { radius++; }\n  grow();\n",
    ],
)
def test_loops_the_facts_do_not_prove_are_refused(head: str) -> None:
    assert not _parallel(_run(head))


def test_facts_of_names_the_nest_never_reads_are_left_out() -> None:
    text = _run(GUARD + WIDTH + "  int unused = 2 * k;\n")
    assert not any("unused" in note for note in _notes(text))


@pytest.mark.parametrize(
    ("upper", "parallel"),
    [
        ("(row + 1) * w", True),  # row `row` of `w`: offsets in [0, w)
        ("row * w + w", True),
        ("(row + 2) * w", False),  # two rows: the next iteration's too
        ("(row + 1) * w + 1", False),  # one past the row
    ],
)
def test_a_loop_counted_over_one_row_splits_into_rows(
    upper: str, parallel: bool
) -> None:
    text = (
        "void run(double *v, int n, int w) {\n"
        "  for (int row = 0; row < n; row++)\n"
        f"    for (int e = row * w; e < {upper}; e++)\n"
        "      v[e] = v[e] + 1.0;\n}\n"
    )
    assert _parallel(text) is parallel


def test_the_fixture_fill_loop_is_parallel_on_the_host() -> None:
    path = Path(__file__).parents[1] / "fixtures" / "c" / "symbol_facts_rows.c"
    found = analyze_text(path.read_text(encoding="utf-8"), str(path)).facts
    fill = next(f for f in found if f.loop.function == "fill" and f.loop.var == "row")
    assert fill.parallel


def _rows(head: str, tail: str = "") -> str:
    return (
        "void run(double *restrict a, long order, long block, int k) {\n"
        "  long istart;\n"
        f"{head}"
        "  for (long j = 0; j < block; j++)\n"
        "    for (long i = 0; i < order; i++)\n"
        "      a[(i + istart) + order * j] = 1.0;\n"
        f"{tail}}}\n"
    )


def _outer_parallel(text: str) -> bool:
    found = analyze_text(text).facts
    return next(f for f in found if f.loop.var == "j").parallel


@pytest.mark.parametrize(
    ("head", "tail"),
    [
        ("  istart = 0;\n", "  istart = 7;\n  a[istart] = 0.0;\n"),  # later write
        ("  istart = 5;\n  k = k + istart;\n  istart = 0;\n", ""),  # earlier one
    ],
)
def test_an_assignment_holds_until_the_next_write(head: str, tail: str) -> None:
    assert _outer_parallel(_rows(head, tail))


@pytest.mark.parametrize(
    "text",
    [
        _rows("  istart = 0;\n  if (k) istart = 1;\n"),  # a write in between
        _rows("  istart = 0;\n  istart = k;\n"),  # the last value is unknown
        # A loop around the nest runs the next write before its later passes.
        _rows("  istart = 0;\n  while (k-- > 0) {\n", "  istart = 1;\n  }\n"),
        _rows("  istart = 0;\n  do {\n", "  } while ((istart = k--) > 0);\n"),
    ],
)
def test_an_assignment_another_write_may_follow_proves_nothing(text: str) -> None:
    assert not _outer_parallel(text)


_CHECKS = "  if (k < 0) goto done;\n  k = 1;\n  done:;\n"


def test_a_goto_landing_before_the_assignment_leaves_its_fact() -> None:
    assert _outer_parallel(_rows(_CHECKS + "  istart = 0;\n", "  istart = 1;\n"))


@pytest.mark.parametrize(
    "head",
    [
        # The jump lands between the assignment and the nest: it skips it.
        "  istart = 5;\n  if (k < 0) goto done;\n  istart = 0;\n  done:;\n",
        "  if (k < 0) goto done;\n  istart = 0;\n  done:;\n",
        # A label the text does not show: nothing is known of where it lands.
        "  istart = 0;\n  if (k < 0) goto done;\n",
    ],
)
def test_a_goto_landing_after_the_assignment_proves_nothing(head: str) -> None:
    assert not _outer_parallel(_rows(head, "  done2:;\n"))


def test_a_cpp_lambda_write_may_run_between_the_assignment_and_the_nest() -> None:
    text = _rows(
        "  auto shift = [&]() { istart = 5; };\n  istart = 0;\n  shift();\n"
    ).replace("double *restrict a", "double *__restrict a")
    found = analyze_text(text, "k.cpp").facts
    assert not next(f for f in found if f.loop.var == "j").parallel


def test_a_scalar_a_nested_function_writes_is_no_constant() -> None:
    text = (
        "void run(double *a, int n) {\n"
        "  int k = 0;\n"
        "  void bump(void) { k = k + 1; }\n"
        "  bump();\n"
        "  for (int i = 1; i < n; i++) {\n"
        "    a[i] = a[i - k] + 1.0;\n"
        "  }\n"
        "}\n"
    )
    assert not analyze_text(text).facts[0].parallel


@pytest.mark.parametrize(
    "head",
    [
        "  int k;\n  void bump(void) { k = k + 1; }\n  k = 0;\n",
        "  int k = 0;\n  void bump(void) { k = k + 1; }\n  k = 0;\n",
    ],
)
def test_an_assignment_after_a_nested_function_that_writes_it_is_no_constant(
    head: str,
) -> None:
    # The nested function's write is recorded where it is defined, but it runs
    # at the call, after the assignment: `k` is 1 at the nest.
    text = (
        "void run(double *a, int n) {\n"
        f"{head}"
        "  bump();\n"
        "  for (int i = 1; i < n; i++) {\n"
        "    a[i] = a[i - k] + 1.0;\n"
        "  }\n"
        "}\n"
    )
    assert not analyze_text(text).facts[0].parallel
