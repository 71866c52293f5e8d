"""`accls check`: one failing and one passing C fixture per finding code."""

from __future__ import annotations

import io
import json
import re
import textwrap
from pathlib import Path

import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.analysis.checks import check_file, check_source
from accls.analysis.findings import CATALOG, Category, Severity
from accls.cli.findings_output import exit_code, finding_json, write_findings_text
from accls.frontend import parse_source

ROOT = Path(__file__).resolve().parent.parent.parent
RACES = ROOT / "tests" / "fixtures" / "races"
DOCS = ROOT / "docs" / "checks"
_EXPECT = re.compile(r"/\*\s*expect:\s*([^*]*?)\s*\*/")


def _expected(path: Path) -> set[str]:
    match = _EXPECT.search(path.read_text(encoding="utf-8"))
    assert match is not None, f"{path.name} has no `/* expect: ... */` header"
    words = match.group(1).replace(",", " ").split()
    return set() if words == ["none"] else set(words)


def _codes(text: str) -> set[str]:
    return {f.code for f in check_file(text, "t.c")}


FIXTURES = sorted(RACES.glob("*.c"))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_codes(path: Path) -> None:
    assert _codes(path.read_text(encoding="utf-8")) == _expected(path)


def test_every_code_has_a_failing_and_a_passing_fixture() -> None:
    failing = {code for p in FIXTURES for code in _expected(p)}
    passing = [p for p in FIXTURES if not _expected(p)]
    assert failing == {kind.code for kind in CATALOG}
    assert len(passing) >= len(CATALOG)


def test_codes_are_unique_and_documented() -> None:
    codes = [kind.code for kind in CATALOG]
    assert len(codes) == len(set(codes))
    for kind in CATALOG:
        page = DOCS / f"{kind.code}.md"
        assert page.is_file(), f"missing {page}"
        assert kind.title in page.read_text(encoding="utf-8")


def test_each_code_series_holds_its_categories() -> None:
    # ACC1xx: races and broken loop constructs; ACC2xx: data movement;
    # ACC3xx: portability and performance advice.
    series = {
        "ACC1": {Category.RACE, Category.RESULT, Category.SYNTAX},
        "ACC2": {Category.DATA, Category.PORTABILITY, Category.PERFORMANCE},
        "ACC3": {Category.PORTABILITY, Category.PERFORMANCE},
    }
    seen = {prefix: set[Category]() for prefix in series}
    for kind in CATALOG:
        seen[kind.code[:4]].add(kind.category)
    assert seen == series


SHARED_TMP = """
void f(int n, double *restrict b, const double *restrict a) {
  double t;
  #pragma omp parallel for
  for (int i = 0; i < n; i++) { t = a[i]; b[i] = t * t; }
}
"""


def test_message_names_variable_and_line() -> None:
    (item,) = check_file(textwrap.dedent(SHARED_TMP), "t.c")
    assert item.code == "ACC103"
    assert "`t`" in item.message
    assert "line 5" in item.message


def test_private_advice_only_where_private_is_the_fix() -> None:
    text = textwrap.dedent(
        """\
        static void add(double *t, double v) { *t += v; }
        double run(int n, const double *a, double *restrict out) {
          double total = 0, last = 0, tmp;
          #pragma omp parallel for
          for (int i = 0; i < n; i++) { add(&total, a[i]); }
          #pragma omp parallel for
          for (int i = 0; i < n; i++) { if (a[i] > 50) last = a[i]; }
          #pragma omp parallel for
          for (int i = 0; i < n; i++) { tmp = a[i]; out[i] = tmp * tmp; }
          return total + last;
        }
        """
    )
    found = [f for f in check_file(text, "t.c") if f.code == "ACC103"]
    by_var = {f.message.split("`")[1]: f.message for f in found}
    assert "add `private(tmp)`" in by_var["tmp"]
    for name in ("total", "last"):
        assert f"add `private({name})`" not in by_var[name]
        assert f"`private({name})` would lose the value" in by_var[name]


def test_json_contract() -> None:
    (item,) = check_file(textwrap.dedent(SHARED_TMP), "t.c")
    obj = finding_json("t.c", item)
    assert obj["file"] == "t.c"
    assert (obj["line"], obj["code"]) == (5, "ACC103")
    assert obj["category"] == "race"
    assert obj["severity"] == "error"
    assert json.loads(json.dumps(obj)) == obj


def test_exit_code_counts_only_errors() -> None:
    items = check_file(textwrap.dedent(SHARED_TMP), "t.c")
    assert exit_code(items) == 1
    assert exit_code(()) == 0
    needless = (RACES / "acc_needless_copy.c").read_text(encoding="utf-8")
    advice = check_file(needless, "t.c")
    assert [(f.code, f.level) for f in advice] == [("ACC204", Severity.INFO)]
    assert exit_code(advice) == 0


