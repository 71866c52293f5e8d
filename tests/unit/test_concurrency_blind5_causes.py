"""Causes found by the fifth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(c, line) for c, line, level in _found(src) if level == "ERROR"]


_SLOTS = """\
    #include <omp.h>
    int a[64], b[64];
    void f(void) {
      #pragma omp parallel{team}
      {
        int t = omp_get_thread_num();
        int n = omp_get_num_threads();
        a[t] = t;{barrier}
        b[t] = a[{read}];
      }
    }
"""


def _slots(read: str, team: str = "", barrier: str = "") -> str:
    return (
        _SLOTS.replace("{read}", read)
        .replace("{team}", team)
        .replace("{barrier}", barrier)
    )


def test_team_size_in_a_thread_slot_is_followed() -> None:
    # `n` is the team size: thread 0 reads the slot thread 1 writes.
    assert ("ACC120", 9) in _errors(_slots("(t + 1) % n"))
    assert ("ACC120", 9) in _errors(_slots("n - 1 - t", " num_threads(4)"))
    assert ("ACC120", 9) in _errors(_slots("(t + 1) % 4"))


def test_team_size_slot_after_a_barrier_is_clean() -> None:
    assert _errors(_slots("(t + 1) % n", barrier="\n    #pragma omp barrier")) == []


def test_own_slot_through_the_team_size_is_clean() -> None:
    # `t % n` is `t` itself; `t + n` is past every thread's own slot.
    assert _found(_slots("t % n", " num_threads(4)")) == []
    # Without `num_threads` only the teams of 2..8 are tried: a warning at most.
    assert _errors(_slots("t % n")) == []
    assert _found(_slots("t + n", " num_threads(4)")) == []


def test_slot_that_meets_only_in_large_teams_is_a_warning() -> None:
    # Teams of 2..8 never read a slot a thread writes; a team of 10 does.
    found = _found(_slots("(t + 9) % 64"))
    assert [(c, level) for c, _, level in found] == [("ACC123", "WARNING")]


def test_team_size_rewritten_in_the_region_is_not_followed() -> None:
    src = _slots("(t + 1) % n").replace("a[t] = t;", "a[t] = t; n = n / 2;")
    assert not any(c == "ACC120" for c, _ in _errors(src))


_SPIN = """\
    #include <stdio.h>
    int main(void) {
      int data = 0, flag = 0;
      #pragma omp parallel sections num_threads(2)
      {
        #pragma omp section
        {
          data = 1;
          #pragma omp flush
          {write}
        }
        #pragma omp section
        {
          {spin}
          printf("%d\\n", data);
        }
      }
      return 0;
    }
"""


def test_plain_flag_spun_on_in_a_while_condition_races() -> None:
    src = _SPIN.replace("{write}", "flag = 1;").replace(
        "{spin}", "while (flag == 0) {\n      #pragma omp flush\n      }"
    )
    assert ("ACC120", 14) in _errors(src)


def test_plain_flag_spun_on_in_a_do_while_condition_races() -> None:
    src = _SPIN.replace("{write}", "flag = 1;").replace(
        "{spin}", "do {\n      #pragma omp flush\n      } while (!flag);"
    )
    assert ("ACC120", 16) in _errors(src)


def test_atomic_flag_in_a_while_condition_is_no_race() -> None:
    src = _SPIN.replace(
        "{write}", "#pragma omp atomic write release\n      flag = 1;"
    ).replace(
        "{spin}",
        "int f = 0;\n      while (!f) {\n      #pragma omp atomic read acquire\n"
        "      f = flag;\n      }",
    )
    assert _errors(src) == []
