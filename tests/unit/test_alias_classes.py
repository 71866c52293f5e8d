"""C's effective-type rule keeps two accesses apart only when their types can
never reach one object: a type and its signed or unsigned twin can (C11 6.5p7),
and so can a standard typedef and the type it names; a typedef of rows
(`real3`) reaches the scalar it is made of."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.cli import main

SOURCE = """\
#include <stddef.h>
#include <stdint.h>
typedef double real3[3];
typedef unsigned int count_t;
struct B {{ {field} n; }};
void f({written} *c, const struct B *b, int m) {{
  for (int i = 0; i < m; i++)
    c[i]{column} = ({written_scalar})b->n + 1;
}}
"""


def _parallel(tmp_path: Path, capsys: pytest.CaptureFixture[str], **parts: str) -> bool:
    path = tmp_path / "k.c"
    path.write_text(SOURCE.format(**parts))
    main(["suggest", "--model", "openmp", "--no-index", str(path)])
    return "#pragma omp parallel for" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("field", "written"),
    [
        ("int", "unsigned"),
        ("int", "unsigned int"),
        ("int", "count_t"),
        ("unsigned long", "size_t"),
        ("int", "size_t"),
        ("long", "int64_t"),
        ("long long", "long"),
        ("int", "int32_t"),
        ("int", "char"),
        ("int", "uint8_t"),
        ("double", "double"),
    ],
)
def test_types_that_may_share_an_object_stay_serial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, written: str
) -> None:
    scalar = written
    assert not _parallel(
        tmp_path, capsys, field=field, written=written, written_scalar=scalar, column=""
    )


@pytest.mark.parametrize(
    ("field", "written", "column"),
    [
        ("int", "double", ""),
        ("int", "float", ""),
        ("int", "real3", "[0]"),
        ("double", "size_t", ""),
        ("long double", "double", ""),
    ],
)
def test_types_that_never_share_an_object_are_apart(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    field: str,
    written: str,
    column: str,
) -> None:
    scalar = "double" if written == "real3" else written
    assert _parallel(
        tmp_path,
        capsys,
        field=field,
        written=written,
        written_scalar=scalar,
        column=column,
    )
