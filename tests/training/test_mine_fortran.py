"""`accls-train mine` reads Fortran sources; the prompt names the language."""

from __future__ import annotations

from pathlib import Path

from accls.frontend import parse_source
from accls.suggest import Dialect, SuggestOptions, Target, build_prompt
from accls_train.dataset import read_pairs
from accls_train.mine import main

KERNEL = """\
subroutine total(n, x, s)
  integer, intent(in) :: n
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: s
  integer :: i
  s = 0
  !$omp parallel do &
  !$omp& reduction(+:s)
  do i = 1, n
    s = s + x(i)
  end do
  !$omp end parallel do
end subroutine total
"""


def test_fortran_pairs_are_mined_in_the_one_pragma_grammar(tmp_path: Path) -> None:
    repo = tmp_path / "someone+kernels"
    (repo / ".git").mkdir(parents=True)
    (repo / "total.f90").write_text(KERNEL)
    out = tmp_path / "mined.jsonl"
    assert main([str(tmp_path), "--out", str(out)]) == 0
    pairs = read_pairs(out)
    assert [p.pragma for p in pairs] == ["#pragma omp parallel for reduction(+:s)"]
    pair = pairs[0]
    assert pair.model == "openmp"
    assert pair.loop.startswith("do i = 1, n")
    assert "!$omp parallel do" not in pair.mcu
    assert "subroutine total" in pair.mcu


def test_the_prompt_of_a_fortran_loop_names_the_language() -> None:
    source = parse_source(KERNEL, "total.f90")
    prompt = build_prompt(
        source, source.loops()[0], SuggestOptions(Dialect.OPENMP, Target.CPU)
    )
    assert prompt.split("\n")[2] == "language: fortran"
    assert "do i = 1, n" in prompt
