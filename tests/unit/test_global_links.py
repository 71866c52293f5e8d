"""A global pointer another file sets from an array (`gp = &A[1]` in setup.c, or
`init(A + 1)` with `void init(double *p) { gp = p; }`) shares its storage: with
the project's index, assume-no-alias must not lift the refusal of a loop that
writes one and reads the other."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze_text
from accls.analysis.global_links import file_global_links
from accls.frontend import parse_source
from accls.project import BuildFlags, ProjectIndex, build_context
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

MAIN = """\
#include <stdlib.h>
#define N 1000
double A[N + 1];
double *gp;
DECL
void scale(int n) {
  for (int i = 0; i < n; i++) gp[i] = A[i] * 0.5 + 1.0;
}
int main(void) {
  CALL
  scale(N);
  return 0;
}
"""

SET_DIRECT = "extern double A[];\nextern double *gp;\nvoid setup(void) { SET }\n"
INIT = "extern double *gp;\nvoid init(double *p) { gp = p; }\n"
START = "extern double A[];\nvoid init(double *p);\nvoid start(void) { init(A + 1); }\n"
WRAP = (
    "extern double A[];\nvoid init(double *p);\n"
    "void wrap(double *q) { init(q); }\nvoid start(void) { wrap(A + 1); }\n"
)

# (main's declarations, main's call, the other files)
CASES = {
    "address": ("void setup(void);", "setup();", {"s.c": SET_DIRECT}, "gp = &A[1];"),
    "offset": ("void setup(void);", "setup();", {"s.c": SET_DIRECT}, "gp = A + 1;"),
    "init elsewhere": ("void init(double *p);", "init(A + 1);", {"i.c": INIT}, ""),
    "call elsewhere": (
        "void init(double *p) { gp = p; }\nvoid start(void);",
        "start();",
        {"s.c": START},
        "",
    ),
    "through a wrapper": (
        "void start(void);",
        "start();",
        {"i.c": INIT, "s.c": WRAP},
        "",
    ),
}


def _kernel(
    tmp_path: Path,
    case: str,
    assume: bool = True,
    other_set: str = "",
    header: bool = False,
) -> LoopFacts:
    decl, call, others, set_ = CASES[case]
    root = tmp_path / "proj"
    root.mkdir()
    main = root / "main.c"
    text = MAIN.replace("DECL", decl).replace("CALL", call)
    if header:
        (root / "twice.h").write_text(
            "static inline double twice(double x) { return 2 * x; }\n"
        )
        text = '#include "twice.h"\n' + text.replace("scale(N);", "scale(twice(N));")
    main.write_text(text)
    for name, text in others.items():
        (root / name).write_text(text.replace("SET", other_set or set_))
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    index.build()
    options = AnalysisOptions(
        assume_no_alias=assume, program=index.program_for(str(main))
    )
    context, _ = build_context(main.read_text(), str(main), BuildFlags())
    facts = analyze_text(main.read_text(), str(main), options=options, context=context)
    return next(f for f in facts.facts if f.loop.function == "scale")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_pointer_another_file_sets_from_the_array_is_refused(
    tmp_path: Path, case: str
) -> None:
    fact = _kernel(tmp_path, case)
    assert not fact.parallel
    assert any("so they point into one object" in o.message for o in fact.obstacles)


@pytest.mark.parametrize("case", ["address", "init elsewhere"])
def test_without_the_assumption_the_loop_stays_refused(
    tmp_path: Path, case: str
) -> None:
    assert not _kernel(tmp_path, case, assume=False).parallel


def test_a_pointer_another_file_allocates_keeps_the_assumption(
    tmp_path: Path,
) -> None:
    fact = _kernel(tmp_path, "address", other_set="gp = malloc(8 * sizeof(double));")
    assert fact.parallel
    assert any("assume-no-alias" in a for a in fact.assumptions)


def test_the_links_survive_the_cache(tmp_path: Path) -> None:
    _kernel(tmp_path, "init elsewhere")
    index = ProjectIndex(str(tmp_path / "proj"), cache_dir=str(tmp_path / "cache"))
    index.build()
    assert index.parses == 0
    main = tmp_path / "proj" / "main.c"
    options = AnalysisOptions(
        assume_no_alias=True, program=index.program_for(str(main))
    )
    facts = analyze_text(main.read_text(), str(main), options=options).facts
    assert not next(f for f in facts if f.loop.function == "scale").parallel


def test_static_pointers_and_callees_link_nothing_for_other_files() -> None:
    text = (
        "double A[10];\nstatic double *sp;\ndouble *gp;\n"
        "static void keep(double *p) { sp = p; }\n"
        "void init(double *p) { gp = p; }\n"
        "void go(void) { keep(A + 1); sp = A; init(A); }\n"
    )
    links = {(k.target, k.objects) for k in file_global_links(parse_source(text))}
    assert links == {("gp", ("A", "init(0)")), ("init(0)", ("A",))}


SUM = """\
double A[1001];
double *gp;
double sum(int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += gp[i] * A[i];
  return s;
}
"""


def test_an_offload_mapping_both_as_two_objects_is_refused(tmp_path: Path) -> None:
    """`copyin(A, gp[0:n])` with `gp = &A[1]` elsewhere maps one storage twice."""
    root = tmp_path / "proj"
    root.mkdir()
    main = root / "main.c"
    main.write_text(SUM)
    (root / "s.c").write_text(SET_DIRECT.replace("SET", "gp = &A[1];"))
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    index.build()
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    options = AnalysisOptions(
        dialect=opts.dialect.sentinel, program=index.program_for(str(main))
    )
    analysis = analyze_text(main.read_text(), str(main), options=options)
    loop = next(s for s in suggest_file(analysis, opts) if s.loop.function == "sum")
    assert loop.pragma is None
    assert "both are set from `A`" in " ".join(loop.reasons)


def test_an_edit_that_sets_the_pointer_is_seen(tmp_path: Path) -> None:
    """An edit of one function (re-read as its slice) adds its links."""
    root = tmp_path / "proj"
    root.mkdir()
    main = root / "main.c"
    main.write_text(MAIN.replace("DECL", "void setup(void);").replace("CALL", ""))
    other = root / "s.c"
    text = SET_DIRECT.replace("SET", "") + "int twice(int n) { return 2 * n; }\n"
    other.write_text(text)
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    index.build()
    assert index.update(str(other), text)
    assert index.update(str(other), text.replace("{  }", "{ gp = &A[1]; }"))
    options = AnalysisOptions(
        assume_no_alias=True, program=index.program_for(str(main))
    )
    facts = analyze_text(main.read_text(), str(main), options=options).facts
    assert not next(f for f in facts if f.loop.function == "scale").parallel


def test_a_header_defining_functions_keeps_the_links(tmp_path: Path) -> None:
    """The header's functions join the program's table; its links stay."""
    fact = _kernel(tmp_path, "address", header=True)
    assert not fact.parallel
