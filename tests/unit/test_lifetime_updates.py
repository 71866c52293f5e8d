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


STEPS = """\
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 1000000, steps = 10;
    double *u = malloc(n * sizeof(double));
    double *r = malloc(n * sizeof(double));
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        u[i] = i;
        r[i] = 0.0;
    }
    for (int it = 0; it < steps; it++) {
        for (int i = 0; i < n; i++)
            r[i] = 2.0 * u[i];
%s
        for (int i = 0; i < n; i++)
            u[i] = u[i] + r[i];
    }
    printf("%%f %%f\\n", u[n - 1], s);
    free(u);
    free(r);
    return 0;
}
"""


def _updates(host: str) -> list[tuple[str, tuple[str, ...]]]:
    _, _, lifetimes = plan(STEPS % host)
    [lifetime] = lifetimes
    return [(u.direction, u.sections) for u in lifetime.updates]


def test_a_host_statement_s_update_moves_the_element_it_reads() -> None:
    assert _updates('        printf("%f\\n", r[3]);') == [("self", ("r[3:1]",))]


def test_a_host_write_sends_back_only_what_it_writes() -> None:
    assert _updates("        r[2] = r[0] + r[1];") == [
        ("self", ("r[0:3]",)),
        ("device", ("r[2:1]",)),
    ]


def test_a_host_loop_s_update_moves_the_section_the_loop_touches() -> None:
    # A running sum: it stays on the host, and touches `r[0:16]` alone.
    host = "        for (int i = 1; i < 16; i++)\n            r[i] = r[i] + r[i - 1];"
    assert _updates(host) == [("self", ("r[0:16]",)), ("device", ("r[0:16]",))]


def test_a_subscript_computed_before_the_statement_is_evaluated_there() -> None:
    host = "        int k = (int)u[0] % 8;\n        s += r[k];"
    assert ("self", ("r[k:1]",)) in _updates(host)


def test_an_indirect_subscript_moves_the_whole_array() -> None:
    # Which element is read depends on another array's value.
    host = "        s += r[(int)u[0] % 8];"
    assert _updates(host) == [("self", ("r[0:n]", "u[0:1]"))]


def test_a_section_beyond_the_kept_one_moves_the_kept_one() -> None:
    # The kernels keep `v[1:m]` of a larger block: `v[0]` is not on the device,
    # so the update before the host's read keeps to what is.
    text = STEPS.replace("double *r = malloc(n * sizeof(double));", "").replace(
        "        r[i] = 0.0;\n", ""
    )
    text = text.replace("free(r);", "free(v);").replace(
        "    double s = 0.0;\n",
        "    double s = 0.0;\n    int m = n - 2;\n"
        "    double *v = malloc(n * sizeof(double));\n"
        "    v[0] = 0.0;\n",
    )
    text = text.replace("r[i] = 2.0 * u[i];", "v[i] = 2.0 * u[i];")
    text = text.replace("u[i] = u[i] + r[i];", "u[i] = u[i] + v[i];")
    text = text.replace(
        "        for (int i = 0; i < n; i++)\n            v[i]",
        "        for (int i = 1; i <= m; i++)\n            v[i]",
    ).replace(
        "        for (int i = 0; i < n; i++)\n            u[i] = u[i] + v",
        "        for (int i = 1; i <= m; i++)\n            u[i] = u[i] + v",
    )
    _, _, lifetimes = plan(text % "        s += v[0] + v[1];")
    [lifetime] = lifetimes
    assert [(u.direction, u.sections) for u in lifetime.updates] == [
        ("self", ("v[1:m]",))
    ]


OUTPUT = """\
#include <stdio.h>
#include <stdlib.h>
%s
static void step(int n, double *restrict u, double *restrict r)
{
    for (int i = 1; i < n - 1; i++)
        r[i] = 0.5 * (u[i - 1] + u[i + 1]);
    for (int i = 1; i < n - 1; i++)
        u[i] = r[i];
}

static void output(int n, const double *u, int it)
{
%s
}

int main(void)
{
    int n = 1000000, steps = 100;
    double *u = malloc(n * sizeof(double));
    double *r = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        u[i] = (double)(i %% 7);
        r[i] = 0.0;
    }
    for (int it = 0; it < steps; it++) {
        step(n, u, r);
        if (it %% 10 == 0)
            output(n, u, it);
    }
    printf("%%f\\n", u[1]);
    free(u);
    free(r);
    return 0;
}
"""
PRINTS = '    printf("%d %f %f\\n", it, u[0], u[n / 2]);'


def test_an_array_a_host_function_only_reads_stays_with_an_update_before() -> None:
    text = OUTPUT % ("", PRINTS)
    _, _, lifetimes = plan(text)
    [lifetime] = lifetimes
    assert set(lifetime.names) == {"u", "r"}
    out = annotated(text)
    assert "    #pragma acc update self(u[0:n])\n        if (it % 10 == 0)\n" in out
    assert "#pragma acc exit data" in out


def test_an_array_a_host_function_keeps_a_pointer_to_is_not_kept() -> None:
    # `output()` stores the pointer: a second name the lifetime cannot follow.
    text = OUTPUT % ("static const double *last;", PRINTS + "\n    last = u;")
    _, _, lifetimes = plan(text)
    assert all("u" not in lt.names for lt in lifetimes)


def test_a_pointer_handed_on_through_a_call_s_result_is_not_kept() -> None:
    # `f(g(u))`: `output()` is handed what `pick()` returns, which may be `u`.
    keeper = (
        "static const double *pick(const double *p) { return p; }\n"
        "static int keep(const double *p) { return p == NULL; }"
    )
    text = OUTPUT % (keeper, PRINTS + "\n    keep(pick(u));")
    _, _, lifetimes = plan(text)
    assert all("u" not in lt.names for lt in lifetimes)


def test_an_array_a_host_function_frees_is_not_kept() -> None:
    # The `exit data` after the loop would copy into freed memory.
    text = OUTPUT % ("", PRINTS + "\n    if (it < 0)\n        free((void *)u);")
    _, _, lifetimes = plan(text)
    assert all("u" not in lt.names for lt in lifetimes)


TOTAL = """\
#include <stdio.h>
#include <stdlib.h>

static void scale(int n, double *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.5 * x[i];
}

static double total(int n, const double *x)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

int main(void)
{
    int n = 1000000;
    double *u = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        u[i] = i;
    for (int t = 0; t < 10; t++)
        scale(n, u);
    %s
    free(u);
    return 0;
}
"""


def test_a_kernel_whose_value_a_print_passes_on_ends_the_lifetime_after_it() -> None:
    out = annotated(TOTAL % 'printf("%f\\n", total(n, u));')
    assert (
        '    printf("%f\\n", total(n, u));\n    #pragma acc exit data delete(u[0:n])\n'
        in out
    )


def test_a_kernel_call_a_choice_may_skip_has_no_statement_for_the_exit() -> None:
    _, _, lifetimes = plan(TOTAL % 'printf("%f\\n", n > 0 ? total(n, u) : 0.0);')
    assert lifetimes == ()
