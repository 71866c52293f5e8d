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
