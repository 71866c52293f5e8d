"""Stores through the address of a pointer field: `init(&pot->phi)`."""

from __future__ import annotations

import pytest
from accls.analysis.field_paths import resolve_field
from accls.analysis.field_points_to import file_field_facts
from accls.analysis.field_sets import field_sets
from accls.analysis.field_slots import address_position, slot_stores
from accls.frontend import parse_source

TYPES = """\
#include <stdlib.h>
typedef struct { int n; double *values; } Table;
typedef struct { Table *phi; double *out; } Pot;
Table *keep;
Table **saved;
void opaque(Table **slot);
static Table *make(int n) { Table *t = malloc(sizeof *t); t->n = n; return t; }
static void drop(Table **slot) { if (!*slot) return; free(*slot); *slot = NULL; }
"""


def _stores(callee: str, text: str) -> tuple[str, ...] | None:
    source = parse_source(TYPES + text)
    fn = source.function(callee)
    assert fn is not None
    found = slot_stores(fn, 0, source)
    return None if found is None else tuple(s.value for s in found)


def test_fresh_blocks_and_null_are_the_stores() -> None:
    text = (
        "static void rebuild(Table **slot, int n) {\n"
        "  /* *slot = keep; in a comment */\n"
        "  if (*slot != NULL) drop(slot);\n"
        "  *slot = make(n);\n"
        "  (*slot)->values = calloc(n, sizeof(double));\n}\n"
    )
    assert _stores("rebuild", text) == ("NULL", "make(n)")


@pytest.mark.parametrize(
    "body",
    [
        "saved = slot;",  # copied into a global
        "Table **other = slot; *other = keep;",  # copied into a local
        "opaque(slot);",  # handed to a function no file shows
        "slot[1] = keep;",  # indexed past the slot
        "*slot += 1;",  # stepped
        "*slot++ = keep;",  # the pointer itself moved
        "Table ***where = &slot; **where = keep;",  # its own address taken
        "return slot;",
        "void (*f)(Table **) = drop; f(slot);",  # a call through a pointer
    ],
)
def test_other_uses_of_the_slot_are_unknown(body: str) -> None:
    text = f"static Table **use(Table **slot) {{ {body} return 0; }}\n"
    assert _stores("use", text) is None


def test_a_stored_value_the_facts_cannot_name_makes_the_field_unknown() -> None:
    text = (
        "static void alias_into(double **slot, double *into) { *slot = into + 1; }\n"
        "void run(Pot *pot) {\n"
        "  pot->out = malloc(64);\n  alias_into(&pot->out, pot->out);\n}\n"
    )
    source = parse_source(TYPES + text)
    sets = field_sets(file_field_facts(source, "t.c"))
    assert sets.objects("Pot", "out") is None
    assert "`into + 1`" in sets.unknown_why("Pot", "out")


def test_the_field_gets_the_callees_fresh_blocks() -> None:
    text = (
        "static void rebuild(Table **slot, int n) { drop(slot); *slot = make(n); }\n"
        "void run(Pot *pot) { rebuild(&(pot->phi), 4); drop(&pot->phi); }\n"
    )
    source = parse_source(TYPES + text)
    sets = field_sets(file_field_facts(source, "t.c"))
    found = sets.objects("Pot", "phi")
    assert found is not None
    assert len(found) == 1
    assert next(iter(found)).startswith("alloc t.c:")


def test_the_argument_position_and_a_dereferenced_path() -> None:
    assert address_position(("n", "& (pot->phi)"), "pot->phi") == 1
    assert address_position(("&pot->phi", "&pot->phi"), "pot->phi") is None
    source = parse_source(TYPES + "void f(Table **slot) { (*slot)->n = 1; }\n")
    found = resolve_field("(*slot)->values", source.function("f"), (), source.types)
    assert found is not None
    assert (found.key, found.field) == ("Table", "values")


def test_a_wrapper_that_asserts_its_block_still_returns_fresh_memory() -> None:
    text = (
        "#include <assert.h>\n"
        "static Table *checked(void) { Table *t = malloc(sizeof *t); assert(t);"
        " return t; }\n"
        "static Table *kept(void) { Table *t = malloc(sizeof *t); keep = t;"
        " return t; }\n"
    )
    allocators = parse_source(TYPES + text).allocators
    assert "checked" in allocators
    assert "kept" not in allocators


def test_a_kr_callee_is_not_followed() -> None:
    text = "static void knr(n, slot) int n; Table **slot; { *slot = make(n); }\n"
    assert _stores("knr", text) is None
