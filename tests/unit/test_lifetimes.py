"""Device data lifetimes across functions: enter/exit data, update, present."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from accls.analysis import AnalysisOptions, FileAnalysis, analyze_text
from accls.pipeline import annotate_lifetimes, check_text, kernels_regions_checked
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text
from accls.suggest.kernel_async import async_runs, with_async
from accls.suggest.lifetime_edits import with_present
from accls.suggest.lifetimes import DeviceLifetime, propose_lifetimes

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)
FIXTURES = Path(__file__).parents[1] / "fixtures" / "c"

KERNELS = """
#include <stdlib.h>
#include <stdio.h>
static void scale(int n, double *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.5 * x[i];
}
static void add(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = y[i] + x[i];
}
"""


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
    outcome = annotate_lifetimes(text, "t.c", analysis, found, opts, None)
    return outcome.text


def main(body: str) -> str:
    return KERNELS + "int main(void)\n{\n" + dedent(body) + "}\n"


SOLVER = """\
    int n = 1000;
    double *u = malloc(sizeof(double) * n);
    double *v = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        u[i] = i;
        v[i] = 1.0;
    }
    for (int t = 0; t < 10; t++) {
        add(n, v, u);
        scale(n, u);
    }
    printf("%f\\n", u[3]);
    free(u);
    free(v);
    return 0;
