"""Data regions around offloaded loops that share arrays."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.frontend import Poly
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)
OMP_CPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
HEAD = "void f(int n, const double *restrict a, double *restrict b, double *restrict c)"


def run(body: str, opts: SuggestOptions = ACC) -> tuple[str, tuple[Suggestion, ...]]:
    text = f"{HEAD} {{\n{dedent(body)}\n}}\n"
    analysis = analyze_text(
        text, options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    return text, suggest_file(analysis, opts)


def parallel(found: tuple[Suggestion, ...]) -> list[tuple[str | None, bool]]:
    """Each loop's variable and whether it got a pragma: a region was possible."""
    return [(s.loop.var, s.pragma is not None) for s in found]


TWO_LOOPS = """
for (int i = 0; i < n; i++)
    b[i] = 2 * a[i];
for (int i = 0; i < n; i++)
    c[i] = b[i] + a[i];
"""


def test_two_loops_sharing_arrays_get_one_region() -> None:
    _, found = run(TWO_LOOPS)
    regions = {s.region for s in found}
    assert len(regions) == 1
    region = regions.pop()
    assert region is not None
    assert region.pragma.render() == (
        "#pragma acc data copyin(a[0:n]) copyout(b[0:n], c[0:n])"
    )
    assert [s.pragma.render() for s in found if s.pragma] == [
        "#pragma acc parallel loop present(a[0:n], b[0:n])",
        "#pragma acc parallel loop present(a[0:n], b[0:n], c[0:n])",
    ]


def test_openmp_target_region_uses_map() -> None:
    _, found = run(TWO_LOOPS, OMP_GPU)
    region = found[0].region
    assert region is not None
    assert region.pragma.render() == (
        "#pragma omp target data map(to: a[0:n]) map(from: b[0:n], c[0:n])"
    )
    assert found[0].pragma is not None
    assert found[0].pragma.clause("map") is None


def test_no_region_on_the_cpu() -> None:
    _, found = run(TWO_LOOPS, OMP_CPU)
    assert parallel(found) == [("i", True), ("i", True)]
    assert all(s.region is None for s in found)


def test_host_code_touching_an_array_between_the_loops_blocks_the_region() -> None:
    _, found = run(
        """
        for (int i = 0; i < n; i++)
            b[i] = 2 * a[i];
        b[0] = 1.0;
        for (int i = 0; i < n; i++)
            c[i] = b[i] + a[i];
        """
    )
    assert parallel(found) == [("i", True), ("i", True)]
    assert all(s.region is None for s in found)


GLOBALS = """\
#define N 100000
double a[N], b[N], c[N];
void f(void)
{
    double *p = b + 1;
    for (int i = 0; i < N; i++)
        b[i] = 2 * a[i];
    p[0] = 1.0;
    for (int i = 0; i < N; i++)
        c[i] = b[i] + a[i];
}
"""


