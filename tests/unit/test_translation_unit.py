"""The build's context of a buffer: the preprocessor's macros and header globals."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import analyze_text
from accls.frontend import ContextCache, Preprocessor, header_context
from accls.frontend.preprocessor import _blank_comments, skeleton
from accls.project import BuildFlags, build_context
from support.cli import run_accls

Need = Callable[[str], str]

HEADER = """\
#ifndef PROJ_GRID_H
#define PROJ_GRID_H
#define NX 64
#ifdef WIDE
#define NY 128
#else
#define NY 32
#endif
extern double rhs[NX][NY];
extern double lhs[NX][NY];
#define AT(a, i, j) a[i][j]
#endif
"""

KERNEL = """\
#include "proj_grid.h"
#include <math.h>
void scale(void) {
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      AT(lhs, i, j) = 2.0 * rhs[i][j];
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "proj_grid.h").write_text(HEADER, encoding="utf-8")
    (tmp_path / "kernel.c").write_text(KERNEL, encoding="utf-8")
    return tmp_path


def test_the_skeleton_keeps_directives_and_marks_code_lines() -> None:
    text = (
        "#define A \\\n  1\nint x;\n#pragma omp parallel\n  #include <a.h>\n"
        "/*\n#define HIDDEN 1\n*/\n"
    )
    mark = "__accls_active_line__"
    assert skeleton(text).splitlines() == [
        "#define A \\",
        "  1",
        mark,
        mark,
        "  #include <a.h>",
        "",
        "",
        "",
    ]


def test_comments_are_blanked_but_literals_and_line_breaks_are_kept() -> None:
    text = (
        '#define S "/* not a comment */" // gone\n'
        "#define C '\\'' /* a\n#define HIDDEN 1\n*/ #define T 1\n"
        '#define E "a\\"b" /* open to the end\n#define LAST 1'
    )
    assert _blank_comments(text).splitlines() == [
        '#define S "/* not a comment */"        ',
        "#define C '\\''     ",
        "                ",
        "   #define T 1",
        '#define E "a\\"b"' + " " * 19,
        " " * 14,
    ]


def test_code_in_an_if_branch_the_build_skips_is_not_analysed(
    need: Need, tmp_path: Path
) -> None:
    need("gcc")
    text = dedent(
        """\
        void f(int n, double *restrict a, double *restrict b) {
        #ifdef SERIAL_DEBUG
          for (int i = 1; i < n; i++) a[i] = a[i - 1];
        #else
          for (int i = 0; i < n; i++) a[i] = b[i];
        #endif
        }
        """
    )
    path = str(tmp_path / "k.c")
    built = header_context(text, path, Preprocessor())
    assert built.inactive == frozenset({3})
    assert [f.loop.line for f in analyze_text(text, path, context=built).facts] == [5]
    debug = header_context(text, path, Preprocessor(flags=("-DSERIAL_DEBUG",)))
    assert [f.loop.line for f in analyze_text(text, path, context=debug).facts] == [3]


def test_header_globals_and_macros_come_from_the_preprocessor(
    need: Need, project: Path
) -> None:
    need("gcc")
    pre = Preprocessor(flags=(f"-I{project / 'include'}",))
    context = header_context(KERNEL, str(project / "kernel.c"), pre)
    assert context.problem is None
    assert context.missing == ()
    assert {g.name: g.dims for g in context.globals} == {
        "rhs": ("64", "32"),
        "lhs": ("64", "32"),
    }
    assert context.macros.objects["NY"] == "32"
    assert "AT" in context.macros.functions
    assert "M_PI" not in context.macros.objects  # system headers are not user code


def test_a_define_selects_the_branch_the_build_selects(
    need: Need, project: Path
) -> None:
    need("gcc")
    pre = Preprocessor(flags=(f"-I{project / 'include'}", "-DWIDE"))
    context = header_context(KERNEL, str(project / "kernel.c"), pre)
    assert context.macros.objects["NY"] == "128"
    assert {g.name: g.dims for g in context.globals}["rhs"] == ("64", "128")


def test_with_the_header_the_nest_is_parallel_and_without_it_the_reason_names_it(
    need: Need, project: Path
) -> None:
    need("gcc")
    path = str(project / "kernel.c")
    found = header_context(
        KERNEL, path, Preprocessor(flags=(f"-I{project / 'include'}",))
    )
    assert analyze_text(KERNEL, path, context=found).facts[0].parallel
    missing = header_context(KERNEL, path, Preprocessor())
    assert missing.missing == ("proj_grid.h",)
    facts = analyze_text(KERNEL, path, context=missing).facts[0]
    assert not facts.parallel
    assert any("`proj_grid.h` not found" in o.message for o in facts.obstacles)


