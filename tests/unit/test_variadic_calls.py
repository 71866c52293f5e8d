"""`snprintf` into the iteration's own row is parallel; `%n` or a shared one is not."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_HEAD = (
    "#include <stdio.h>\n#define N 64\n"
    "static char line[N][16], name[N][8];\nstatic int len[N];\n"
    "void fill(void) {\n  for (int i = 0; i < N; i++)\n    "
)


def _parallel(call: str) -> bool:
    (facts,) = analyze_text(f"{_HEAD}{call};\n}}\n").facts
    return facts.parallel


@pytest.mark.parametrize(
    "call",
    [
        'snprintf(line[i], sizeof line[i], "%d,%d", i, i * 3)',
        'snprintf(line[i], sizeof line[i], "%s!", name[i])',
        'snprintf(line[i], sizeof line[i], "%-4s" "%c", name[i], 65)',
    ],
)
def test_a_format_into_the_iterations_row_is_parallel(call: str) -> None:
    assert _parallel(call)


@pytest.mark.parametrize(
    "call",
    [
        'snprintf(line[0], sizeof line[0], "%d", i)',  # one shared buffer
        'snprintf(line[i], sizeof line[i], "%s", line[(i + 1) % N])',  # a neighbour
        'snprintf(line[i], sizeof line[i], "%d%n", i, &len[0])',  # `%n` writes
        "snprintf(line[i], sizeof line[i], name[i], i)",  # the format is data
        'sprintf(line[i], "%d", i)',  # no size: it may run past the row
        'snprintf(line[i], 32, "%d", i)',  # a size past the row
    ],
)
def test_a_format_that_may_meet_another_iteration_stays_serial(call: str) -> None:
    assert not _parallel(call)


def test_a_file_of_its_own_snprintf_is_not_the_librarys() -> None:
    text = (
        "#define N 64\nstatic char line[N][16];\nstatic int calls;\n"
        "int snprintf(char *s, unsigned long n, const char *f, ...) "
        "{ calls++; s[0] = 0; return 0; }\n"
        "void fill(void) {\n  for (int i = 0; i < N; i++)\n"
        '    snprintf(line[i], sizeof line[i], "%d", i);\n}\n'
    )
    facts = [f for f in analyze_text(text).facts if f.loop.function == "fill"]
    assert not facts[0].parallel
