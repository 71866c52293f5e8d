"""A caller in another file holds a kernel's arguments on the device (the index)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.analysis.remote_calls import file_calls
from accls.cli import main
from accls.frontend import parse_source
from accls.project.calls_json import file_calls_from_json, file_calls_to_json

FIXTURE = Path(__file__).parent.parent / "fixtures" / "held_across"
MAIN_C = (FIXTURE / "main.c").read_text()
UPDATE = "#pragma acc update self(b[0:n])\n"

OMP_MAIN_C = (
    MAIN_C.replace(
        "#pragma acc enter data copyin(a[0:n]) create(b[0:n])",
        "#pragma omp target enter data map(to: a[0:n]) map(alloc: b[0:n])",
    )
    .replace(UPDATE, "#pragma omp target update from(b[0:n])\n")
    .replace(
        "#pragma acc exit data delete(a[0:n], b[0:n])",
        "#pragma omp target exit data map(delete: a[0:n], b[0:n])",
    )
)


def _suggest(
    root: Path,
    main_c: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    model: str = "openacc",
) -> str:
    shutil.copytree(FIXTURE, root)
    (root / "main.c").write_text(main_c)
    code = main(
        [
            "suggest",
            "--model",
            model,
            "--target",
            "gpu",
            "--no-validate",
            "--format",
            "json",
            "--index-cache",
            str(tmp_path / "cache"),
            "--project",
            str(root),
            str(root / "kern.c"),
        ]
    )
    assert code == 0
    found = json.loads(capsys.readouterr().out)
    items = found if isinstance(found, list) else found["suggestions"]
    (loop,) = [s for s in items if s["line"] == 3]
    return str(loop.get("pragma") or "")


def test_a_hold_of_every_call_makes_the_clauses_present(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pragma = _suggest(tmp_path / "p", MAIN_C, tmp_path, capsys)
    assert "present(a[0:n], b[0:n])" in pragma
    assert "copy" not in pragma


def test_a_write_that_never_comes_back_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pragma = _suggest(tmp_path / "p", MAIN_C.replace(UPDATE, ""), tmp_path, capsys)
    assert pragma == ""


def test_a_hold_not_covering_the_loop_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    half = MAIN_C.replace("create(b[0:n])", "create(b[0:n/2])")
    assert _suggest(tmp_path / "p", half, tmp_path, capsys) == ""


def test_host_code_inside_the_hold_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    touched = MAIN_C.replace("kernel(a, b, n);", "{ kernel(a, b, n); b[0] = 0.0; }")
    assert _suggest(tmp_path / "p", touched, tmp_path, capsys) == ""


def test_a_hold_ended_before_the_call_does_not_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ended = MAIN_C.replace(UPDATE, "").replace(
        "    for (int t = 0; t < 10; t++)\n        kernel(a, b, n);\n",
        "#pragma acc exit data delete(a[0:n], b[0:n])\n"
        "#pragma acc enter data copyin(a[0:n]) create(b[0:n])\n"
        "    for (int t = 0; t < 10; t++)\n        kernel(a, b, n);\n"
        "#pragma acc exit data copyout(b[0:n])\n",
    )
    pragma = _suggest(tmp_path / "p", ended, tmp_path, capsys)
    assert "present(a[0:n], b[0:n])" in pragma  # the second hold is the one


def test_one_unheld_call_keeps_the_copy_clauses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    more = MAIN_C.replace("    printf(", "    kernel(a, b, n);\n    printf(", 1)
    pragma = _suggest(tmp_path / "p", more, tmp_path, capsys)
    assert "copyin(a[0:n])" in pragma
    assert "copyout(b[0:n])" in pragma


def test_openmp_a_write_that_never_comes_back_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lost = OMP_MAIN_C.replace("#pragma omp target update from(b[0:n])\n", "")
    assert _suggest(tmp_path / "p", lost, tmp_path, capsys, "openmp") == ""


def test_openmp_a_coherent_hold_of_every_call_needs_no_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pragma = _suggest(tmp_path / "p", OMP_MAIN_C, tmp_path, capsys, "openmp")
    assert pragma == "#pragma omp target teams distribute parallel for"


def test_the_index_record_keeps_the_holds() -> None:
    found = file_calls(parse_source(MAIN_C, "main.c"), "main.c")
    (call,) = [c for c in found.calls if c.callee == "kernel"]
    assert [(h.at, h.fresh, bool(h.back)) for h in call.holds] == [
        (0, True, False),
        (1, False, True),
    ]
    assert file_calls_from_json(file_calls_to_json(found)) == found
    member = "kernel(p->a, b, n)"
    text = MAIN_C.replace("kernel(a, b, n)", member).replace(
        "copyin(a[0:n])", "copyin(p->a[0:n])"
    )
    (call,) = [
        c
        for c in file_calls(parse_source(text, "main.c"), "main.c").calls
        if c.callee == "kernel"
    ]
    assert [h.at for h in call.holds] == [0, 1]


HEADER = Path(__file__).parent.parent / "fixtures" / "held_header"


@pytest.mark.parametrize(
    ("model", "file"), [("openacc", "step.c"), ("openmp", "step_blk.c")]
)
def test_a_declare_in_an_included_header_holds_the_globals(
    model: str,
    file: str,
    need: Callable[[str], str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    need("gcc")  # the build's preprocessor reads the header
    options = ["--model", model, "--target", "gpu", "--no-validate"]
    code = main(["suggest", *options, "--format", "json", str(HEADER / file)])
    assert code == 0
    (loop,) = json.loads(capsys.readouterr().out)
    assert loop["pragma"] is None
    assert any("`declare` at fields" in r for r in loop["reasons"])


def test_a_member_held_through_the_struct_pointer_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "p"
    shutil.copytree(FIXTURE.parent / "held_member", root)
    code = main(
        [
            "suggest",
            "--model",
            "openacc",
            "--target",
            "gpu",
            "--no-validate",
            "--index-cache",
            str(tmp_path / "cache"),
            "--project",
            str(root),
            "--format",
            "json",
            str(root / "kern.c"),
        ]
    )
    assert code == 0
    (loop,) = json.loads(capsys.readouterr().out)
    assert loop["pragma"] is None
    assert any("`p->b` (a parameter)" in r for r in loop["reasons"])
    source = parse_source((root / "main.c").read_text(), "main.c")
    (call,) = [c for c in file_calls(source, "main.c").calls if c.callee == "kernel"]
    assert sorted(h.member for h in call.holds) == ["", "->a", "->b"]


def test_a_declared_argument_and_a_held_global_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "p"
    shutil.copytree(FIXTURE.parent / "held_globals", root)
    options = ["--model", "openacc", "--target", "gpu", "--no-validate"]
    project = ["--index-cache", str(tmp_path / "cache"), "--project", str(root)]
    code = main(
        ["suggest", *options, *project, "--format", "json", str(root / "kern.c")]
    )
    assert code == 0
    loops = json.loads(capsys.readouterr().out)
    assert [loop["pragma"] for loop in loops] == [None, None]
    assert "`b` (a parameter)" in loops[0]["reasons"][0]
    assert "`u` (a global)" in loops[1]["reasons"][0]


def test_a_created_array_the_loop_reads_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = MAIN_C.replace("copyin(a[0:n]) create(b[0:n])", "create(a[0:n], b[0:n])")
    assert _suggest(tmp_path / "p", stale, tmp_path, capsys) == ""


def test_an_update_device_before_the_call_makes_it_fresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sent = MAIN_C.replace(
        "copyin(a[0:n]) create(b[0:n])\n",
        "create(a[0:n], b[0:n])\n#pragma acc update device(a[0:n])\n",
    )
    assert "present(a[0:n], b[0:n])" in _suggest(tmp_path / "p", sent, tmp_path, capsys)
