"""The runtime's data calls read as the directives they stand for.

`acc_create(c, n * sizeof(double))` is `enter data create(c[0:n])`, and
`acc_copyout` is `exit data copyout(...)`: a loop between them is offloaded
with `present` when the hold proof goes through, and refused otherwise. The
harm each twin guards against is stale data: with `c` present, the loop's
clauses move nothing, so what the host sees is what the runtime calls move.
"""

from __future__ import annotations

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.pragma import Target

ACC = Settings(dialect=Dialect.OPENACC, validate=False)

HELD = """\
#include <stdlib.h>
#include <openacc.h>
double run(int n) {
  double *a = (double *)malloc(n * sizeof(double));
  double *c = (double *)malloc(n * sizeof(double));
  for (int x = 0; x < n; ++x) a[x] = x;
  acc_create(c, n * sizeof(double));
  for (int x = 0; x < n; ++x) c[x] = 2.0 * a[x];
  acc_copyout(c, n * sizeof(double));
  double s = 0.0;
  for (int x = 0; x < n; ++x) s += c[x];
  free(a);
  free(c);
  return s;
}
"""

# `acc_copyin` copies `c` in, the loop reads it: the device copy is the host's.
COPIED_IN = HELD.replace(
    "  acc_create(c, n * sizeof(double));\n",
    "  for (int x = 0; x < n; ++x) c[x] = 1.0;\n  acc_copyin(c, n * sizeof(double));\n",
).replace("c[x] = 2.0 * a[x];", "c[x] += 2.0 * a[x];")


def _loop(text: str, line: int) -> tuple[str | None, str]:
    found = suggest_text(text, "t.c", ACC).suggestions
    for s in found:
        if s.loop.line == line and s.existing is None and not s.inner:
            return (None if s.pragma is None else s.pragma.render()), " ".join(
                s.reasons
            )
    raise AssertionError(f"no loop at line {line}")


def test_a_runtime_hold_proved_gets_present() -> None:
    pragma, _ = _loop(HELD, 8)
    assert pragma is not None
    assert "present(c[0:n])" in pragma
    assert "copyin(a[0:n])" in pragma


def test_a_runtime_copyin_read_by_the_loop_gets_present() -> None:
    pragma, _ = _loop(COPIED_IN, 9)
    assert pragma is not None
    assert "present(c[0:n])" in pragma


def test_the_host_loop_after_the_copyout_is_no_longer_held() -> None:
    pragma, _ = _loop(HELD, 11)
    assert pragma is not None
    assert "copyin(c[0:n])" in pragma


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # A host write between the hold and the loop: the loop, reading the
        # device copy, would not see it.
        (
            (
                "  acc_copyin(c, n * sizeof(double));\n",
                "  acc_copyin(c, n * sizeof(double));\n  c[0] = 5.0;\n",
            ),
            "host code touches it",
        ),
        # The hold ends with `acc_delete`: what the loop writes never comes back.
        (("acc_copyout(c,", "acc_delete(c,"), "never comes back"),
        # A byte count short of the loop's range: partly present.
        (
            ("acc_copyin(c, n * sizeof(double))", "acc_copyin(c, 8 * sizeof(double))"),
            "holds only part",
        ),
        # The hold opened on one path by a call that is no statement of its
        # own: not read as a directive, so it stays a refusal.
        (
            (
                "  acc_copyin(c, n * sizeof(double));\n",
                "  if (n > 8) acc_copyin(c, n * sizeof(double));\n",
            ),
            "may be held on the device by the runtime",
        ),
        # The hold ended on one path only: elsewhere the writes stay on the device.
        (
            (
                "  acc_copyout(c, n * sizeof(double));\n",
                "  if (n > 8) {\n    acc_copyout(c, n * sizeof(double));\n  }\n",
            ),
            "the hold ends in a block the loop is not in",
        ),
        # Ended by an unbraced `if`'s call: not read as a directive, so the
        # hold has no end the proof can see.
        (
            ("acc_copyout(c,", "if (n > 8) acc_copyout(c,"),
            "with no end in this function",
        ),
        # Held twice: the one `acc_copyout` only counts the hold down.
        (
            (
                "  acc_copyin(c, n * sizeof(double));\n",
                "  acc_copyin(c, n * sizeof(double));\n"
                "  acc_copyin(c, n * sizeof(double));\n",
            ),
            "held 2 times",
        ),
        # A count accls cannot relate to the array: the call stays a refusal.
        (
            ("acc_copyin(c, n * sizeof(double))", "acc_copyin(c, bytes(n))"),
            "may be held on the device by the runtime",
        ),
        # The queue of an `_async` call is not followed.
        (
            ("acc_copyin(c, n * sizeof(double))", "acc_copyin_async(c, n * 8, 1)"),
            "may be held on the device by the runtime",
        ),
    ],
)
def test_what_breaks_the_proof_refuses(change: tuple[str, str], words: str) -> None:
    old, new = change
    assert old in COPIED_IN
    text = COPIED_IN.replace(old, new)
    line = 9 + new.count("\n") - old.count("\n") if "acc_copyin" in old else 9
    pragma, why = _loop(text, line)
    assert pragma is None
    assert words in why


