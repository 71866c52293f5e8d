"""The index reads each file told the other files' allocator wrappers.

main.c passes `a = grid_alloc(n)` and `b = grid_alloc(n)` to `shift(b, a, n)`
(kernel.c), `grid_alloc` returning `malloc(..)` in zalloc.c: the call record of
main.c says two fresh blocks, so `shift`'s parameters are apart at its one call.
zalloc.c sorts after main.c; a cold build reads the files that call a C
allocator first, and a caller read before the wrappers is parsed again in a
later round. Twins that may hand out one block twice (a cached block, a static
buffer, pieces of a pool, one block passed twice) leave the loop refused.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze_text
from accls.cli import main
from accls.project import ProjectIndex
from accls.validation.outputs import compare_text
from support.gcc import build_program, run_program

KERNEL_C = """\
void shift(double *out, const double *in, int n) {
  for (int i = 0; i < n - 1; i++)
    out[i] = in[i + 1] - in[i];
}
"""

ZALLOC_C = """\
#include <stdlib.h>
static double scratch[1 << 16];
static double pool[1 << 16];
static int top;
double *grid_alloc(int n) { return malloc(sizeof(double) * (size_t)n); }
double *grid_cached(int n) {
  static double *kept;
  if (kept == NULL) kept = malloc(sizeof(double) * (size_t)n);
  return kept;
}
double *grid_scratch(int n) { (void)n; return scratch; }
double *grid_pool(int n) {
  double *p = pool + top;
  top += n;
  return p;
}
"""

# A wrapper of zalloc.c's wrapper: found only once grid_alloc is known.
FIELDS_C = """\
double *grid_alloc(int n);
double *field_alloc(int n) {
  double *f = grid_alloc(n);
  return f;
}
"""

MAIN_C = """\
#include <stdio.h>
#include <stdlib.h>
double *ALLOC(int n);
void shift(double *out, const double *in, int n);
int main(void) {
  int n = 4096;
  double *a = ALLOC(n);
  double *b = SECOND;
  for (int i = 0; i < n; i++) a[i] = (i % 7) * 0.5 + i * 0.001;
  shift(b, a, n);
  double s = 0.0;
  for (int i = 0; i < n - 1; i++) s += b[i] * (i % 3 + 1);
  printf("%.10g\\n", s);
  return 0;
}
"""


def _main(alloc: str, second: str = "") -> str:
    return MAIN_C.replace("ALLOC", alloc).replace("SECOND", second or f"{alloc}(n)")


def _project(tmp_path: Path, main_c: str) -> Path:
    root = tmp_path / "proj"
    root.mkdir(exist_ok=True)
    (root / "kernel.c").write_text(KERNEL_C)
    (root / "zalloc.c").write_text(ZALLOC_C)
    (root / "fields.c").write_text(FIELDS_C)
    (root / "main.c").write_text(main_c)
    return root


def _shift(index: ProjectIndex, root: Path) -> LoopFacts:
    path = root / "kernel.c"
    options = AnalysisOptions(program=index.program_for(str(path)))
    (found,) = analyze_text(path.read_text(), str(path), options=options).facts
    return found


def _built(root: Path, cache: Path) -> ProjectIndex:
    index = ProjectIndex(str(root), cache_dir=str(cache))
    index.build()
    return index


@pytest.mark.parametrize("alloc", ["grid_alloc", "field_alloc"])
def test_blocks_of_another_files_wrapper_are_apart_at_the_call(
    tmp_path: Path, alloc: str
) -> None:
    root = _project(tmp_path, _main(alloc))
    index = _built(root, tmp_path / "cache")
    shift = _shift(index, root)
    assert shift.parallel, [o.message for o in shift.obstacles]
    assert "main.c:10" in " ".join(shift.assumptions)
    # zalloc.c calls `malloc`, so a cold build reads it first: one parse a file.
    assert index.parses == 4
    again = _built(root, tmp_path / "cache")  # read back from the cache
    assert again.parses == 0
    assert _shift(again, root).parallel


@pytest.mark.parametrize(
    ("alloc", "second"),
    [
        ("grid_cached", ""),  # the same cached block each call
        ("grid_scratch", ""),  # a static buffer
        ("grid_pool", ""),  # pieces of one pool: apart only by arithmetic
        ("grid_alloc", "a"),  # one fresh block, passed twice
    ],
)
def test_a_wrapper_that_may_give_one_block_twice_proves_nothing(
    tmp_path: Path, alloc: str, second: str
) -> None:
    root = _project(tmp_path, _main(alloc, second))
    assert not _shift(_built(root, tmp_path / "cache"), root).parallel


def test_edits_of_the_caller_and_of_the_wrapper_are_followed(tmp_path: Path) -> None:
    root = _project(tmp_path, _main("grid_cached"))
    index = _built(root, tmp_path / "cache")
    assert not _shift(index, root).parallel
    (root / "main.c").write_text(_main("grid_alloc"))
    index.update(str(root / "main.c"))
    assert _shift(index, root).parallel
    # grid_alloc now keeps its block: main.c's record must be read again.
    cached = ZALLOC_C.replace(
        "double *grid_alloc(int n) { return malloc(sizeof(double) * (size_t)n); }",
        "double *grid_alloc(int n) { return grid_cached(n); }",
    )
    (root / "zalloc.c").write_text(cached)
    index.update(str(root / "zalloc.c"))
    assert not _shift(index, root).parallel


def test_the_annotated_program_prints_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    root = _project(tmp_path, _main("field_alloc"))
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
    kernel = (out / "kernel.c").read_text()
    assert "#pragma omp parallel for" in kernel
    built = sorted(out.glob("*.c"))
    exe = tmp_path / "omp.exe"
    build_program(gcc, built[0], exe, "-fopenmp", *map(str, built[1:]))
    expected = run_program(serial)
    for threads in (1, 4):
        problem = compare_text(expected, run_program(exe, threads), 0.0)
        assert problem is None, f"{problem}\n{kernel}"


def test_a_caller_read_before_the_wrappers_is_parsed_again(tmp_path: Path) -> None:
    # main.c calls `malloc` too: a cold build reads it before zalloc.c and
    # fields.c, so only a later round, told the wrappers, sees fresh blocks.
    extra = "  double *c = malloc(sizeof(double));\n  free(c);\n  return 0;\n"
    text = _main("field_alloc").replace("  return 0;\n", extra)
    root = _project(tmp_path, text)
    index = _built(root, tmp_path / "cache")
    assert _shift(index, root).parallel
    assert index.parses == 5  # main.c twice
