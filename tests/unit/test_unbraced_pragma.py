"""A pragma put on the unbraced body of a statement comes with `{ }` around it.

Without them a parser that does not preprocess (tree-sitter) ends the outer loop
at the directive line, and the race check of the suggestions then read the outer
loop's variable as used after an earlier loop: a false ACC106 withdrew it.
"""

from __future__ import annotations

from dataclasses import replace
from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import (
    Dialect,
    Suggestion,
    SuggestOptions,
    Target,
    parse_pragma,
    suggest_file,
)
from accls.suggest.annotate import annotate_text
from accls.suggest.unbraced import unbraced_body
from accls.validation.race_check import race_check

OMP = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)

# The first loop's `j` is written again (`j = 0`) by the tile loop before the
# inner header reads it: nothing reads the first loop's last `j`. The tile nest
# is two deep, so that the misread write there (in the `i` loop) did not cover
# the read.
TILED = dedent(
    """
    void f(int n, double *restrict a, double *restrict b) {
      int i, j, k;
      for (j = 0; j < n; j++)
        a[j] = 0.0;
      if (n > 4) {
        for (i = 0; i < n; i += 4)
          for (j = 0; j < n; j += 4)
            for (k = j; k < n; k++)
              b[k] = a[k] + i;
      }
    }
    """
)


def _suggest(text: str) -> tuple[Suggestion, ...]:
    analysis = analyze_text(text, "t.c", options=AnalysisOptions(dialect="omp"))
    return suggest_file(analysis, OMP)


def _by_line(suggestions: tuple[Suggestion, ...], line: int) -> Suggestion:
    return next(s for s in suggestions if s.loop.line == line)


def test_statement_after_a_header_else_or_do_is_an_unbraced_body() -> None:
    def at(text: str) -> bool:
        data = text.encode()
        return unbraced_body(data, data.index(b"for (i"))

    assert at("for (j = 0; j < n; j++)\n  for (i = 0; i < n; i++) ;")
    assert at("if (c) x = 1;\nelse\n  for (i = 0; i < n; i++) ;")
    assert at("do /* c */\n  for (i = 0; i < n; i++) ;")
    assert at("while (k)  // why\n  /* more */\n\n  for (i = 0; i < n; i++) ;")
    assert at("for (j = 0; j < n; j++) for (i = 0; i < n; i++) ;")
    assert not at("x = 1;\nfor (i = 0; i < n; i++) ;")
    assert not at("{\n  for (i = 0; i < n; i++) ;")
    assert not at("}\nfor (i = 0; i < n; i++) ;")
    assert not at("undo\nfor (i = 0; i < n; i++) ;")
    # A directive of the user's own in between: not ours to move into braces.
    assert not at(
        "for (j = 0; j < n; j++)\n#pragma unroll\n  for (i = 0; i < n; i++) ;"
    )


def test_the_inner_pragma_is_braced_and_its_loop_stays_inside() -> None:
    found = _suggest(TILED)
    inner = _by_line(found, 9)
    assert inner.pragma is not None
    annotated = annotate_text(TILED, (inner,))
    assert "        {\n        #pragma omp parallel for" in annotated
    assert annotated.rstrip().endswith("b[k] = a[k] + i;\n        }\n  }\n}")
    again = analyze_text(annotated, "t.c", options=AnalysisOptions(dialect="omp"))
    outer = next(loop for loop in again.source.loops() if loop.line == 8)
    assert [child.var for child in outer.children] == ["k"]


def test_the_race_check_no_longer_withdraws_the_earlier_loop() -> None:
    found = _suggest(TILED)
    first, inner = _by_line(found, 4), _by_line(found, 9)
    assert first.pragma is not None
    assert inner.pragma is not None
    assert race_check(TILED, "t.c", (first, inner), "omp") == {}


def _missing_lastprivate(text: str) -> set[str]:
    """The codes the race check gives the first loop with a bare pragma."""
    found = _suggest(text)
    first, inner = _by_line(found, 4), _by_line(found, 9)
    assert inner.pragma is not None
    bare = replace(first, pragma=parse_pragma("#pragma omp parallel for"))
    races = race_check(text, "t.c", (bare, inner), "omp")
    return {f.code for f in races.get(first.loop.id, ())}


def test_a_real_read_after_the_loop_is_still_flagged() -> None:
    assert _missing_lastprivate(TILED) == set()
    # Read right after the first loop (on the next header's line, so that the
    # loops keep their lines): its last value is used.
    read = TILED.replace(
        "    for (j = 0; j < n; j += 4)", "    b[0] = j; for (j = 0; j < n; j += 4)"
    )
    assert "ACC106" in _missing_lastprivate(read)
    # A later loop that goes on from `j` without setting it reads it too.
    on = TILED.replace("for (j = 0; j < n; j += 4)", "for (; j < n; j += 4)")
    assert "ACC106" in _missing_lastprivate(on)
