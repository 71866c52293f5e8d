"""The compile check: real gcc on buffers with candidate pragmas inserted."""

from __future__ import annotations

import dataclasses
import json
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.frontend import Clause
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.validation import CompilerSettings, compile_check, compiler_available

Need = Callable[[str], str]

SRC = textwrap.dedent(
    """\
    #include <stddef.h>

    void scale(size_t n, float *restrict a, const float *restrict b) {
        for (size_t i = 0; i < n; i++) {
            a[i] = 2.0f * b[i];
        }
    }
    """
)


def suggestions(text: str, model: Dialect = Dialect.OPENMP) -> tuple[Suggestion, ...]:
    dialect = "omp" if model is Dialect.OPENMP else "acc"
    analysis = analyze_text(text, options=AnalysisOptions(dialect=dialect))
    found = suggest_file(analysis, SuggestOptions(dialect=model, target=Target.CPU))
    return tuple(s for s in found if s.pragma is not None)


def with_clause(s: Suggestion, clause: Clause) -> Suggestion:
    assert s.pragma is not None
    pragma = dataclasses.replace(s.pragma, clauses=(*s.pragma.clauses, clause))
    return dataclasses.replace(s, pragma=pragma)


def wrapper(tmp_path: Path, gcc: str, body: str) -> str:
    """A compiler script that runs `body` before handing over to gcc."""
    script = tmp_path / "cc-wrapper"
    script.write_text(f'#!/bin/sh\n{body}\nexec {gcc} "$@"\n')
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("model", [Dialect.OPENMP, Dialect.OPENACC])
def test_good_candidate_compiles(need: Need, tmp_path: Path, model: Dialect) -> None:
    need("gcc")
    found = suggestions(SRC, model)
    results = compile_check(SRC, str(tmp_path / "k.c"), found, CompilerSettings())
    assert [r.compiles for r in results.values()] == [True]
    (result,) = results.values()
    assert result.dropped == ()
    assert result.reason == ""


def test_undeclared_data_clause_fails_unrepaired(need: Need, tmp_path: Path) -> None:
    need("gcc")
    (good,) = suggestions(SRC)
    bad = with_clause(good, Clause("map", "to: missing[0:n]"))
    result = compile_check(SRC, str(tmp_path / "k.c"), (bad,), CompilerSettings())
    (only,) = result.values()
    assert only.compiles is False
    assert only.dropped == ()
    assert only.pragma is not None
    assert "missing" in only.pragma


def test_reduction_is_never_dropped(need: Need, tmp_path: Path) -> None:
    need("gcc")
    (good,) = suggestions(SRC)
    bad = with_clause(good, Clause("reduction", "+:nothing"))
    result = compile_check(SRC, str(tmp_path / "k.c"), (bad,), CompilerSettings())
    assert [(r.compiles, r.dropped) for r in result.values()] == [(False, ())]


@pytest.mark.parametrize(
    "clause", [Clause("schedule", "bogus"), Clause("collapse", "3")], ids=str
)
def test_performance_clause_is_dropped(
    need: Need, tmp_path: Path, clause: Clause
) -> None:
    need("gcc")
    (good,) = suggestions(SRC)
    assert good.pragma is not None
    bad = with_clause(good, clause)
    result = compile_check(SRC, str(tmp_path / "k.c"), (bad,), CompilerSettings())
    (only,) = result.values()
    assert only.compiles is True
    assert only.dropped == (f"{clause.name}({clause.args})",)
    assert only.pragma == good.pragma.render()


def test_broken_file_is_unverified(need: Need, tmp_path: Path) -> None:
    need("gcc")
    broken = SRC + "int oops = undeclared_thing;\n"
    found = suggestions(broken)
    result = compile_check(broken, str(tmp_path / "k.c"), found, CompilerSettings())
    assert [r.compiles for r in result.values()] == [None]
    (only,) = result.values()
    assert only.reason.startswith("the file does not compile without the pragma")


def test_missing_compiler_is_unverified(tmp_path: Path) -> None:
    settings = CompilerSettings(cc="definitely-not-a-compiler")
    assert not compiler_available(settings)
    result = compile_check(SRC, str(tmp_path / "k.c"), suggestions(SRC), settings)
    assert [(r.compiles, r.command) for r in result.values()] == [(None, ())]


def test_cache_skips_the_compiler(need: Need, tmp_path: Path) -> None:
    log = tmp_path / "calls"
    cc = wrapper(tmp_path, need("gcc"), f"echo x >> {log}")
    cache = tmp_path / "cache"
    found = suggestions(SRC)
    settings = CompilerSettings(cc=cc, cache_dir=str(cache))
    first = compile_check(SRC, str(tmp_path / "k.c"), found, settings)
    calls = log.read_text().count("x")
    second = compile_check(SRC, str(tmp_path / "k.c"), found, settings)
    assert calls == 2  # the file alone, then with every pragma
    assert log.read_text().count("x") == calls
    assert first == second
    assert len(list(cache.glob("*.json"))) == calls
    assert not list(cache.glob(".*"))  # no half-written files left behind


