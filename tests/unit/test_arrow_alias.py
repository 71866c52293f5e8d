"""A field read through a pointer (`w->x`, `v[i].next->x`) is memory that may
lie in the array the loop writes: it must take part in the alias check."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.cli import main

SOURCE = """\
struct V {{ double val; struct V *next; }};
void f(struct V *v, struct V *w, int n) {{
  for (int i = 0; i < n; i++)
    v[i].val = {read} + 1.0;
}}
"""


@pytest.mark.parametrize("read", ["w->val", "w->next->val", "v[i].next->val"])
def test_field_through_pointer_blocks_the_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], read: str
) -> None:
    path = tmp_path / "k.c"
    path.write_text(SOURCE.format(read=read))
    main(["suggest", "--model", "openmp", "--no-index", str(path)])
    out = capsys.readouterr().out
    assert "#pragma omp parallel for" not in out
    assert f"`{read}` may overlap" in out


def test_field_of_a_distinct_array_still_parallel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k.c"
    path.write_text(
        "struct V { double val; };\n"
        "static struct V a[100], b[100];\n"
        "void f(void) {\n"
        "  for (int i = 0; i < 100; i++)\n"
        "    a[i].val = b[i].val + 1.0;\n"
        "}\n"
    )
    main(["suggest", "--model", "openmp", "--no-index", str(path)])
    assert "#pragma omp parallel for" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("read", "parallel"), [("w->next ? 1.0 : 2.0", True), ("w->val", False)]
)
def test_a_pointer_field_never_lies_in_a_double_array(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], read: str, parallel: bool
) -> None:
    path = tmp_path / "k.c"
    path.write_text(
        "struct V { double val; struct V *next; };\n"
        "void f(double *b, struct V *w, int n) {\n"
        "  for (int i = 0; i < n; i++)\n"
        f"    b[i] = {read};\n"
        "}\n"
    )
    main(["suggest", "--model", "openmp", "--no-index", str(path)])
    assert ("#pragma omp parallel for" in capsys.readouterr().out) is parallel
