"""`accls bench`: timings of the serial and annotated programs, in verify's sandbox."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import accls.cli.commands
import pytest
from accls.pipeline import bench_file, render_bench
from accls.settings import Settings
from accls.validation.run import VerifySettings

Need = Callable[[str], str]

KERNEL = textwrap.dedent(
    """\
    #include <stdio.h>
    #define N 200000
    static double a[N], b[N];
    int main(void) {
      for (int i = 0; i < N; i++) a[i] = 1.0 / (i + 1);
      for (int t = 0; t < 5; t++) {
        for (int i = 0; i < N; i++) b[i] = 2.0 * a[i] + 1.0;
        for (int i = 0; i < N; i++) a[i] = 0.5 * b[i];
      }
      double s = 0.0;
      for (int i = 0; i < N; i++) s += a[i];
      printf("%.12e\\n", s);
      return 0;
    }
    """
)

# Prints how many threads ran: the parallel output differs from the serial one.
THREADS = textwrap.dedent(
    """\
    #include <stdio.h>
    #ifdef _OPENMP
    #include <omp.h>
    #endif
    int main(void) {
      int n = 1;
    #ifdef _OPENMP
      #pragma omp parallel
      {
        #pragma omp single
        n = omp_get_num_threads();
      }
    #endif
      printf("%d\\n", n);
      return 0;
    }
    """
)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.usefixtures("sandbox")
def test_bench_times_serial_and_annotated_and_records(
    need: Need, tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = _write(tmp_path, "k.c", KERNEL)
    store = tmp_path / "bench.jsonl"
    report = bench_file(
        str(src),
        Settings(),
        VerifySettings(cc=gcc, threads=(1, 2)),
        repeats=2,
        per_loop=True,
        store=store,
    )
    labels = [(t.label, t.threads) for t in report.timings]
    assert labels[:3] == [("serial", None), ("annotated", 1), ("annotated", 2)]
    assert [t.matches for t in report.timings[:3]] == [None, True, True]
    assert all(len(t.runs) == 2 for t in report.timings)
    assert all(t.wall_s is not None for t in report.timings)
    # Each candidate loop on its own, at the largest thread count.
    assert {t.label for t in report.timings[3:]} <= {
        f"loop at line {n}" for n in (5, 7, 8, 11)
    }
    assert len(report.timings) > 3
    (record,) = [json.loads(line) for line in store.read_text().splitlines()]
    assert record["file"] == str(src)
    assert len(record["timings"]) == len(report.timings)
    text = render_bench(report)
    assert "output matches" in text
    assert f"recorded in {store}" in text


@pytest.mark.usefixtures("sandbox")
def test_a_parallel_output_that_differs_shows_no_time(
    need: Need,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gcc = need("gcc")
    src = _write(tmp_path, "threads.c", THREADS)
    monkeypatch.setenv("ACCLS_BENCH_DB", str(tmp_path / "b.jsonl"))
    argv = ["bench", str(src), "--cc", gcc, "--threads", "1,2", "--repeats", "1"]
    code = accls.cli.commands.main(argv)
    out, _ = capsys.readouterr()
    assert code == 1
    assert "2 thread(s)  no time: OUTPUT DIFFERS: stdout" in out


def test_bad_repeats_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _write(tmp_path, "k.c", KERNEL)
    code = accls.cli.commands.main(["bench", str(src), "--repeats", "0"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.strip() == "accls: error: --repeats: need 1 or more, not 0"


def test_a_missing_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = accls.cli.commands.main(["bench", str(tmp_path / "nope.c"), "--no-record"])
    _, err = capsys.readouterr()
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "nope.c" in err


# A loop worth timing, for the programs below that do run.
_WORK = """\
  static double a[100000];
  for (int i = 0; i < 100000; i++) a[i] = 0.5 * i;
  double s = 0.0;
  for (int i = 0; i < 100000; i++) s += a[i];
