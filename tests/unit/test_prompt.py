"""The shared prompt: content, determinism, the pragma grammar, completions."""

from __future__ import annotations

from textwrap import dedent

import regex
from accls.frontend import parse_source
from accls.suggest import (
    Dialect,
    SuggestOptions,
    Target,
    build_prompt,
    completion_pragma,
    pragma_regex,
    prompt_for_text,
)

ACC = SuggestOptions()
OMP_CPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)

SAXPY = dedent(
    """\
    float scale;
    void saxpy(int n, float a, const float *restrict x, float *restrict y) {
        double grid[64][32];
        for (int i = 0; i < n; i++) {
            y[i] = a * x[i] + y[i] * scale;
        }
    }
    """
)

REGION = dedent(
    """\
    void f(int n, double *a, double *b) {
    #pragma acc data copyin(a[0:n]) copyout(b[0:n])
        {
            for (int i = 0; i < n; i++)
                b[i] = a[i];
        }
    }
    """
)


def test_prompt_has_model_target_declarations_loop_and_ends_with_pragma() -> None:
    prompt = prompt_for_text(SAXPY, 4, ACC)
    assert prompt is not None
    lines = prompt.split("\n")
    assert lines[:2] == ["model: openacc", "target: gpu"]
    assert "const float *restrict x;" in lines
    assert "float *restrict y;" in lines
    assert "float a;" in lines
    assert "int n;" in lines
    assert "float scale;" in lines  # a global the loop reads
    assert "double grid[64][32];" not in lines  # declared, but the loop never uses it
    assert "for (int i = 0; i < n; i++) {" in lines
    assert prompt.endswith("\npragma:\n")


def test_prompt_names_the_dialect_and_target_asked_for() -> None:
    prompt = prompt_for_text(SAXPY, 4, OMP_CPU)
    assert prompt is not None
    assert prompt.startswith("model: openmp\ntarget: cpu\n")


def test_prompt_includes_the_enclosing_data_region() -> None:
    prompt = prompt_for_text(REGION, 4, ACC)
    assert prompt is not None
    assert "region: #pragma acc data copyin(a[0:n]) copyout(b[0:n])" in prompt
    # the loop is dedented to its `for`
    assert "\nfor (int i = 0; i < n; i++)\n    b[i] = a[i];\npragma:\n" in prompt


def test_prompt_is_deterministic_and_equal_through_both_entry_points() -> None:
    source = parse_source(SAXPY)
    loop = source.loops()[0]
    assert build_prompt(source, loop, ACC) == build_prompt(source, loop, ACC)
    assert prompt_for_text(SAXPY, loop.line, ACC) == build_prompt(source, loop, ACC)


def test_no_loop_on_the_line_gives_none() -> None:
    assert prompt_for_text(SAXPY, 1, ACC) is None


def test_huge_bodies_are_cut_but_keep_header_and_closing_line() -> None:
    body = "\n".join(f"        a[i] += {k};" for k in range(200))
    head = "void f(int n, int *a) {\n    for (int i = 0; i < n; i++) {\n"
    code = f"{head}{body}\n    }}\n}}\n"
    prompt = prompt_for_text(code, 2, ACC)
    assert prompt is not None
    assert len(prompt.split("\n")) < 60
    assert "for (int i = 0; i < n; i++) {" in prompt
    assert "/* ... */\n}\npragma:\n" in prompt


def test_pragma_regex_accepts_well_formed_lines_of_its_dialect_only() -> None:
    acc = pragma_regex(ACC)
    omp = pragma_regex(OMP_CPU)
    good_acc = "#pragma acc parallel loop reduction(+:sum) copyin(a[0:f(n)])"
    good_omp = "#pragma omp parallel for private(t), reduction(max:m)"
    assert regex.fullmatch(acc, good_acc)
    assert regex.fullmatch(acc, good_acc + "\n")
    assert regex.fullmatch(omp, good_omp)
    assert not regex.fullmatch(acc, good_omp)
    assert not regex.fullmatch(omp, good_acc)
    assert not regex.fullmatch(acc, "#pragma acc parallel loop bogus_clause")
    assert not regex.fullmatch(acc, "#pragma acc parallel loop copy(a[0:n]")
    assert not regex.fullmatch(acc, good_acc + "\n\n")


def test_pragma_regex_matches_prefixes_partially() -> None:
    acc = pragma_regex(ACC)
    assert regex.fullmatch(acc, "#pragma acc para", partial=True)
    assert regex.fullmatch(acc, "#pragma acc parallel loop reduction(+:s", partial=True)
    assert not regex.fullmatch(acc, "#pragma omp", partial=True)


def test_completion_pragma_takes_the_first_line_when_it_is_a_pragma() -> None:
    assert (
        completion_pragma("#pragma acc  parallel loop\n#pragma acc loop\n")
        == "#pragma acc parallel loop"
    )
    assert completion_pragma("  #pragma omp for\n") == "#pragma omp for"
    assert completion_pragma("for (i = 0; i < n; i++)\n") is None
    assert completion_pragma("#pragma once\n") is None
    assert completion_pragma("") is None
