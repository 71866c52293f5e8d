"""A loop inside a user's data region uses its copy only when that copy serves it."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)


def first(text: str, opts: SuggestOptions = ACC) -> Suggestion:
    analysis = analyze_text(
        dedent(text), options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    return suggest_file(analysis, opts)[0]


def kernel(region: str, body: str = "a[i] = b[i] * 2;", after: str = "") -> str:
    return f"""
    #include <stdlib.h>
    void k(int n, double *restrict a, const double *restrict b) {{
      {region}
      {{
        for (int i = 0; i < n; i++)
          {body}
      }}
      {after}
    }}
    """


@pytest.mark.parametrize(
    ("region", "opts"),
    [
        ("#pragma acc data copyin(a[0:n], b[0:n])", ACC),
        ("#pragma acc data create(a[0:n]) copyin(b[0:n])", ACC),
        ("#pragma omp target data map(to: a[0:n], b[0:n])", OMP),
        ("#pragma omp target data map(alloc: a[0:n]) map(to: b[0:n])", OMP),
    ],
)
def test_writes_into_a_region_that_only_moves_in_are_refused(
    region: str, opts: SuggestOptions
) -> None:
    # On the host the loop wrote host memory; offloaded, its writes would stay in
    # the region's device copy and vanish at the region's end.
    found = first(kernel(region), opts)
    assert found.pragma is None
    assert any("to the device only" in r for r in found.reasons), found.reasons


@pytest.mark.parametrize(
    "region",
    [
        "#pragma acc data copy(a[0:n]) copyin(b[0:n])",
        "#pragma acc data copyout(a[0:n]) copyin(b[0:n])",
    ],
)
def test_a_region_that_copies_back_serves_the_loop(region: str) -> None:
    found = first(kernel(region))
    assert found.pragma is not None, found.reasons
    assert "present(a[0:n], b[0:n])" in found.pragma.render()


def test_a_region_section_shorter_than_the_loop_is_refused() -> None:
    found = first(kernel("#pragma acc data copy(a[0:n/2]) copyin(b[0:n])"))
    assert found.pragma is None
    assert any("not shown to cover" in r for r in found.reasons), found.reasons


def test_a_region_section_wider_than_the_loop_serves_it() -> None:
    found = first(kernel("#pragma acc data copy(a[0:n + 1]) copyin(b[0:n])"))
    assert found.pragma is not None, found.reasons


def test_scratch_created_in_the_region_and_freed_after_it_serves_the_loop() -> None:
    text = """
    #include <stdlib.h>
    void k(int n, double *restrict a, const double *restrict b) {
      double *t = malloc(n * sizeof *t);
      #pragma acc data create(t[0:n]) copyin(b[0:n]) copyout(a[0:n])
      {
        for (int i = 0; i < n; i++)
          t[i] = b[i] * 2;
        for (int i = 0; i < n; i++)
          a[i] = t[i] + 1;
      }
      free(t);
    }
    """
    found = first(text)
    assert found.pragma is not None, found.reasons
    assert "present(b[0:n], t[0:n])" in found.pragma.render()


def test_scratch_read_after_the_region_is_refused() -> None:
    text = """
    #include <stdio.h>
    #include <stdlib.h>
    void k(int n, const double *restrict b) {
      double *t = malloc(n * sizeof *t);
      #pragma acc data create(t[0:n]) copyin(b[0:n])
      {
        for (int i = 0; i < n; i++)
          t[i] = b[i] * 2;
      }
      printf("%f\\n", t[0]);
      free(t);
    }
    """
    assert first(text).pragma is None


@pytest.mark.parametrize(
    ("between", "refused"),
    [
        ("a[3] = 7;", True),  # the host's a[3] is stale on the device, or lost
        ("b2[3] = 7;", False),  # an array the region does not hold
    ],
)
def test_host_statements_in_the_region_on_its_arrays_are_refused(
    between: str, refused: bool
) -> None:
    text = f"""
    void k(int n, double *restrict a, const double *restrict b, double *b2) {{
      #pragma acc data copy(a[0:n]) copyin(b[0:n])
      {{
        for (int i = 0; i < n; i++)
          a[i] = b[i] * 2;
        {between}
        for (int i = 0; i < n; i++)
          a[i] = a[i] + 1;
      }}
    }}
    """
    found = first(text)
    assert (found.pragma is None) is refused, found.reasons
    if refused:
        assert any("on the host inside the data region" in r for r in found.reasons)
