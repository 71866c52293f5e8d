"""Secondary inductions: offsets advanced beside the loop variable, in closed form."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze_text
from accls.frontend import parse_source


def _subscripts(
    body: str, header: str = "int off = i * m, j = 0; j < m; j++, off++"
) -> list[str]:
    text = dedent(
        f"""\
        void run(int n, int m, double *restrict a, double *restrict b) {{
          for (int i = 0; i < n; i++) {{
            for ({header}) {{
              {body}
            }}
          }}
        }}
        """
    )
    source = parse_source(text)
    return [s.text for nest in source.nests for r in nest.refs for s in r.subscripts]


def test_a_header_offset_is_start_plus_the_counter() -> None:
    assert "(i * m) + j" in _subscripts("a[off] = b[j];")


def test_a_body_advance_shifts_later_uses_by_its_step() -> None:
    subs = _subscripts(
        "a[off] = 1.0; off += 2; b[off] = 2.0;",
        header="int off = i * m, j = 0; j < m; j++",
    )
    assert subs[:2] == ["(i * m) + 2*j", "(i * m) + 2*j + 2"]


@pytest.mark.parametrize(
    ("body", "header"),
    [
        ("if (b[j] > 0) off++; a[off] = 1.0;", "int off = i * m, j = 0; j < m; j++"),
        ("a[off] = 1.0; off = 0;", "int off = i * m, j = 0; j < m; j++, off++"),
        ("a[off] = 1.0; j++;", "int off = i * m, j = 0; j < m; j++, off++"),
        (
            "int *p = &off; *p = 3; a[off] = 1.0;",
            "int off = i, j = 0; j < m; j++, off++",
        ),
        (
            "a[off] = 1.0; if (b[j] > 0) continue; off++;",
            "int off = i, j = 0; j < m; j++",
        ),
    ],
)
def test_offsets_without_a_closed_form_stay_as_written(body: str, header: str) -> None:
    assert "off" in _subscripts(body, header)


def test_the_header_increment_of_two_variables_is_refused_with_its_reason() -> None:
    text = dedent(
        """\
        void run(int n, double *restrict a, const double *restrict b, int s) {
          int i, off;
          for (i = 0, off = s; i < n; i++, off++)
            a[off] = b[i];
        }
        """
    )
    (facts,) = analyze_text(text).facts
    assert not facts.parallel
    assert "`off` advances with `i` in the loop header" in facts.obstacles[0].message


def test_header_declarations_repeated_in_one_function_each_have_a_closed_form() -> None:
    text = dedent(
        """\
        void run(int n, int m, double *restrict a, double *restrict b) {
          for (int i = 0; i < n; i++)
            for (int off = i * m, j = 0; j < m; j++, off++)
              a[off] = 1.0;
          for (int i = 0; i < n; i++)
            for (int off = i * m, j = 0; j < m; j++, off++)
              b[off] = 2.0;
        }
        """
    )
    source = parse_source(text)
    subs = [s.text for nest in source.nests for r in nest.refs for s in r.subscripts]
    assert subs == ["(i * m) + j", "(i * m) + j"]
