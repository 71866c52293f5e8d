"""`f(&a[idx[i]])`: an address handed to a callee that only reads through it.

The triangle count of a CSR graph passes `&adj[rowptr[v]]` (row `v`) to a
sorted-list intersection that only reads it: a read of `adj`, not the scatter
an escaping address would be. A callee that writes through the parameter,
keeps it, returns it or hands it on leaves the argument an update, and the
loop refused.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source

_LOOP = """\
int adj[400], rowptr[101], deg[100], tri[100];
const int *kept;
CALLEE
void count(void) {
  for (int v = 0; v < 100; v++) {
    int c = 0;
    for (int k = rowptr[v]; k < rowptr[v + 1]; k++) {
      c += look(&adj[rowptr[v]], deg[v], &adj[rowptr[adj[k]]]);
    }
    tri[v] = c;
  }
}
"""


def _parallel(callee: str) -> bool:
    text = _LOOP.replace("CALLEE", dedent(callee))
    facts = analyze(parse_source(text, "k.c")).facts
    return next(f for f in facts if f.loop.var == "v").parallel


def test_an_address_only_read_through_is_a_read() -> None:
    assert _parallel(
        """\
        static int look(const int *a, int n, const int *b) {
          int s = 0;
          for (int i = 0; i < n; i++) s += a[i] == b[i];
          return s;
        }
        """
    )


@pytest.mark.parametrize(
    "callee",
    [
        "static int look(int *a, int n, const int *b) { a[0] = n; return b[0]; }",
        "static int look(const int *a, int n, const int *b) {\n"
        "  kept = a;\n"
        "  return n + b[0];\n"
        "}",
        "static int bump(int *p) { return ++*p; }\n"
        "static int look(int *a, int n, const int *b) { return bump(a) + n + b[0]; }",
        "static const int *pick(const int *a) { return a; }\n"
        "static int look(const int *a, int n, const int *b) {\n"
        "  return *pick(a) + n + b[0];\n"
        "}",
    ],
    ids=["writes through it", "stores it", "hands it on", "passes it to a copy"],
)
def test_an_address_the_callee_may_write_or_keep_stays_an_update(callee: str) -> None:
    assert not _parallel(callee)
