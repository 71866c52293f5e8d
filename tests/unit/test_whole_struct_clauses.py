"""A struct moved whole for its array members keeps the members left alone."""

from __future__ import annotations

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.pragma import Target

PARTS = """\
#define N 1000
typedef struct { double x[N]; double v[N]; int cell[N]; } parts;
void init(parts *p)
{
    for (int i = 0; i < N; i++) {
        p->x[i] = i;
        p->v[i] = 2.0 * i;
    }
}
"""


def _pragma(text: str, settings: Settings) -> str:
    result = suggest_text(text, "t.c", settings)
    pragmas = [s.pragma.render() for s in result.suggestions if s.pragma]
    assert len(pragmas) == 1, result.suggestions
    return pragmas[0]


@pytest.mark.parametrize(
    ("dialect", "target", "expected", "wrong"),
    [
        (Dialect.OPENACC, None, "copy(p[0:1])", "copyout(p[0:1])"),
        (Dialect.OPENMP, Target.GPU, "map(tofrom: p[0:1])", "map(from: p[0:1])"),
    ],
)
def test_members_written_alone_do_not_copy_the_struct_out(
    dialect: Dialect, target: Target | None, expected: str, wrong: str
) -> None:
    # `cell` is not written: copied out whole, `*p` would bring the device's
    # uninitialised `cell` back over the host's values.
    settings = Settings(dialect=dialect, validate=False)
    if target is not None:
        settings = Settings(dialect=dialect, validate=False, target=target)
    pragma = _pragma(PARTS, settings)
    assert expected in pragma
    assert wrong not in pragma


READ = """\
#define N 1000
typedef struct { double x[N]; double v[N]; int cell[N]; } parts;
void sum(const parts *p, double *restrict o)
{
    for (int i = 0; i < N; i++)
        o[i] = p->x[i] + p->v[i];
}
"""


def test_a_struct_only_read_is_copied_in() -> None:
    pragma = _pragma(READ, Settings(dialect=Dialect.OPENACC, validate=False))
    assert "copyin(p[0:1])" in pragma
