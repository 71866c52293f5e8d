"""`errno` across files: another file's function that sets it or reads it."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, Definition, ProgramSummaries, analyze
from accls.analysis.errno_calls import errno_effects
from accls.analysis.remote_calls import ProgramCalls, file_calls
from accls.frontend import parse_source
from accls.project.calls_json import file_calls_from_json, file_calls_to_json
from accls.project.summary_json import definition_from_json, definition_to_json

_MAIN = dedent(
    """\
    #include <errno.h>
    #include <stdlib.h>
    void check(const char *what);
    double parse(const char *s);
    double twice(double x);
    char f[64][32];
    double v[64];
    int main(void) {
      errno = 0;
      for (int i = 0; i < 64; i++) v[i] = CALL;
      AFTER;
      return 0;
    }
    """
)


def _facts(call: str, after: str, *found: Definition):  # type: ignore[no-untyped-def]
    text = _MAIN.replace("CALL", call).replace("AFTER", after)
    options = AnalysisOptions(dialect="omp", program=ProgramSummaries(found))
    return analyze(parse_source(text, "main.c"), options).facts[0]


def _defined(name: str, *, sets: bool = False, reads: bool = False) -> Definition:
    return Definition(
        name=name,
        file="util.c",
        line=3,
        summary=None,
        why="which has other effects",
        sets_errno=sets,
        reads_errno=reads,
    )


def test_another_files_report_after_the_loop_reads_errno() -> None:
    """`check()` (util.c) prints errno: serially strtod's ERANGE, here maybe 0."""
    fact = _facts("strtod(f[i], 0)", 'check("v")', _defined("check", reads=True))
    assert not fact.parallel
    assert any("may set `errno`" in o.message for o in fact.obstacles)
    quiet = _facts("strtod(f[i], 0)", 'check("v")', _defined("check"))
    assert quiet.parallel


def test_another_files_function_that_sets_errno_in_the_loop() -> None:
    parse = _defined("parse", sets=True)
    pure = Definition(name="twice", file="util.c", line=9, summary=None)
    assert not _facts("parse(f[i])", "v[0] = errno", parse).parallel
    twice = _facts("twice(v[i])", "v[0] = errno", pure)
    assert not any("errno" in o.message for o in twice.obstacles)


def test_the_index_records_what_a_function_does_with_errno() -> None:
    util = parse_source(
        dedent(
            """\
            #include <errno.h>
            #include <stdio.h>
            #include <stdlib.h>
            void check(const char *w) { if (errno) printf("%s %d\\n", w, errno); }
            double parse(const char *s) { return strtod(s, NULL); }
            double twice(double x) { return 2 * x; }
            void quiet(void) { errno = 0; if (errno) puts("never"); }
            """
        ),
        "util.c",
    )
    got = {fn.name: errno_effects(fn, util) for fn in util.functions}
    assert got == {
        "check": (False, True),
        "parse": (True, False),
        "twice": (False, False),
        "quiet": (False, False),
    }


def test_the_errno_marks_round_trip_through_json() -> None:
    found = _defined("check", sets=True, reads=True)
    assert definition_from_json(definition_to_json(found)) == found


_UTIL = dedent(
    """\
    #include <stdlib.h>
    double v[64];
    char f[64][32];
    void load(void) {
      for (int i = 0; i < 64; i++) v[i] = strtod(f[i], NULL);
    }
    """
)


def _caller(after: str) -> ProgramSummaries:
    """A main.c calling `load()` (util.c) with `after` after the call."""
    text = (
        "#include <errno.h>\n#include <stdio.h>\nvoid load(void);\n"
        f"int main(void) {{\n  errno = 0;\n  load();\n  {after}\n  return 0;\n}}\n"
    )
    record = file_calls(parse_source(text, "main.c"), "main.c")
    return ProgramSummaries(calls=ProgramCalls(files=(record,), sealed=True))


def _load(program: ProgramSummaries):  # type: ignore[no-untyped-def]
    options = AnalysisOptions(dialect="omp", program=program)
    return analyze(parse_source(_UTIL, "util.c"), options).facts[0]


def test_a_caller_in_another_file_that_reads_errno_after_the_call() -> None:
    """main.c's `if (errno)` after `load()`: the strtod loop of util.c stays serial."""
    for after in ('if (errno) puts("bad");', 'perror("load");'):
        fact = _load(_caller(after))
        assert not fact.parallel, after
        assert any("may set `errno`" in o.message for o in fact.obstacles)
    assert _load(_caller('puts("done");')).parallel


def test_the_errno_read_after_a_call_round_trips_through_json() -> None:
    text = "void load(void);\nint main(void) { load(); return errno; }"
    record = file_calls(parse_source(text, "m.c"), "m.c")
    assert record.calls[0].errno_after
    assert file_calls_from_json(file_calls_to_json(record)) == record
