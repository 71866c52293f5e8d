"""A running best value kept with its index gets one reason: an argmin, not a min."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, ObstacleCode, analyze
from accls.frontend import parse_source


def _obstacles(text: str) -> dict[int, list[tuple[ObstacleCode, str]]]:
    source = parse_source(dedent(text), "k.c")
    analysis = analyze(source, AnalysisOptions(assume_no_alias=True))
    return {
        f.loop.line: [(o.code, o.message) for o in f.obstacles] for f in analysis.facts
    }


def test_a_minimum_with_its_index_is_one_argmin_reason() -> None:
    found = _obstacles(
        """\
        int argmin(const double *a, const double *b, int n) {
          double best = 1e30;
          int where = -1;
          for (int i = 0; i < n; i++) {
            double d = a[i] * a[i];
            if (b[i] != 0.0) {
              d = d + b[i];
              if (d < best) {
                best = d;
                where = i;
              }
            }
          }
          return where + (int)best;
        }
        """
    )
    (only,) = found[4]
    assert only[0] is ObstacleCode.SCALAR_CARRIED
    assert only[1].startswith(
        "`best` and `where` are set together under one condition (lines 9 and 10)"
    )
    assert "argmin or argmax" in only[1]


def test_unrelated_carried_and_conditional_scalars_keep_their_reasons() -> None:
    found = _obstacles(
        """\
        int f(const double *a, int n) {
          double run = 0;
          int seen = 0;
          for (int i = 0; i < n; i++) {
            run = run * 0.5 + a[i];
            if (a[i] > 1.0) seen = i;
          }
          return seen + (int)run;
        }
        """
    )
    codes = sorted(str(code) for code, _ in found[4])
    assert codes == sorted(
        [str(ObstacleCode.SCALAR_CARRIED), str(ObstacleCode.CONDITIONAL_LAST)]
    )
    assert all("argmin" not in message for _, message in found[4])