@pytest.mark.parametrize(
    ("setup", "problem"),
    [
        ("recursive", "a recursive #include"),
        ("hangs", "timed out after 1 s"),
        ("no compiler", "was not found"),
    ],
)
def test_a_preprocessor_that_cannot_finish_gives_a_reason(
    need: Need, tmp_path: Path, setup: str, problem: str
) -> None:
    need("gcc")
    text = '#include "self.h"\n'
    cc = "gcc"
    if setup == "recursive":
        (tmp_path / "self.h").write_text('#include "self.h"\n', encoding="utf-8")
    elif setup == "hangs":
        script = tmp_path / "slowcc"
        script.write_text("#!/bin/sh\nsleep 30\n", encoding="utf-8")
        script.chmod(0o755)
        cc = str(script)
    else:
        cc = "no-such-preprocessor-accls"
    started = time.monotonic()
    context = header_context(
        text, str(tmp_path / "k.c"), Preprocessor(cc=cc, timeout_s=1.0)
    )
    assert context.problem is not None
    assert problem in context.problem
    assert time.monotonic() - started < 20


def test_the_cache_preprocesses_again_only_when_a_directive_or_header_changes(
    need: Need, project: Path
) -> None:
    need("gcc")
    cache = ContextCache()
    path = str(project / "kernel.c")
    pre = Preprocessor(flags=(f"-I{project / 'include'}",))
    first = cache.get(KERNEL, path, pre)
    edited = KERNEL.replace("2.0 *", "3.0 *")
    assert cache.get(edited, path, pre) is first
    header = project / "include" / "proj_grid.h"
    header.write_text(HEADER.replace("#define NX 64", "#define NX 65"), "utf-8")
    later = time.time() + 5
    os.utime(header, (later, later))
    again = cache.get(edited, path, pre)
    assert again is not first
    assert again.macros.objects["NX"] == "65"


def test_the_compile_database_supplies_flags_and_its_problems_are_one_line(
    need: Need, project: Path
) -> None:
    need("gcc")
    path = str(project / "kernel.c")
    database = project / "compile_commands.json"
    database.write_text(
        json.dumps(
            [
                {
                    "directory": str(project),
                    "file": "kernel.c",
                    "command": "no-such-cc-accls -Iinclude -DWIDE -c kernel.c",
                }
            ]
        ),
        encoding="utf-8",
    )
    context, warnings = build_context(KERNEL, path, BuildFlags())
    assert context.macros.objects["NY"] == "128"
    assert [w for w in warnings if "no-such-cc-accls" in w]
    database.write_text("[{not json", encoding="utf-8")
    context, warnings = build_context(KERNEL, path, BuildFlags())
    assert any("not a valid compile database" in w for w in warnings)
    assert all("\n" not in w for w in warnings)
    assert context.missing == ("proj_grid.h",)


def test_the_cli_reads_the_headers_and_names_a_missing_one(
    need: Need, project: Path
) -> None:
    need("gcc")
    path = str(project / "kernel.c")
    found = run_accls(
        "suggest",
        "--model",
        "openmp",
        "--format",
        "json",
        "-I",
        str(project / "include"),
        "--no-validate",
        path,
    )
    assert found.returncode == 0, found.stderr
    assert (
        json.loads(found.stdout)[0]["pragma"] == "#pragma omp parallel for"
    )  # NX = 64 rows from the header: enough for the threads alone, no collapse
    missing = run_accls("suggest", "--model", "openmp", "--no-validate", path)
    assert missing.returncode == 0
    assert "header `proj_grid.h` not found" in missing.stderr
    off = run_accls(
        "suggest",
        "--no-preprocess",
        "--model",
        "openmp",
        "--format",
        "json",
        "-I",
        str(project / "include"),
        "--no-validate",
        path,
    )
    assert json.loads(off.stdout)[0]["pragma"] is None  # macros only: no globals


def test_a_buffer_that_needs_the_preprocessor_to_parse_is_reported_not_crashed(
    need: Need, tmp_path: Path
) -> None:
    need("gcc")
    source = tmp_path / "odd.c"
    source.write_text(
        dedent(
            """\
            #define BEGIN {
            #define END }
            void f(int n, double *restrict a) BEGIN
              for (int i = 0; i < n; i++) a[i] = 0;
            END
            """
        ),
        encoding="utf-8",
    )
    proc = run_accls("suggest", "--model", "openmp", "--no-validate", str(source))
    assert proc.returncode in (0, 2)
    assert "Traceback" not in proc.stderr
    assert "syntax error" in proc.stderr + proc.stdout