"""


def test_blas_fixture_keeps_its_vectors_from_init_to_the_checksum() -> None:
    text = (FIXTURES / "blas_lifetime.c").read_text()
    [lifetime] = plan(text)[2]
    assert lifetime.function == "main"
    assert {(k.name, k.enter, k.exit) for k in lifetime.kept} == {
        ("u", "create", "delete"),
        ("r", "create", "delete"),
    }
    assert lifetime.kernels == ("axpy", "scal", "vdot")
    assert "1152*n bytes before, about 0 bytes after" in lifetime.moved.reason
    out = annotated(text)
    assert "#pragma acc enter data create(r[0:n], u[0:n])\n" in out
    assert "#pragma acc exit data delete(r[0:n], u[0:n])\n" in out
    # Static kernels called only inside the lifetime find their arrays present.
    assert "parallel loop present(y[0:n], x[0:n])" in out
    assert "copy(" not in out
    assert "copyin(" not in out


def test_a_host_read_after_the_lifetime_copies_out() -> None:
    out = annotated(main(SOLVER))
    lines = [line.strip() for line in out.splitlines()]
    # The init loop is offloaded and writes both first: nothing to copy in.
    enter = lines.index("#pragma acc enter data create(u[0:n], v[0:n])")
    leave = next(k for k, line in enumerate(lines) if "exit data" in line)
    assert "copyout(u[0:n]) delete(v[0:n])" in lines[leave]
    assert enter < leave < next(k for k, x in enumerate(lines) if "printf" in x)


STEPS = """
#include <stdio.h>
#include <stdlib.h>
static void scale(int n, const double *restrict a, double *restrict b)
{
    for (int i = 0; i < n; i++)
        b[i] = a[i] * 2;
}
static void back(int n, double *restrict a, const double *restrict b)
{
    for (int i = 0; i < n; i++)
        a[i] = b[i] + 1;
}
int main(int argc, char **argv)
{
    int n = 1000, steps = argc > 1 ? atoi(argv[1]) : 0;
    double *a = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { a[i] = rand(); b[i] = -1; }
    for (int t = 0; t < steps; t++) {
        scale(n, a, b);
        back(n, a, b);
    }
    printf("%f %f\n", a[1], b[1]);
    free(a); free(b);
    return 0;
}
"""


def test_an_array_first_written_inside_a_loop_is_copied_in_when_read_after() -> None:
    # `steps` may be 0: `create(b)` then `copyout(b)` would overwrite the host's
    # `b` with device garbage; `b` must be copied in.
    _, _, lifetimes = plan(STEPS)
    assert len(lifetimes) == 1
    kept = {(k.name, k.enter, k.exit) for k in lifetimes[0].kept}
    assert kept == {("a", "copyin", "copyout"), ("b", "copyin", "copyout")}


def test_host_reads_and_writes_between_kernels_get_updates() -> None:
    body = SOLVER.replace(
        "        scale(n, u);\n",
        "        scale(n, u);\n        if (t == 5) {\n"
        "            u[0] = u[1];\n        }\n",
    )
    out = annotated(main(body))
    lines = [line.strip() for line in out.splitlines()]
    at = lines.index("u[0] = u[1];")
    # Only what the statement touches moves: it reads `u[0:2]`, writes `u[0]`.
    assert lines[at - 1] == "#pragma acc update self(u[0:2])"
    assert lines[at + 1] == "#pragma acc update device(u[0:1])"


def test_openmp_spells_maps_and_target_update() -> None:
    body = SOLVER.replace(
        "        scale(n, u);\n", "        scale(n, u);\n        v[0] = u[2];\n"
    )
    out = annotated(main(body), OMP_GPU)
    # The init loop writes both first, before any host access: nothing to copy in.
    assert "#pragma omp target enter data map(alloc: u[0:n], v[0:n])" in out
    assert "#pragma omp target update from(u[2:1], v[0:1])" in out
    assert "#pragma omp target update to(v[0:1])" in out
    # v is only read on the device: its device copy is released, not copied back.
    assert "#pragma omp target exit data map(from: u[0:n]) map(release: v[0:n])" in out


def test_a_pointer_swapped_in_between_is_not_kept() -> None:
    body = SOLVER.replace(
        "        scale(n, u);\n",
        "        scale(n, u);\n        double *w = u;\n"
        "        u = v;\n        v = w;\n",
    )
    _, _, lifetimes = plan(main(body))
    assert all("u" not in lt.names and "v" not in lt.names for lt in lifetimes)


def test_an_early_return_in_between_refuses_the_lifetime() -> None:
    body = SOLVER.replace(
        "        scale(n, u);\n",
        "        scale(n, u);\n        if (t == 7) return 1;\n",
    )
    _, _, lifetimes = plan(main(body))
    assert lifetimes == ()


def test_a_pointer_handed_to_unknown_code_is_not_kept() -> None:
    body = SOLVER.replace(
        "        scale(n, u);\n", "        scale(n, u);\n        keep(u);\n"
    )
    text = "void keep(double *p);\n" + main(body)
    _, _, lifetimes = plan(text)
    assert all("u" not in lt.names for lt in lifetimes)


def test_a_kernel_other_files_may_call_keeps_its_clauses() -> None:
    text = main(SOLVER).replace(
        "static void add(int n, const double *x, double *y)",
        "void add(int n, const double *restrict x, double *restrict y)",
    )
    analysis, found, lifetimes = plan(text)
    assert lifetimes
    rewritten = with_present(analysis, found, lifetimes)
    add = next(s for s in rewritten if s.loop.function == "add" and s.pragma)
    scale = next(s for s in rewritten if s.loop.function == "scale" and s.pragma)
    assert add.pragma is not None
    assert "present" not in add.pragma.render()
    assert scale.pragma is not None
    assert "present(x[0:n])" in scale.pragma.render()


def test_one_function_s_run_of_loops_is_the_data_region_s_business() -> None:
    text = """\
void f(int n, double *restrict a, double *restrict b)
{
    for (int i = 0; i < n; i++)
        a[i] = 2 * b[i];
    for (int i = 0; i < n; i++)
        b[i] = a[i] + 1;
}
"""
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    found = suggest_file(analysis, ACC, regions=True)
    assert any(s.region is not None for s in found)
    assert propose_lifetimes(analysis, found, ACC) == ()


def test_host_code_between_one_function_s_kernels_gets_an_update() -> None:
    # No data region can hold both loops: the host reads `a` between them.
    text = """\
