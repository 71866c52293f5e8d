"""Statement macros with a block (`EACH(k) { ... }`) hide code: no fact rests on it.

tree-sitter reads `EACH(k) { b[k] += x; }` inside a function as a nested
function definition, without an error; its block runs in place but was walked
as nothing. A loop holding one, and a function holding one (its summary, in
the file and across the project), are now unknowns; a real GNU nested
function (`void bump(int j) { ... }`) keeps its own handling.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.summaries import summarize, unsummarised_reason
from accls.cli import main
from accls.frontend import parse_source

_EACH = "#define EACH(k) for (int k = 0; k < 8; k++)\n"

_LOOP = _EACH + (
    "void spread(const double *a, double *b, int n) {\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    EACH(k) {\n"
    "      b[k] += a[i] * (k + 1);\n"
    "    }\n"
    "  }\n"
    "}\n"
)

_FILL = (
    "void fill(double x, double *c) {\n  EACH(k) {\n    c[k] = x * (k + 1);\n  }\n}\n"
)

_CALLER = (
    "void fill(double x, double *c);\n"
    "void run(const double *a, double *b, int n) {\n"
    "  double tmp[8];\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    fill(a[i], tmp);\n"
    "    b[i] = tmp[0] + tmp[7];\n"
    "  }\n"
    "}\n"
)


def test_a_loop_holding_a_macro_block_is_refused() -> None:
    """Before: `parallel for` ("the body never uses `i`"), a race on `b`."""
    facts = [f for f in analyze_text(_LOOP).facts if f.loop.line == 3]
    assert facts
    assert not facts[0].parallel
    assert any("syntax error" in o.message for o in facts[0].obstacles)


def test_a_function_holding_a_macro_block_has_no_summary() -> None:
    source = parse_source(_EACH + _FILL, "fill.c", ())
    assert summarize("fill", source, PURE_FUNCTIONS) is None
    why = unsummarised_reason("fill", source, PURE_FUNCTIONS)
    assert "does not parse whole" in why


def test_a_call_of_such_a_function_in_the_file_is_refused() -> None:
    facts = analyze_text(_EACH + _FILL + _CALLER.split("\n", 1)[1]).facts
    run = [f for f in facts if f.loop.function == "run"]
    assert run
    assert not run[0].parallel


def test_a_call_of_such_a_function_in_another_file_is_refused(tmp_path: Path) -> None:
    """Before: the index summarised `fill` as writing nothing: `parallel for`
    with `tmp` shared, and `tmp[7]` kept stale where the hidden loop ran short."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "fill.c").write_text(_EACH + _FILL)
    (root / "main.c").write_text(
        _CALLER + "int main(void) { double a[4] = {0}, b[4]; run(a, b, 4); }\n"
    )
    out = root / "out.c"
    argv = ["annotate", "--all", "--no-validate", "--model", "openmp"]
    argv += ["--project", str(root), "--index-cache", str(tmp_path / "cache")]
    with contextlib.redirect_stderr(io.StringIO()):
        assert main([*argv, str(root / "main.c"), "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    loop = next(k for k, x in enumerate(lines) if x.strip().startswith("for (int i"))
    assert not lines[loop - 1].strip().startswith("#pragma omp")


def test_a_gnu_nested_function_is_no_parse_error() -> None:
    text = (
        "double run(double *a, int n) {\n"
        "  double t = 0;\n"
        "  void add(int i) { t = t + i; }\n"
        "  for (int i = 0; i < n; i++) a[i] = i;\n"
        "  add(1);\n"
        "  return t;\n"
        "}\n"
    )
    assert parse_source(text, "run.c", ()).errors == ()
    facts = analyze_text(text).facts
    assert facts
    assert facts[0].parallel


def test_a_file_of_macro_blocks_only_is_annotated_with_a_note(tmp_path: Path) -> None:
    """The block is a loop not read, not a file that is no C: annotate succeeds."""
    src = tmp_path / "fill.c"
    src.write_text(_EACH + _FILL)
    err = io.StringIO()
    argv = ["annotate", "--all", "--model", "openmp", str(src)]
    with contextlib.redirect_stderr(err):
        assert main([*argv, "-o", str(tmp_path / "out.c")]) == 0
    assert "fill.c:3: loop not analysed: a statement macro's block" in err.getvalue()


@pytest.mark.parametrize(
    ("macro", "body"),
    [
        (
            "#define EACHP(p) for (double *p = b; p < b + 8; p++)\n",
            "EACHP(q) { *q += a[i]; }",
        ),
        (
            "#define REPEAT(k) int k = 0; while (k++ < 8)\n",
            "REPEAT(k) { b[k - 1] += a[i]; }",
        ),
        (
            "#define EACH(k) for (int k = 0; k < 8; k++)\n",
            "{ EACH(k) { b[k] += a[i]; } }",
        ),
    ],
)
def test_other_statement_macro_blocks_are_refused(macro: str, body: str) -> None:
    """Each got `parallel for` before, and its output changed at 2 threads."""
    text = macro + (
        "void spread(const double *a, double *b, int n) {\n"
        f"  for (int i = 0; i < n; i++) {{\n    {body}\n  }}\n}}\n"
    )
    facts = [f for f in analyze_text(text).facts if f.loop.line == 3]
    assert facts
    assert not facts[0].parallel
