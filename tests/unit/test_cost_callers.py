"""The cost model's bounds from callers: the largest constant every call passes."""

from __future__ import annotations

import textwrap
from pathlib import Path

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop
from accls.project import ProjectIndex

COPY = textwrap.dedent(
    """\
    void copy_in(double *s, double *r, int count) {
      for (int i = 0; i < count; i++)
        r[i] = s[i];
    }
    """
)

MAIN = textwrap.dedent(
    """\
    #include <stdlib.h>
    void copy_in(double *s, double *r, int count);
    int main(int argc, char **argv) {
      double a[4], b[4], *c = malloc(64 * sizeof(double)), *d = c + 32;
      for (int t = 0; t < atoi(argv[2]); t++) {  /* repeats: no one-off pass */
        copy_in(a, b, 4);
        copy_in(c, d, SIZE);
      }
      return 0;
    }
    """
)


def _estimate(
    tmp_path: Path, main: str, *, indexed: bool = True, root_made: bool = False
) -> Estimate:
    root = tmp_path / "proj"
    if not root_made:
        root.mkdir()
    (root / "copy.c").write_text(COPY)
    (root / "main.c").write_text(main)
    program = None
    if indexed:
        index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
        index.build()
        program = index.program_for(str(root / "copy.c"))
    options = AnalysisOptions(dialect="omp", program=program)
    analysis = analyze_text(COPY, str(root / "copy.c"), options=options)
    (loop,) = analysis.source.loops()
    return estimate_loop(analysis, loop, False)


def test_a_loop_every_caller_in_the_program_sizes_small_stays_serial(
    tmp_path: Path,
) -> None:
    found = _estimate(tmp_path, MAIN.replace("SIZE", "2"))
    assert found.profitable is False
    assert found.why.startswith("small loop")
    assert found.units is not None
    assert found.units < 100  # counted at the largest call: 4 iterations


def test_one_call_of_an_open_size_keeps_the_pragma(tmp_path: Path) -> None:
    found = _estimate(tmp_path, MAIN.replace("SIZE", "atoi(argv[1])"))
    assert found.profitable is not False


def test_without_the_index_the_callers_are_unknown(tmp_path: Path) -> None:
    found = _estimate(tmp_path, MAIN.replace("SIZE", "2"), indexed=False)
    assert found.profitable is not False


def test_a_macro_of_the_callers_file_sizes_the_loop_small(tmp_path: Path) -> None:
    main = "#define FEW 3\n" + MAIN.replace("SIZE", "FEW")
    found = _estimate(tmp_path, main)
    assert found.profitable is False
    assert found.why.startswith("small loop")


def test_an_enumerator_of_the_callers_header_sizes_the_loop_small(
    tmp_path: Path,
) -> None:
    main = MAIN.replace("SIZE", "numberOfTimers")
    main = '#include "timers.h"\n' + main
    root = tmp_path / "proj"
    root.mkdir()
    (root / "timers.h").write_text("enum { loopTimer, ioTimer, numberOfTimers };\n")
    found = _estimate(tmp_path, main, root_made=True)
    assert found.profitable is False
    assert found.units is not None
    assert found.units < 100


def test_a_large_macro_of_the_callers_file_keeps_the_pragma(tmp_path: Path) -> None:
    main = "#define MANY 1000000\n" + MAIN.replace("SIZE", "MANY")
    found = _estimate(tmp_path, main)
    assert found.profitable is not False
