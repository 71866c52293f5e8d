"""One object mapped under two names in one construct or data region is refused.

`a = base + 10` and a loop reading `a[i]` and `base[i]`: `copyin(a[..],
base[..])` maps one storage twice (OpenACC: "partially present" at run time;
OpenMP: unspecified). Only a visible derivation refuses; the CPU offer stays.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import (
    AnalysisOptions,
    ProgramSummaries,
    analyze_text,
    argument_overlaps,
)
from accls.project.summary_json import overlap_from_json, overlap_to_json
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)
OMP_CPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)


def run(text: str, opts: SuggestOptions = ACC) -> tuple[Suggestion, ...]:
    analysis = analyze_text(
        dedent(text), options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    return suggest_file(analysis, opts)


def at(found: tuple[Suggestion, ...], line: int) -> Suggestion:
    return next(s for s in found if s.loop.line == line)


def refusal(s: Suggestion) -> str:
    return " ".join(s.reasons)


LOCAL = """\
#include <stdlib.h>
double f(int n) {
  double *base = malloc(n * sizeof(double));
  double *a = {init};
  for (int i = 0; i < n; i++) base[i] = i;
  double s = 0;
  for (int i = 0; i < n - 10; i++) s += a[i] * base[i];
  return s;
}
"""


@pytest.mark.parametrize("opts", [ACC, OMP_GPU])
@pytest.mark.parametrize("init", ["base + 10", "&base[10]"])
def test_pointer_set_from_the_other_refuses_the_offload(
    opts: SuggestOptions, init: str
) -> None:
    found = run(LOCAL.replace("{init}", init), opts)
    loop = at(found, 7)
    assert loop.pragma is None
    why = refusal(loop)
    assert "`a` and `base` point into one object" in why
    assert "both are set from `base`" in why


def test_cpu_offer_is_kept() -> None:
    loop = at(run(LOCAL.replace("{init}", "base + 10"), OMP_CPU), 7)
    assert loop.pragma is not None
    assert loop.pragma.render() == "#pragma omp parallel for reduction(+:s)"


def test_distinct_allocations_keep_the_offload() -> None:
    loop = at(run(LOCAL.replace("{init}", "malloc(n * sizeof(double))")), 7)
    assert loop.pragma is not None
    assert "copyin(a[0:" in loop.pragma.render()
    assert "base[0:" in loop.pragma.render()


CALL = """\
double s2(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
double base[1000], other[1000];
double g(void) { return s2(%s, 990); }
"""


def test_call_passing_one_object_twice_refuses_the_offload() -> None:
    loop = at(run(CALL % "base + 10, base"), 3)
    assert loop.pragma is None
    why = refusal(loop)
    assert "`a` and `b` point into one object" in why
    assert "passes `base + 10` and `base` to `s2`" in why


def test_call_passing_two_objects_keeps_the_offload() -> None:
    loop = at(run(CALL % "base, other"), 3)
    assert loop.pragma is not None
    assert "copyin(a[0:n], b[0:n])" in loop.pragma.render()


GLOBAL = """\
#include <stdlib.h>
#define N 1000
double a[N], b[N];
double *c;
void setup(void) { c = %s; }
void f(void) {
  for (int i = 0; i < N; i++) a[i] = i;
  for (int i = 0; i < N; i++) b[i] = a[i] * 2;
  for (int i = 0; i < N - 10; i++) c[i] = 5;
}
"""


@pytest.mark.parametrize(("init", "other"), [("a + 10", "a"), ("b", "b")])
def test_data_region_never_maps_one_object_twice(init: str, other: str) -> None:
    found = run(GLOBAL % init)
    regions = {s.region for s in found if s.region is not None}
    assert regions, "the loops over `a` and `b` still share a region"
    for region in regions:
        names = {name for name, _ in region.present}
        assert not {other, "c"} <= names, region.pragma.render()
    assert at(found, 9).pragma is not None  # `c` mapped on its own


def test_data_region_with_a_distinct_allocation_covers_all_loops() -> None:
    found = run(GLOBAL % "malloc(N * sizeof(double))")
    region = at(found, 7).region
    assert region is not None
    assert {name for name, _ in region.present} == {"a", "b", "c"}


def test_one_argument_passed_twice_keeps_the_offload() -> None:
    # `s2(base, base)`: both names map the same elements; the second is present.
    loop = at(run(CALL % "base, base"), 3)
    assert loop.pragma is not None
    assert "copyin(a[0:n], b[0:n])" in loop.pragma.render()


CARVED = """\
#include <stdlib.h>
double f(int n) {
  double *p = malloc(2 * n * sizeof(double));
  double *a = p;
  double *b = %s;
  double s = 0;
  for (int i = 0; i < n; i++) s += b[i] * a[i];
  return s;
}
"""


@pytest.mark.parametrize("init", ["p + n", "p"])
def test_disjoint_or_identical_sections_of_one_buffer_keep_the_offload(
    init: str,
) -> None:
    # `p + n`: disjoint ranges, two separate mappings; `p`: the same elements.
    loop = at(run(CARVED % init), 7)
    assert loop.pragma is not None, refusal(loop)
    assert "copyin(a[0:n], b[0:n])" in loop.pragma.render()


def test_overlapping_sections_of_one_buffer_refuse_the_offload() -> None:
    loop = at(run(CARVED % "p + 1"), 7)
    assert loop.pragma is None
    assert "`a` and `b` point into one object" in refusal(loop)


SPLIT = """\
#include <stdlib.h>
void f(int n) {
  double *p = malloc(2 * n * sizeof(double));
  double *a = p;
  double *b = p + %s;
  for (int i = 0; i < n; i++) a[i] = i;
  for (int i = 0; i < n; i++) b[i] = a[i] + 1;
  for (int i = 0; i < n; i++) a[i] = b[i] * 2;
}
"""


def test_region_over_disjoint_ranges_of_one_buffer_stays() -> None:
    found = run(SPLIT % "n")
    region = at(found, 7).region
    assert region is not None
    assert {name for name, _ in region.present} == {"a", "b"}


SWAPPED = """\
static double bufa[100], bufb[100];
static void sweep(int n, int steps, double *a, double *b) {
  double *src = a, *dst = b, *tmp;
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      dst[i] = (src[i - 1] + src[i] + src[i + 1]) / 3.0;
    tmp = src;
    src = dst;
    dst = tmp;
  }
}
int main(void) {
  sweep(100, 5, bufa, {second});
  return 0;
}
"""


def test_two_buffers_swapped_in_turn_keep_the_offload() -> None:
    # `shared_source` follows `dst = tmp; tmp = src; src = a` and sees `a`
    # behind both; the swap only ever holds `a, b` or `b, a`, passed apart.
    loop = at(run(SWAPPED.replace("{second}", "bufb")), 5)
    assert loop.pragma is not None
    assert "copyin(src[0:n])" in loop.pragma.render()


def test_two_buffers_swapped_in_turn_over_one_object_refuse() -> None:
    loop = at(run(SWAPPED.replace("{second}", "bufa + 1")), 5)
    assert loop.pragma is None


OTHER_FILE = """\
double s2(const double *a, const double *b, int n);
double base[1000];
double g(void) { return s2(%s, 990); }
"""
WRAPPED = """\
double s2(const double *a, const double *b, int n);
double w(const double *p, const double *q) { return s2(%s, 990); }
double base[1000];
double g(void) { return w(base, base); }
"""


def run_with_other_file(other: str) -> tuple[Suggestion, ...]:
    """`CALL`'s `s2` alone in its file, called from another file of the program."""
    caller = analyze_text(other, "main.c").source
    program = ProgramSummaries(
        overlaps=tuple(
            overlap_from_json(overlap_to_json(o))  # as the index cache keeps them
            for o in argument_overlaps(caller, "main.c")
        ),
        whole=True,
    )
    text = CALL.split("double base")[0]
    analysis = analyze_text(
        text, options=AnalysisOptions(dialect="acc", program=program)
    )
    return suggest_file(analysis, ACC)


