"""`set(&a[k], x)` of a function using its pointer only as `*v`: the element a[k]."""

from __future__ import annotations

from accls.analysis import analyze_text

HEAD = """\
static void set(double *v, double x) { *v = x * 2.0; }
static void set0(double *v, double x) { v[0] = x; }
static void get(const double *v, double *out) { *out = *v; }
static void two(double *v, double x) { v[0] = x; v[1] = x; }
static void walk(double *v, double x) { *v = x; v++; *v = x; }
static double *kept;
static void keep(double *v, double x) { *v = x; kept = v; }
static void pass(double *v, double x) { set(v, x); }
static void off(double *v, double x) { *(v + 1) = x; }
static void local(double *v, double x) { double *w = v; *w = x; w[1] = x; }
void run(int n, double *restrict a, const double *restrict b) {
  for (int k = 0; k < n; k++) {
"""


def _verdict(body: str) -> tuple[bool, str]:
    found = analyze_text(HEAD + f"    {body}\n  }}\n}}\n").facts
    loop = next(f for f in found if f.loop.function == "run" and f.loop.var == "k")
    reasons = " ".join(
        [
            *(o.message for o in loop.obstacles),
            *loop.call_effects,
            *(d.reason for d in loop.dependences),
        ]
    )
    return loop.parallel, reasons


def test_a_callee_writing_only_the_pointed_element_writes_that_element() -> None:
    for body in (
        "set(&a[k], b[k]);",
        "set0(&a[k], b[k]);",
        "set(a + k, b[k]);",
        "pass(&a[k], b[k]);",  # handed whole to `set`, which writes `*v` only
    ):
        ok, why = _verdict(body)
        assert ok, (body, why)
        assert "a[k]" in why


def test_the_element_keeps_its_dependences() -> None:
    for body in (
        "set(&a[k], a[k + 1]);",
        "set(&a[0], b[k]);",
        "set(&a[k + 1], b[k]); a[k] = 1.0;",
    ):
        ok, _ = _verdict(body)
        assert not ok, body


def test_a_pointer_used_past_its_element_stays_a_shared_write() -> None:
    for body in (
        "two(&a[k], b[k]);",
        "walk(&a[k], b[k]);",
        "keep(&a[k], b[k]);",
        "off(&a[k], b[k]);",
        "local(&a[k], b[k]);",
    ):
        ok, why = _verdict(body)
        assert not ok, (body, why)


ROWS = """\
static void fill(double *p, double x) { for (int i = 0; i < 8; i++) p[i] = x; }
static void both(double *p, double *q, double x) { fill(p, x); fill(q, x); }
void run(int n, double *restrict a, const double *restrict b) {
  for (int k = 0; k < n; k++) {
    BODY
  }
}
"""


def test_rows_of_an_array_declared_in_the_body_are_the_iterations_own() -> None:
    for body, parallel in (
        ("double B[3][8]; both(B[0], B[1], b[k]); a[k] = B[0][3] + B[1][2];", True),
        ("double *B[3]; B[0] = a; both(B[0], B[1], b[k]);", False),
    ):
        found = analyze_text(ROWS.replace("BODY", body)).facts
        loop = next(f for f in found if f.loop.var == "k")
        why = " ".join(o.message for o in loop.obstacles)
        assert loop.parallel is parallel, (body, why)
