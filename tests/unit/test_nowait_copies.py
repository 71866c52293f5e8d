"""A `nowait` loop's copy-out (`lastprivate`, `reduction`) read by the next loop."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_REGION = """\
    #define N 1000
    double a[N], c[N];
    void f(void) {{
      double last = 0.0;
    #pragma omp parallel
      {{
    #pragma omp for {first}
        for (int i = 0; i < N; i++)
          last = a[i] * 2.0;
        {between}
    #pragma omp for {second}
        for (int j = 0; j < N; j++)
          c[j] = a[j] + {used};
      }}
    }}
"""


def _errors(
    first: str, second: str = "", used: str = "last", between: str = ""
) -> list[tuple[str, int, str]]:
    src = _REGION.format(first=first, second=second, used=used, between=between)
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.message) for f in found if f.level.name == "ERROR"]


def test_a_lastprivate_copy_out_past_nowait_races_with_the_next_loop() -> None:
    ((code, line, message),) = _errors("lastprivate(last) nowait")
    assert (code, line) == ("ACC111", 13)
    assert "`last` is written at line 9" in message


def test_a_reduction_past_nowait_races_with_the_next_loop() -> None:
    ((code, line, _),) = _errors("reduction(max: last) nowait")
    assert (code, line) == ("ACC111", 13)


def test_the_same_static_schedule_does_not_save_the_copy_out() -> None:
    # The copying thread runs the last iteration; the others read without waiting.
    found = _errors("lastprivate(last) schedule(static) nowait", "schedule(static)")
    assert [code for code, _, _ in found] == ["ACC111"]


def test_race_free_twins_are_not_flagged() -> None:
    assert _errors("lastprivate(last)") == []  # the loop's barrier
    assert _errors("lastprivate(last) nowait", between="#pragma omp barrier") == []
    assert _errors("lastprivate(last) nowait", used="1.0") == []  # never read
    assert _errors("lastprivate(last) nowait", "private(last)", "(last = 1.0)") == []
