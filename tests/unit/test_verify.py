"""`verify`: the opt-in dynamic check that runs the user's program, serial vs OpenMP."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.validation.outputs import RunOutput, compare_outputs, compare_text
from accls.validation.run import (
    VerifyInputError,
    VerifyReport,
    VerifySettings,
    render_report,
    verify,
)

Need = Callable[[str], str]
FAST = (1, 2)  # thread counts: enough to expose a difference, quick to run

SUM = """\
#include <stdio.h>
int main(void) {
    static double a[200000];
    int n = 200000;
    for (int i = 0; i < n; i++) a[i] = 1.0 / (i + 1);
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i];
    printf("sum %.15e\\n", s);
    FILE *f = fopen("sum.txt", "w");
    fprintf(f, "n %d s %.12f\\n", n, s);
    fclose(f);
    return 0;
}
"""

THREADS = """\
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif
int main(void) {
    int t = 1;
#ifdef _OPENMP
    t = omp_get_max_threads();
#endif
    FILE *f = fopen(TARGET, "w");
    fprintf(f ? f : stdout, "threads %d\\n", t);
    if (f) fclose(f);
    return 0;
}
"""

INPUTS = """\
#include <stdio.h>
int main(int argc, char **argv) {
    int n = 0;
    double x, s = 0.0, v[64];
    if (argc < 2 || scanf("%d", &n) != 1 || n > 64) return 2;
    FILE *f = fopen(argv[1], "r");
    if (!f) return 3;
    for (int i = 0; i < n && fscanf(f, "%lf", &x) == 1; i++) v[i] = x;
    fclose(f);
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    printf("%s %d %.10f\\n", argv[1], n, s);
    return 0;
}
"""

FOREVER = """\
int main(void) {
    volatile unsigned long i = 0;
    for (;;) i++;
}
"""

SLEEPER = """\
#include <unistd.h>
int main(void) {
    for (;;) pause();
}
"""

# Stops by itself at 8 GiB in case the memory limit were not enforced.
HOG = """\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    size_t chunk = 16u << 20;
    for (size_t total = 0; total < (8ull << 30); total += chunk) {
        char *p = malloc(chunk);
        if (!p) { fputs("malloc failed\\n", stderr); return 1; }
        memset(p, 1, chunk);
    }
    puts("limit not enforced");
    return 0;
}
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _verify(src: Path, settings: VerifySettings) -> VerifyReport:
    return verify(str(src), settings)


def test_compare_text_tolerates_reordered_sums() -> None:
    assert (
        compare_text("s 1.000000000000e+00\n", "s 1.000000000001e+00\n", 1e-9) is None
    )
    assert compare_text("nan inf\n", "NaN inf\n", 1e-9) is None


def test_compare_text_catches_differences() -> None:
    assert compare_text("s 1.0e+00\n", "s 1.0001e+00\n", 1e-9) is not None
    assert compare_text("n 12\n", "n 13\n", 1e-9) is not None
    assert compare_text("a 1\n", "b 1\n", 1e-9) is not None
    assert compare_text("a 1\n", "a 1\nb 2\n", 1e-9) is not None
    assert compare_text("x 1.5\n", "x 1.5001\n", 1e-3) is None


def test_compare_outputs_checks_the_set_of_files() -> None:
    ref = RunOutput(0, b"ok\n", {"a.txt": b"1.0\n"})
    assert compare_outputs(ref, RunOutput(0, b"ok\n", {"a.txt": b"1.0\n"}), 0) is None
    diff = compare_outputs(ref, RunOutput(0, b"ok\n", {}), 0)
    assert diff is not None
    assert "a.txt" in diff
    diff = compare_outputs(ref, RunOutput(0, b"ok\n", {"a.txt": b"2.0\n"}), 0)
    assert diff is not None
    assert diff.startswith("file a.txt")
    assert compare_outputs(ref, RunOutput(1, b"ok\n", ref.files), 0) is not None


def test_missing_file_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(VerifyInputError, match="cannot read"):
        verify(str(tmp_path / "nope.c"), VerifySettings())


