"""Members reached through `&s` down a region's calls, with the locks they take."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_SRC = """\
    #include <omp.h>
    typedef struct { int count; int done; omp_lock_t lock; } box_t;
    static void put(box_t *b) {
      omp_set_lock(&b->lock);
      b->count++;
      omp_unset_lock(&b->lock);
    }
    static int empty(box_t *b) {
      {take}
      int e = b->count == 0;
      {drop}
      return e;
    }
    static void fill(box_t *b, int n) {
      for (int k = 0; k < n; k++) put(b);
    }
    static int drain(box_t *b) { return empty(b); }
    int run(int n) {
      box_t b;
      int seen = 0;
      b.count = 0;
      omp_init_lock(&b.lock);
      #pragma omp parallel sections
      {
        #pragma omp section
        fill(&b, n);
        #pragma omp section
        seen = drain(&b);
      }
      omp_destroy_lock(&b.lock);
      return seen;
    }
"""


def _errors(take: str, drop: str) -> list[tuple[str, dict[str, str]]]:
    text = textwrap.dedent(_SRC).replace("{take}", take).replace("{drop}", drop)
    found = check_file(text, "t.c")
    return [(f.code, dict(f.args)) for f in found if f.level.name == "ERROR"]


def test_an_unlocked_read_two_calls_down_races_with_a_locked_update() -> None:
    found = _errors("", "")
    assert [code for code, _ in found] == ["ACC124"]
    assert (found[0][1]["write"], found[0][1]["other"]) == ("5", "10")


def test_the_read_under_the_same_lock_is_no_race() -> None:
    assert _errors("omp_set_lock(&b->lock);", "omp_unset_lock(&b->lock);") == []


def test_a_lock_taken_under_a_branch_is_not_followed() -> None:
    # the walk gives up; the verdict is left to the other checks, never a guess
    take = "if (b->done) omp_set_lock(&b->lock);"
    drop = "if (b->done) omp_unset_lock(&b->lock);"
    assert all(code != "ACC124" for code, _ in _errors(take, drop))