#include <stdio.h>
void f(int n, double *restrict b)
{
    double a[4096];
    for (int i = 0; i < 4096; i++)
        a[i] = 2 * b[i] + n;
    printf("%f\\n", a[7]);
    for (int i = 0; i < 4096; i++)
        a[i] = a[i] + 1;
    printf("%f\\n", a[9]);
}
"""
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    found = suggest_file(analysis, ACC, regions=True)
    [lifetime] = propose_lifetimes(analysis, found, ACC)
    assert lifetime.names == ("a",)
    out = annotate_text(text, with_present(analysis, found, [lifetime]), (), [lifetime])
    lines = [line.strip() for line in out.splitlines()]
    assert (
        lines[lines.index('printf("%f\\n", a[7]);') - 1]
        == "#pragma acc update self(a[7:1])"
    )


INDEPENDENT = """\
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    int n = 200000;
    double *u = malloc(sizeof(double) * n);
    double *v = malloc(sizeof(double) * n);
    double s = 0.0;
    if (u == NULL || v == NULL)
        return 1;
    for (int i = 0; i < n; i++)
        u[i] = i * 0.5;
    for (int i = 0; i < n; i++)
        v[i] = i % 3;
    for (int i = 0; i < n; i++)
        s += u[i] * v[i];
    printf("%f\\n", s);
    free(u);
    free(v);
    return 0;
}
"""


def _regions(
    text: str, opts: SuggestOptions
) -> tuple[FileAnalysis, tuple[Suggestion, ...]]:
    analysis = analyze_text(
        text, options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    return analysis, suggest_file(analysis, opts, regions=True)


def test_independent_kernels_run_on_their_own_queues_then_wait() -> None:
    analysis, found = _regions(INDEPENDENT, ACC)
    [run] = async_runs(analysis, found, ACC)
    assert len(run.loops) == 2  # the third reads what both write
    out = annotate_text(INDEPENDENT, with_async(found, [run]), (), (), [run])
    lines = [line.strip() for line in out.splitlines()]
    assert "#pragma acc parallel loop present(u[0:n]) async(1)" in lines
    assert "#pragma acc parallel loop present(v[0:n]) async(2)" in lines
    at = lines.index("#pragma acc wait")
    assert lines[at + 1].startswith("#pragma acc parallel loop reduction(+:s)")
    assert check_text(out, "t.c") == ()


def test_openmp_kernels_defer_with_nowait_and_taskwait() -> None:
    analysis, found = _regions(INDEPENDENT, OMP_GPU)
    runs = async_runs(analysis, found, OMP_GPU)
    out = annotate_text(INDEPENDENT, with_async(found, runs), (), (), runs)
    assert out.count(" nowait\n") == 2
    assert "    #pragma omp taskwait\n" in out
    assert check_text(out, "t.c") == ()


def test_kernels_that_copy_the_same_array_stay_in_order() -> None:
    text = INDEPENDENT.replace("v[i] = i % 3;", "v[i] = u[i] * 0.0 + i % 3;")
    text = text.replace("        s += u[i] * v[i];", "        s += v[i];")
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    found = suggest_file(analysis, ACC)  # no data region: each copies its arrays
    assert async_runs(analysis, found, ACC) == ()


KERNELS_FILE = """\
#include <stdio.h>
#define N 100000
static double a[N], b[N], c[N];
int main(void)
{
    double s = 0.0;
#pragma acc kernels
    {
        for (int i = 0; i < N; i++)
            a[i] = i * 0.5;
    }
    for (int i = 0; i < N; i++)
        b[i] = a[i] * 2.0;
    for (int i = 0; i < N; i++)
        c[i] = a[i] + b[i];
    for (int i = 0; i < N; i++)
        s += c[i];
    printf("%f\\n", s);
    return 0;
}
"""


def test_a_file_with_kernels_regions_gets_one_around_a_run_of_loops() -> None:
    analysis = analyze_text(KERNELS_FILE, options=AnalysisOptions(dialect="acc"))
    found = suggest_file(analysis, ACC, regions=True)
    converted, why = kernels_regions_checked(KERNELS_FILE, "t.c", found, None)
    assert why == ""
    out = annotate_text(KERNELS_FILE, converted)
    lines = [line.strip() for line in out.splitlines()]
    at = lines.index("#pragma acc kernels copyin(a) copyout(b, c)")
    assert lines[at + 1] == "{"
    assert lines[at + 2] == "#pragma acc loop independent"
    assert "#pragma acc loop independent reduction(+:s)" in lines
    assert not any("parallel loop" in line for line in lines)
    assert check_text(out, "t.c") == ()


def test_a_file_without_kernels_regions_keeps_parallel_loops() -> None:
    text = KERNELS_FILE.replace("#pragma acc kernels\n", "")
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    found = suggest_file(analysis, ACC, regions=True)
    assert kernels_regions_checked(text, "t.c", found, None) == (found, "")


GLOBAL_SOLVER = """\
#include <stdio.h>
#define N 100000
static double x[N], y[N];
static void twice(void)
{
    for (int i = 0; i < N; i++)
        y[i] = 2.0 * x[i];
}
static void back(void)
{
    for (int i = 0; i < N; i++)
        x[i] = y[i] + 1.0;
}
int main(void)
{
    for (int t = 0; t < 10; t++) {
        twice();
        back();
    }
    printf("%f\\n", x[1]);
    return 0;
}
"""


def test_global_arrays_stay_on_the_device_across_their_kernels() -> None:
    [lifetime] = plan(GLOBAL_SOLVER)[2]
    assert set(lifetime.names) == {"x", "y"}


def test_a_global_whose_address_a_file_scope_pointer_keeps_is_not_kept() -> None:
    text = GLOBAL_SOLVER.replace(
        "static double x[N], y[N];", "static double x[N], y[N];\ndouble *alias = x;"
    )
    assert all("x" not in lt.names for lt in plan(text)[2])


def test_a_function_with_a_switch_gets_no_lifetime() -> None:
    text = GLOBAL_SOLVER.replace(
        "        back();\n",
        "        switch (t) {\n        default:\n            back();\n        }\n",
    )
    assert plan(text)[2] == ()


def test_a_kernel_call_in_an_if_arm_ends_no_lifetime_in_a_file_without_omp() -> None:
    # The front end once read `if` arms only in files that mention "omp": the
    # last call's arm then looked unconditional and `exit data` went inside it.
    text = main(
        """\
        int n = 1000;
        double *u = malloc(sizeof(double) * n);
        for (int t = 0; t < 10; t++) {
            scale(n, u);
        }
        if (n > 5) {
            scale(n, u);
        }
        printf("%f\\n", u[7]);
        free(u);
        return 0;
        """
    )
    assert "omp" not in text
    _, _, lifetimes = plan(text)
    assert all(lt.exit < text.index("if (n > 5)") for lt in lifetimes)
    out = annotated(text)
    arm = out[out.index("if (n > 5)") :]
    assert "exit data" not in arm[: arm.index("}")]


def test_a_read_in_a_braceless_if_gets_its_update_before_the_if() -> None:
    text = main(
        """\
        int n = 1000;
        double *u = malloc(sizeof(double) * n);
        for (int i = 0; i < n; i++)
            u[i] = i;
        for (int t = 0; t < 10; t++) {
            scale(n, u);
            if (t % 5 == 0)
                printf("%f\\n", u[3]);
        }
        printf("%f\\n", u[0]);
        free(u);
        return 0;
        """
    )
    out = annotated(text)
    assert "    #pragma acc update self(u[3:1])\n    if (t % 5 == 0)\n" in out
    assert "#pragma acc exit data copyout(u[0:n])" in out


def test_a_lifetime_wholly_inside_one_if_arm_is_kept_there() -> None:
    text = main(
        """\
        int n = 1000;
        double *u = malloc(sizeof(double) * n);
        if (n > 5) {
            for (int t = 0; t < 10; t++) {
                scale(n, u);
            }
            scale(n, u);
        }
        printf("%f\\n", u[7]);
        free(u);
        return 0;
        """
    )
    out = annotated(text)
    arm = out[out.index("if (n > 5) {") :]
    arm = arm[: arm.index("\n}\n")]
    assert "    #pragma acc enter data copyin(u[0:n])\n" in arm
    assert "    #pragma acc exit data copyout(u[0:n])" in arm


TIME_LOOP = """\
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    int n = 100000;
    double *u = malloc(n * sizeof(double));
    double *v = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        u[i] = i;
    for (int t = 0; t < 50; t++) {
        for (int i = 0; i < n; i++)
            v[i] = u[i] * 0.5;
        for (int i = 0; i < n; i++)
            u[i] = v[i] + 1.0;
%s
    }
    printf("%%f\\n", u[n - 1]);
    free(u);
    free(v);
    return 0;
}
"""


def test_a_region_held_inside_a_time_loop_by_host_code_becomes_a_lifetime() -> None:
    # The host reads `u` every trip: the data region cannot open around the
    # time loop, so it would move both arrays on every trip. A lifetime around
    # the loop moves them once, with `update self` before the host's read.
    text = TIME_LOOP % '        printf("%f\\n", u[0]);'
    analysis, found = _regions(text, ACC)
    assert any(s.region is not None and s.region.around is None for s in found)
    [lifetime] = propose_lifetimes(analysis, found, ACC)
    assert set(lifetime.names) == {"u", "v"}
    assert [(u.direction, u.sections) for u in lifetime.updates] == [
        ("self", ("u[0:1]",))
    ]
    out = annotated(text)
    lines = [line.strip() for line in out.splitlines()]
    assert "#pragma acc data" not in out  # the lifetime keeps the region's arrays
    assert lines[lines.index('printf("%f\\n", u[0]);') - 1] == (
        "#pragma acc update self(u[0:1])"
    )
    assert lines.count("#pragma acc parallel loop present(u[0:n], v[0:n])") == 2
    assert "#pragma acc update device" not in out  # the host writes nothing


def test_a_region_hoisted_around_the_time_loop_needs_no_lifetime() -> None:
    text = TIME_LOOP % ""
    analysis, found = _regions(text, ACC)
    assert any(s.region is not None and s.region.around is not None for s in found)
    assert propose_lifetimes(analysis, found, ACC) == ()


def test_a_lifetime_whose_updates_move_more_than_its_kernels_is_not_proposed() -> None:
    # The host sums `c` after every trip's kernel: `update self(c)` each trip
    # moves as much as the kernel's own copyout, plus the copyin on entry.
    text = """\
#include <stdlib.h>
int f(int n)
{
    double *a = malloc(10 * n * sizeof(double));
    double *c = malloc(n * sizeof(double));
    double d[10] = {0};
    double s = 0.0;
    for (int k = 0; k < 10 * n; k++)
        a[k] = k;
    for (int x = 0; x < 10; ++x) {
        for (int y = 0; y < n; ++y)
            c[y] = a[x * n + y] * 2.0;
        for (int y = 0; y < n; ++y)
            d[x] += c[y];
    }
    for (int y = 0; y < n; ++y)
        s += a[y];
    free(a);
    free(c);
    return (int)(s + d[3]);
}
"""
    analysis, found = _regions(text, ACC)
    assert [s.loop.line for s in found if s.pragma is not None and not s.inner] == [
        8,
        11,
        16,
    ]
    lifetimes = propose_lifetimes(analysis, found, ACC)
    assert all("c" not in lt.names for lt in lifetimes)
