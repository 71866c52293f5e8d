"""Calls the parse does not read keep a kernel's parameters unproved.

A kernel called with distinct arrays at every call the parse reads is proved
parallel from its call sites; a call in an `#if` branch the analysing build
skips (`#ifdef _OPENMP`, which the OpenMP build compiles), the function reached
through `__attribute__((alias("kern")))`, or a call whose name a line splice
cuts in two passes overlapping pieces (`a`, `a + 1`) and must keep it refused
(harm_blind6's probes; `analysis/hidden_names.py`).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from accls.analysis.hidden_names import header_names, hidden_names
from accls.cli import main
from accls.frontend import parse_source

KERNEL = """#include "k.h"
void kern(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) {
    y[i] = x[i] * 0.5 + 1.0;
  }
}
"""
HEADER = "void kern(const double *x, double *y, int n);\n"
MAIN = """#include "k.h"
static double a[201], b[201];
int main(void) {
  kern(a, b, 200);
%s
  return (int)a[3];
}
"""
STATIC = """static double a[201], b[201];
static void kern(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) {
    y[i] = x[i] * 0.5 + 1.0;
  }
}
int main(void) {
  kern(a, b, 200);
%s
  return (int)a[3];
}
"""
IFDEF = "#ifdef _OPENMP\n  kern(a, a + 1, 200);\n#endif"
SPLICE = "  ke\\\nrn(a, a + 1, 200);"


def _annotated(path: Path, project: Path | None) -> str:
    argv = ["annotate", "--all", "--model", "openmp", str(path)]
    if project is not None:
        argv[1:1] = ["--project", str(project), "--index-cache", str(project.parent)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(argv) == 0
    return out.getvalue()


def _kernel_parallel(text: str) -> bool:
    lines = text.splitlines()
    row = next(i for i, x in enumerate(lines) if "y[i] = x[i]" in x)
    return "#pragma omp" in lines[row - 2]


def _project(tmp_path: Path, call: str, extra: str = "") -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "k.h").write_text(HEADER + extra)
    (root / "k.c").write_text(KERNEL)
    (root / "main.c").write_text(MAIN % call)
    return root


def test_distinct_calls_in_every_file_still_prove_the_kernel(tmp_path: Path) -> None:
    root = _project(tmp_path, "  kern(b, a, 200);")
    assert _kernel_parallel(_annotated(root / "k.c", root))


@pytest.mark.parametrize("call", [IFDEF, SPLICE], ids=["ifdef_openmp", "splice"])
def test_an_unread_overlapping_call_of_another_file_refuses(
    tmp_path: Path, call: str
) -> None:
    root = _project(tmp_path, call)
    assert not _kernel_parallel(_annotated(root / "k.c", root))


def test_an_alias_of_the_kernel_refuses(tmp_path: Path) -> None:
    alias = "void kern2(const double *x, double *y, int n);\n"
    root = _project(tmp_path, "  kern2(a, a + 1, 200);", alias)
    with (root / "k.c").open("a") as f:
        f.write("void kern2(const double *, double *, int)")
        f.write(' __attribute__((alias("kern")));\n')
    assert not _kernel_parallel(_annotated(root / "k.c", root))


@pytest.mark.parametrize("call", [IFDEF, SPLICE], ids=["ifdef_openmp", "splice"])
def test_a_static_kernel_with_an_unread_overlapping_call_refuses(
    tmp_path: Path, call: str
) -> None:
    path = tmp_path / "one.c"
    path.write_text(STATIC % call)
    assert not _kernel_parallel(_annotated(path, None))
    path.write_text(STATIC % "  kern(b, a, 200);")
    assert _kernel_parallel(_annotated(path, None))


def test_hidden_names_reads_skipped_lines_strings_and_splices() -> None:
    text = 'int f(void);\nconst char *s = "solve";\nint g = fo\\\no;\n'
    source = parse_source(text, "x.c")
    assert {"solve", "foo"} <= hidden_names(source)
    assert "f" not in hidden_names(source)


def test_a_header_call_in_a_skipped_branch_refuses(tmp_path: Path) -> None:
    header = (
        '#ifdef __cplusplus\nextern "C" {\n#endif\n'
        "#ifdef _OPENMP\n"
        "static inline void shift_all(double *p) { kern(p + 1, p, 200); }\n"
        "#else\n"
        "static inline void shift_all(double *p) { (void)p; }\n"
        "#endif\n"
        "#ifdef __cplusplus\n}\n#endif\n"
    )
    root = _project(tmp_path, "  shift_all(a);", header)
    assert not _kernel_parallel(_annotated(root / "k.c", root))


def test_header_names_count_bodies_not_prototypes() -> None:
    text = 'extern "C" {\nvoid kern(double *x);\n'
    text += "static void f(double *p) { g(p); }\n}\n"
    assert {"p", "g"} <= header_names(text)
    assert "kern" not in header_names(text)
