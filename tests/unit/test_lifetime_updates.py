"""Lifetimes' `update` directives: where host code between kernels needs them."""

from __future__ import annotations

from accls.analysis import AnalysisOptions, FileAnalysis, analyze_text
from accls.pipeline import annotate_lifetimes
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.lifetimes import DeviceLifetime, propose_lifetimes

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)


def plan(
    text: str, opts: SuggestOptions = ACC
) -> tuple[FileAnalysis, tuple[Suggestion, ...], tuple[DeviceLifetime, ...]]:
    analysis = analyze_text(
        text, options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    found = suggest_file(analysis, opts)
    return analysis, found, propose_lifetimes(analysis, found, opts)


def annotated(text: str, opts: SuggestOptions = ACC) -> str:
    analysis, found, _ = plan(text, opts)
    return annotate_lifetimes(text, "t.c", analysis, found, opts, None).text


MIXED = """\
#include <stdio.h>
#define N 1000000
static double g[N];
static double h[N];

void report(void)
{
    for (int i = 0; i < N; i++)
        g[i] = g[i] * 2.0;
    printf("%f\\n", g[0]);
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        g[i] = i;
        h[i] = 0.0;
    }
    for (int it = 0; it < 10; it++) {
        for (int i = 0; i < N; i++)
            h[i] = g[i] + 1.0;
        for (int i = 0; i < N; i++)
            h[i] = h[i] * 0.5;
        for (int i = 0; i < N; i++)
            h[i] = h[i] + g[i];
        for (int i = 0; i < N; i++)
            g[i] = h[i];
        report();
    }
    printf("%f\\n", g[5]);
    return 0;
}
"""


def test_an_array_a_host_call_runs_its_own_kernel_on_is_not_kept() -> None:
    # In a lifetime `report()`'s kernel finds `g` present and copies nothing
    # back: its printf would read the host's stale copy, and the update device
    # after the call would overwrite the kernel's results with it.
    _, _, lifetimes = plan(MIXED)
    assert all("g" not in lt.names for lt in lifetimes)
    assert "update device(g" not in annotated(MIXED)


def test_the_user_s_own_directive_in_a_host_callee_counts_as_device_code() -> None:
    text = MIXED.replace(
        "    for (int i = 0; i < N; i++)\n        g[i] = g[i] * 2.0;\n",
        "    #pragma acc parallel loop copy(g)\n"
        "    for (int i = 0; i < N; i++)\n        g[i] = g[i] * 2.0;\n",
    )
    _, _, lifetimes = plan(text)
    assert all("g" not in lt.names for lt in lifetimes)
