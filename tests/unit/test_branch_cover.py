"""A scalar written in both arms of an `if`/`else` before it is read is private."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import LoopFacts, ScalarClass, analyze_text


def _facts(body: str) -> LoopFacts:
    text = dedent("""
    double in[100], out[100];
    void f(int n) {
      double t;
      for (int i = 0; i < n; i++) {
    %s
        out[i] = t;
      }
    }
    """) % dedent(body)
    return analyze_text(text).facts[0]  # the `i` loop: it comes first


def _private(fact: LoopFacts) -> bool:
    return fact.parallel and any(
        s.name == "t" and s.cls is ScalarClass.PRIVATE for s in fact.scalars
    )


def test_both_arms_write_before_the_read() -> None:
    assert _private(_facts("if (in[i] > 0) { t = in[i]; } else { t = 0.0; }"))


def test_else_if_chain_with_final_else_writes_on_every_path() -> None:
    body = "if (in[i] > 1) t = 1.0; else if (in[i] > 0) t = in[i]; else t = 0.0;"
    assert _private(_facts(body))


def test_nested_two_way_if_inside_one_arm() -> None:
    body = """
    if (in[i] > 0) {
      if (in[i] > 1) t = 1.0; else t = in[i];
    } else {
      t = 0.0;
    }
    """
    assert _private(_facts(body))


def test_if_without_else_keeps_the_value_flowing() -> None:
    assert not _facts("if (in[i] > 0) t = in[i];").parallel


def test_else_if_chain_without_final_else_keeps_the_value_flowing() -> None:
    assert not _facts("if (in[i] > 1) t = 1.0; else if (in[i] > 0) t = in[i];").parallel


def test_an_arm_that_writes_only_in_an_inner_loop_does_not_cover() -> None:
    body = """
    if (in[i] > 0) {
      for (int k = 0; k < n; k++) t = in[k];
    } else {
      t = 0.0;
    }
    """
    assert not _facts(body).parallel


def test_an_arm_that_writes_after_the_read_does_not_cover() -> None:
    body = "if (in[i] > 0) { t = in[i]; } else { out[i] = t; t = 0.0; }"
    assert not _facts(body).parallel
