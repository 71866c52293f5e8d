"""Forward substitution of same-iteration scalars into subscripts."""

from __future__ import annotations

from textwrap import dedent

from accls.frontend import parse_source
from accls.frontend.forward_subst import integer_macros
from accls.frontend.model import Ref


def _writes(body: str, array: str = "a", head: str = "") -> list[Ref]:
    """The writes of `array` in f's body, after substitution."""
    text = (
        dedent(head) + "void f(int n, double *a, double *b) {\n" + dedent(body) + "}\n"
    )
    source = parse_source(text)
    (fn,) = [f for f in source.functions if f.name == "f"]
    return [r for r in fn.refs if r.name == array and r.is_write]


def _loop(decls: str, body: str, after: str = "") -> str:
    """`decls`, then `body` as the body of a loop over `i`, then `after`."""
    return f"{decls}\nfor (int i = 0; i < n; i++) {{ {body} }}\n{after}"


def _texts(body: str, head: str = "") -> list[str]:
    return [r.subscripts[0].text for r in _writes(body, head=head)]


def test_constant_and_affine_values_are_substituted() -> None:
    body = """
    int i, j;
    for (i = 0; i < n; i++) { j = 1; a[j] = 0; j = i + 2; a[j] = 1; }
    """
    (first, second) = _writes(body)
    assert first.subscripts[0].text == "1"
    assert second.subscripts[0].poly is not None
    assert second.subscripts[0].poly.names() == {"i"}
    assert first.subscripts[0].values == ("`j` is 1 here (line 4)",)


def test_branch_after_use_and_self_reference_are_not_substituted() -> None:
    assert _texts(_loop("int j = 0;", "if (b[i]) j = i; a[j] = 0;")) == ["j"]
    assert _texts(_loop("int j = 0;", "a[j] = 0; j = i;")) == ["j"]
    assert _texts(_loop("int j = 0;", "j = j + 1; a[j] = 0;")) == ["j"]


def test_a_write_in_a_loop_entered_between_stops_it() -> None:
    body = """
    for (int i = 0; i < n; i++) {
      int j = i;
      for (int k = 0; k < n; k++) { a[j] = k; j = k; }
    }
    """
    assert _texts(body) == ["j"]


def test_an_intervening_write_of_the_value_s_variable_stops_it() -> None:
    body = _loop("int j, m = 0;", "j = m + i; m = 3; a[j] = 0;")
    assert _texts(body) == ["j"]


def test_address_taken_goto_float_and_shadowed_scalars_are_left_alone() -> None:
    taken = _loop("int j; int *p = &j;", "j = i; *p = 0; a[j] = 0;")
    assert _texts(taken) == ["j"]
    jump = _loop("int j;", "j = i; if (b[i]) goto out; a[j] = 0;", "out:;\n")
    assert _texts(jump) == ["j"]
    shadow = _loop("int j = 0;", "{ int j = 1; (void)j; } j = i; a[j] = 0;")
    assert _texts(shadow) == ["j"]
    real = _loop("double x;\nint j;", "j = x; a[j] = 0;")
    assert _texts(real) == ["j"]


def test_a_case_label_is_an_entry_point() -> None:
    body = """
    int j = 0;
    for (int i = 0; i < n; i++)
      switch (i % 2) { case 0: j = i; case 1: a[j] = 0; }
    """
    assert _texts(body) == ["j"]


def test_globals_in_a_value_need_no_call_in_between() -> None:
    head = "int g;\nvoid h(void);\n"
    kept = _loop("int j;", "j = g + i; a[j] = 0;")
    assert _texts(kept, head) == ["g + i"]
    called = _loop("int j;", "j = g + i; h(); a[j] = 0;")
    assert _texts(called, head) == ["j"]


def test_values_not_affine_in_what_changes_are_not_substituted() -> None:
    assert _texts(_loop("int j;", "j = i * i; a[j] = 0;")) == ["j"]
    assert _texts(_loop("int j;", "j = i / 2; a[j] = 0;")) == ["j"]
    assert _texts(_loop("int j;", "j = i * n; a[j] = 0;")) == ["i * n"]