@pytest.mark.usefixtures("sandbox")
def test_reduction_is_equivalent_and_report_lists_commands(
    need: Need, tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = _write(tmp_path, "sum.c", SUM)
    report = _verify(src, VerifySettings(cc=gcc, threads=FAST))
    assert report.equivalent is True, render_report(report)
    assert report.pragmas_inserted >= 1
    assert [r.threads for r in report.runs] == [None, None, 1, 2]
    assert all(r.files == ("sum.txt",) for r in report.runs)
    assert any("-fopenmp" in c for c in report.commands)
    assert any(str(src) in c for c in report.commands)
    text = render_report(report)
    assert text.startswith("verify: EQUIVALENT")
    assert text.count("\n$ ") == len(report.commands)
    assert "OMP_NUM_THREADS=2" in text


@pytest.mark.usefixtures("sandbox")
def test_thread_dependent_stdout_is_not_equivalent(need: Need, tmp_path: Path) -> None:
    gcc = need("gcc")
    src = _write(tmp_path, "threads.c", THREADS)
    report = _verify(
        src, VerifySettings(cc=gcc, threads=FAST, cflags=("-DTARGET=NULL",))
    )
    assert report.equivalent is False
    assert [r.result for r in report.runs][2] == "match"
    assert report.runs[3].result.startswith("MISMATCH: stdout")


@pytest.mark.usefixtures("sandbox")
def test_thread_dependent_file_is_not_equivalent(need: Need, tmp_path: Path) -> None:
    gcc = need("gcc")
    src = _write(tmp_path, "threads.c", THREADS)
    report = _verify(
        src, VerifySettings(cc=gcc, threads=FAST, cflags=('-DTARGET="t.txt"',))
    )
    assert report.equivalent is False
    assert report.runs[3].result.startswith("MISMATCH: file t.txt")


@pytest.mark.usefixtures("sandbox")
def test_args_stdin_and_data_reach_the_program(need: Need, tmp_path: Path) -> None:
    gcc = need("gcc")
    src = _write(tmp_path, "inputs.c", INPUTS)
    data = _write(tmp_path, "values.txt", "1.5 2.5 3.5 4.5\n")
    stdin = _write(tmp_path, "n.txt", "4\n")
    settings = VerifySettings(
        cc=gcc,
        threads=FAST,
        args=("values.txt",),
        stdin_path=str(stdin),
        data=(str(data),),
    )
    report = _verify(src, settings)
    assert report.equivalent is True, render_report(report)
    # The program exits 2 without its argument or stdin, 3 without the data file.
    assert [(r.threads, r.exit_code) for r in report.runs] == [
        (None, 0),
        (None, 0),
        (1, 0),
        (2, 0),
    ]


@pytest.mark.usefixtures("sandbox")
def test_endless_loop_is_stopped_by_the_cpu_limit(need: Need, tmp_path: Path) -> None:
    gcc = need("gcc")
    start = time.monotonic()
    src = _write(tmp_path, "forever.c", FOREVER)
    report = _verify(src, VerifySettings(cc=gcc, cpu_s=1))
    assert time.monotonic() - start < 8
    assert report.equivalent is None
    (run,) = report.runs
    assert run.limit is not None
    assert "CPU limit" in run.limit
    assert "CPU limit" in render_report(report)


@pytest.mark.usefixtures("sandbox")
def test_blocked_program_is_stopped_by_the_wall_clock(
    need: Need, tmp_path: Path
) -> None:
    gcc = need("gcc")
    start = time.monotonic()
    src = _write(tmp_path, "sleeper.c", SLEEPER)
    report = _verify(src, VerifySettings(cc=gcc, timeout_s=1.0))
    assert time.monotonic() - start < 8
    assert report.equivalent is None
    (run,) = report.runs
    assert run.limit is not None
    assert "wall-clock" in run.limit


@pytest.mark.usefixtures("sandbox")
def test_unbounded_allocation_is_stopped_by_the_memory_limit(
    need: Need, tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = _write(tmp_path, "hog.c", HOG)
    report = _verify(src, VerifySettings(cc=gcc, memory_mb=256))
    assert report.equivalent is None
    (run,) = report.runs
    assert run.exit_code == 1
    assert "malloc failed" in run.stderr_tail


@pytest.mark.usefixtures("sandbox")
def test_missing_compiler_is_undecided(tmp_path: Path) -> None:
    src = _write(tmp_path, "sum.c", SUM)
    report = verify(str(src), VerifySettings(cc="no-such-cc-accls"))
    assert report.equivalent is None
    assert report.runs == ()
    assert any("not found" in n for n in report.notes)


@pytest.mark.usefixtures("sandbox")
def test_local_headers_are_found_for_the_annotated_copy(
    need: Need, tmp_path: Path
) -> None:
    gcc = need("gcc")
    _write(tmp_path, "size.h", "#define N 1000\n")
    body = SUM.replace("#include <stdio.h>", '#include <stdio.h>\n#include "size.h"')
    src = _write(tmp_path, "local.c", body.replace("200000", "N"))
    report = _verify(src, VerifySettings(cc=gcc, threads=FAST))
    assert report.equivalent is True, render_report(report)


@pytest.mark.usefixtures("sandbox")
def test_cli_verify_exit_codes(tmp_path: Path, need: Need) -> None:
    from accls.cli import main

    need("gcc")
    prog = tmp_path / "sum.c"
    prog.write_text(
        "#include <stdio.h>\n"
        "int main(void) { double s = 0; static double a[1000];\n"
        "  for (int i = 0; i < 1000; i++) a[i] = i;\n"
        "  for (int i = 0; i < 1000; i++) s += a[i];\n"
        '  printf("%.3f\\n", s); return 0; }\n'
    )
    assert main(["verify", str(prog), "--threads", "1,2"]) == 0
    assert main(["verify", str(tmp_path / "missing.c")]) == 2
