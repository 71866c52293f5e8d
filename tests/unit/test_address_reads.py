"""`bp = &blocks[k]` only read through is a read of `blocks`, not a write."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import LoopFacts, analyze_text

HEAD = """\
typedef struct { int number; int level; double **array; } block;
block *blocks;
int *order;
void touch(block *b);
"""


def outer(body: str) -> LoopFacts:
    src = HEAD + dedent(f"""
    double f(int nb, int nx) {{
      double sum = 0.0;
      for (int in = 0; in < nb; in++) {{
        block *bp = &blocks[order[in]];
        {body}
      }}
      return sum;
    }}
    """)
    return next(f for f in analyze_text(src).facts if f.loop.var == "in")


def messages(fact: LoopFacts) -> str:
    return "\n".join(o.message for o in fact.obstacles)


def test_reading_through_the_address_writes_nothing() -> None:
    fact = outer("for (int i = 0; i < nx; i++) sum += bp->array[0][i] * bp->level;")
    assert fact.parallel, messages(fact)


def test_a_write_to_the_struct_through_the_pointer_stays_a_write() -> None:
    fact = outer("bp->number = in;")
    assert not fact.parallel
    assert "only if `order[in]` differs in each (a permutation)" in messages(fact)


def test_a_write_to_an_array_inside_the_struct_stays_a_write() -> None:
    src = HEAD.replace("double **array;", "double **array; int nei[6];")
    fact = next(
        f
        for f in analyze_text(
            src + "void g(int nb) { for (int in = 0; in < nb; in++) "
            "{ block *bp = &blocks[order[in]]; bp->nei[1] = in; } }\n"
        ).facts
        if f.loop.var == "in"
    )
    assert not fact.parallel


def test_the_pointer_passed_to_a_call_stays_a_write() -> None:
    fact = outer("touch(bp);")
    assert not fact.parallel


def test_the_pointer_copied_stays_a_write() -> None:
    fact = outer("block *q = bp; q->level = 1;")
    assert not fact.parallel


def test_a_write_through_a_pointer_field_keeps_the_blocks_read() -> None:
    fact = outer("bp->array[0][0] = in;")
    assert not fact.parallel  # two iterations may reach one block's array
    assert "`blocks` (written" not in messages(fact)


def test_an_element_path_of_a_struct_array_has_its_declaration() -> None:
    src = HEAD + (
        "void g(int nb, int *out) { for (int n = 0; n < nb; n++) "
        "out[n] = blocks[order[n]].level; }\n"
    )
    fact = next(f for f in analyze_text(src).facts if f.loop.var == "n")
    assert "not visible" not in messages(fact)