def test_timeout_is_unverified(need: Need, tmp_path: Path) -> None:
    cc = wrapper(tmp_path, need("gcc"), "sleep 5")
    settings = CompilerSettings(cc=cc, timeout_s=0.2)
    start = time.monotonic()
    result = compile_check(SRC, str(tmp_path / "k.c"), suggestions(SRC), settings)
    assert [r.compiles for r in result.values()] == [None]
    assert time.monotonic() - start < 4.0


def test_compile_commands_flags_are_used(need: Need, tmp_path: Path) -> None:
    need("gcc")
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "size.h").write_text("#define N_ITEMS 64\n")
    database = [
        {
            "directory": str(tmp_path),
            "file": "k.c",
            "arguments": ["cc", "-Iinc", "-D", "SCALE=2", "-c", "k.c"],
        }
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(database))
    text = '#include "size.h"\n' + SRC.replace("2.0f", "SCALE * N_ITEMS")
    result = compile_check(
        text, str(tmp_path / "k.c"), suggestions(text), CompilerSettings()
    )
    assert [r.compiles for r in result.values()] == [True]


def test_collapse_kept_when_inner_counter_is_shared(need: Need, tmp_path: Path) -> None:
    need("gcc")
    text = textwrap.dedent(
        """\
        void t(int n, int m, double *restrict a, const double *restrict b) {
            int i, j;
            for (i = 0; i < 4; i++)  /* short: a CPU pragma collapses it */
                for (j = 0; j < m; j++)
                    a[i * m + j] = b[j * n + i];
        }
        """
    )
    (good,) = suggestions(text)
    assert good.pragma is not None
    assert good.pragma.clause("collapse") == Clause("collapse", "2")
    clauses = tuple(
        Clause("collapse", "3") if c.name == "collapse" else c
        for c in good.pragma.clauses
    )
    bad = dataclasses.replace(
        good, pragma=dataclasses.replace(good.pragma, clauses=clauses)
    )
    result = compile_check(text, str(tmp_path / "t.c"), (bad,), CompilerSettings())
    assert [(r.compiles, r.dropped) for r in result.values()] == [(False, ())]


def _macro_bomb() -> str:
    """A 1 KB file whose preprocessing doubles a macro 32 times (gigabytes)."""
    lines = ["#define X0 1+"] + [
        f"#define X{k} X{k - 1} X{k - 1}" for k in range(1, 33)
    ]
    return "\n".join([*lines, "int v = X32 1;", SRC])


def test_compiler_runs_under_a_memory_limit(need: Need, tmp_path: Path) -> None:
    need("gcc")
    need("prlimit")
    text = _macro_bomb()
    found = suggestions(text)
    settings = CompilerSettings(memory_mb=256, timeout_s=120)
    results = compile_check(text, str(tmp_path / "bomb.c"), found, settings)
    (result,) = results.values()
    # Undecided, never "compiles", and said plainly: not a two-minute wait.
    assert result.compiles is None
    assert result.reason == "the compiler ran out of its 256 MB"
    assert result.command[0].endswith("gcc")


ORDERED = textwrap.dedent(
    """\
    double ordered_sum(int n, const double *a) {
        double sum = 0.0;
        for (int i = 0; i < n; i++) {
            double term = a[i] * a[i];
    #pragma omp ordered
            {
                sum += term;
            }
        }
        return sum;
    }
    """
)


def test_ordered_block_gets_the_ordered_clause(need: Need, tmp_path: Path) -> None:
    need("gcc")
    (found,) = suggestions(ORDERED)
    assert found.pragma is not None
    assert [c.name for c in found.pragma.clauses] == ["ordered"]
    unit = str(tmp_path / "o.c")
    results = compile_check(ORDERED, unit, (found,), CompilerSettings())
    assert [r.compiles for r in results.values()] == [True]


def test_directive_nesting_errors_fail_the_check(need: Need, tmp_path: Path) -> None:
    # gcc reports an `ordered` region outside a loop with an `ordered` clause only when
    # it lowers the code: -fsyntax-only accepts it.
    need("gcc")
    (found,) = suggestions(ORDERED)
    assert found.pragma is not None
    bare = dataclasses.replace(
        found, pragma=dataclasses.replace(found.pragma, clauses=())
    )
    results = compile_check(ORDERED, str(tmp_path / "o.c"), (bare,), CompilerSettings())
    (result,) = results.values()
    assert result.compiles is False
    assert "ordered" in result.reason
