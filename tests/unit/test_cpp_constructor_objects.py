"""C++ constructor calls: the new object is `this`, the arguments the parameters.

A constructor call passes no `this` argument; the front end passes the object it
builds (the declared name, or NEW_OBJECT for a temporary or `new`), so the
arguments line up with the summary's parameters. An object of the iteration
whose constructor keeps to its own members is private; one that writes a static
member, through a pointer or reference member, or through a pointer argument
keeps the loop refused.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.frontend import NEW_OBJECT, parse_source

POINT = """\
    struct Pt {
      double x, y;
      Pt(double a) { x = a; y = 2.0 * a; }
      double sum() const { return x + y; }
    };
    """


def _facts(text: str, head: str = POINT) -> dict[int, tuple[bool, str]]:
    source = parse_source(dedent(head) + dedent(text), "k.cpp")
    analysis = analyze(source, AnalysisOptions(assume_no_alias=True))
    return {
        f.loop.line: (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in analysis.facts
    }


def _calls(text: str, head: str = POINT) -> list[tuple[str, tuple[str, ...]]]:
    source = parse_source(dedent(head) + dedent(text), "k.cpp")
    return [(c.name, c.args) for n in source.nests for lp in n.walk() for c in lp.calls]


def test_a_declared_object_is_this_and_the_arguments_follow() -> None:
    calls = _calls(
        """\
        void f(int n, const double *a, double *b) {
          for (int i = 0; i < n; i++) { Pt p(a[i]); b[i] = p.sum(); }
        }
        """
    )
    assert ("Pt::Pt", ("p", "a[i]")) in calls


@pytest.mark.parametrize(
    "body",
    [
        "Pt p(a[i]); b[i] = p.sum();",
        "Pt p{a[i]}; b[i] = p.sum();",
        "Pt p = Pt(a[i]); b[i] = p.x;",
        "b[i] = Pt(a[i]).sum();",
        "Pt p(a[i]); p = Pt(2.0 * a[i]); b[i] = p.y;",
    ],
)
def test_an_object_built_from_an_element_is_private(body: str) -> None:
    found = _facts(
        f"""\
        void f(int n, const double *a, double *b) {{
          for (int i = 0; i < n; i++) {{ {body} }}
        }}
        """
    )
    parallel, why = found[7]
    assert parallel, why


def test_a_temporary_is_the_new_object() -> None:
    calls = _calls(
        """\
        void f(int n, const double *a, double *b) {
          for (int i = 0; i < n; i++) b[i] = Pt(a[i]).x;
        }
        """
    )
    assert ("Pt::Pt", (NEW_OBJECT, "a[i]")) in calls


def test_a_helper_method_on_the_new_object_keeps_it_private() -> None:
    head = """\
        struct H {
          double x;
          H(double a) { x = a; bump(); }
          void bump() { x += 1.0; }
        };
        """
    found = _facts(
        """\
        void f(int n, const double *a, double *b) {
          for (int i = 0; i < n; i++) { H h(a[i]); b[i] = h.x; }
        }
        """,
        head,
    )
    assert found[7][0], found[7][1]


@pytest.mark.parametrize(
    ("head", "body", "word"),
    [
        (
            """\
            struct C {
              static int count;
              double x;
              C(double a) { x = a; count++; }
            };
            """,
            "C c(a[i]); b[i] = c.x;",
            "static member",
        ),
        (
            """\
            struct C {
              static int count;
              double x;
              C(double a) { x = a; count++; }
            };
            """,
            "b[i] = C(a[i]).x;",
            "static member",
        ),
        (
            """\
            struct C {
              double *d;
              C(double *q) { d = q; d[0] = 1.0; }
            };
            """,
            "C c(s); b[i] = a[i];",
            "pointer member",
        ),
        (
            """\
            struct C {
              double &r;
              C(double &q) : r(q) { r = 2.0; }
            };
            """,
            "C c(s[0]); b[i] = a[i];",
            "reference member",
        ),
        (
            """\
            struct C {
              double x;
              C(double a, double *out) { x = a; out[0] = a; }
            };
            """,
            "C c(a[i], s); b[i] = c.x;",
            "s",
        ),
    ],
)
def test_a_constructor_reaching_shared_memory_keeps_the_loop_refused(
    head: str, body: str, word: str
) -> None:
    found = _facts(
        f"""\
        void f(int n, const double *a, double *b, double *s) {{
          for (int i = 0; i < n; i++) {{ {body} }}
        }}
        """,
        head,
    )
    line = len(dedent(head).splitlines()) + 2
    parallel, why = found[line]
    assert not parallel
    assert word in why


def test_an_object_declared_outside_the_loop_stays_shared() -> None:
    head = """\
        struct S {
          double x;
          void set(double a) { x = a; }
        };
        """
    found = _facts(
        """\
        void f(int n, const double *a, double *b) {
          S s;
          for (int i = 0; i < n; i++) { s.set(a[i]); b[i] = s.x; }
        }
        """,
        head,
    )
    assert not found[7][0]


PROGRAM = """\
#include <stdio.h>
struct Pt {
  double x, y;
  Pt(double a) { x = a; y = 2.0 * a + 1.0; }
  double sum() const { return x * y; }
};
int main(void) {
  enum { N = 100000 };
  static double a[N], b[N], c[N];
  for (int i = 0; i < N; i++) a[i] = (i % 97) * 0.5;
  for (int i = 0; i < N; i++) { Pt p(a[i]); b[i] = p.sum(); }
  for (int i = 0; i < N; i++) c[i] = Pt(a[i]).sum() - b[i];
  double s = 0.0;
  for (int i = 0; i < N; i++) s += b[i] + c[i] * 3.0;
  printf("%.6f\\n", s);
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_gained_loops_give_the_serial_results(tmp_path: Path) -> None:
    source = parse_source(PROGRAM, "pt.cpp")
    analysis = analyze(source, AnalysisOptions())
    gained = {f.loop.line for f in analysis.facts if f.parallel}
    assert {11, 12} <= gained
    lines = PROGRAM.splitlines()
    for line in sorted(gained - {14}, reverse=True):  # the sum needs a reduction
        lines.insert(line - 1, "#pragma omp parallel for")
    (tmp_path / "pt.cpp").write_text("\n".join(lines) + "\n")
    (tmp_path / "serial.cpp").write_text(PROGRAM)
    outs = []
    for name, flags in (("serial", []), ("pt", ["-fopenmp"])):
        exe = tmp_path / name
        subprocess.run(
            ["g++", "-O1", *flags, str(tmp_path / f"{name}.cpp"), "-o", str(exe)],
            check=True,
        )
        for threads in ("1", "4") if flags else ("1",):
            run = subprocess.run(
                [str(exe)],
                check=True,
                capture_output=True,
                text=True,
                env={"OMP_NUM_THREADS": threads},
            )
            outs.append(run.stdout)
    assert len(set(outs)) == 1, outs


def test_an_emplaced_element_runs_its_constructor() -> None:
    head = """\
        #include <vector>
        static int made = 0;
        struct C { double x; C(double a) { x = a; made++; } };
        """
    found = _facts(
        """\
        void f(int n, const double *a, double *b) {
          for (int i = 0; i < n; i++) {
            std::vector<C> v;
            v.emplace_back(a[i]);
            b[i] = v[0].x;
          }
        }
        """,
        head,
    )
    parallel, why = found[5]
    assert not parallel
    assert "C::C" in why


def test_an_emplaced_point_is_private() -> None:
    found = _facts(
        """\
        #include <vector>
        void f(int n, const double *a, double *b) {
          for (int i = 0; i < n; i++) {
            std::vector<Pt> v;
            v.emplace_back(a[i]);
            b[i] = v[0].x;
          }
        }
        """
    )
    assert found[8][0], found[8][1]
