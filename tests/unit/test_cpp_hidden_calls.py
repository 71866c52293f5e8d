"""Calls C++ runs where none is written: conversion operators, default arguments."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_CONVERT = """
#include <vector>
struct Meter { long reads = 0; };
struct Probe {
  Meter *m;
  double v;
  operator double() const { ++m->reads; return v; }
};
struct Plain { double v; };
double run(std::size_t n, Meter *m) {
  std::vector<Probe> p(n, Probe{m, 1.0});
  std::vector<Plain> q(n);
  std::vector<double> out(n);
  for (std::size_t i = 0; i < out.size(); ++i) {
    BODY
  }
  return out[0];
}
"""

_DEFAULTS = """
#include <vector>
static int g_next = 0;
static int next_id() { return ++g_next; }
DECL
double run(std::vector<double> &out) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    BODY
  }
  return out[0];
}
"""


def _parallel(text: str) -> bool:
    facts = analyze_text(text, path="t.cpp").facts
    return facts[-1].parallel


@pytest.mark.parametrize(
    "body",
    [
        "double d = p[i]; out[i] = d * d;",
        "out[i] = p[i];",
        "out[i] = 2.0 * static_cast<double>(p[i]);",
    ],
)
def test_an_object_converted_by_its_operator_is_a_call(body: str) -> None:
    assert not _parallel(_CONVERT.replace("BODY", body))


@pytest.mark.parametrize("body", ["out[i] = q[i].v * 2.0;", "out[i] = p[i].v * 2.0;"])
def test_a_member_read_is_no_conversion(body: str) -> None:
    assert _parallel(_CONVERT.replace("BODY", body))


@pytest.mark.parametrize(
    "decl",
    [
        "static double tagged(double x, int id = next_id()) { return x + id; }",
        "double tagged(double x, int id = next_id());\n"
        "double tagged(double x, int id) { return x + id; }",
        "static double tagged(double x, int id = g_next) { return x + id; }",
    ],
)
def test_a_default_argument_left_out_is_evaluated_by_the_call(decl: str) -> None:
    text = _DEFAULTS.replace("DECL", decl)
    body = (
        "out[i] = tagged(out[i]); g_next = (int)i;"
        if "= g_next" in decl
        else ("out[i] = tagged(out[i]);")
    )
    assert not _parallel(text.replace("BODY", body))


def test_a_literal_default_is_no_effect() -> None:
    decl = "static double tagged(double x, int id = 3) { return x + id; }"
    text = _DEFAULTS.replace("DECL", decl).replace("BODY", "out[i] = tagged(out[i]);")
    assert _parallel(text)
