"""`accls check` on Fortran `parallel` regions: the loop indices every thread owns."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis.checks import check_file


def _races(text: str) -> list[str]:
    found = check_file(dedent(text), "r.f90", [])
    return [f.message for f in found if f.code == "ACC120"]


def test_a_do_concurrent_index_in_a_region_is_the_constructs_own() -> None:
    races = _races(
        """\
        subroutine fill(a, n)
          integer :: n, i, a(n)
          !$omp parallel
          do concurrent (i = 1:n)
            a(i) = i
          end do
          !$omp end parallel
        end subroutine
        """
    )
    assert not [m for m in races if m.startswith("data race: `i`")]
    assert any(m.startswith("data race: `a(i)`") for m in races)  # every thread


def test_a_sequential_do_index_in_a_region_is_private() -> None:
    races = _races(
        """\
        subroutine each(a, n)
          use omp_lib
          integer :: n, i, t, a(0:63)
          !$omp parallel private(t)
          t = omp_get_thread_num()
          do i = 1, n
            a(t) = a(t) + i
          end do
          !$omp end parallel
        end subroutine
        """
    )
    assert not [m for m in races if "`i`" in m]


def test_an_index_named_shared_stays_shared() -> None:
    races = _races(
        """\
        subroutine each(a, n)
          integer :: n, i, a(n)
          !$omp parallel shared(i)
          do i = 1, n
            a(1) = 0
          end do
          !$omp end parallel
        end subroutine
        """
    )
    assert any(m.startswith("data race: `i`") for m in races)
