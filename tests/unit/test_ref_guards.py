"""Guards that dominate a reference bound its subscript (ACC129, offload sections)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.analysis.checks import check_file
from accls.analysis.device_kernels import device_kernel
from accls.frontend import parse_source
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

REDUCTION = """\
void f(int n, int k, const int *restrict v, int *restrict c) {{
  #pragma omp parallel for reduction(+:c[0:5])
  for (int i = 0; i < n; i++) {{
    int y = v[i] % 10;
    {body}
  }}
}}
"""


def _acc129(body: str) -> set[str]:
    text = REDUCTION.format(body=body)
    return {f.level.value for f in check_file(text, "t.c") if f.code == "ACC129"}


@pytest.mark.parametrize(
    ("body", "levels"),
    [
        # The guard keeps the bin in 0..4 (a negative remainder is exempt).
        ("if (y < 5) c[y] += 1;", set()),
        ("if (y >= 0 && y < 5) c[y] += 1;", set()),
        ("if (y >= 5) continue;\n    c[y] += 1;", set()),
        ("if (y >= 5) { } else c[y] += 1;", set()),
        # Twins where the guard does not dominate the update: the old warning.
        ("c[y] += 1;", {"warning"}),
        ("if (y < 5 || k) c[y] += 1;", {"warning"}),
        ("if (y < 5) { y = y + 1; c[y] += 1; }", {"warning"}),
        ("if (y < 5) { } else c[y] += 1;", {"warning"}),
        ("if (k > 0) { if (y >= 5) continue; }\n    c[y] += 1;", {"warning"}),
        ("if (y < 5) k = 1;\n    c[y] += 1;", {"warning"}),
        ("if (y < 6) c[y] += 1;", {"warning"}),
    ],
)
def test_reduction_section_reads_the_guard(body: str, levels: set[str]) -> None:
    assert _acc129(body) == levels


PARAMS = "int n, int m, int k, const double *restrict a, double *restrict b"
GATHER = "const int *restrict idx"


def _pragma(body: str) -> str | None:
    text = f"void f({PARAMS}, {GATHER}) {{\n{body}\n}}\n"
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    found = suggest_file(analyze_text(text), opts)[0]
    return found.pragma.render() if found.pragma is not None else None


LOOP = "for (int i = 0; i < n; i++) "


@pytest.mark.parametrize(
    ("body", "clause"),
    [
        # A bounds-checked gather reads a[0..m-1] (a[m] too with `j + 1`).
        ("{ int j = idx[i]; if (j >= 0 && j < m) b[i] = a[j]; }", "a[0:m]"),
        (
            "{ int j = idx[i]; if (j < 0 || j >= m) b[i] = 0; else b[i] = a[j]; }",
            "a[0:m]",
        ),
        (
            "{ int j = idx[i]; if (j < 0 || j >= m) continue; b[i] = a[j] + a[j+1]; }",
            "a[0:m + 1]",
        ),
        # `i + k < n` keeps the writes below b[n].
        ("if (i + k < n) b[i + k] = a[i];", "b[k:(n - k > 0 ? n - k : 0)]"),
        (
            "{ if (i + k >= n) continue; b[i + k] = a[i]; }",
            "b[k:(n - k > 0 ? n - k : 0)]",
        ),
        # `a[i]` keeps `n - 1`: `n - 1 - k` would reach past it for a negative `k`.
        ("if (i + k < n) b[i + k] = a[i];", "copyin(a[0:n])"),
        # Bounds that differ by a symbol of the loop (`n`), not of the subscript:
        # either may reach past the array, so the loop's (as without the guard).
        ("if (i < 10) b[i] = a[i];", "copy(b[0:n])"),
        # Twins whose guard does not dominate the access keep the old answer.
        ("if (i + k < n || m > 3) b[i + k] = a[i];", "b[k:n]"),
        ("{ if (m > 3) { if (i + k >= n) continue; } b[i + k] = a[i]; }", "b[k:n]"),
        ("{ int j = idx[i]; if (j >= 0 || j < m) b[i] = a[j]; }", None),
        ("{ int j = idx[i]; if (j >= 0 && j < m) { j = j + 1; b[i] = a[j]; } }", None),
        ("{ int j = idx[i]; if (j >= 0 && j < m) b[i] = 0; else b[i] = a[j]; }", None),
    ],
)
def test_offload_section_reads_the_guard(body: str, clause: str | None) -> None:
    pragma = _pragma(LOOP + body)
    if clause is None:
        assert pragma is None
    else:
        assert pragma is not None
        assert clause in pragma


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_guarded_sections_compile(tmp_path: Path) -> None:
    body = "{ int j = idx[i]; if (j >= 0 && j < m) b[i + k] = a[j]; }"
    pragma = _pragma(LOOP + body)
    assert pragma is not None
    source = tmp_path / "t.c"
    source.write_text(f"void f({PARAMS}, {GATHER}) {{\n{pragma}\n{LOOP}{body}\n}}\n")
    done = subprocess.run(
        ["gcc", "-fopenacc", "-fsyntax-only", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


SECOND = "\n" + LOOP + "{ int j = idx[i]; b[i] += j; }"


@pytest.mark.parametrize(
    ("body", "clause"),
    [
        # Two `int j` in sibling blocks: each its own facts.
        ("{ int j = idx[i]; if (j >= 0 && j < m) b[i] = a[j]; }" + SECOND, "a[0:m]"),
        # Twins: a `j` declared inside the guard is another variable; a sibling
        # `j` of another type leaves the name's kind unknown.
        (
            "{ int j = idx[i]; if (j >= 0 && j < m) { int j = 2*m; b[i] = a[j]; } }",
            None,
        ),
        (
            "{ int j = idx[i]; if (j >= 0 && j < m) b[i] = a[j]; }\n"
            + LOOP
            + "{ double j = idx[i]; b[i] += j; }",
            None,
        ),
        # An unsigned index is >= 0 by type; compared with a literal, it is exact.
        ("{ unsigned j = idx[i]; if (j < 100) b[i] = a[j]; }", "a[0:100]"),
        # A narrow unsigned one is compared as an `int`: exact with `m` too.
        ("{ unsigned char j = idx[i]; if (j < m) b[i] = a[j]; }", "a[0:m]"),
        # Twins: `j - 1` wraps at 0 (in the test or the subscript), and an `int`
        # `m` converts to unsigned (a negative `m` is huge): no bound.
        ("{ unsigned j = idx[i]; if (j - 1 < 100) b[i] = a[j]; }", None),
        ("{ unsigned j = idx[i]; if (j < 100) b[i] = a[j - 1]; }", None),
        ("{ unsigned j = idx[i]; if (j < m) b[i] = a[j]; }", None),
        ("{ unsigned char j = idx[i]; b[i] = a[j]; }", None),
    ],
)
def test_guards_per_declaration_and_unsigned(body: str, clause: str | None) -> None:
    pragma = _pragma(LOOP + body)
    if clause is None:
        assert pragma is None
    else:
        assert pragma is not None
        assert clause in pragma


KERNEL = """\
void gather(int n, int m, const int *restrict idx, const double *restrict a,
            double *restrict b) {
  #pragma acc parallel loop copyin(idx[0:n]) copyout(b[0:n])
  for (int i = 0; i < n; i++) {
    int j = idx[i];
    if (%s) b[i] = a[j]; else b[i] = 0;
  }
}
"""


@pytest.mark.parametrize(
    ("test", "section"),
    [("j >= 0 && j < m", "a[0:m]"), ("j >= 0 || j < m", None)],
)
def test_a_kernel_status_reads_the_guard(test: str, section: str | None) -> None:
    source = parse_source(KERNEL % test, "k.c")
    fn = source.function("gather")
    assert fn is not None
    kernel = device_kernel(fn, source)
    assert kernel is not None
    uses = {u.name: u for u in kernel.uses}
    assert uses["a"].section == section
    assert uses["a"].known is (section is not None)


UNSIGNED_BINS = """\
void f(int n, const unsigned *restrict v, int *restrict c) {{
  #pragma omp parallel for reduction(+:c[0:5])
  for (int i = 0; i < n; i++) {{
    unsigned y = v[i] % 10;
    {body}
  }}
}}
"""


@pytest.mark.parametrize(
    ("body", "levels"),
    [
        # An unsigned bin is >= 0 by type, and `y < 5` keeps it below 5.
        ("if (y < 5) c[y] += 1;", set()),
        # Twins: `y - 1` wraps at 0 (c[UINT_MAX]), and `y < n` converts `n`.
        ("if (y < 6) c[y - 1] += 1;", {"warning"}),
        ("if (y < n) c[y] += 1;", {"warning"}),
    ],
)
def test_reduction_section_reads_an_unsigned_guard(body: str, levels: set[str]) -> None:
    text = UNSIGNED_BINS.format(body=body)
    found = {f.level.value for f in check_file(text, "t.c") if f.code == "ACC129"}
    assert found == levels
