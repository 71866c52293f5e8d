"""A header's function called on the device: compiled with the file, never edited."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from accls.analysis import AnalysisOptions, analyze_text
from accls.project import BuildFlags, build_context
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text

Need = Callable[[str], str]

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)

HEADER = "static inline float hsq(float x) { return x * x; }\n"
MARKED = "#pragma acc routine seq\n" + HEADER
DIRECT = """\
#include "util.h"
void f(int n, const float *restrict a, float *restrict out) {
    for (int i = 0; i < n; i++)
        out[i] = hsq(a[i]) + 1.0f;
}
"""
THROUGH = """\
#include "util.h"
float g2(float x) { return hsq(x) + 1.0f; }
void f(int n, const float *restrict a, float *restrict out) {
    for (int i = 0; i < n; i++)
        out[i] = g2(a[i]) + 1.0f;
}
"""
NOT_EDITED = "in a header accls does not edit"


def _top(tmp_path: Path, header: str, text: str, opts: SuggestOptions) -> Suggestion:
    (tmp_path / "util.h").write_text(header)
    path = tmp_path / "main.c"
    path.write_text(text)
    context, _ = build_context(text, str(path), BuildFlags())
    analysis = analyze_text(
        text,
        str(path),
        options=AnalysisOptions(dialect=opts.dialect.sentinel),
        context=context,
    )
    return suggest_file(analysis, opts, regions=False)[0]


def test_a_header_function_called_directly_is_named_with_what_it_needs(
    tmp_path: Path,
) -> None:
    for opts, words in ((ACC, "no `#pragma acc routine seq`"), (OMP, "implicitly")):
        top = _top(tmp_path, HEADER, DIRECT, opts)
        assert top.pragma is not None
        assert top.routines == ()  # the header is not edited
        notes = [r for r in top.reasons if NOT_EDITED in r]
        assert len(notes) == 1
        assert notes[0].startswith("`hsq()` (")
        assert words in notes[0]
    # A header that marks it already needs no word.
    top = _top(tmp_path, MARKED, DIRECT, ACC)
    assert top.pragma is not None
    assert not any(NOT_EDITED in r for r in top.reasons)


def test_a_header_function_called_through_a_routine_keeps_the_loop(
    tmp_path: Path,
) -> None:
    for opts in (ACC, OMP):
        top = _top(tmp_path, HEADER, THROUGH, opts)
        assert top.pragma is not None, top.reasons
        assert {e.function for e in top.routines} == {"g2"}
        assert any(NOT_EDITED in r and "`hsq()`" in r for r in top.reasons)


def test_a_header_function_with_a_static_local_is_still_refused(
    tmp_path: Path,
) -> None:
    counted = "static inline float hsq(float x) { static int n; n++; return x; }\n"
    for opts in (ACC, OMP):
        top = _top(tmp_path, HEADER, THROUGH, opts)
        assert top.pragma is not None
        top = _top(tmp_path, counted, THROUGH, opts)
        assert top.pragma is None
        assert any("`hsq()`" in r for r in top.reasons), top.reasons


def test_the_annotated_file_compiles(tmp_path: Path, need: Need) -> None:
    gcc = need("gcc")
    for opts, flag in ((ACC, "-fopenacc"), (OMP, "-fopenmp")):
        top = _top(tmp_path, HEADER, THROUGH, opts)
        out = tmp_path / "annotated.c"
        out.write_text(annotate_text(THROUGH, (top,)))
        done = subprocess.run(
            [gcc, flag, "-fsyntax-only", "-I", str(tmp_path), str(out)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        mark = "acc routine seq" if opts is ACC else "omp declare target"
        assert f"#pragma {mark}\nfloat g2(float x)" in out.read_text()
