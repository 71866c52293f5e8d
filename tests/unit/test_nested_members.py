"""`c[l].in.v[k]`: an array of an inline struct member is tested as `c.in.v[l][k]`.

Each element's nested arrays are storage of their own, as one level down
(`test_element_members`). A union on the way, a pointer member, a nested array
of structs or the whole nested member elsewhere keep the path's name.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source
from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "element_fields"

HEAD = """\
    struct in { double v[3]; double w[3]; int n; };
    union un { double d[3]; long l[3]; };
    struct mix { struct in s; double x; };
    union wrap { struct in s; double d[8]; };
    union one { double d[3]; double x; };
    union twin { double a[6]; struct { double x[3]; double y[3]; } s; };
    union twin u[64];
    struct cell { int k; struct in in; struct in out; union un u; struct in *pin;
                  struct in ins[2]; union wrap wr; union one o; };
    struct cell *c;
    struct cell arr[64];
    int idx[64];
    int n;
    """


def _outer(body: str, var: str = "l") -> tuple[bool, str]:
    """Whether the loop over `var` is parallel, and its reasons' text."""
    loop = "void run(void) {\n  for (int l = 1; l < 63; l++)\n" + dedent(body) + "}\n"
    facts = analyze(parse_source(dedent(HEAD) + loop, "k.c")).facts
    outer = next(f for f in facts if f.loop.var == var)
    return outer.parallel, " ".join(o.message for o in outer.obstacles)


@pytest.mark.parametrize(
    "body",
    [
        "    for (int k = 0; k < 3; k++) c[l].in.v[k] = l + k;\n",
        "    for (int k = 0; k < 3; k++) c[l].out.w[k] = c[l].in.v[k] * c[l].k;\n",
        "    for (int k = 0; k < 3; k++) arr[l].in.v[k] += arr[l].out.v[k];\n",
        # one member of a union element, and no other
        "    for (int k = 0; k < 6; k++) u[l].a[k] = l * 0.25 + k;\n",
        "    for (int k = 0; k < 3; k++) u[l].s.y[k] += k;\n",
    ],
)
def test_each_element_s_nested_array_is_storage_of_its_own(body: str) -> None:
    parallel, why = _outer(body)
    assert parallel, why


@pytest.mark.parametrize(
    "body",
    [
        # the neighbour's nested array: a distance of 1
        "    for (int k = 0; k < 3; k++) c[l].in.v[k] = c[l - 1].in.v[k];\n",
        "    for (int k = 0; k < 3; k++) arr[l + 1].in.w[k] = arr[l].in.w[k];\n",
        # an index array may repeat an element
        "    for (int k = 0; k < 3; k++) c[idx[l]].in.v[k] += 1;\n",
        # a union's members share storage
        "    for (int k = 0; k < 3; k++) c[l].u.d[k] = c[l - 1].u.l[k];\n",
        "    for (int k = 0; k < 3; k++) c[l].wr.s.v[k] = c[l - 1].wr.d[k + 3];\n",
        "    c[l].o.d[0] = c[l - 1].o.x + 1;\n",
        # the whole nested member reaches the same bytes
        "  { c[l - 1].in = c[0].in; for (int k = 0; k < 3; k++) c[l].in.v[k] = 1; }\n",
        # a pointer member may be one block for every element
        "    for (int k = 0; k < 3; k++) c[l].pin->v[k] = l;\n",
        # every element writes one nested element of one array
        "    for (int k = 0; k < 3; k++) c[0].ins[1].v[k] += c[l].in.v[k];\n",
    ],
)
def test_nested_members_that_meet_stay_serial(body: str) -> None:
    parallel, _ = _outer(body)
    assert not parallel


@pytest.mark.parametrize(
    "body",
    [
        # `s.x[k + 1]` is `a[k + 1]`: written in iteration k, read in k + 1
        "    for (int k = 0; k < 2; k++) u[l].s.x[k + 1] = u[l].a[k] + 1;\n",
        "    for (int k = 0; k < 2; k++) u[l].a[k + 1] = u[l].s.x[k] + 1;\n",
        # `o.x` is `o.d[0]`, written by the first iteration
        "    for (int k = 0; k < 3; k++) c[l].o.d[k] = c[l].o.x + k;\n",
    ],
)
def test_a_union_s_members_meet_inside_one_element(body: str) -> None:
    parallel, _ = _outer(body, "k")
    assert not parallel


def test_the_nested_cells_fixture_prints_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = FIXTURE / "nested_cells.c"
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "nested_cells.omp.c"
    proc = run_accls("annotate", "--model", "openmp", "--all", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()
    # The exchange over cells, not the relaxation that reads the previous cell.
    exchange = next(i for i, line in enumerate(lines) if "void exchange" in line)
    relax = next(i for i, line in enumerate(lines) if "void relax" in line)
    assert "omp parallel for" in lines[exchange + 1], text
    assert not any("omp parallel" in line for line in lines[relax : relax + 3]), text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    for threads in (1, 4):
        problem = compare_text(run_program(serial), run_program(exe, threads), 0.0)
        assert problem is None, f"{problem}\n{text}"
