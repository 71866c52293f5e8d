"""Local arrays no pointer can reach, and typedef'd arrays each iteration owns."""

from __future__ import annotations

from accls.analysis import analyze_text

TWO_LOOPS = """\
typedef double real3[3];
struct P { double *rho; };
void k(struct P *p, int n) {
  for (int i = 0; i < n; i++) {
    real3 dr;
    for (int c = 0; c < 3; c++) dr[c] = i * c;
    p->rho[i] = dr[0] + dr[1];
  }
  for (int i = 0; i < n; i++) {
    real3 dr;
    for (int c = 0; c < 3; c++) dr[c] = i + c;
    p->rho[i] += dr[0] * dr[2];
  }
}
"""
SHADOWED = """\
typedef double real3[3];
void k(double *restrict rho, const double *restrict f, int n) {
  real3 dr;
  dr[0] = 1.0;
  for (int i = 0; i < n; i++) {
    dr[1] = rho[i] + dr[0];
    real3 dr;
    for (int c = 0; c < 3; c++) dr[c] = f[i] * c;
    rho[i] = dr[0] + dr[1];
  }
}
"""
HANDED_ON = """\
typedef double real3[3];
struct P { double *rho; };
void keep(double *v);
void k(struct P *p, int n) {
  for (int i = 0; i < n; i++) {
    real3 dr;
    keep(dr);
    for (int c = 0; c < 3; c++) dr[c] = i * c;
    p->rho[i] = dr[0] + dr[1];
  }
}
"""


def _verdicts(text: str) -> dict[int, tuple[bool, str]]:
    analysis = analyze_text(text, "k.c")
    return {
        f.loop.line: (f.parallel, "\\n".join(o.message for o in f.obstacles))
        for f in analysis.facts
    }


def test_a_scratch_array_declared_in_two_loops_is_each_ones_own() -> None:
    loops = _verdicts(TWO_LOOPS)
    assert loops[4][0], loops
    assert loops[9][0], loops


def test_a_shadowed_scratch_array_is_not_owned() -> None:
    parallel, why = _verdicts(SHADOWED)[5]
    assert not parallel
    assert "dependence on `dr`" in why


def test_a_scratch_array_handed_to_a_call_may_be_reached() -> None:
    parallel, why = _verdicts(HANDED_ON)[5]
    assert not parallel
    assert "`dr` (written at line 8) and `p->rho` may overlap" in why


PLAIN = """\
struct P { double *rho; };
void k(struct P *p, int n) {
  for (int i = 0; i < n; i++) {
    double w[3];
    for (int c = 0; c < 3; c++) w[c] = i * c;
    p->rho[i] = w[0] + w[1];
  }
}
"""


def test_a_plain_scratch_array_is_sealed_too() -> None:
    parallel, why = _verdicts(PLAIN)[3]
    assert parallel, why
