"""`accls report`: the screening data, its HTML and JSON, and bad input."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest
from accls.analysis.model import Dependence, DepKind
from accls.analysis.nest_graph import statement_graph
from accls.cli import main
from accls.frontend import Span
from accls.screening import ScreenConfig, Verdict, screen_file, screen_text
from accls.screening.statements import Statements

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "c"

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


def _json(cli: Cli, *argv: str) -> dict[str, Any]:
    code, out, err = cli("report", "--no-preprocess", "--format", "json", *argv)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def _span(line: int, start: int) -> Span:
    return Span(start, start + 1, (line - 1, 0), (line - 1, 1))


def _dep(src: int, snk: int, kind: DepKind, dist: tuple[int | None, ...]) -> Dependence:
    return Dependence(
        array="a",
        kind=kind,
        source=_span(src, src * 100),
        sink=_span(snk, snk * 100),
        loops=(1,) * len(dist),
        direction=("<",) * len(dist),
        distance=dist,
        carrier=1,
    )


def test_statement_graph_merges_and_layers() -> None:
    deps = [
        _dep(5, 5, DepKind.FLOW, (1, 0)),
        _dep(5, 5, DepKind.FLOW, (1, -1)),
        _dep(7, 5, DepKind.ANTI, (1, None)),
        _dep(5, 7, DepKind.FLOW, (2, 0)),
        _dep(7, 9, DepKind.FLOW, (1, 0)),
    ]
    graph = statement_graph(deps)
    # 5 and 7 form a cycle: one layer; 9 depends on it: the next.
    assert graph.layers == ((5, 7), (9,))
    self_flow = [e for e in graph.edges if (e.source, e.sink) == (5, 5)]
    assert len(self_flow) == 1
    assert (self_flow[0].distance, self_flow[0].count) == ("(1, *)", 2)
    assert [e.distance for e in graph.edges if e.kind == "anti"] == ["(1, ?)"]
    assert statement_graph(reversed(deps)) == graph  # the order does not matter
    few = statement_graph(deps, edge_limit=2)
    assert (len(few.edges), few.dropped_edges) == (2, len(graph.edges) - 2)
    capped = statement_graph(deps, limit=2)
    assert capped.dropped == 1
    assert sorted(line for layer in capped.layers for line in layer) == [5, 7]


def test_statements_span_lines_and_skip_headers() -> None:
    text = "void f(int n, double *a) {\n  for (int i = 1; i < n; i++)\n"
    text += "    a[i] = (a[i - 1]\n            + 1.0);\n}\n"
    body_start = text.index("a[i] =")
    body = Span(body_start, len(text) - 2, (2, 4), (3, 18))
    statements = Statements(text, [body])
    inner = text.index("a[i - 1]")
    assert statements.line_of(Span(inner, inner + 8, (2, 12), (2, 20))) == 3
    assert statements.text_at(3) == "a[i] = (a[i - 1] + 1.0);"


def test_screen_rows_follow_the_suggestions() -> None:
    screen = screen_file(str(FIXTURES / "gauss_seidel.c"), ScreenConfig())
    assert screen.skipped is None
    serial = [r for r in screen.rows if r.verdict is Verdict.SERIAL]
    parallel = [r for r in screen.rows if r.verdict is Verdict.PARALLEL]
    assert serial
    assert parallel
    assert all(r.reason and r.reason_class == "array dependence" for r in serial)
    assert all(dict(r.pragmas).keys() == {"openmp", "openacc"} for r in parallel), (
        parallel
    )
    assert all(r.reason == "" for r in parallel)
    # The refused nest (the time loop) has its graph, drawn per statement.
    assert [p.line for p in screen.pictures] == [serial[0].line]
    (picture,) = screen.pictures
    assert picture.graph.edges
    assert picture.labels[0][1].startswith("A[i][j] = (A[i - 1][j - 1]")


def test_too_small_loops_are_their_own_verdict() -> None:
    text = dedent(
        """\
        void f(double *restrict a) {
          for (int i = 0; i < 4; i++)
            a[i] = 0.0;
        }
        """
    )
    (row,) = screen_text(text, "small.c", ScreenConfig()).rows
    assert row.verdict is Verdict.NOT_WORTH
    assert row.reason_class == "too little work"
    assert row.work == "4 iterations"


def test_the_cost_model_marks_safe_loops_that_do_not_pay() -> None:
    text = dedent(
        """\
        double hdr[2048];
        double big[4000][4000];
        void f(void) {
          for (int h = 0; h < 2048; h++)
            hdr[h] = 0.0;
          for (int i = 0; i < 4000; i++)
            for (int j = 0; j < 4000; j++)
              big[i][j] = big[i][j] * 0.5 + 1.0;
        }
        """
    )
    rows = {r.line: r for r in screen_text(text, "cost.c", ScreenConfig()).rows}
    assert rows[4].verdict is Verdict.NOT_WORTH
    assert rows[4].reason == "small loop: likely slower in parallel"
    assert rows[4].work == "≈ 4096 work units per execution"
    assert rows[6].verdict is Verdict.PARALLEL
    assert rows[6].work == "≈ 8.0·10^7 work units per execution"


def test_html_holds_table_chart_graphs_and_note(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    files = [str(FIXTURES / n) for n in ("gauss_seidel.c", "saxpy_alias.c")]
    code, _, err = cli("report", "--no-preprocess", *files, "-o", str(out))
    assert code == 0, err
    assert "2 file(s)" in err
    page = out.read_text(encoding="utf-8")
    data = _json(cli, *files)
    assert page.count("<tr class=") == len(data["loops"])
    assert 'class="chart"' in page
    assert 'class="graph"' in page
    assert "analysis alone" in page
    assert "#pragma omp parallel for" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    # gauss_seidel's checksum in `main` runs once after the sweeps and only prints.
    assert data["reasons"] == {
        "array dependence": 3,
        "possible aliasing": 1,
        "too little work": 1,
    }
    assert data["validated"] is False


def test_source_text_is_escaped(cli: Cli, tmp_path: Path) -> None:
    evil = "</script><script>alert(1)</script>"
    name = tmp_path / "x<img src=x onerror=alert(1)>.c"
    name.write_text(
        dedent(
            f"""\
            void opaque(double *p); /* {evil} */
            void f(int n, double *a) {{
              for (int i = 1; i < n; i++)
                a[i] = a[i - 1] + 1.0 /* {evil} */;
              for (int i = 0; i < n; i++)
                opaque(a); /* {evil} */
            }}
            """
        ),
        encoding="utf-8",
    )
    out = tmp_path / "r.html"
    code, _, err = cli("report", "--no-preprocess", str(tmp_path), "-o", str(out))
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert "<img src=x" not in page
    assert "alert(1)</script>" not in page
    assert page.count("<script>") == 1
    assert "&lt;/script&gt;&lt;script&gt;" in page  # the statement, in the graph
    assert "x&lt;img src=x" in page  # the file name, in the table


def test_json_caps_rows_and_says_so(cli: Cli, tmp_path: Path) -> None:
    body = "".join(
        f"  for (int i = 1; i < n; i++) a[i] = a[i - 1] + {k};\n" for k in range(30)
    )
    big = tmp_path / "many.c"
    big.write_text(f"void f(int n, double *restrict a) {{\n{body}}}\n")
    data = _json(cli, "--max-rows", "5", str(big))
    assert data["files"][0]["loops"] == 30
    assert data["files"][0]["capped"] is True
    assert len(data["loops"]) == 5
    # The chart counts every loop, those left out of the table too.
    assert data["reasons"] == {"array dependence": 30}
    assert len(data["graphs"]) == 5
    code, out, _ = cli("report", "--no-preprocess", "--max-rows", "5", str(big))
    assert code == 0
    assert "25 more loop(s)" in out


def test_bad_files_are_listed_as_skipped(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "good.c").write_text(
        "void f(int n, double *restrict a) {\n"
        "  for (int i = 0; i < n; i++) a[i] = 0;\n}\n"
    )
    (tmp_path / "binary.c").write_bytes(b"\x7fELF\0\0\0")
    (tmp_path / "latin1.c").write_bytes(b"/* caf\xe9 */ int x;\n")
    unreadable = tmp_path / "secret.c"
    unreadable.write_text("int y;\n")
    unreadable.chmod(0)
    data = _json(cli, str(tmp_path), str(tmp_path / "missing.c"))
    reasons = {Path(s["file"]).name: s["reason"] for s in data["skipped"]}
    assert "binary" in reasons["binary.c"]
    assert "UTF-8" in reasons["latin1.c"]
    assert "no such file" in reasons["missing.c"]
    if os.geteuid() != 0:  # root reads any file
        assert "cannot read" in reasons["secret.c"]
    assert [Path(f["file"]).name for f in data["files"]].count("good.c") == 1
    code, out, err = cli("report", "--no-preprocess", str(tmp_path / "binary.c"))
    assert code == 2
    assert "Files not screened" in out
    assert "skipped" in err


@pytest.mark.parametrize("kind", ["empty", "no-c"])
def test_folders_without_c_files_fail_in_one_line(
    cli: Cli, tmp_path: Path, kind: str
) -> None:
    if kind == "no-c":
        (tmp_path / "notes.txt").write_text("hello\n")
        (tmp_path / "main.py").write_text("print(1)\n")
    code, out, err = cli("report", str(tmp_path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "no C files" in err


def test_output_is_never_lost(cli: Cli, tmp_path: Path) -> None:
    src = str(FIXTURES / "saxpy_alias.c")
    code, _, err = cli("report", src, "-o", str(tmp_path / "nowhere" / "r.html"))
    assert code == 2
    assert "does not exist" in err
    assert err.count("\n") == 1
    mine = tmp_path / "notes.html"
    mine.write_text("<p>my notes</p>")
    code, _, err = cli("report", "--no-preprocess", src, "-o", str(mine))
    assert code == 2
    assert "--force" in err
    assert mine.read_text() == "<p>my notes</p>"
    code, _, err = cli("report", "--no-preprocess", src, "-o", str(mine), "--force")
    assert code == 0, err
    for fmt in ("html", "json"):  # a report replaces a report, either format
        code, _, err = cli(
            "report", "--no-preprocess", "--format", fmt, src, "-o", str(mine)
        )
        assert code == 0, err
    assert json.loads(mine.read_text())["format"] == "accls-report/1"


def test_jobs_give_the_same_report(cli: Cli) -> None:
    files = sorted(str(p) for p in FIXTURES.glob("*.c"))[:6]
    one = _json(cli, "--jobs", "1", *files)
    two = _json(cli, "--jobs", "2", *files)
    for data in (one, two):
        del data["seconds"]
    assert one == two
    assert len({row["file"] for row in one["loops"]}) == 6


def test_compile_database_names_the_files(cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "a.c"
    src.write_text(
        "void f(int n, double *restrict a) {\n"
        "  for (int i = 0; i < n; i++) a[i] = 1;\n}\n"
    )
    db = tmp_path / "compile_commands.json"
    db.write_text(
        json.dumps(
            [{"directory": str(tmp_path), "file": "a.c", "command": "cc -c a.c"}]
        )
    )
    data = _json(cli, "--compile-commands", str(db))
    assert [Path(f["file"]).name for f in data["files"]] == ["a.c"]
    assert data["loops"][0]["verdict"] == "parallel"
    code, _, err = cli("report")
    assert code == 2
    assert "--compile-commands" in err


def test_findings_are_those_of_check(cli: Cli) -> None:
    races = ROOT / "tests" / "fixtures" / "races"
    files = [str(races / n) for n in ("acc_copyin_written.c", "acc_independent_dep.c")]
    files.append(str(races / "acc_copy_ok.c"))
    data = _json(cli, *files)
    _, out, _ = cli("check", "--no-preprocess", "--format", "json", *files)
    checked = [(f["file"], f["line"], f["code"]) for f in json.loads(out)]
    assert [(f["file"], f["line"], f["code"]) for f in data["findings"]] == checked
    assert len(checked) == 2


def test_project_summarises_the_other_files(cli: Cli, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.c").write_text(
        dedent(
            """\
            void fill(double x, double *tmp);
            #define N 1000
            static double a[N], b[N];
            void run(void) {
              for (int i = 0; i < N; i++) {
                double tmp[5];
                fill(a[i], tmp);
                b[i] = tmp[0] + tmp[4];
              }
            }
            """
        )
    )
    (root / "lib.c").write_text(
        "void fill(double x, double *tmp) {\n"
        "  for (int k = 0; k < 5; k++) tmp[k] = x * k + 1.0;\n}\n"
    )
    cache = ["--index-cache", str(tmp_path / "cache")]
    alone = _json(cli, *cache, str(root / "main.c"))
    assert alone["loops"][0]["reason_class"] == "call with unknown effects"
    indexed = _json(cli, *cache, "--project", str(root), str(root / "main.c"))
    assert indexed["loops"][0]["verdict"] == "parallel"
    assert _json(cli, *cache, "--project", str(root), "--no-index", str(root))[
        "reasons"
    ] == {"call with unknown effects": 1, "too little work": 1}
