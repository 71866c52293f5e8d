"""Device routines of C++ methods: where g++ takes the mark, or why not offloaded.

g++ takes `#pragma acc routine` only at file scope: a method defined in its
class has no place for it, so OpenACC refuses the loop that calls it, where
OpenMP's `declare target` wraps the method in the class and compiles.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)
Need = Callable[[str], str]

IN_CLASS = """\
struct P {
  static double twice(double x) { return 2.0 * x; }
  void run(double *__restrict__ a, int n) {
    for (int i = 0; i < n; i++) {
      a[i] = twice(a[i]);
    }
  }
};
"""
FREE = """\
static double twice(double x) { return 2.0 * x; }
struct P {
  void run(double *__restrict__ a, int n) {
    for (int i = 0; i < n; i++) {
      a[i] = twice(a[i]);
    }
  }
};
"""


def _top(text: str, opts: SuggestOptions) -> tuple[Suggestion, tuple[Suggestion, ...]]:
    analysis = analyze_text(
        dedent(text), "k.cpp", options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    out = suggest_file(analysis, opts, regions=False)
    return next(s for s in out if not s.inner), out


def _compiles(gxx: str, text: str, flag: str, tmp_path: Path) -> None:
    path = tmp_path / "k.cpp"
    path.write_text(text)
    proc = subprocess.run(
        [gxx, flag, "-fsyntax-only", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_an_in_class_method_gets_no_acc_routine_and_the_loop_says_why() -> None:
    top, _ = _top(IN_CLASS, ACC)
    assert top.pragma is None
    assert not top.routines
    assert any("defined inside its class" in r for r in top.reasons), top.reasons


def test_an_in_class_method_is_wrapped_in_declare_target_and_compiles(
    need: Need, tmp_path: Path
) -> None:
    top, out = _top(IN_CLASS, OMP_GPU)
    assert top.pragma is not None
    assert [r.function for r in top.routines] == ["P::twice"]
    _compiles(need("g++"), annotate_text(IN_CLASS, out), "-fopenmp", tmp_path)


def test_a_free_function_of_a_cpp_file_gets_acc_routine_and_compiles(
    need: Need, tmp_path: Path
) -> None:
    top, out = _top(FREE, ACC)
    assert top.pragma is not None
    assert [r.function for r in top.routines] == ["twice"]
    annotated = annotate_text(FREE, out)
    assert "#pragma acc routine seq\nstatic double twice" in annotated
    _compiles(need("g++"), annotated, "-fopenacc", tmp_path)
