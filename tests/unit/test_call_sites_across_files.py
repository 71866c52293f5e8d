"""Call sites across files: an external kernel's calls in every file of the project.

tests/fixtures/xfile/smoother is a program of three files whose kernels
(kernels.c) are called from main.c and solver.c with distinct arrays; the
variants replace solver.c with a call that may overlap (see its README).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.analysis import (
    AnalysisOptions,
    LoopFacts,
    ProgramSummaries,
    analyze,
    analyze_text,
)
from accls.analysis.remote_calls import ProgramCalls
from accls.cli import main
from accls.frontend import parse_source
from accls.project import BuildFlags, ProjectIndex, build_context
from accls.validation.outputs import compare_text
from support.gcc import build_program, run_program

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "xfile"
SMOOTHER = FIXTURES / "smoother"


def _project(tmp_path: Path, solver: str | None = None) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(SMOOTHER, root)
    if solver is not None:
        shutil.copy(FIXTURES / "variants" / solver, root / "solver.c")
    return root


def _facts(
    root: Path, name: str = "kernels.c", *, indexed: bool = True
) -> dict[str, LoopFacts]:
    """The facts of each loop of `name`, by its function, with the project indexed."""
    path = root / name
    program = None
    if indexed:
        index = ProjectIndex(str(root), cache_dir=str(root.parent / "cache"))
        index.build()
        program = index.program_for(str(path))
    options = AnalysisOptions(program=program)
    found = analyze_text(path.read_text(), str(path), options=options).facts
    return {f.loop.function or "": f for f in found}


def _alias_messages(fact: LoopFacts) -> list[str]:
    return [o.message for o in fact.obstacles if o.code == "alias"]


def test_calls_in_every_file_prove_the_kernel_parameters_apart(
    tmp_path: Path,
) -> None:
    facts = _facts(_project(tmp_path))
    relax = facts["relax"]
    assert relax.parallel, _alias_messages(relax)
    proof = " ".join(relax.assumptions)
    # Named by file and line; solver.c's call passes smooth_twice's parameters,
    # which main.c's call of smooth_twice sets apart.
    assert "main.c:17" in proof
    assert "solver.c:5" in proof
    assert "solver.c:6" in proof
    assert facts["scale_into"].parallel


def test_without_the_project_an_external_kernel_stays_refused(
    tmp_path: Path,
) -> None:
    facts = _facts(_project(tmp_path), indexed=False)
    assert not facts["relax"].parallel
    assert not facts["scale_into"].parallel


@pytest.mark.parametrize(
    "solver",
    [
        "same_twice.c",
        "offset_by_one.c",
        "open_caller.c",
        "macro_call.c",
        "address_taken.c",
    ],
)
def test_a_call_that_may_overlap_keeps_the_refusal(tmp_path: Path, solver: str) -> None:
    relax = _facts(_project(tmp_path, solver))["relax"]
    assert not relax.parallel
    assert _alias_messages(relax)


@pytest.mark.parametrize(
    "header",
    [
        "#define TWICE(p) relax((p), (p), 4)\n",
        "static inline void twice(double *p) { relax(p, p, 4); }\n",
        "static void (*const pick)(double *, const double *, int) = relax;\n",
        "#define PASTED(p) p##ax(buf, buf, 4)\n",
    ],
)
def test_a_header_naming_the_kernel_leaves_it_open(tmp_path: Path, header: str) -> None:
    root = _project(tmp_path)
    text = (root / "kernels.h").read_text().replace("#endif", header + "#endif")
    (root / "kernels.h").write_text(text)
    assert not _facts(root)["relax"].parallel


def test_a_library_build_leaves_the_calls_open(tmp_path: Path) -> None:
    root = _project(tmp_path)
    entries = [
        {"directory": str(root), "file": f, "command": f"cc -fPIC -c {f}"}
        for f in ("kernels.c", "main.c", "solver.c")
    ]
    (root / "compile_commands.json").write_text(json.dumps(entries))
    index = ProjectIndex(
        str(root),
        database=str(root / "compile_commands.json"),
        cache_dir=str(tmp_path / "cache"),
    )
    index.build()
    path = root / "kernels.c"
    options = AnalysisOptions(program=index.program_for(str(path)))
    found = analyze_text(path.read_text(), str(path), options=options).facts
    assert not next(f for f in found if f.loop.function == "relax").parallel


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("driver.cu", "// CUDA code may call relax with anything\n"),
        ("Makefile", "libsmooth.so: kernels.c\n\tcc -shared -fPIC -o $@ $^\n"),
    ],
)
def test_a_folder_with_foreign_callers_or_a_library_leaves_the_calls_open(
    tmp_path: Path, name: str, text: str
) -> None:
    root = _project(tmp_path)
    (root / name).write_text(text)
    assert not _facts(root)["relax"].parallel


def test_a_file_outside_the_project_leaves_its_functions_open(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / "kernels.c").rename(outside / "kernels.c")
    shutil.copy(root / "kernels.h", outside / "kernels.h")
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    index.build()
    path = outside / "kernels.c"
    options = AnalysisOptions(program=index.program_for(str(path)))
    found = analyze_text(path.read_text(), str(path), options=options).facts
    assert not next(f for f in found if f.loop.function == "relax").parallel


def test_a_project_without_main_is_a_library(tmp_path: Path) -> None:
    root = _project(tmp_path)
    text = (root / "main.c").read_text().replace("int main(void)", "int run(void)")
    (root / "main.c").write_text(text)
    assert not _facts(root)["relax"].parallel


def test_a_static_function_of_the_same_name_elsewhere_leaves_it_open(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    (root / "other.c").write_text(
        "static void relax(double *d, const double *s, int n) { d[0] = s[n]; }\n"
    )
    assert not _facts(root)["relax"].parallel


def test_a_caller_of_a_caller_in_another_file_passing_one_array_blocks(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    text = (root / "main.c").read_text()
    (root / "main.c").write_text(
        text.replace("smooth_twice(c, b, a, N)", "smooth_twice(c, a, a, N)")
    )
    assert not _facts(root)["relax"].parallel


def test_an_edit_of_a_caller_in_another_file_is_seen(tmp_path: Path) -> None:
    root = _project(tmp_path)
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    index.build()
    solver = root / "solver.c"
    edited = solver.read_text().replace("relax(out, tmp, n)", "relax(tmp, tmp, n)")
    index.update(str(solver), edited)
    path = root / "kernels.c"
    options = AnalysisOptions(program=index.program_for(str(path)))
    found = analyze_text(path.read_text(), str(path), options=options).facts
    assert not next(f for f in found if f.loop.function == "relax").parallel


def test_while_the_index_is_building_the_refusal_says_so(tmp_path: Path) -> None:
    path = _project(tmp_path) / "kernels.c"
    calls = ProgramCalls(files=(), sealed=True, pending=True)
    options = AnalysisOptions(program=ProgramSummaries(complete=False, calls=calls))
    found = analyze_text(path.read_text(), str(path), options=options).facts
    relax = next(f for f in found if f.loop.function == "relax")
    assert not relax.parallel
    assert any("not known yet" in m for m in _alias_messages(relax))


def test_before_the_index_is_built_the_calls_are_pending(tmp_path: Path) -> None:
    root = _project(tmp_path)
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    path = root / "kernels.c"
    options = AnalysisOptions(program=index.program_for(str(path)))
    found = analyze_text(path.read_text(), str(path), options=options).facts
    relax = next(f for f in found if f.loop.function == "relax")
    assert any("not known yet" in m for m in _alias_messages(relax))


def test_the_smoother_prints_the_serial_output_in_parallel(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    root = _project(tmp_path)
    sources = sorted(root.glob("*.c"))
    serial = tmp_path / "serial"
    build_program(gcc, sources[0], serial, *map(str, sources[1:]))
    out = tmp_path / "omp"
    out.mkdir()
    for src in sources:
        argv = ["annotate", "--model", "openmp", "--all", "--project", str(root)]
        argv += ["--index-cache", str(tmp_path / "cache"), str(src)]
        with contextlib.redirect_stderr(io.StringIO()):
            assert main([*argv, "-o", str(out / src.name)]) == 0
    kernels = (out / "kernels.c").read_text()
    assert kernels.count("#pragma omp parallel for") == 3, kernels
    shutil.copy(root / "kernels.h", out / "kernels.h")
    built = sorted(out.glob("*.c"))
    exe = tmp_path / "parallel"
    build_program(gcc, built[0], exe, "-fopenmp", *map(str, built[1:]))
    expected = run_program(serial)
    for threads in (1, 4):
        problem = compare_text(expected, run_program(exe, threads), 0.0)
        assert problem is None, f"{problem}\n{kernels}"


_PAIR_H = """\
struct Pair { double *u; double *v; };
void pair_init(struct Pair *p, int n);
void relax(double *dst, const double *src, int n);
"""
_PAIR_INIT = """\
#include <stdlib.h>
#include "pair.h"
void pair_init(struct Pair *p, int n) {
  p->u = calloc(n, sizeof(double));
  p->v = SECOND;
}
"""
_PAIR_MAIN = """\
#include "pair.h"
int main(void) {
  struct Pair p;
  pair_init(&p, 100);
  relax(p.u, p.v, 100);
  return 0;
}
"""


@pytest.mark.parametrize(
    ("second", "apart"),
    [("calloc(n, sizeof(double))", True), ("p->u", False), ("p->u + 1", False)],
)
def test_pointer_fields_passed_count_by_what_their_stores_hold(
    tmp_path: Path, second: str, apart: bool
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    for name in ("kernels.c", "kernels.h"):
        shutil.copy(SMOOTHER / name, root / name)
    (root / "pair.h").write_text(_PAIR_H)
    (root / "init.c").write_text(_PAIR_INIT.replace("SECOND", second))
    (root / "main.c").write_text(_PAIR_MAIN)
    assert _facts(root)["relax"].parallel is apart


_REASSIGNED = """\
static void relax(double *dst, double *src, int n) {
  %s
  for (int i = 0; i < n; i++)
    dst[i] = src[i] * 2.0;
}
static void step(double *x, double *y, int n) {
  %s
  relax(x, y, n);
}
int main(void) {
  static double a[100], b[101];
  step(a, b, 100);
  return 0;
}
"""


@pytest.mark.parametrize(
    ("in_relax", "in_step"),
    [
        ("dst = src + 1;", ""),
        ("", "x = y + 1;"),
        ("", "x++;"),
        ("", "double **q = &x; *q = y;"),
    ],
)
def test_a_parameter_reassigned_before_the_call_or_loop_proves_nothing(
    in_relax: str, in_step: str
) -> None:
    text = _REASSIGNED % (in_relax, in_step)
    found = analyze_text(text).facts
    assert not next(f for f in found if f.loop.function == "relax").parallel


def test_a_macro_pasting_a_static_kernels_name_keeps_the_refusal() -> None:
    text = _REASSIGNED % ("", "") + (
        "#define PASTED(p) p##ax(buf, buf + 1, 4)\n"
        "static double buf[8];\n"
        "void go(void) { PASTED(rel); }\n"
    )
    found = analyze_text(text).facts
    assert not next(f for f in found if f.loop.function == "relax").parallel


def test_a_header_function_calling_a_static_kernel_keeps_the_refusal(
    tmp_path: Path,
) -> None:
    (tmp_path / "late.h").write_text(
        "static inline void twice(double *p) { relax(p + 1, p, 4); }\n"
    )
    text = _REASSIGNED % ("", "") + '#include "late.h"\n'
    path = tmp_path / "one.c"
    path.write_text(text)
    context, _ = build_context(text, str(path), BuildFlags())
    source = parse_source(text, str(path), context=context)
    assert source.headers is not None  # the header's function was read
    found = analyze(source).facts
    assert not next(f for f in found if f.loop.function == "relax").parallel


def test_parameters_kept_as_passed_are_proved_apart() -> None:
    found = analyze_text(_REASSIGNED % ("", "")).facts
    assert next(f for f in found if f.loop.function == "relax").parallel


@pytest.mark.parametrize(
    "in_relax", ["double *e = &dst[2]; e[0] = 0.0;", "const double *e = &src[1];"]
)
def test_an_elements_address_leaves_the_parameter_as_passed(in_relax: str) -> None:
    # `&dst[2]` takes an element's address, not the pointer's (LULESH's
    # `fx_local = &fx_elem[i3]`): the callers' distinct arrays still hold.
    found = analyze_text(_REASSIGNED % (in_relax, "")).facts
    assert next(f for f in found if f.loop.function == "relax").parallel
