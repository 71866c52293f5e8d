"""`boxes[l].lo[k]` over `l`, annotated with OpenMP, prints the serial output.

An inline array member of a struct array's element is a row of its own per
element, so the loops that set and scale each box are parallel over the boxes;
the loop reading the next box's member, and the one writing a box an index
array names, stay serial. Built with -fopenmp, the annotated fixture must print
what the serial build prints on 2 and 4 threads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

FIXTURE = Path(__file__).parent / "fixtures" / "c" / "element_array_members.c"


def _loop_pragma(lines: list[str], function: str) -> str:
    """The line above the first `for` of `function`, stripped."""
    start = next(k for k, line in enumerate(lines) if f" {function}(int n" in line)
    at = next(k for k in range(start, len(lines)) if lines[k].startswith("for (int l"))
    return lines[at - 1]


def test_box_members_run_in_parallel_and_print_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    serial = tmp_path / "serial"
    build_program(gcc, FIXTURE, serial)
    out = tmp_path / "element_array_members.omp.c"
    proc = run_accls(
        "annotate", "--all", "--model", "openmp", "--target", "cpu",
        str(FIXTURE), "-o", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    for function in ("place", "scale"):
        assert _loop_pragma(lines, function).startswith("#pragma omp parallel for"), (
            text
        )
    for function in ("shift_from_next", "gather"):
        assert not _loop_pragma(lines, function).startswith("#pragma"), text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    expected = run_program(serial)
    for threads in (2, 4):
        problem = compare_text(expected, run_program(exe, threads), 0.0)
        assert problem is None, f"{threads} threads: {problem}\n{text}"


POINTERS = FIXTURE.with_name("element_pointer_members.c")


def test_block_pointer_members_run_in_parallel_and_print_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    serial = tmp_path / "serial"
    build_program(gcc, POINTERS, serial)
    out = tmp_path / "element_pointer_members.omp.c"
    proc = run_accls(
        "annotate", "--all", "--model", "openmp", "--target", "cpu",
        str(POINTERS), "-o", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    assert _loop_pragma(lines, "fill").startswith("#pragma omp parallel for"), text
    assert not _loop_pragma(lines, "smooth").startswith("#pragma"), text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    expected = run_program(serial)
    for threads in (2, 4):
        problem = compare_text(expected, run_program(exe, threads), 0.0)
        assert problem is None, f"{threads} threads: {problem}\n{text}"
