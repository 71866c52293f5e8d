"""The command line: JSON and text reports, annotate, and clean errors on bad input."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest
from accls.cli import main
from support.cli import run_accls

ROOT = Path(__file__).resolve().parents[2]
BIG_FILE_TIMEOUT_S = 60.0

SAXPY = dedent(
    """\
    void saxpy(int n, float s, const float *restrict x, float *restrict y) {
      for (int i = 0; i < n; i++) {
        y[i] = s * x[i] + y[i];
      }
    }
    """
)
SAXPY_PRAGMA = "#pragma acc parallel loop copy(y[0:n]) copyin(x[0:n])"

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """Return `run(*argv) -> (exit code, stdout, stderr)`, running main() in-process."""

    def run(*argv: str) -> tuple[int, str, str]:
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return code, out, err

    return run


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def suggest_json(cli: Cli, path: Path, *flags: str) -> list[dict[str, Any]]:
    code, out, err = cli("suggest", "--format", "json", *flags, str(path))
    assert code == 0, err
    loops = json.loads(out)
    assert isinstance(loops, list)
    return loops


# ----- suggest --format json ----------------------------------------------------


def test_json_objects_carry_the_contract_keys(cli: Cli, tmp_path: Path) -> None:
    (loop,) = suggest_json(cli, write(tmp_path / "saxpy.c", SAXPY))
    contract = {
        "file",
        "line",
        "column",
        "model",
        "parallelizable",
        "pragma",
        "reasons",
        "validation",
        "source",
    }
    assert contract <= loop.keys()


def test_json_values_for_a_parallel_loop(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path / "saxpy.c", SAXPY)
    (loop,) = suggest_json(cli, path)
    assert loop["file"] == str(path)
    assert (loop["line"], loop["column"]) == (2, 3)
    assert (loop["model"], loop["parallelizable"]) == ("openacc", True)
    assert loop["pragma"] == SAXPY_PRAGMA
    assert loop["reasons"]
    assert all(isinstance(r, str) for r in loop["reasons"])
    assert loop["source"] == "analysis"
    assert loop["validation"]["race_free"] is True
    assert loop["validation"]["compiles"] in (True, None)


def test_json_for_a_refused_loop(cli: Cli, tmp_path: Path) -> None:
    path = write(
        tmp_path / "scan.c",
        "void scan(int n, double *a) {\n"
        "  for (int i = 1; i < n; i++) a[i] += a[i-1];\n}\n",
    )
    (loop,) = suggest_json(cli, path)
    assert (loop["parallelizable"], loop["pragma"]) == (False, None)
    assert loop["reasons"]


def test_json_line_is_that_of_the_for_keyword(cli: Cli, tmp_path: Path) -> None:
    path = write(
        tmp_path / "lines.c",
        dedent(
            """\
            /* a header comment
               over two lines */
            void f(int n, double *restrict a) {
              // a comment
              int k = 0; for (int i = 0; i < n; i++)
                a[i] = k;
            }
            """
        ),
    )
    (loop,) = suggest_json(cli, path)
    assert (loop["line"], loop["column"]) == (5, 14)


def test_json_lists_outermost_loops_first(cli: Cli, tmp_path: Path) -> None:
    path = write(
        tmp_path / "nests.c",
        dedent(
            """\
            void f(int n, int m, double *restrict a, double *restrict b) {
              for (int t = 1; t < m; t++)
                for (int i = 0; i < n; i++)
                  a[t*n+i] = a[(t-1)*n+i] + 1;
              for (int j = 0; j < n; j++)
                b[j] = 0;
            }
            """
        ),
    )
    loops = suggest_json(cli, path, "--model", "openmp")
    assert [(x["line"], x["parallelizable"]) for x in loops] == [
        (2, False),
        (3, True),
        (5, True),
    ]


def test_json_for_openmp_defaults_to_the_cpu(cli: Cli, tmp_path: Path) -> None:
    (loop,) = suggest_json(cli, write(tmp_path / "saxpy.c", SAXPY), "--model", "openmp")
    assert (loop["model"], loop["pragma"]) == ("openmp", "#pragma omp parallel for")


def test_json_for_several_files_keeps_file_order(cli: Cli, tmp_path: Path) -> None:
    first = write(tmp_path / "one.c", SAXPY)
    second = write(tmp_path / "two.c", SAXPY)
    code, out, _ = cli("suggest", "--format", "json", str(first), str(second))
    assert code == 0
    assert [x["file"] for x in json.loads(out)] == [str(first), str(second)]


def test_a_missing_file_among_several_still_reports_the_others(
    cli: Cli, tmp_path: Path
) -> None:
    good = write(tmp_path / "good.c", SAXPY)
    code, out, err = cli(
        "suggest", "--format", "json", str(good), str(tmp_path / "gone.c")
    )
    assert code == 2
    assert [x["file"] for x in json.loads(out)] == [str(good)]
    assert err.startswith("accls: error:")


def test_empty_file_gives_an_empty_list(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path / "empty.c", "")
    code, out, err = cli("suggest", "--format", "json", str(path))
    assert (code, json.loads(out), err) == (0, [], "")


def test_cpp_file_warns_but_reports(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path / "saxpy.cpp", SAXPY)
    code, out, err = cli("suggest", "--format", "json", str(path))
    assert code == 0
    assert len(json.loads(out)) == 1
    assert err.startswith("accls: warning:")


def test_syntax_errors_give_partial_results_and_a_warning(
    cli: Cli, tmp_path: Path
) -> None:
    path = write(
        tmp_path / "broken.c",
        dedent(
            """\
            void f(int n, double *restrict a) {
              for (int i = 0; i < n; i++) a[i] = 0;
              int x = ) @@ ;
            }
            """
        ),
    )
    code, out, err = cli("suggest", "--format", "json", str(path))
    assert code == 0
    assert [x["line"] for x in json.loads(out)] == [2]
    assert err.startswith("accls: warning:")
    assert len(err.splitlines()) == 1


# ----- suggest (text) ----------------------------------------------------------------


def test_text_report_names_the_place_and_the_pragma(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path / "saxpy.c", SAXPY)
    code, out, _ = cli("suggest", str(path))
    assert code == 0
    assert f"{path}:2:3" in out
    assert SAXPY_PRAGMA in out


def test_text_report_without_loops(cli: Cli, tmp_path: Path) -> None:
    code, out, _ = cli("suggest", str(write(tmp_path / "none.c", "int x;\n")))
    assert (code, out.strip()) == (0, "no loops found")


# ----- annotate ---------------------------------------------------------------------


def test_annotate_writes_the_output_file_and_keeps_the_input(
    cli: Cli, tmp_path: Path
) -> None:
    src = write(tmp_path / "saxpy.c", SAXPY)
    out_path = tmp_path / "out.c"
    code, _, _ = cli("annotate", str(src), "-o", str(out_path))
    assert code == 0
    assert src.read_text(encoding="utf-8") == SAXPY
    lines = out_path.read_text(encoding="utf-8").splitlines()
    assert lines[1] == "  " + SAXPY_PRAGMA
    assert lines[:1] + lines[2:] == SAXPY.splitlines()


def test_annotate_without_output_prints_to_stdout(cli: Cli, tmp_path: Path) -> None:
    src = write(tmp_path / "saxpy.c", SAXPY)
    code, out, _ = cli("annotate", str(src))
    assert code == 0
    assert out.splitlines()[1] == "  " + SAXPY_PRAGMA
    assert src.read_text(encoding="utf-8") == SAXPY


@pytest.mark.parametrize("spelling", ["same", "dot-slash", "symlink"])
def test_annotate_refuses_to_overwrite_its_input_without_in_place(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    src = write(tmp_path / "saxpy.c", SAXPY)
    monkeypatch.chdir(tmp_path)
    target = {"same": "saxpy.c", "dot-slash": "./saxpy.c", "symlink": "link.c"}[
        spelling
    ]
    if spelling == "symlink":
        (tmp_path / "link.c").symlink_to(src)
    code, _, err = cli("annotate", "saxpy.c", "-o", target)
    assert code == 2
    assert err.startswith("accls: error:")
    assert len(err.splitlines()) == 1
    assert src.read_text(encoding="utf-8") == SAXPY


def test_annotate_in_place_overwrites_the_input(cli: Cli, tmp_path: Path) -> None:
    src = write(tmp_path / "saxpy.c", SAXPY)
    code, _, _ = cli("annotate", "--in-place", str(src))
    assert code == 0
    assert src.read_text(encoding="utf-8").splitlines()[1] == "  " + SAXPY_PRAGMA


def test_annotate_keeps_an_existing_pragma_and_adds_nothing(
    cli: Cli, tmp_path: Path
) -> None:
    text = SAXPY.replace("  for", "  #pragma acc kernels loop\n  for")
    src = write(tmp_path / "kept.c", text)
    code, out, _ = cli("annotate", str(src))
    assert (code, out) == (0, text)


def test_annotate_preserves_crlf_line_endings(cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "crlf.c"
    src.write_bytes(SAXPY.replace("\n", "\r\n").encode("utf-8"))
    out_path = tmp_path / "out.c"
    code, _, _ = cli("annotate", str(src), "-o", str(out_path))
    assert code == 0
    data = out_path.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") == SAXPY.count("\n") + 1
    assert data.split(b"\r\n")[1] == b"  " + SAXPY_PRAGMA.encode()


def test_annotate_keeps_tab_indentation(cli: Cli, tmp_path: Path) -> None:
    src = write(tmp_path / "tabs.c", SAXPY.replace("  ", "\t"))
    code, out, _ = cli("annotate", str(src))
    assert code == 0
    assert out.splitlines()[1] == "\t" + SAXPY_PRAGMA


def test_non_ascii_comments_do_not_shift_the_pragma(cli: Cli, tmp_path: Path) -> None:
    text = dedent(
        """\
        /* café, naïve, 漢字 */
        void f(int n, double *restrict a) {
          // é 漢字 ü
          double k = 1; /* 漢字 */
            for (int i = 0; i < n; i++) a[i] = k;
        }
        """
    )
    code, out, _ = cli("annotate", str(write(tmp_path / "utf8.c", text)))
    assert code == 0
    lines = out.splitlines()
    assert lines[4] == "    #pragma acc parallel loop copyout(a[0:n])"
    assert lines[:4] + lines[5:] == text.splitlines()


def test_loop_sharing_a_line_with_non_ascii_text_is_split_before_for(
    cli: Cli, tmp_path: Path
) -> None:
    text = (
        "void f(int n, double *restrict a) {\n"
        "  int k = 0; /* é 漢字 */ for (int i = 0; i < n; i++) a[i] = k;\n"
        "}\n"
    )
    code, out, _ = cli("annotate", str(write(tmp_path / "inline.c", text)))
    assert code == 0
    assert [line.rstrip() for line in out.splitlines()[1:4]] == [
        "  int k = 0; /* é 漢字 */",
        "  #pragma acc parallel loop copyout(a[0:n])",
        "  for (int i = 0; i < n; i++) a[i] = k;",
    ]


def test_annotate_places_atomic_pragmas_above_indirect_updates(
    cli: Cli, tmp_path: Path
) -> None:
    text = dedent(
        """\
        void hist(int n, const int *restrict d, int *restrict h) {
            for (int i = 0; i < n; i++) {
                h[d[i]]++;
            }
        }
        """
    )
    src = write(tmp_path / "hist.c", text)
    code, out, err = cli("annotate", "--model", "openmp", str(src))
    assert code == 0
    assert "#pragma omp" not in out  # atomic-bound: left out by the cost model
    assert "1 pragma(s) left out as unlikely to pay off" in err
    code, out, _ = cli("annotate", "--model", "openmp", "--all", str(src))
    assert code == 0
    assert out.splitlines()[1:5] == [
        "    #pragma omp parallel for",
        "    for (int i = 0; i < n; i++) {",
        "        #pragma omp atomic update",
        "        h[d[i]]++;",
    ]


# ----- bad input, end to end ---------------------------------------------------------


BAD_INPUTS = [
    "missing-file",
    "directory",
    "binary",
    "not-utf8",
    "c-under-fortran-name",
    "prose",
    "too-large",
    "unknown-subcommand",
    "bad-flag",
    "bad-model",
    "no-file",
    "output-and-in-place",
    "unwritable-output",
    "annotate-missing-file",
]


def _bad_input_argv(case: str, tmp: Path) -> list[str]:
    good = write(tmp / "good.c", SAXPY)
    if case == "missing-file":
        return ["suggest", str(tmp / "missing.c")]
    if case == "directory":
        return ["suggest", str(tmp)]
    if case == "binary":
        (tmp / "binary.c").write_bytes(b"int x;\0\x01\x02\x03 for (;;);\n")
        return ["suggest", str(tmp / "binary.c")]
    if case == "not-utf8":
        (tmp / "latin1.c").write_bytes("/* caf\xe9 */ int x;\n".encode("latin-1"))
        return ["suggest", str(tmp / "latin1.c")]
    if case == "c-under-fortran-name":
        write(tmp / "loop.f90", SAXPY)
        return ["suggest", str(tmp / "loop.f90")]
    if case == "prose":
        write(tmp / "prose.c", "The quick brown fox jumps over the lazy dog.\n" * 20)
        return ["suggest", str(tmp / "prose.c")]
    if case == "too-large":
        with open(tmp / "huge.c", "wb") as fh:
            fh.truncate(17 * 1024 * 1024)  # sparse: no time spent writing
        return ["suggest", str(tmp / "huge.c")]
    if case == "unknown-subcommand":
        return ["frobnicate", str(good)]
    if case == "bad-flag":
        return ["suggest", "--bogus", str(good)]
    if case == "bad-model":
        return ["annotate", "--model", "cuda", str(good)]
    if case == "no-file":
        return ["suggest"]
    if case == "output-and-in-place":
        return ["annotate", str(good), "-o", str(tmp / "o.c"), "--in-place"]
    if case == "unwritable-output":
        return ["annotate", str(good), "-o", str(tmp / "no" / "such" / "dir.c")]
    if case == "annotate-missing-file":
        return ["annotate", str(tmp / "missing.c")]
    raise AssertionError(case)


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_exits_2_with_one_clean_error_line(
    cli: Cli, tmp_path: Path, case: str
) -> None:
    code, out, err = cli(*_bad_input_argv(case, tmp_path))
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("accls: error:")


END_TO_END = ["missing-file", "binary", "not-utf8", "bad-flag"]


@pytest.fixture(scope="module")
def bad_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, subprocess.CompletedProcess[str]]:
    """A few bad-input cases through `python -m accls`, run at once."""
    argvs = {c: _bad_input_argv(c, tmp_path_factory.mktemp(c)) for c in END_TO_END}
    with ThreadPoolExecutor(max_workers=len(argvs)) as pool:
        futures = {case: pool.submit(run_accls, *argv) for case, argv in argvs.items()}
        return {case: future.result() for case, future in futures.items()}


@pytest.mark.parametrize("case", END_TO_END)
def test_bad_input_from_a_fresh_interpreter_has_no_traceback(
    bad_runs: dict[str, subprocess.CompletedProcess[str]], case: str
) -> None:
    proc = bad_runs[case]
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2
    assert proc.stderr.startswith("accls: error:")
    assert len(proc.stderr.splitlines()) == 1


# ----- scale -------------------------------------------------------------------------


def _deep_source(depth: int, statements: int) -> str:
    lines = ["void deep(int n, double *restrict a, double *restrict b) {"]
    lines += [f"{' ' * d}for (int i{d} = 0; i{d} < n; i{d}++) {{" for d in range(depth)]
    lines += [
        f"  b[i{k % depth}] = a[i{(k * 7) % depth}] * {k}.0 + b[i0];"
        for k in range(statements)
    ]
    lines += ["}"] * (depth + 1)
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_megabyte_of_deeply_nested_loops_finishes_cleanly(tmp_path: Path) -> None:
    text = _deep_source(depth=200, statements=24_000)
    assert len(text) > 900_000
    path = write(tmp_path / "deep.c", text)
    proc = run_accls(
        "suggest", "--format", "json", str(path), timeout=BIG_FILE_TIMEOUT_S
    )
    assert "Traceback" not in proc.stderr
    if proc.returncode == 0:
        assert json.loads(proc.stdout)[0]["line"] == 2
    else:
        assert proc.returncode == 2
        assert proc.stderr.startswith("accls: error:")


def test_without_a_compiler_suggestions_are_unverified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from accls.cli import main

    src = tmp_path / "k.c"
    src.write_text(
        "void f(int n, double *restrict a) {\n"
        "  for (int i = 0; i < n; i++) a[i] = 0;\n}\n"
    )
    rc = main(["suggest", "--format", "json", "--cc", "no-such-cc-accls", str(src)])
    out = capsys.readouterr()
    assert rc == 0
    (obj,) = json.loads(out.out)
    assert obj["pragma"] is not None
    assert obj["validation"]["compiles"] is None
    assert out.err.count("not found") == 1