def test_one_argument_passed_twice_in_another_file_keeps_the_offload() -> None:
    loop = at(run_with_other_file(OTHER_FILE % "base, base"), 3)
    assert loop.pragma is not None, refusal(loop)
    assert "copyin(a[0:n], b[0:n])" in loop.pragma.render()


def test_overlapping_arguments_in_another_file_refuse_the_offload() -> None:
    loop = at(run_with_other_file(OTHER_FILE % "base + 10, base"), 3)
    assert loop.pragma is None
    assert "passes `base + 10` and `base` to `s2`" in refusal(loop)


@pytest.mark.parametrize(("passed", "kept"), [("p, q", True), ("p + 10, q", False)])
def test_parameters_passed_on_keep_the_offload_only_as_they_are(
    passed: str, kept: bool
) -> None:
    # `w(base, base)` passes one text to `w`; `w` passes it on to `s2` as it is,
    # or shifted (`p + 10`), which overlaps `q` partly.
    loop = at(run_with_other_file(WRAPPED % passed), 3)
    assert (loop.pragma is not None) is kept, refusal(loop)


@pytest.mark.parametrize(("passed", "kept"), [("p, q", True), ("p + 10, q", False)])
def test_a_wrapper_in_the_same_file_passes_one_text_on_only_as_it_is(
    passed: str, kept: bool
) -> None:
    text = CALL.split("double base")[0] + (WRAPPED % passed).split("\n", 1)[1]
    loop = at(run(text), 3)
    assert (loop.pragma is not None) is kept, refusal(loop)