def test_text_output() -> None:
    items = check_file(textwrap.dedent(SHARED_TMP), "t.c")
    stream = io.StringIO()
    write_findings_text(stream, [("t.c", f) for f in items])
    assert stream.getvalue().startswith("t.c:5:")
    assert "1 finding(s), 1 error(s)" in stream.getvalue()


def test_check_source_keeps_one_dialect() -> None:
    text = textwrap.dedent(SHARED_TMP)
    analysis = analyze(parse_source(text, "t.c", []), AnalysisOptions(dialect="acc"))
    assert check_source(analysis, "acc") == ()
    assert {f.code for f in check_source(analysis, "omp")} == {"ACC103"}


def test_default_private_clause_privatizes() -> None:
    text = SHARED_TMP.replace(
        "parallel for", "parallel for default(private) shared(a, b, n)"
    )
    assert "ACC103" not in _codes(textwrap.dedent(text))


def test_orphaned_for_keeps_function_locals_private() -> None:
    text = SHARED_TMP.replace("parallel for", "for")
    assert _codes(textwrap.dedent(text)) == set()


def test_openacc_private_scalar_is_fine() -> None:
    text = SHARED_TMP.replace("omp parallel for", "acc parallel loop")
    assert _codes(textwrap.dedent(text)) == set()


def test_openacc_missing_reduction_is_a_warning() -> None:
    src = """
    double f(int n, const double *a) {
      double s = 0.0;
      #pragma acc parallel loop copyin(a[0:n])
      for (int i = 0; i < n; i++) s += a[i];
      return s;
    }
    """
    (item,) = check_file(textwrap.dedent(src), "t.c")
    assert (item.code, item.level) == ("ACC104", Severity.WARNING)


def test_partly_atomic_dependence_is_a_race() -> None:
    """An atomic update orders nothing for the plain read of the same element."""
    src = """
    void f(int n, int *restrict c, int *restrict a) {
      #pragma omp parallel for
      for (int x = 0; x < n; x++)
        for (int y = 0; y < 7; y++) {
          c[x] = a[0];
          #pragma omp atomic
          a[0] += 1;
        }
    }
    """
    codes = {(f.code, f.level) for f in check_file(textwrap.dedent(src), "t.c")}
    assert ("ACC101", Severity.ERROR) in codes


def test_private_array_has_no_dependence() -> None:
    src = """
    void f(int n, double *restrict b, const double *restrict a) {
      double tmp[8];
      #pragma omp parallel for private(tmp)
      for (int i = 0; i < n; i++) {
        for (int k = 0; k < 8; k++) tmp[k] = a[i] * k;
        b[i] = tmp[3];
      }
    }
    """
    assert _codes(textwrap.dedent(src)) == set()


def test_linearized_index_doubt_is_only_info() -> None:
    src = """
    void f(int h, int w, int step, int ch, double *out) {
      #pragma omp parallel for
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          out[y * step + x * ch] = 1.0;
    }
    """
    items = check_file(textwrap.dedent(src), "t.c")
    assert {(f.code, f.level) for f in items} <= {("ACC102", Severity.INFO)}


def test_cli_check_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    from accls.cli import main

    assert main(["check", str(RACES / "flow_dependence_ok.c")]) == 0
    capsys.readouterr()
    assert main(["check", "--format", "json", str(RACES / "flow_dependence.c")]) == 1
    codes = {f["code"] for f in json.loads(capsys.readouterr().out)}
    assert codes == {"ACC101"}
    assert main(["check", str(RACES / "no-such-file.c")]) == 2


def _check(text: str) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in check_file(textwrap.dedent(text), "t.c")]


SHORT_BELOW = """
void f(int n, const double *a, double *b) {
  #pragma omp target teams distribute parallel for map(to: a[1:n]) map(from: b[0:n])
  for (int i = 0; i < n; i++)
    b[i] = a[i];
}
"""


def test_short_section_below_names_clause_and_range() -> None:
    ((code, message),) = _check(SHORT_BELOW)
    assert code == "ACC205"
    assert "`map(to: a[1:n])`" in message
    assert "a[1..n]" in message
    assert "a[0..n - 1]" in message
    assert "line 4" in message


SHORT_2D = """
void f(int n, int m, double *restrict *restrict a, double *restrict *restrict b) {
  #pragma acc data copyin(a[0:n][0:m]) copyout(b[0:n][0:m])
  {
    #pragma acc parallel loop
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        b[i][j] = a[i][j + 1];
  }
}
"""


def test_short_section_in_an_enclosing_region_and_second_dimension() -> None:
    assert [code for code, _ in _check(SHORT_2D)] == ["ACC205"]


