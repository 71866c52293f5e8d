"""Arrays an offloaded loop reaches only through its callees are moved too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.annotate import annotate_text
from accls.suggest.pragma import Target

PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>
#define N 4096
static double tab[64], b[N], out[N];
static int key[N];
static double lookup(const double *t, int k) { return t[(k * 7) & 63] + t[k % 5]; }
static void put(double *o, int i, double v) { if (v > 1.0) o[i] = v; }
void run(void)
{
    for (int i = 0; i < N; i++)
        b[i] = lookup(tab, key[i]);
    for (int i = 0; i < N; i++)
        put(out, i, b[i]);
}
void far(double *p, int n)
{
    for (int i = 0; i < n; i++)
        put(p, i, 2.0);
}
void wide(const double *p, double *restrict q, int n)
{
    for (int i = 0; i < n; i++)
        q[i] = lookup(p, i);
}
int main(void)
{
    for (int i = 0; i < 64; i++) tab[i] = i * 0.5;
    for (int i = 0; i < N; i++) { key[i] = (i * 37) % 1000; out[i] = -1.0; }
    run();
    double s = 0;
    for (int i = 0; i < N; i++) s += b[i] + out[i];
    printf("%.10e\\n", s);
    return 0;
}
"""


def _by_line(settings: Settings) -> dict[int, tuple[str | None, tuple[str, ...]]]:
    """Each loop's pragma (its data region's when in one) and reasons."""
    result = suggest_text(PROGRAM, "t.c", settings)
    out: dict[int, tuple[str | None, tuple[str, ...]]] = {}
    for s in result.suggestions:
        pragma = s.region.pragma if s.region is not None else s.pragma
        out[s.loop.line] = (pragma.render() if pragma else None, s.reasons)
    return out


ACC = Settings(dialect=Dialect.OPENACC, validate=False)
OMP_GPU = Settings(dialect=Dialect.OPENMP, target=Target.GPU, validate=False)


def test_a_whole_array_read_by_the_callee_is_copied_in() -> None:
    pragma, reasons = _by_line(ACC)[10]
    assert pragma is not None, reasons
    assert "copyin(key, tab)" in pragma
    assert any("routine seq` on `lookup()" in r for r in reasons)


@pytest.mark.parametrize(
    ("settings", "clause"), [(ACC, "copy(out)"), (OMP_GPU, "map(tofrom: out)")]
)
def test_elements_the_callee_writes_are_copied_both_ways(
    settings: Settings, clause: str
) -> None:
    # `put` writes `out[i]` only when `v > 1`: the others must come back intact.
    pragma, reasons = _by_line(settings)[12]
    assert pragma is not None, reasons
    assert clause in pragma
    assert "copyout(out)" not in pragma
    assert "map(from: out" not in pragma


def test_a_pointer_the_callee_indexes_by_the_loop_variable_gets_its_section() -> None:
    pragma, reasons = _by_line(ACC)[17]
    assert pragma is not None, reasons
    assert "copy(p[0:n])" in pragma


def test_a_pointer_of_unknown_extent_stays_refused() -> None:
    pragma, reasons = _by_line(ACC)[22]
    assert pragma is None
    assert any("reaches memory through `t`" in r for r in reasons), reasons


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_annotated_program_compiles_and_gives_the_same_output(
    tmp_path: Path,
) -> None:
    result = suggest_text(PROGRAM, "t.c", ACC)
    annotated = annotate_text(PROGRAM, result.suggestions)
    assert "#pragma acc routine seq" in annotated
    outputs = []
    for name, text, flags in (("s.c", PROGRAM, []), ("a.c", annotated, ["-fopenacc"])):
        (tmp_path / name).write_text(text)
        exe = tmp_path / name.removesuffix(".c")
        subprocess.run(
            ["gcc", "-O1", *flags, str(tmp_path / name), "-o", str(exe)],
            check=True,
            capture_output=True,
        )
        done = subprocess.run([str(exe)], check=True, capture_output=True, text=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