@pytest.mark.parametrize("opts", [ACC, OMP_GPU])
def test_host_code_writing_an_array_under_another_name_blocks_the_region(
    opts: SuggestOptions,
) -> None:
    # `p` points into `b`: under a region the host write between the kernels
    # would be lost (the device copy of `b` goes back over it).
    analysis = analyze_text(
        GLOBALS, options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    found = suggest_file(analysis, opts)
    assert parallel(found) == [("i", True), ("i", True)]
    assert all(s.region is None for s in found)
    # The same code on another array keeps the region.
    other = GLOBALS.replace("double *p = b + 1;", "double q[2];")
    other = other.replace("p[0] = 1.0;", "q[0] = 1.0;")
    analysis = analyze_text(
        other, options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    assert all(s.region is not None for s in suggest_file(analysis, opts))


TIME_LOOP = """\
#define N 100000
double a[N], b[N];
void f(void)
{
    double *p = b;
    for (int t = 0; t < 9; t++) {
        for (int i = 0; i < N; i++)
            b[i] = a[i] * t;
        *p = 0.0;
    }
}
"""


def test_no_hoisting_when_the_time_loop_writes_an_array_through_a_copy() -> None:
    analysis = analyze_text(TIME_LOOP, options=AnalysisOptions(dialect="acc"))
    found = suggest_file(analysis, ACC)
    assert [(s.loop.var, s.pragma is not None) for s in found] == [
        ("t", False),
        ("i", True),
    ]
    assert all(s.region is None for s in found)
    # Through a local array instead, the region goes around the time loop.
    local = TIME_LOOP.replace("double *p = b;", "double p[1];")
    analysis = analyze_text(local, options=AnalysisOptions(dialect="acc"))
    found = suggest_file(analysis, ACC)
    assert any(s.region is not None and s.region.around for s in found)


def test_a_declaration_between_the_loops_blocks_the_region() -> None:
    _, found = run(
        """
        for (int i = 0; i < n; i++)
            b[i] = 2 * a[i];
        double scale = 2.0;
        for (int i = 0; i < n; i++)
            c[i] = b[i] * scale;
        """
    )
    assert parallel(found) == [("i", True), ("i", True)]
    assert all(s.region is None for s in found)


def test_loops_sharing_nothing_get_no_region() -> None:
    _, found = run(
        """
        for (int i = 0; i < n; i++)
            b[i] = 1.0;
        for (int i = 0; i < n; i++)
            c[i] = 2.0;
        """
    )
    assert parallel(found) == [("i", True), ("i", True)]
    assert all(s.region is None for s in found)


def test_annotate_wraps_the_loops_in_a_braced_region() -> None:
    text, found = run(TWO_LOOPS)
    out = annotate_text(text, found).splitlines()
    opening = out.index("#pragma acc data copyin(a[0:n]) copyout(b[0:n], c[0:n])")
    assert out[opening + 1] == "{"
    assert out[opening + 2].startswith("#pragma acc parallel loop present(")
    last = out.index("    c[i] = b[i] + a[i];")
    assert out[last + 1] == "}"


def test_region_is_hoisted_around_a_sequential_time_loop() -> None:
    _, found = run(
        """
        for (int t = 0; t < 100; t++) {
            for (int i = 1; i < n; i++)
                c[i] = b[i - 1] + a[i];
            for (int i = 1; i < n; i++)
                b[i] = c[i];
        }
        """
    )
    regions = {s.region for s in found if s.region is not None}
    assert len(regions) == 1
    region = regions.pop()
    assert region.around is not None
    assert region.around.var == "t"
    assert region.pragma.render() == (
        "#pragma acc data copy(b[0:n]) copyin(a[1:(n - 1 > 0 ? n - 1 : 0)]) "
        "copyout(c[1:(n - 1 > 0 ? n - 1 : 0)])"
    )


@pytest.mark.parametrize(
    ("head", "c_kind"),
    [
        ("for (int t = 0; t < m; t++) {", "copy"),  # may run zero times
        ("for (int t = 5; t > m; t--) {", "copy"),
        ("for (int t = 0; t < 3; t++) {", "copyout"),  # surely runs
        ("for (int t = 9; t >= 0; t--) {", "copyout"),
    ],
)
def test_copyout_across_a_time_loop_only_when_the_loop_surely_runs(
    head: str, c_kind: str
) -> None:
    # A time loop of zero trips never writes `c` on the device: copyout at the
    # region's end would overwrite the host's `c` with device garbage.
    _, found = run(
        f"""
        int m = n / 2;
        {head}
            for (int i = 1; i < n; i++)
                c[i] = b[i - 1] + a[i];
            for (int i = 1; i < n; i++)
                b[i] = c[i];
        }}
        """
    )
    regions = {s.region for s in found if s.region is not None}
    assert len(regions) == 1
    region = regions.pop()
    assert region.around is not None
    assert f"{c_kind}(" in region.pragma.render()
    kinds = {c.name: c.args for c in region.pragma.clauses}
    assert "c[1:(n - 1 > 0 ? n - 1 : 0)]" in (kinds.get(c_kind) or "")


def test_no_hoisting_when_the_time_loop_touches_an_array_on_the_host() -> None:
    _, found = run(
        """
        for (int t = 0; t < 100; t++) {
            for (int i = 0; i < n; i++)
                b[i] = a[i] * t;
            c[0] = b[0];
        }
        """
    )
    assert parallel(found) == [("t", False), ("i", True)]
    assert all(s.region is None for s in found)


def test_no_hoisting_when_a_section_names_the_outer_loop_variable() -> None:
    _, found = run(
        """
        for (int t = 0; t < n; t++) {
            for (int i = 0; i < n; i++)
                c[(t + 1) * n + i] = c[t * n + i] + a[i];
        }
        """
    )
    assert parallel(found) == [("t", False), ("i", True)]
    assert all(s.region is None or s.region.around is None for s in found)
    inner = found[-1]
    assert inner.loop.var == "i"
    assert inner.pragma is not None
    assert "n*t" in inner.pragma.render()


def _many_loops(count: int, between: str = "") -> str:
    loops = [
        f"for (int i = 0; i < n; i++)\n    b[i] = a[i] + {k}.0;" for k in range(count)
    ]
    if between:
        loops.insert(count // 2, between)
    return "\n".join(loops)


@pytest.mark.parametrize(
    "between",
    [
        "b[0] = 1.0;",  # host code touches an array of the region
        "external(b);",  # a call may reach the arrays
        "double t = 0.0;",  # a declaration would go out of scope
        "if (n < 0) return;",  # an exit skips the copy-out
    ],
)
def test_host_code_between_loops_splits_the_run(between: str) -> None:
    _, found = run(_many_loops(6, between))
    regions = {s.region for s in found if s.region is not None}
    assert sorted(len(r.loops) for r in regions) == [3, 3]


def test_host_code_on_other_arrays_keeps_one_run() -> None:
    _, found = run(_many_loops(6, "c[0] = 1.0;"))
    regions = {s.region for s in found if s.region is not None}
    assert [len(r.loops) for r in regions] == [6]


def test_region_scan_is_linear_in_the_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each loop added to the run used to re-read the sections of the whole run
    # (and rescan the function's references): 1,500 loops made millions of
    # look-ups. Now each loop's sections are read about once.
    calls = 0
    real = Poly.names

    def counted(poly: Poly) -> frozenset[str]:
        nonlocal calls
        calls += 1
        return real(poly)

    monkeypatch.setattr(Poly, "names", counted)
    _, found = run(_many_loops(1500))
    region = found[0].region
    assert region is not None
    assert len(found) == 1500
    assert all(s.region is region for s in found)  # (hashing 1,500 loops is slow)
    assert len(region.loops) == 1500
    assert calls < 25 * 1500  # a few per loop and reference; quadratic was millions
