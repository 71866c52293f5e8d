"""Bad input gives a clear reason, never a crash or a guess (issue 12's last list)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import analyze_text
from accls.cli import main

Cli = Callable[..., tuple[int, str, str]]

RECURSION = dedent(
    """\
    int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
    void f(int n, int *restrict out) {
        for (int i = 0; i < n; i++)
            out[i] = fact(i % 10);
    }
    """
)
MUTUAL = dedent(
    """\
    int odd(int n);
    int even(int n) { return n == 0 ? 1 : odd(n - 1); }
    int odd(int n) { return n == 0 ? 0 : even(n - 1); }
    void f(int n, int *restrict out) {
        for (int i = 0; i < n; i++)
            out[i] = even(i);
    }
    """
)
FUNCTION_POINTER = dedent(
    """\
    void f(int n, double *restrict out, const double *restrict x,
           double (*g)(double)) {
        for (int i = 0; i < n; i++)
            out[i] = g(x[i]);
    }
    """
)
POINTER_TABLE = dedent(
    """\
    typedef double (*op_t)(double);
    static op_t table[2];
    void h(int n, double *restrict out, const double *restrict x) {
        for (int i = 0; i < n; i++)
            out[i] = table[i % 2](x[i]);
    }
    """
)
LONGJMP = dedent(
    """\
    #include <setjmp.h>
    static jmp_buf env;
    void f(int n, double *restrict out, const double *restrict x) {
        for (int i = 0; i < n; i++) {
            if (x[i] < 0) longjmp(env, 1);
            out[i] = x[i];
        }
    }
    """
)
SETJMP = dedent(
    """\
    #include <setjmp.h>
    static jmp_buf env;
    void f(int n, double *restrict out) {
        for (int i = 0; i < n; i++) {
            if (setjmp(env) == 0) out[i] = 0;
        }
    }
    """
)
VARIADIC = dedent(
    """\
    #include <stdarg.h>
    static double total(int k, ...) {
        va_list ap;
        double s = 0;
        va_start(ap, k);
        for (int j = 0; j < k; j++) s += va_arg(ap, double);
        va_end(ap);
        return s;
    }
    void f(int n, double *restrict out, const double *restrict x) {
        for (int i = 0; i < n; i++)
            out[i] = total(2, x[i], 1.0);
    }
    """
)
K_AND_R_CALLEE = dedent(
    """\
    static void bump(p, i) double *p; int i; { p[0] += i; }
    void g(int n, double *restrict out, double *restrict acc) {
        for (int i = 0; i < n; i++) {
            bump(acc, i);
            out[i] = 1.0;
        }
    }
    """
)
K_AND_R_LOOP = dedent(
    """\
    void f(n, out, x) int n; double *out; double *x; {
        int i;
        for (i = 0; i < n; i++)
            out[i] = x[i];
    }
    """
)
TWICE_CALLEE = dedent(
    """\
    static int count;
    #ifdef TRACE
    static double step(double v) { return v * 2; }
    #else
    static double step(double v) { count++; return v * 2; }
    #endif
    void f(int n, double *restrict out, const double *restrict x) {
        for (int i = 0; i < n; i++)
            out[i] = step(x[i]);
    }
    """
)
TWICE_LOOP = dedent(
    """\
    #ifdef FAST
    void f(int n, double *restrict out, const double *restrict x) {
        for (int i = 0; i < n; i++)
            out[i] = x[i] * 2;
    }
    #else
    void f(int n, double *out, const double *x) {
        for (int i = 0; i < n; i++)
            out[i] = x[i] * 3;
    }
    #endif
    """
)


def _only(src: str, function: str = "") -> tuple[set[str], str]:
    """The obstacle codes and messages of the one loop of `function` (or the last)."""
    facts = [
        f
        for f in analyze_text(src).facts
        if not function or f.loop.function == function
    ][-1]
    assert not facts.parallel
    return {o.code.value for o in facts.obstacles}, " ".join(
        o.message for o in facts.obstacles
    )


def test_a_recursive_callee_is_refused_as_recursive() -> None:
    codes, why = _only(RECURSION)
    assert codes == {"call"}
    assert "`fact()` -> `fact()`" in why
    assert "recursive" in why


def test_mutual_recursion_names_the_cycle() -> None:
    codes, why = _only(MUTUAL, "f")
    assert codes == {"call"}
    assert "`even()` -> `odd()` -> `even()`" in why


def test_a_call_through_a_function_pointer_parameter_is_unknown() -> None:
    codes, why = _only(FUNCTION_POINTER)
    assert codes == {"call"}
    assert "through a function pointer" in why


def test_a_call_through_a_table_of_function_pointers_is_unknown() -> None:
    codes, why = _only(POINTER_TABLE)
    assert codes == {"call"}
    assert "`table[i % 2]()`" in why
    assert "through a function pointer" in why


@pytest.mark.parametrize("src", [LONGJMP, SETJMP])
def test_setjmp_and_longjmp_are_non_local_jumps(src: str) -> None:
    codes, why = _only(src)
    # `setjmp` is a call we cannot follow; `longjmp` leaves the loop (an exit).
    assert codes & {"call", "exit"}
    assert "non-local jump" in why


def test_a_variadic_callee_is_refused_for_its_va_list() -> None:
    codes, why = _only(VARIADIC, "f")
    assert codes == {"call"}
    assert "`total()`" in why
    assert "variadic arguments" in why


def test_a_k_and_r_callee_that_writes_through_its_pointer_is_not_pure() -> None:
    # Its parameters are declared between `)` and the body: they must be seen.
    # `p[0] += i` is then the update `acc[0]` of every iteration (element_arguments).
    codes, why = _only(K_AND_R_CALLEE)
    assert codes == {"dependence"}
    assert "dependence on `acc`: `acc[0]`" in why


def test_a_loop_in_a_k_and_r_definition_sees_its_pointer_parameters() -> None:
    codes, why = _only(K_AND_R_LOOP)
    assert codes == {"alias"}
    assert "not visible" not in why


def test_a_callee_defined_under_two_ifs_is_not_summarised() -> None:
    # Without the build's context either definition may be the one that runs.
    codes, why = _only(TWICE_CALLEE)
    assert codes == {"call"}
    assert "defined more than once (lines 3, 5)" in why


def test_a_loop_in_a_function_defined_under_two_ifs_is_refused() -> None:
    facts = analyze_text(TWICE_LOOP).facts
    assert [f.parallel for f in facts] == [False, False]
    for f in facts:
        assert {o.code.value for o in f.obstacles} == {"ambiguous"}
        assert "defined more than once (lines 2, 7)" in f.obstacles[0].message


# The command line: the same cases end with exit 0, no pragma, and the reason.


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    def run(*argv: str) -> tuple[int, str, str]:
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _suggest(cli: Cli, path: Path, *flags: str) -> tuple[list[dict[str, object]], str]:
    args = ("--model", "openmp", "--target", "cpu", "--no-validate", *flags)
    code, out, err = cli("suggest", "--format", "json", *args, str(path))
    assert code == 0, err
    return json.loads(out), err


@pytest.mark.parametrize(
    ("src", "function", "phrase"),
    [
        (RECURSION, "f", "recursive"),
        (MUTUAL, "f", "recursive"),
        (FUNCTION_POINTER, "f", "through a function pointer"),
        (POINTER_TABLE, "h", "through a function pointer"),
        (LONGJMP, "f", "non-local jump"),
        (SETJMP, "f", "non-local jump"),
        (VARIADIC, "f", "variadic arguments"),
        (K_AND_R_CALLEE, "g", "dependence on `acc`: `acc[0]`"),
        (K_AND_R_LOOP, "f", "may overlap"),
    ],
)
def test_the_cli_refuses_with_the_reason(
    cli: Cli, tmp_path: Path, src: str, function: str, phrase: str
) -> None:
    path = tmp_path / "bad.c"
    path.write_text(src, encoding="utf-8")
    found, _ = _suggest(cli, path)
    mine = [s for s in found if s["function"] == function]
    assert mine
    for s in mine:
        assert s["pragma"] is None
        assert any(phrase in str(r) for r in s["reasons"]), s["reasons"]  # type: ignore[attr-defined]


def test_the_cli_follows_the_build_for_a_function_defined_twice(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "twice.c"
    path.write_text(TWICE_CALLEE, encoding="utf-8")
    (plain,), _ = _suggest(cli, path)
    (traced,), _ = _suggest(cli, path, "-DTRACE")
    assert plain["pragma"] is None  # the #else definition writes `count`
    assert "which writes `count`" in str(plain["reasons"])
    assert traced["pragma"] == "#pragma omp parallel for"


def test_a_missing_compile_database_is_one_warning(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "twice.c"
    path.write_text(TWICE_CALLEE, encoding="utf-8")
    found, err = _suggest(
        cli, path, "--compile-commands", str(tmp_path / "nope" / "db.json")
    )
    assert len(found) == 1
    lines = [x for x in err.splitlines() if "db.json" in x]
    assert len(lines) == 1
    assert "cannot read the compile database" in lines[0]


def test_a_database_that_does_not_list_the_file_says_so(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "twice.c"
    path.write_text(TWICE_CALLEE, encoding="utf-8")
    db = tmp_path / "compile_commands.json"
    entry = {"directory": str(tmp_path), "command": "gcc -c other.c", "file": "other.c"}
    db.write_text(json.dumps([entry]), encoding="utf-8")
    found, err = _suggest(cli, path)
    assert len(found) == 1
    assert f"does not list {path}" in err


def test_a_database_whose_folder_is_gone_says_it_is_stale(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "twice.c"
    path.write_text(TWICE_CALLEE, encoding="utf-8")
    db = tmp_path / "compile_commands.json"
    gone = tmp_path / "build-gone"
    entry = {
        "directory": str(gone),
        "command": f"gcc -DTRACE -c {path}",
        "file": str(path),
    }
    db.write_text(json.dumps([entry]), encoding="utf-8")
    (found,), err = _suggest(cli, path)
    assert "which does not exist (a stale database?)" in err
    assert found["pragma"] == "#pragma omp parallel for"  # its -DTRACE still applies


def test_a_broken_compile_database_is_one_warning(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "twice.c"
    path.write_text(TWICE_CALLEE, encoding="utf-8")
    (tmp_path / "compile_commands.json").write_text("{not json", encoding="utf-8")
    found, err = _suggest(cli, path)
    assert len(found) == 1
    assert "not a valid compile database" in err