def test_remainders_travel_as_text() -> None:
    # No polynomial, but the dependence test parses `i % 4` as it would written out.
    (write,) = _writes(_loop("int j;", "j = i % 4; a[j] = 0;"))
    assert write.subscripts[0].text == "i % 4"
    assert write.subscripts[0].poly is None
    assert _texts(_loop("int j;", "j = i & 7; a[j] = 0;")) == ["i & 7"]
    assert _texts(_loop("int j;", "j = (i + n) % 4; a[j + 1] = 0;")) == [
        "((i + n) % 4) + 1"
    ]
    assert _texts(_loop("int j;", "j = j % 4; a[j] = 0;")) == ["j"]  # the old j
    assert _texts(_loop("int j;", "j = i % n; n = 3; a[j] = 0;")) == ["j"]


def test_integer_macros() -> None:
    objects = {"N": "64", "M": "(N * 2)", "X": "0.5", "L": "L + 1", "E": ""}
    assert integer_macros(objects, ["N", "M", "X", "L", "E", "Q"]) == {"N", "M"}


def test_a_compound_assignment_adds_to_the_earlier_value() -> None:
    (ref,) = _writes(_loop("int j;", "j = 2 * i; j += n; j -= 1; a[j] = 0;"))
    assert ref.subscripts[0].poly is not None
    assert ref.subscripts[0].poly.names() == {"i", "n"}
    assert ref.subscripts[0].poly.constant == -1
    assert _texts(_loop("int j = 0;", "j += 2; a[j] = 0;")) == ["j"]


def _lower(body: str) -> list[str]:
    text = "void f(int n, double *a) {\n" + dedent(body) + "}\n"
    inner = parse_source(text).nests[0].children[0]
    assert inner.lower is not None
    return sorted(inner.lower.names())


def test_bounds_take_the_values_that_reach_the_header() -> None:
    body = """
    for (int i = 0; i < n; i++) {
      int lo = i + 1;
      for (int k = lo; k < n; k++) a[k] = 0;
    }
    """
    assert _lower(body) == ["i"]
    changed = """
    for (int i = 0; i < n; i++) {
      int lo = i + 1;
      for (int k = lo; k < n; k++) { a[k] = 0; lo = k; }
    }
    """
    assert _lower(changed) == ["lo"]


def test_loop_header_declarations_do_not_count_as_shadowing() -> None:
    body = """
    int i = 0, t;
    for (int i = 0; i < n; i++) { t = i + 1; a[t] = 0; }
    for (int i = 0; i < n; i++) { t = 2 * i; a[t] = 1; }
    t = i; for (int i = 0; i < n; i++) a[t] = 2;
    """
    assert _texts(body) == ["i + 1", "2 * i", "t"]


def test_a_while_loop_entered_between_repeats_like_a_for() -> None:
    body = """
    for (int i = 0; i < n; i++) {
      int j = i, m = 0;
      while (m < 3) { a[j] = m; j = 0; m++; }
      do { a[j] = 1.0; } while (b[j] > 0);
    }
    """
    assert _texts(body) == ["j", "j"]
    kept = """
    for (int i = 0; i < n; i++) {
      int j = i, m = 0;
      while (m < 3) { a[j] = m; m++; }
    }
    """
    assert _texts(kept) == ["i"]


def test_nothing_is_substituted_into_a_loop_update() -> None:
    body = """
    int j = 0;
    for (int k = 0; k < n; a[j] = 0, k++) { if (b[k]) continue; j = k; }
    """
    assert _texts(body) == ["j"]


def test_narrow_types_and_fields_are_not_mistaken() -> None:
    assert _texts(_loop("short j;", "j = i + 1; a[j] = 0;")) == ["j"]
    assert _texts(_loop("int j;", "j = (char)(i + 1); a[j] = 0;")) == ["j"]
    head = "struct P { int j; };\n"
    body = _loop("int j; struct P p = {0};", "j = i; a[p.j + j] = 0;")
    assert _texts(body, head) == ["p.j + i"]


def test_a_product_with_a_symbol_set_before_the_nest_is_affine() -> None:
    body = _loop("int j, m = n;\nm = m + 1;", "j = i * m; a[j] = 0;")
    assert _texts(body) == ["i * m"]
    assert _texts(_loop("int j, m = 1;", "m = m + i; j = i * m; a[j] = 0;")) == ["j"]
