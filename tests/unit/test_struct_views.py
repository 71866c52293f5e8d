"""A cast from a base struct's pointer to a derived one keeps the field types."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source

TYPES = """\
    typedef struct { double cutoff; int kind; } Base;
    typedef struct { double cutoff; int kind; int *idx; } Derived;
    typedef struct { int kind; double cutoff; int *idx; } Other;
    typedef struct { Base *base; double *out; double *buf; } Sim;
    static int lookup(const int *t, int k) { return t[k]; }
    """

LOOP = """\
    void run(Sim *s, int n) {
      VIEW *pot = (VIEW *) FROM;
      for (int i = 0; i < n; i++)
        s->out[i] = lookup(pot->idx, i);
    }
    """


def _parallel(view: str, from_: str) -> bool:
    text = dedent(TYPES) + dedent(LOOP).replace("VIEW", view).replace("FROM", from_)
    [fact] = analyze(parse_source(text, "k.c")).facts
    return fact.parallel


def test_a_derived_view_of_a_base_struct_keeps_its_field_types() -> None:
    assert _parallel("Derived", "s->base")


@pytest.mark.parametrize(
    ("view", "from_"),
    [
        ("Derived", "s->buf"),  # doubles read as a struct: punning
        ("Other", "s->base"),  # the first fields differ: no base and derived
        ("Derived", "s->base + 1"),  # not a plain pointer to one struct
    ],
)
def test_other_casts_still_tell_nothing_of_types(view: str, from_: str) -> None:
    assert not _parallel(view, from_)
