"""Shifts of one direction commute: an inner loop of atomic `<<=` runs in parallel."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze_text
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)


def _source(elem: str, body: str) -> str:
    return dedent(
        f"""\
        void f({elem} *restrict a, const unsigned *restrict b, int *restrict c,
               int n) {{
          for (int x = 0; x < n; ++x) {{
            for (int y = 0; y < 7; ++y) {{
              if ((b[x] >> y) % 2 == 1) {{
                {body}
              }}
            }}
          }}
        }}
        """
    )


def _inner(text: str) -> LoopFacts:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    return next(f for f in analysis.facts if f.loop.var == "y")


@pytest.mark.parametrize(
    ("elem", "body"),
    [
        ("unsigned", "a[x] <<= 1;"),
        ("unsigned long", "a[x] <<= (unsigned)(y & 3);"),
        ("unsigned", "a[x] >>= 1;"),
        ("int", "a[x] >>= 2;"),
        ("unsigned", "a[x] <<= 1;\n a[x] <<= 2;"),
        ("unsigned", "a[x] = a[x] << 1;"),
        ("unsigned char", "a[x] = (a[x]) >> (y & 1);\n a[x] >>= 1;"),
    ],
)
def test_one_direction_takes_atomic_updates(elem: str, body: str) -> None:
    text = _source(elem, body)
    facts = _inner(text)
    assert facts.parallel, facts.obstacles
    assert {r.name for r in facts.atomics} == {"a"}
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    inner = next(s for s in suggest_file(analysis, ACC) if s.loop.var == "y")
    assert inner.pragma is not None
    assert [a.pragma.render() for a in inner.atomics] == [
        "#pragma acc atomic update"
    ] * body.count(";")


@pytest.mark.parametrize(
    ("elem", "body"),
    [
        ("unsigned", "a[x] <<= 1;\n a[x] >>= 1;"),  # two directions
        ("unsigned", "a[x] <<= 1;\n a[x] += 1;"),  # a shift and a sum
        ("int", "a[x] <<= 1;"),  # a signed value may be negative
        ("char", "a[x] <<= 1;"),  # a plain char may be signed
        ("unsigned char", "a[x] <<= 1;"),  # shifted as an int, which may overflow
        ("unsigned", "a[x] <<= a[0] & 1;"),  # the amount reads the array
        ("unsigned", "c[x * 7 + y] = a[x];\n a[x] <<= 1;"),  # read, then shifted
        ("unsigned", "c[x * 7 + y] = a[x] <<= 1;"),  # the value is captured
        ("unsigned", "a[x] = 1u << a[x];"),  # the element is the amount
        ("unsigned", "a[x] = a[x] << a[0];"),  # the amount reads the array
        ("unsigned", "a[x] = a[x] << 1;\n a[x] = a[x] >> 1;"),  # two directions
        ("float", "a[x] *= 2;\n a[x] = a[x] / 3;"),  # not a shift at all
    ],
)
def test_order_dependent_shifts_stay_serial(elem: str, body: str) -> None:
    facts = _inner(_source(elem, body))
    assert not facts.parallel
    assert not facts.atomics
