"""A pointer's whole allocation as its data clause when its elements are unknown."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.frontend import parse_source
from support.cli import run_accls


@pytest.mark.parametrize(
    ("declaration", "count"),
    [
        ("int *h = (int *)malloc(10 * sizeof(int));", "10"),
        ("double *w = calloc(n + 1, sizeof *w);", "n + 1"),
        ("long *z = malloc(sizeof(long) * n);", "n"),
        ("float *v = malloc((n * m) * sizeof(float));", "n * m"),
        ("int *p = malloc(10 * sizeof(double));", ""),  # counted in doubles
        ("int *p = malloc(n);", ""),  # in bytes
        ("int *p = malloc(sizeof(int) * n * m);", ""),  # not one factor
        ("int *p = malloc(f(n) * sizeof(int));", ""),  # the count calls
        ("int **p = malloc(n * sizeof(int *));", ""),  # a table of pointers
        ("int *p = realloc(q, n * sizeof(int));", ""),
    ],
)
def test_allocation_count_is_the_element_count(declaration: str, count: str) -> None:
    text = (
        "#include <stdlib.h>\nint f(int);\n"
        f"void g(int n, int m, int *q) {{\n  {declaration}\n}}\n"
    )
    (var,) = parse_source(text).functions[0].locals
    assert var.alloc_count == count


@pytest.mark.parametrize(
    ("declaration", "count"),
    [
        ("real_t *t = (real_t *)malloc(10 * sizeof(real_t));", "10"),
        ("real_t *t = calloc(n, sizeof(real_t));", "n"),
        ("real_t *t = malloc(10 * sizeof(index_t));", ""),  # another type's units
        ("real_t *t = malloc(10 * sizeof(k));", ""),  # a variable's size
        ("index_t *t = malloc(10 * sizeof(real_t));", ""),
    ],
)
def test_a_typedef_element_size_counts_elements(declaration: str, count: str) -> None:
    # The parser reads `sizeof(real_t)` as the size of a parenthesized name.
    text = (
        "#include <stdlib.h>\ntypedef double real_t;\ntypedef int index_t;\n"
        f"void g(int n, long k) {{\n  {declaration}\n}}\n"
    )
    (var,) = parse_source(text).functions[0].locals
    assert var.alloc_count == count


PROGRAM = """\
#include <stdlib.h>
void whole(int n, const int *restrict a, int m)
{
    int *h = (int *)calloc(m, sizeof(int));
    for (int i = 0; i < n; i++)
        h[a[i]] += 2;
    free(h);
}
void moved(int n, const int *restrict a)
{
    int *h = (int *)calloc(10, sizeof(int));
    h = h + 1;
    for (int i = 0; i < n; i++)
        h[a[i]] += 2;
}
void resized(int n, const int *restrict a, int m)
{
    int *h = (int *)calloc(m, sizeof(int));
    m = m - 1;
    for (int i = 0; i < n; i++)
        h[a[i]] += 2;
}
void handed(int n, const int *restrict a, int m, void (*keep)(int **))
{
    int *h = (int *)calloc(m, sizeof(int));
    keep(&h);
    for (int i = 0; i < n; i++)
        h[a[i]] += 2;
}
"""


def test_only_a_block_still_as_allocated_is_moved_whole(tmp_path: Path) -> None:
    src = tmp_path / "blocks.c"
    src.write_text(PROGRAM, encoding="utf-8")
    proc = run_accls("annotate", "--model", "openacc", "--target", "gpu", str(src))
    assert proc.returncode == 0, proc.stderr
    pragmas = [line.strip() for line in proc.stdout.splitlines() if "acc " in line]
    assert pragmas == [
        "#pragma acc parallel loop copy(h[0:m]) copyin(a[0:n])",
        "#pragma acc atomic update",
    ], proc.stdout