"""
STDIN = (
    "#include <stdio.h>\nint main(void) {\n  int n;\n"
    '  if (scanf("%d", &n) != 1) { fprintf(stderr, "need a count on stdin\\n"); '
    "return 1; }\n" + _WORK + '  printf("%g\\n", s * n);\n  return 0;\n}\n'
)
FOREVER = (
    "#include <stdio.h>\nint main(void) {\n  volatile int go = 1;\n"
    + _WORK
    + '  while (go) { }\n  printf("%g\\n", s);\n  return 0;\n}\n'
)
ARGS = (
    "#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {\n"
    '  if (argc < 2) { fprintf(stderr, "usage: prog N\\n"); return 2; }\n'
    + _WORK
    + '  printf("%g\\n", s * atoi(argv[1]));\n  return 0;\n}\n'
)
FILES = (
    "#include <stdio.h>\nint main(void) {\n"
    + _WORK
    + '  FILE *out = fopen("result.txt", "w");\n  if (!out) return 1;\n'
    '  fprintf(out, "%g\\n", s);\n  fclose(out);\n  return 0;\n}\n'
)


def _bad_input(
    gcc: str, tmp_path: Path, text: str, **verify: object
) -> tuple[str, Path]:
    src = _write(tmp_path, "p.c", text)
    settings = VerifySettings(cc=gcc, threads=(2,), **verify)  # type: ignore[arg-type]
    report = bench_file(str(src), Settings(), settings, repeats=1, record=False)
    return render_bench(report), src


@pytest.mark.usefixtures("sandbox")
def test_a_program_that_reads_stdin_is_told_so(need: Need, tmp_path: Path) -> None:
    text, _ = _bad_input(need("gcc"), tmp_path, STDIN)
    assert "reads standard input; bench gives it /dev/null" in text
    assert "--stdin FILE" in text
    assert "cannot be timed: it exited with code 1; it said: need a count" in text


@pytest.mark.usefixtures("sandbox")
def test_a_program_that_never_ends_is_told_so(need: Need, tmp_path: Path) -> None:
    text, _ = _bad_input(need("gcc"), tmp_path, FOREVER, timeout_s=2.0)
    assert "cannot be timed: it did not end within 2 s" in text
    assert "(stopped by the wall-clock timeout of 2 s" in text
    assert "--timeout" in text
    assert "annotated" not in text.split("\n", 1)[1]  # nothing else was run


@pytest.mark.usefixtures("sandbox")
def test_a_program_that_needs_arguments_is_told_so(need: Need, tmp_path: Path) -> None:
    gcc = need("gcc")
    text, _ = _bad_input(gcc, tmp_path, ARGS)
    assert "reads command-line arguments; none were given" in text
    assert "exited with code 2; it said: usage: prog N" in text
    given, _ = _bad_input(gcc, tmp_path, ARGS, args=("3",))
    assert "output matches" in given
    assert "arguments" not in given


@pytest.mark.usefixtures("sandbox")
def test_a_program_that_writes_files_runs_in_its_own_folder(
    need: Need, tmp_path: Path
) -> None:
    text, src = _bad_input(need("gcc"), tmp_path, FILES)
    assert "the program writes files (result.txt)" in text
    assert "output matches" in text
    assert sorted(p.name for p in src.parent.iterdir()) == ["p.c"]


@pytest.mark.slow
@pytest.mark.usefixtures("sandbox")
def test_per_loop_on_500_loops_stops_at_its_budget(need: Need, tmp_path: Path) -> None:
    gcc = need("gcc")
    body = "\n".join(
        f"  for (int i = 0; i < N; i++) a[{k % 7}][i] += {k}.0 * b[i];"
        for k in range(500)
    )
    src = _write(
        tmp_path,
        "many.c",
        "#include <stdio.h>\n#define N 4000\nstatic double a[7][N], b[N];\n"
        "int main(void) {\n  for (int i = 0; i < N; i++) b[i] = i;\n"
        f"{body}\n  double s = 0.0;\n  for (int i = 0; i < N; i++) s += a[3][i];\n"
        '  printf("%g\\n", s);\n  return 0;\n}\n',
    )
    seen: list[tuple[str, int, int]] = []
    report = bench_file(
        str(src),
        Settings(),
        VerifySettings(cc=gcc, threads=(2,)),
        repeats=1,
        per_loop=True,
        every=True,
        budget_s=1.0,
        record=False,
        progress=lambda what, done, total: seen.append((what, done, total)),
    )
    alone = [t for t in report.timings if t.label.startswith("loop at line")]
    (budget,) = [n for n in report.notes if n.startswith("budget of 1 s reached")]
    assert f"{len(alone)} of 502 loops timed on their own" in budget
    assert len(alone) <= 2
    # The bar knows the whole job and stops short of it.
    assert {total for _, _, total in seen} == {504}
    assert seen[-1][1] == 2 + len(alone)
