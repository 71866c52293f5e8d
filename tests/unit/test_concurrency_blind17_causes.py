"""Causes found by the seventeenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(code, line) for code, line, level in _found(src) if level == "ERROR"]


_BLOCKS = """\
    #define BLOCK 64
    void block_sums(double *partial, const double *v, int n) {
      #pragma omp parallel
      #pragma omp single
      #pragma omp taskloop grainsize(BLOCK)
      for (int i = {low}; i < n; {step})
        partial[i / BLOCK] += v[i];
    }
"""


def test_a_quotient_index_races_from_the_first_two_iterations_of_an_open_loop() -> None:
    # iterations 0 and 1 add into `partial[0]` whatever `n` is, once it is 2 or more
    src = _BLOCKS.replace("{low}", "0").replace("{step}", "i++")
    assert ("ACC101", 7) in _errors(src)


def test_a_quotient_index_whose_first_iterations_part_stays_a_doubt() -> None:
    # `i += BLOCK` keeps every quotient apart; from 63, iterations 63 and 64 differ
    stepped = _BLOCKS.replace("{low}", "0").replace("{step}", "i += BLOCK")
    assert _errors(stepped) == []
    late = _BLOCKS.replace("{low}", "63").replace("{step}", "i++")
    assert _errors(late) == []
