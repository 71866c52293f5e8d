"""A subscripted string literal (`"ACGT"[k]`) is a read-only object of its own.

harm_blind3 `k03` lost two loops `seq[i] = "ACGT"[...]` to "the declaration of
`"ACGT"` is not visible here, so it may point into the other": a literal was
taken for a hidden pointer. Writing a literal is undefined, so it overlaps no
array a loop writes, and an offloaded loop finds it in the device code: it is
never named in a data clause.
"""

from __future__ import annotations

from textwrap import dedent

from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

SRC = dedent(
    """\
    #define L 4000
    static char seq[L + 1];
    static double w[L], v[L];
    void fill(void) {
      for (int i = 1; i <= L; i++) seq[i] = "ACGT"[(i * 7 + i / 13) % 4];
      for (int i = 0; i < L; i++) v[i] = w[i] + u8"xyz"[i % 3];
    }
    """
)


def _pragmas(dialect: Dialect) -> list[str]:
    settings = Settings(dialect=dialect, validate=False)
    found = suggest_text(SRC, "k.c", settings).suggestions
    return [s.pragma.render() if s.pragma is not None else "" for s in found]


def test_a_literal_table_does_not_block_the_loop() -> None:
    assert all(_pragmas(Dialect.OPENMP))


def test_an_offloaded_loop_maps_no_literal() -> None:
    spelled = _pragmas(Dialect.OPENACC)
    assert spelled[0]
    assert not any('"' in p for p in spelled)
