"""Fortran loops on a subprogram's own array that it holds on the device.

`call acc_create(c)` ... loop ... `call acc_copyout(c)` in one subprogram: the
loop is offloaded when the hold proof goes through, else refused. Held, the
loop's data clauses move nothing, so each twin guards against stale data.
"""

from __future__ import annotations

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

ACC = Settings(dialect=Dialect.OPENACC, validate=False)

HELD = """\
subroutine run(s)
  use openacc
  implicit none
  real(8) :: s
  integer :: x
  real(8), dimension(100) :: a, c
  do x = 1, 100
    a(x) = x
    c(x) = 1.0d0
  end do
  call acc_copyin(c(1:100))
  do x = 1, 100
    c(x) = c(x) + 2.0d0 * a(x)
  end do
  call acc_copyout(c(1:100))
  s = 0.0d0
  do x = 1, 100
    s = s + c(x)
  end do
end subroutine
"""


def _loop(text: str, line: int) -> tuple[str | None, str]:
    for s in suggest_text(text, "t.f90", ACC).suggestions:
        if s.loop.line == line and s.existing is None and not s.inner:
            pragma = None if s.pragma is None else s.pragma.render()
            return pragma, " ".join(s.reasons)
    raise AssertionError(f"no loop at line {line}")


def test_a_hold_of_the_subprograms_own_array_is_proved() -> None:
    pragma, why = _loop(HELD, 12)
    assert pragma is not None, why
    assert "copy(c)" in pragma


def test_directives_are_events_too() -> None:
    text = HELD.replace("call acc_copyin(c(1:100))", "!$acc enter data copyin(c)")
    text = text.replace("call acc_copyout(c(1:100))", "!$acc exit data copyout(c)")
    pragma, why = _loop(text, 12)
    assert pragma is not None, why


def test_an_update_self_brings_the_writes_back() -> None:
    text = HELD.replace(
        "  call acc_copyout(c(1:100))\n",
        "  !$acc update self(c)\n  call acc_delete(c)\n",
    )
    pragma, why = _loop(text, 12)
    assert pragma is not None, why


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        # A host write between the hold and the loop.
        (
            "  call acc_copyin(c(1:100))\n",
            "  call acc_copyin(c(1:100))\n  c(1) = 5.0d0\n",
            "host code touches it",
        ),
        # The writes never come back.
        ("call acc_copyout(c(1:100))", "call acc_delete(c)", "never comes back"),
        # Part of the array only: not followed.
        ("call acc_copyin(c(1:100))", "call acc_copyin(c(1:50))", "does not follow"),
        # The hold opened on one path only.
        (
            "  call acc_copyin(c(1:100))\n",
            "  if (s > 0) then\n    call acc_copyin(c)\n  end if\n",
            "some paths to the loop only",
        ),
        # Ended on one path only.
        (
            "  call acc_copyout(c(1:100))\n",
            "  if (s > 0) then\n    call acc_copyout(c)\n  end if\n",
            "on some paths only",
        ),
        # Ended by a logical `if`'s call: on some paths only.
        (
            "call acc_copyout(c(1:100))",
            "if (s > 0) call acc_copyout(c)",
            "does not follow",
        ),
        # Held twice: one copy-out only counts it down.
        (
            "  call acc_copyin(c(1:100))\n",
            "  call acc_copyin(c)\n  call acc_copyin(c)\n",
            "held 2 times",
        ),
        # An asynchronous copy: its queue is not followed.
        (
            "call acc_copyin(c(1:100))",
            "call acc_copyin_async(c, 1)",
            "does not follow",
        ),
    ],
)
def test_what_breaks_the_proof_refuses(old: str, new: str, words: str) -> None:
    assert old in HELD
    text = HELD.replace(old, new)
    line = 12 + (new.count("\n") - old.count("\n") if "copyin" in old else 0)
    pragma, why = _loop(text, line)
    assert pragma is None
    assert words in why


def test_a_dummy_argument_stays_refused() -> None:
    text = HELD.replace("subroutine run(s)", "subroutine run(s, c)").replace(
        "real(8), dimension(100) :: a, c",
        "real(8), dimension(100) :: a, c\n  intent(inout) :: c",
    )
    pragma, why = _loop(text, 13)
    assert pragma is None
    assert "may be held on the device" in why


def test_internal_procedures_may_hold_the_own_arrays() -> None:
    text = HELD.replace(
        "end subroutine\n",
        "contains\n  subroutine h()\n  end subroutine\nend subroutine\n",
    )
    pragma, _ = _loop(text, 12)
    assert pragma is None


def test_the_with_len_form_covering_the_array_is_an_event() -> None:
    text = HELD.replace("call acc_copyin(c(1:100))", "call acc_copyin(c(1), 100 * 8)")
    pragma, why = _loop(text, 12)
    assert pragma is not None, why


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # Half the bytes of `real(8)` elements.
        ("call acc_copyin(c(1:100))", "call acc_copyin(c(1), 100 * 4)"),
        # Not the first element.
        ("call acc_copyin(c(1:100))", "call acc_copyin(c(2), 100 * 8)"),
        # A kind the declaration does not spell: its bytes are the compiler's.
        ("real(8), dimension(100) :: a, c", "real, dimension(100) :: a, c"),
    ],
)
def test_a_with_len_form_short_of_the_array_refuses(old: str, new: str) -> None:
    text = HELD.replace("call acc_copyin(c(1:100))", "call acc_copyin(c(1), 100 * 8)")
    text = text.replace(old.replace("c(1:100))", "c(1), 100 * 8)"), new)
    assert text != HELD
    pragma, why = _loop(text, 12)
    assert pragma is None
    assert "does not follow" in why
