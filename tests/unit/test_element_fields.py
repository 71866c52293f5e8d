"""`a[i].f` keeps `a` as its name: it reaches the member `f`, not the whole element.

An element's scalar member (`bodies[i].walls`) read beside its array members
(`bodies[i].pos[j]`) is no second pointer into the block: a struct's members lie
apart. A union's members, a whole nested member and another pointer still meet.
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
    struct in { double v[3]; int n; };
    typedef struct { int walls; double pos[3]; double vel[3]; struct in in; } body;
    typedef union { int walls; double pos[3]; } mixed;
    body *bodies;
    body *others;
    mixed *mixes;
    int n;
    """


def _outer(body: str, params: str = "void") -> tuple[bool, str]:
    """Whether the loop over `i` is parallel, and its reasons' text."""
    loop = f"void run({params}) {{\n  for (int i = 1; i < n; i++)\n{dedent(body)}}}\n"
    facts = analyze(parse_source(dedent(HEAD) + loop, "k.c")).facts
    outer = next(f for f in facts if f.loop.var == "i")
    return outer.parallel, " ".join(o.message for o in outer.obstacles)


@pytest.mark.parametrize(
    ("body", "params"),
    [
        (
            "    for (int j = 0; j < 3; j++)\n"
            "      if (bodies[i].walls == 1) bodies[i].pos[j] += bodies[i].vel[j];\n",
            "void",
        ),
        ("  { bodies[i].walls = 2; bodies[i].pos[0] = i; }\n", "void"),
        # a block that a parameter points to, the scalar member written
        (
            "  { b[i].walls = b[i].walls + 1;"
            " for (int j = 0; j < 3; j++) b[i].vel[j] = 0; }\n",
            "body *b",
        ),
    ],
)
def test_a_scalar_member_lies_apart_from_array_members(body: str, params: str) -> None:
    parallel, why = _outer(body, params)
    assert parallel, why


@pytest.mark.parametrize(
    "body",
    [
        # a union's members share storage
        "    for (int j = 0; j < 3; j++) if (mixes[i].walls) mixes[i].pos[j] = j;\n",
        "  { mixes[i].walls = 1; mixes[i].pos[0] = mixes[i - 1].pos[0]; }\n",
        # the whole nested member holds the array written through its path
        "  { bodies[i - 1].in = bodies[0].in;"
        " for (int j = 0; j < 3; j++) bodies[i].in.v[j] = j; }\n",
        # another pointer may reach the same block
        "  { others[i].walls = 1; bodies[i].pos[0] = bodies[i - 1].walls; }\n",
        # the neighbour's member: a distance of 1
        "  { bodies[i].walls = bodies[i - 1].walls; bodies[i].pos[0] = 1; }\n",
    ],
)
def test_members_that_may_meet_stay_serial(body: str) -> None:
    parallel, _ = _outer(body)
    assert not parallel


def test_the_moving_bodies_fixture_prints_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = FIXTURE / "moving_bodies.c"
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "moving_bodies.omp.c"
    proc = run_accls("annotate", "--model", "openmp", "--all", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert "omp parallel for private(edge, j)" in text, text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    for threads in (1, 4):
        problem = compare_text(run_program(serial), run_program(exe, threads), 0.0)
        assert problem is None, f"{problem}\n{text}"
