"""A call that may run an overload the file declares but does not define.

`void f(int *p);` (defined in another file) beside `void f(double *p) {..}`:
a call `f(a)` may run the first, whose effects are unknown here, so it gets no
summary of the second (which writes nothing). A prototype of the definition
itself, spelled with other names, `restrict` or `[]`, is the same overload.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze, analyze_text
from accls.analysis.overload_types import parameter_types
from accls.frontend import parse_source
from accls.project import BuildFlags, build_context
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

LOOP = """\
void run(int *__restrict__ a, int *__restrict__ c, int n) {
  for (int i = 0; i < n; i++) {
    f(a);
    c[i] = i;
  }
}
"""


def _verdict(text: str, path: str = "k.cpp") -> tuple[bool, str]:
    source = parse_source(dedent(text), path)
    (fact,) = analyze(source, AnalysisOptions(assume_no_alias=True)).facts
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


def test_a_prototype_of_another_overload_keeps_the_call_unknown() -> None:
    parallel, why = _verdict("void f(int *p);\nvoid f(double *p) { (void)p; }\n" + LOOP)
    assert not parallel
    assert "another overload, `f(int *p)`" in why


def test_another_overload_a_header_defines_keeps_the_call_unknown(
    tmp_path: Path,
) -> None:
    (tmp_path / "h.h").write_text("static inline void f(int *p) { p[0] = 1; }\n")
    path = str(tmp_path / "k.cpp")
    text = '#include "h.h"\nvoid f(double *p) { (void)p; }\n' + LOOP
    context, _ = build_context(text, path, BuildFlags())
    options = AnalysisOptions(assume_no_alias=True)
    (fact,) = analyze_text(text, path, options=options, context=context).facts
    assert not fact.parallel
    assert "one `f` of a header" in " | ".join(o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    "prototype",
    [
        "void f(int *q);",
        "void f(int *__restrict__ p);",
        "void f(int p[]);",
        "void f(int *);",
        "extern void f(int *p);",
    ],
)
def test_a_prototype_of_the_definition_itself_is_no_other_overload(
    prototype: str,
) -> None:
    parallel, why = _verdict(f"{prototype}\nvoid f(int *p) {{ (void)p; }}\n" + LOOP)
    assert parallel, why


def test_a_call_after_else_is_no_declaration() -> None:
    text = "void f(int *p) { (void)p; }\n" + LOOP.replace(
        "    f(a);", "    if (n > 4) c[i] = 0; else f(a);"
    )
    parallel, why = _verdict(text)
    assert parallel, why


def test_c_has_no_overloads() -> None:
    text = "void f(int *p);\nvoid f(int *p) { (void)p; }\n" + LOOP.replace(
        "__restrict__", "restrict"
    )
    parallel, why = _verdict(text, "k.c")
    assert parallel, why


def test_parameter_types_drop_names_defaults_and_restrict() -> None:
    assert parameter_types("const double *__restrict__ x, int n = 4") == (
        "constdouble*",
        "int",
    )
    assert parameter_types("double a[8], Real_t &out") == ("double*", "Real_t&")
    assert parameter_types("void") == ()
    assert parameter_types("unsigned int, Real_t") == ("unsignedint", "Real_t")


TYPED = """\
static double bump(int *p) { p[0] += 1; return 1.0; }
static double bump(double *p) { return 0.5 * p[0]; }
void run(int *__restrict__ hits, double *__restrict__ y, int n) {
  for (int i = 0; i < n; i++) {
    double row = 0.25 * i;
    y[i] = bump(ARG);
  }
}
"""


def test_the_argument_types_pick_the_overload_that_only_reads() -> None:
    parallel, why = _verdict(TYPED.replace("ARG", "&row"))
    assert parallel, why


def test_the_argument_types_pick_the_overload_that_writes() -> None:
    parallel, why = _verdict(TYPED.replace("ARG", "hits"))
    assert not parallel
    assert "hits" in why


def test_an_argument_of_unknown_type_picks_no_overload() -> None:
    parallel, why = _verdict(TYPED.replace("ARG", "y + i"))
    assert not parallel
    assert "more than once" in why


def test_an_element_address_picks_the_overload_of_its_type() -> None:
    """`&y[i]` of `double *y` is a `double *`: `bump(double *)` runs.

    The loop stays refused for what that overload does (it reads `y` through
    its argument), no longer for not knowing which overload runs.
    """
    _, why = _verdict(TYPED.replace("ARG", "&y[i]"))
    assert "more than once" not in why
    assert "reads `y` through an argument" in why


def test_an_overloaded_function_gets_no_routine_mark() -> None:
    text = TYPED.replace("ARG", "&row")
    analysis = analyze(parse_source(text, "k.cpp"), AnalysisOptions(dialect="acc"))
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    (top,) = [s for s in suggest_file(analysis, opts, regions=False) if not s.inner]
    assert top.pragma is None
    assert any("several definitions" in r for r in top.reasons), top.reasons
