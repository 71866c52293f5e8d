"""Hoisting parallel regions out of sequential loops: when it is the same program."""

from __future__ import annotations

import os
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path

import accls.cli.commands
import pytest
from accls.validation.outputs import compare_text

Need = Callable[[str], str]

JACOBI = textwrap.dedent(
    """\
    #include <stdio.h>
    #define N 256
    static double u[N][N], v[N][N];
    int main(void) {
      int t, i, j;
      double err = 0.0;
      for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
          u[i][j] = (i * 7 + j * 3) % 11;
          v[i][j] = 0.0;
        }
      for (t = 0; t < 40; t++) {
        double w = 0.25 + 0.0 * t;
        for (i = 1; i < N - 1; i++)
          for (j = 1; j < N - 1; j++)
            v[i][j] = w * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1]);
        err = 0.0;
        for (i = 1; i < N - 1; i++)
          for (j = 1; j < N - 1; j++) {
            err += (v[i][j] - u[i][j]) * (v[i][j] - u[i][j]);
            u[i][j] = v[i][j];
          }
        if (t % 10 == 0) printf("%d %.9e\\n", t, err);
      }
      printf("%.12e %.12e\\n", err, u[N / 2][N / 2]);
      return 0;
    }
    """
)


def _annotate(
    tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[str, str]:
    src = tmp_path / "k.c"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "k.omp.c"
    argv = ["annotate", "--model", "openmp", "--target", "cpu", *extra, str(src)]
    assert accls.cli.commands.main([*argv, "-o", str(out)]) == 0
    _, err = capsys.readouterr()
    return out.read_text(encoding="utf-8"), err


def test_a_time_loop_gets_one_region_with_omp_for_inside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, err = _annotate(tmp_path, JACOBI, capsys, "--no-validate")
    assert "opened one parallel region around the loop at line 12" in err
    lines = [ln.strip() for ln in text.splitlines()]
    start = lines.index("#pragma omp parallel private(t)")
    assert lines[start + 1].startswith("for (t = 0; t < 40; t++)")
    body = lines[start:]
    # 254 rows feed every thread: no `collapse` (cpu_collapse), `j` made private.
    assert body.count("#pragma omp for private(j)") == 1
    assert "#pragma omp for private(j) reduction(+:err)" in body
    assert body.count("#pragma omp single") == 2
    # `w` is computed on every thread, then the first `omp for` writes shared data.
    assert body[body.index("double w = 0.25 + 0.0 * t;") + 1] == "#pragma omp barrier"
    assert "#pragma omp parallel for" not in "\n".join(body)


def test_no_hoist_keeps_a_region_per_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, _ = _annotate(tmp_path, JACOBI, capsys, "--no-validate", "--no-hoist")
    assert "#pragma omp parallel private(t)" not in text
    assert text.count("#pragma omp parallel for") == 3


def _run(exe: Path, threads: int) -> str:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    proc = subprocess.run(
        [str(exe)], capture_output=True, text=True, timeout=60, env=env, check=True
    )
    return proc.stdout


def test_the_hoisted_program_prints_what_the_serial_one_prints(
    need: Need, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gcc = need("gcc")
    text, err = _annotate(tmp_path, JACOBI, capsys)
    assert "opened one parallel region" in err
    (tmp_path / "serial.c").write_text(JACOBI, encoding="utf-8")
    (tmp_path / "hoisted.c").write_text(text, encoding="utf-8")
    subprocess.run(
        [gcc, "-O1", str(tmp_path / "serial.c"), "-o", str(tmp_path / "s")], check=True
    )
    subprocess.run(
        [
            gcc,
            "-O0",
            "-fopenmp",
            str(tmp_path / "hoisted.c"),
            "-o",
            str(tmp_path / "p"),
        ],
        check=True,
    )
    expected = _run(tmp_path / "s", 1)
    for threads in (1, 2, 4):
        # The reduction adds in another order: the last digits may differ.
        assert compare_text(expected, _run(tmp_path / "p", threads), 1e-9) is None


TRAPS = {
    # A body array filled by a shared-out loop: each thread would see its own copy.
    "body array": (
        "double tmp[N];",
        "for (i = 0; i < N; i++) tmp[i] = u[i];\n"
        "    for (i = 1; i < N - 1; i++) v[i] = tmp[i - 1] + tmp[i + 1];",
    ),
    # The loop variable is read after the loop: a private copy is not copied out.
    "live after": ("", "for (i = 0; i < N; i++) v[i] = u[i] * 2.0;"),
    # An early exit from the sequential loop.
    "break": ("", "for (i = 0; i < N; i++) v[i] = u[i];\n    if (v[0] > 5.0) break;"),
    # A parallel loop below an `if`: it would be a nested region.
    "under if": ("", "if (t % 2 == 0)\n      for (i = 0; i < N; i++) v[i] = u[i];"),
    # A body variable set by a call with effects: run once, other threads lack it.
    "once local": (
        "double s = next();",
        "for (i = 0; i < N; i++) v[i] = u[i] * s;",
    ),
}


def _trap(decl: str, body: str, live_after: bool) -> str:
    after = '  printf("%d\\n", t);\n' if live_after else ""
    return (
        "#include <stdio.h>\n#define N 100000\n"
        "static double u[N], v[N];\nstatic double seed;\n"
        "static double next(void) { seed += 1.0; return seed; }\n"
        "int main(void) {\n  int t, i;\n"
        "  for (i = 0; i < N; i++) u[i] = i;\n"
        f"  for (t = 0; t < 10; t++) {{\n    {decl}\n    {body}\n"
        "    for (i = 0; i < N; i++) u[i] = v[i] + 1.0;\n  }\n"
        f"{after}"
        '  printf("%f\\n", u[7]);\n  return 0;\n}\n'
    )


@pytest.mark.parametrize("name", sorted(TRAPS))
def test_hoisting_is_refused_where_it_would_change_the_program(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decl, body = TRAPS[name]
    text, err = _annotate(
        tmp_path, _trap(decl, body, name == "live after"), capsys, "--no-validate"
    )
    assert "opened one parallel region" not in err
    assert "#pragma omp parallel private(t)" not in text
    assert "#pragma omp single" not in text


def test_the_trap_template_hoists_without_its_trap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, err = _annotate(
        tmp_path,
        _trap("", "for (i = 0; i < N; i++) v[i] = u[i];", False),
        capsys,
        "--no-validate",
    )
    assert "opened one parallel region around the loop at line 9" in err
    assert "#pragma omp parallel private(t)" in text


def test_no_hoist_where_the_barriers_outweigh_the_shared_out_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two loops of about 2-3 region's worth each: enough for their two barriers,
    # not for a third one (the `single` of the shared statement between them).
    small = _trap("", "for (i = 0; i < N; i++) v[i] = u[i];", False)
    small = small.replace("#define N 100000", "#define N 7000")
    text, err = _annotate(tmp_path, small, capsys, "--no-validate")
    assert "opened one parallel region around the loop at line 9" in err
    once = small.replace("v[i] = u[i];", "v[i] = u[i];\n    seed += 1.0;")
    text, err = _annotate(tmp_path, once, capsys, "--no-validate")
    assert "opened one parallel region" not in err
    assert "#pragma omp single" not in text
    assert text.count("#pragma omp parallel for") == 2


HISTOGRAM = textwrap.dedent(
    """\
    #include <stdio.h>
    #define N 200000
    double a[N];
    int main(void) {
      int i, t, j;
      double h[16];
      for (i = 0; i < N; i++) a[i] = (i * 37) % 1001;
      for (t = 0; t < 5; t++) {
        for (j = 0; j < 16; j++) h[j] = 0;
        for (i = 0; i < N; i++) h[(int)a[i] % 16] += 1;
        for (i = 0; i < N; i++) a[i] = a[i] + h[i % 16] * 1e-6;
      }
      printf("%f %f\\n", a[3], h[2]);
      return 0;
    }
    """
)


def test_no_hoist_around_a_pragma_that_all_inserts_but_the_region_leaves_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--all` keeps the 16-iteration loop's `parallel for`, which the cost model
    # rejects: hoisted, it sat before the `single` that runs it (no compile).
    text, err = _annotate(tmp_path, HISTOGRAM, capsys, "--no-validate", "--all")
    assert "opened one parallel region" not in err
    assert "#pragma omp single" not in text
    # Four: the histogram's `+=` on the line of its `for` gets its atomic.
    assert text.count("#pragma omp parallel for") == 4
    assert text.count("#pragma omp atomic update") == 1
    text, err = _annotate(tmp_path, HISTOGRAM, capsys, "--no-validate")
    assert "opened one parallel region around the loop at line 8" in err


def test_a_static_local_of_the_body_is_shared_not_computed_on_every_thread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `calls++` on every thread would count once per thread: the plan itself must
    # refuse (the statement writes shared data; a declaration is never run once),
    # not leave it to the check catalog.
    text = HISTOGRAM.replace(
        "for (j = 0; j < 16; j++) h[j] = 0;",
        "static int calls = 0;\n    calls++;\n    h[t % 16] = calls;",
    )
    out, err = _annotate(tmp_path, text, capsys, "--no-validate")
    assert "opened one parallel region" not in err
    assert "hoisting it was refused" not in err
    assert "#pragma omp single" not in out


def test_an_empty_conditional_group_in_the_body_does_not_stop_the_hoist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What a tool that removes pragmas leaves: `#if` branches with no code.
    empty = "#if PARALLELFOR\n/* one region per loop */\n#else\n#endif\n    err = 0.0;"
    source = JACOBI.replace("    err = 0.0;", empty)
    assert source.count("#if PARALLELFOR") == 1
    text, err = _annotate(tmp_path, source, capsys, "--no-validate")
    assert "opened one parallel region around the loop at line 12" in err
    region = text[text.index("#pragma omp parallel private(t)") :]
    assert "#pragma omp parallel for" not in region
    assert "#if PARALLELFOR" in region  # the group stays where it was


def test_a_conditional_group_holding_code_still_stops_the_hoist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = "#if PARALLELFOR\n    w = 0.5;\n#endif\n    err = 0.0;"
    source = JACOBI.replace("    err = 0.0;", code)
    _text, err = _annotate(tmp_path, source, capsys, "--no-validate")
    assert "opened one parallel region" not in err