SECTION_UNPROVABLE = """
void f(int n, int k, const double *a, double *b) {
  #pragma acc parallel loop copyin(a[0:n]) copyout(b[0:n])
  for (int i = 0; i < n; i++)
    b[i] = a[i + k];
}
void g(int n, const double *a, double *b) {
  #pragma acc parallel loop copyin(a[:n]) copyout(b[0:n])
  for (int i = 0; i < n; i += 2)
    b[i] = a[i + 1];
}
void h(int n, const double *a, double *b) {
  #pragma acc parallel loop copyin(a[0:n]) copyout(b[0:n])
  for (int i = 0; i < n; i++)
    b[i] = i + 1 < n ? a[i + 1] : 0.0;
}
"""


def test_short_section_needs_a_proof() -> None:
    # unknown offset, a stride-2 loop that never reaches n, a guarded read
    assert _check(SECTION_UNPROVABLE) == []


REPEATED = """
void f(int steps, int n, double *a) {
  for (int t = 0; t < steps; t++) {
    #pragma acc parallel loop copy(a[0:n])
    for (int i = 0; i < n; i++)
      a[i] = a[i] * 0.5;
  }
}
"""


def test_repeated_transfers_estimate_and_advice() -> None:
    ((code, message),) = _check(REPEATED)
    assert code == "ACC302"
    assert "16*n bytes" in message
    assert "about n floating-point operations" in message
    assert "`#pragma acc data` around the loop at line 3" in message


CHUNKED = """
void f(int blocks, int bs, double *a) {
  for (int k = 0; k < blocks; k++) {
    #pragma acc parallel loop copy(a[k * bs:bs])
    for (int i = k * bs; i < (k + 1) * bs; i++)
      a[i] = a[i] * 0.5;
  }
}
void g(int steps, int n, double *a) {
  #pragma acc enter data copyin(a[0:n])
  for (int t = 0; t < steps; t++) {
    #pragma acc parallel loop copy(a[0:n])
    for (int i = 0; i < n; i++)
      a[i] = a[i] * 0.5;
  }
  #pragma acc exit data copyout(a[0:n])
}
"""


def test_no_repeated_transfers_for_chunks_or_present_data() -> None:
    assert [code for code, _ in _check(CHUNKED)] == []


HOST_LOOP_IN_REGION = """
double f(int n, double *a) {
  double s = 0.0;
  #pragma omp target data map(tofrom: a[0:n])
  {
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      a[i] = 2.0 * a[i];
    for (int i = 0; i <= n; i++)
      s += a[i];
  }
  return s;
}
"""


def test_short_section_ignores_host_loops_in_a_data_region() -> None:
    # No ACC205: the host loop reads host memory. It does read the host's old
    # copy, though: the kernel's doubling stays on the device (ACC207).
    assert [code for code, _ in _check(HOST_LOOP_IN_REGION)] == ["ACC207"]


def test_threadprivate_lines_are_read_once_per_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each checked loop used to search the whole text again: 30,000 loops in a
    # 5 MB file took 444 s, almost all of it in that search.
    from accls.frontend import source_file as model

    calls = []
    real = model._THREADPRIVATE

    class Counted:
        def findall(self, text: str) -> list[str]:
            calls.append(len(text))
            return real.findall(text)

    monkeypatch.setattr(model, "_THREADPRIVATE", Counted())
    loop = "#pragma omp parallel for\nfor (int i = 0; i < n; i++) t = a[i];\n"
    text = "int t;\n#pragma omp threadprivate(t)\nvoid f(int n, double *a) {\n"
    check_file(text + loop * 40 + "}\n", "t.c")
    assert len(calls) == 1
    assert parse_source(text + "}\n").threadprivate == {"t"}


def test_section_check_is_linear_in_the_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each data clause used to rescan every reference of its function for
    # scalar writes: a function of 1,000 loops made millions of look-ups.
    from accls.frontend import Ref

    calls = 0
    real = Ref.is_write

    def counted(ref: Ref) -> bool:
        nonlocal calls
        calls += 1
        return bool(real.fget(ref))  # type: ignore[attr-defined]

    loop = (
        "#pragma acc parallel loop copyin(b[0:n]) copyout(a[0:n])\n"
        "for (int i = 0; i < n; i++) a[i] = b[i];\n"
    )
    text = "void f(int n, double *a, const double *b) {\n" + loop * 600 + "}\n"
    source = parse_source(text, "t.c", [])
    analysis = analyze(source, AnalysisOptions(dialect="acc"))
    monkeypatch.setattr(Ref, "is_write", property(counted))
    assert check_source(analysis, "acc") == ()
    assert calls < 200 * 600
