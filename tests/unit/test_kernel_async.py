"""`async` runs: two names that may reach one array keep their kernels in order."""

from __future__ import annotations

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.kernel_async import async_runs

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)

TWICE = """\
#include <stdio.h>
#define N 1000000
static double a[N], b[N];
static void fill(double *x, double *y, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = i;
    for (int i = 0; i < n; i++)
        y[i] = 3.0 * i;
}
int main(void)
{
    fill(a, a, N);
    printf("%f\\n", a[7] + b[7]);
    return 0;
}
"""

COPIES = """\
#include <stdio.h>
#include <stdlib.h>
#define N 1000000
int main(void)
{
    double *a = malloc(2 * N * sizeof(double));
    if (a == NULL)
        return 1;
    double *lo = a, *hi = a + N / 2;
    for (int i = 0; i < N; i++)
        lo[i] = i;
    for (int i = 0; i < N; i++)
        hi[i] = 2.0 * i;
    printf("%f\\n", a[N - 1]);
    free(a);
    return 0;
}
"""


def _runs(text: str) -> int:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    found = suggest_file(analysis, ACC, regions=True)
    offloaded = [s for s in found if s.pragma is not None and s.offloaded]
    assert len(offloaded) >= 2  # both kernels are offloaded, each alone is fine
    return len(async_runs(analysis, found, ACC))


def test_parameters_a_call_passes_the_same_array_share_no_queue_pair() -> None:
    # Two queues copying `x[0:n]` and `y[0:n]` back to one array race.
    assert _runs(TWICE) == 0


def test_parameters_every_call_keeps_apart_still_run_at_once() -> None:
    assert _runs(TWICE.replace("fill(a, a, N)", "fill(a, b, N)")) == 1


def test_pointer_copies_into_one_block_share_no_queue_pair() -> None:
    assert _runs(COPIES) == 0
