"""Adjacent bit-fields are one memory location: iterations writing two of them race.

`p[i].lo = ..; p[i - 1].hi = ..` touches two fields, but `lo` and `hi` share a
byte, and a store to one is a read-modify-write of that byte: iteration `i`
writing `p[i - 1].hi` and iteration `i - 1` writing `p[i - 1].lo` lose each
other's bits (Archer reports the race; found probing harm blind batch 13). A run
of bit-fields is one group for the dependence test and the alias paths; a
member that is not a bit-field ends the run, and ordinary fields stay apart.
"""

from __future__ import annotations

from accls.analysis import AnalysisOptions, analyze_text

_C = """
#define N 400
struct pair { unsigned lo : 4; unsigned hi : 4; };
struct mix { unsigned f : 3; int z; unsigned g : 5; };
struct rec { short a; short b; };
static struct pair pk[N + 1];
static struct mix mx[N + 1];
static struct rec rr[N + 1];
static int v[N + 2];
void same_run(void) {
  for (int i = 1; i <= N; i++) {
    pk[i].lo = v[i];
    pk[i - 1].hi = v[i + 1];
  }
}
void neighbour_read(void) {
  for (int i = 1; i < N; i++) pk[i].hi = pk[i - 1].lo ^ pk[i + 1].lo;
}
void through_pointer(struct pair *p, int n) {
  for (int i = 1; i <= n; i++) {
    p[i].lo = v[i];
    p[i - 1].hi = v[i + 1];
  }
}
void runs_apart(void) {
  for (int i = 1; i <= N; i++) {
    mx[i].f = v[i];
    mx[i - 1].g = v[i + 1];
  }
}
void plain_fields(void) {
  for (int i = 1; i <= N; i++) {
    rr[i].a = v[i];
    rr[i - 1].b = v[i + 1];
  }
}
"""

_CPP = """
#define N 400
struct pair { unsigned lo : 4; unsigned hi : 4; };
struct rec { short a; short b; };
static pair pk[N + 1];
static rec rr[N + 1];
static int v[N + 2];
void same_run() {
  for (int i = 1; i <= N; i++) {
    pk[i].lo = v[i];
    pk[i - 1].hi = v[i + 1];
  }
}
void plain_fields() {
  for (int i = 1; i <= N; i++) {
    rr[i].a = v[i];
    rr[i - 1].b = v[i + 1];
  }
}
"""


def _parallel(text: str, path: str) -> dict[str, bool]:
    analysis = analyze_text(text, path=path, options=AnalysisOptions(dialect="omp"))
    return {f.loop.function or "": f.parallel for f in analysis.facts}


def test_bit_fields_of_one_run_written_by_two_iterations_are_refused() -> None:
    found = _parallel(_C, "b.c")
    assert not found["same_run"]
    assert not found["neighbour_read"]
    assert not found["through_pointer"]


def test_bit_fields_apart_and_plain_fields_stay_parallel() -> None:
    found = _parallel(_C, "b.c")
    assert found["runs_apart"]
    assert found["plain_fields"]


def test_cpp_bit_fields_share_their_location_too() -> None:
    found = _parallel(_CPP, "b.cpp")
    assert not found["same_run"]
    assert found["plain_fields"]