def test_a_hold_opened_on_one_path_keeps_the_copy_clauses() -> None:
    # Where the call does not run, the loop's own `copy` moves the data.
    text = COPIED_IN.replace(
        "  acc_copyin(c, n * sizeof(double));\n",
        "  if (n > 8) {\n    acc_copyin(c, n * sizeof(double));\n  }\n",
    )
    pragma, _ = _loop(text, 11)
    assert pragma is not None
    assert "present(c" not in pragma
    assert "copy(c[0:n])" in pragma


def test_the_twin_without_the_break_is_offloaded() -> None:
    pragma, why = _loop(COPIED_IN, 9)
    assert pragma is not None, why


def test_a_local_another_function_names_is_another_array() -> None:
    text = HELD + (
        "void other(int n) {\n"
        "  double *c = (double *)malloc(n * sizeof(double));\n"
        "  acc_map_data(c, acc_malloc(n * sizeof(double)), n * sizeof(double));\n"
        "}\n"
    )
    # `other`'s call names its own `c`; a parameter would now be refused.
    pragma, _ = _loop(text, 8)
    assert pragma is not None
    assert "present(c[0:n])" in pragma


STEPS = """\
#include <stdlib.h>
#include <openacc.h>
double run(int n, int steps) {
  double *a = (double *)malloc(n * sizeof(double));
  double *c = (double *)malloc(n * sizeof(double));
  for (int x = 0; x < n; ++x) a[x] = x;
  for (int x = 0; x < n; ++x) c[x] = 1.0;
  for (int t = 0; t < steps; ++t) {
    for (int x = 0; x < n; ++x) c[x] += 2.0 * a[x];
    acc_copyin(c, n * sizeof(double));
    acc_copyout(c, n * sizeof(double));
  }
  double s = c[0];
  free(a);
  free(c);
  return s;
}
"""


def test_a_loop_around_that_ends_each_hold_it_opens_is_fine() -> None:
    pragma, why = _loop(STEPS, 9)
    assert pragma is not None, why


def test_a_loop_around_that_opens_more_holds_than_it_ends_refuses() -> None:
    # The second step's loop finds `c` held: its `copy` moves nothing, and the
    # one `acc_copyout` after all the steps only counts the holds down.
    text = STEPS.replace(
        "    acc_copyout(c, n * sizeof(double));\n  }\n",
        "  }\n  acc_copyout(c, n * sizeof(double));\n",
    )
    pragma, why = _loop(text, 9)
    assert pragma is None
    assert "opens and ends the holds of `c` unevenly" in why


def test_openmp_does_not_read_the_openacc_calls() -> None:
    # One runtime (libgomp) may keep one table of present data for both: the
    # OpenMP loop's `map` would move nothing, and its proof does not see the call.
    settings = Settings(dialect=Dialect.OPENMP, target=Target.GPU, validate=False)
    found = suggest_text(HELD, "t.c", settings).suggestions
    loop = next(s for s in found if s.loop.line == 8 and not s.inner)
    assert loop.pragma is None
    assert "may be held on the device by the runtime" in " ".join(loop.reasons)
