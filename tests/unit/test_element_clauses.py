"""Offloaded loops over members of array elements move the array whole."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect, Target

_FIXED = """
#define N 1000
struct box { double lo[3], hi[3]; };
struct box b[N];
double out[N];
void f(void) {
  for (int l = 0; l < N; l++)
    for (int k = 0; k < 3; k++)
      BODY;
}
"""


def _pragma(text: str, dialect: Dialect = Dialect.OPENACC) -> tuple[str, str]:
    settings = Settings(dialect=dialect, target=Target.GPU, validate=False)
    result = suggest_text(text, "e.c", settings)
    first = result.suggestions[0]
    pragma = first.region.pragma if first.region is not None else first.pragma
    return (pragma.render() if pragma else ""), " ".join(first.reasons)


def test_a_written_member_moves_the_array_whole() -> None:
    pragma, reasons = _pragma(_FIXED.replace("BODY", "b[l].lo[k] = b[l].hi[k] * 2.0"))
    assert "copy(b)" in pragma
    assert "[l]" not in pragma  # never the loop's own variable in a clause
    assert "`b[l].lo`" in reasons


def test_read_members_are_copied_in() -> None:
    pragma, _ = _pragma(_FIXED.replace("BODY", "out[l] += b[l].hi[k]"))
    assert "copyin(b)" in pragma


def test_openmp_maps_the_array_whole() -> None:
    text = _FIXED.replace("BODY", "b[l].lo[k] = b[l].hi[k] * 2.0")
    pragma, _ = _pragma(text, Dialect.OPENMP)
    assert "map(tofrom: b)" in pragma


def test_a_pointer_to_elements_is_refused_with_the_reason() -> None:
    text = _FIXED.replace("struct box b[N];", "struct box *b;")
    text = text.replace("BODY", "b[l].lo[k] = b[l].hi[k] * 2.0")
    settings = Settings(dialect=Dialect.OPENACC, target=Target.GPU, validate=False)
    result = suggest_text(text, "e.c", settings)
    assert not any(s.pragma and "[l]" in s.pragma.render() for s in result.suggestions)
    assert any(
        "extent of `b` is unknown" in " ".join(s.reasons) for s in result.suggestions
    )


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("flag", ["-fopenacc", "-fopenmp"])
def test_the_clause_compiles(flag: str, tmp_path: Path) -> None:
    dialect = Dialect.OPENACC if flag == "-fopenacc" else Dialect.OPENMP
    text = _FIXED.replace("BODY", "b[l].lo[k] = b[l].hi[k] * 2.0")
    pragma, _ = _pragma(text, dialect)
    source = tmp_path / "e.c"
    source.write_text(text.replace("  for (int l", f"  {pragma}\n  for (int l", 1))
    done = subprocess.run(
        ["gcc", flag, "-fsyntax-only", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("dialect", [Dialect.OPENACC, Dialect.OPENMP])
def test_a_pointer_member_is_no_whole_array_copy(dialect: Dialect) -> None:
    # Moving `bl` would copy the host pointers, not the blocks they reach.
    text = "#include <stdlib.h>\n" + _FIXED.replace(
        "struct box b[N];", "struct blk { double *a; };\nstatic struct blk bl[N];"
    )
    text += "void init(void) { for (int l = 0; l < N; l++) bl[l].a = malloc(24); }\n"
    pragma, reasons = _pragma(text.replace("BODY", "out[l] += bl[l].a[k]"), dialect)
    assert pragma == "", pragma
    assert "deep copy" in reasons


def test_a_pointer_member_of_one_element_needs_a_section() -> None:
    # `copy(bl[m].a)` would move the pointer, not the block it points to.
    text = """
struct blk { double *a; };
void f(struct blk *bl, int m, int n) {
  for (int k = 0; k < n; k++)
    bl[m].a[k] = k;
}
"""
    pragma, _ = _pragma(text)
    assert "bl[m].a)" not in pragma, pragma
    assert pragma == "" or "bl[m].a[" in pragma, pragma
