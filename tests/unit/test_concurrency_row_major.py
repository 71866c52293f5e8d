"""Row-major subscripts over a run-time width, `g[y * w + x]`, in the region model."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_ROWS = """\
    void edges(int h, int w, const float *px, float *gy, float *mag) {
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp taskloop grainsize(8) nogroup
        for (int y = 1; y < h - 1; y++)
          for (int x = 1; x < w - 1; x++)
            gy[y * w + x] = px[(y + 1) * w + x] - px[(y - 1) * w + x];
        {wait}
        #pragma omp taskloop grainsize(8)
        for (int y = 2; y < h - 2; y++)
          for (int x = 1; x < w - 1; x++)
            mag[y * w + x] = gy[{read}] + gy[(y + 1) * w + x];
      }
    }
"""


def _rows(wait: str, read: str = "(y - 1) * w + x") -> str:
    return _ROWS.replace("{wait}", wait).replace("{read}", read)


def test_neighbouring_rows_of_a_width_meet() -> None:
    # the row above, read by the second loop, is one the first loop's tasks write
    assert {c for c, _ in _errors(_rows(""))} == {"ACC122"}


def test_neighbouring_rows_after_a_taskwait_do_not_race() -> None:
    assert _errors(_rows("#pragma omp taskwait")) == []


def test_a_shift_within_the_row_is_not_sure() -> None:
    # `x + 1` meets `x` only when a row holds two columns: a doubt, not an error
    assert _errors(_rows("", "y * w + x + 1")) == []


def test_two_widths_are_not_split() -> None:
    # `w * h` past the image: one width per subscript is all the split reads
    assert _errors(_rows("", "y * w + x + w * h")) == []


_MEMBERS = """\
    typedef struct { int w, h; float *px, *gy, *mag; } image_t;
    void edge_pass(image_t *im) {
      int w = im->w;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp taskloop grainsize(8) nogroup
        for (int y = 1; y < im->h - 1; y++)
          for (int x = 1; x < w - 1; x++)
            im->gy[y * w + x] = im->px[(y + 1) * w + x] - im->px[(y - 1) * w + x];
        {wait}
        #pragma omp taskloop grainsize(8)
        for (int y = 2; y < im->h - 2; y++)
          for (int x = 1; x < w - 1; x++)
            im->mag[y * w + x] = im->gy[(y - 1) * w + x] + im->gy[y * w + x];
      }
    }
"""


def test_member_planes_of_a_record_meet_too() -> None:
    assert {c for c, _ in _errors(_MEMBERS.replace("{wait}", ""))} == {"ACC122"}
    assert _errors(_MEMBERS.replace("{wait}", "#pragma omp taskwait")) == []
