"""Object-like macros defined over other integer macros have one value too.

harm_blind3 `k15` lost its ghost-cell fill `g[j * GX + 0] = g[j * GX + NX]`
with `#define GX (NX + 2)`: only macros spelled as a number had values, so the
column `NX` was not proved to stay inside a row of `GX`.
"""

from __future__ import annotations

from textwrap import dedent

from accls.analysis.nest_views import integer_macros
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect


def test_a_macro_over_integer_macros_has_their_value() -> None:
    macros = [("NX", "200"), ("GX", "(NX + 2)"), ("AREA", "GX * NX"), ("S", "(1 << 4)")]
    assert integer_macros(macros) == {"NX": 200, "GX": 202, "AREA": 40400, "S": 16}


def test_unknowns_and_clashes_stay_without_a_value() -> None:
    macros = [("N", "10"), ("N", "11"), ("M", "N + 1"), ("P", "Q + 1"), ("Q", "P + 1")]
    macros += [("E", "n + 1"), ("H", "NX / 3"), ("NX", "200")]
    assert integer_macros(macros) == {"NX": 200}


def _omp(row: str) -> str | None:
    src = dedent(
        f"""\
        #define NX 200
        #define NY 150
        {row}
        void ghosts(double *g) {{
          for (int j = 1; j <= NY; j++) {{
            g[j * GX + 0] = g[j * GX + NX];
          }}
        }}
        """
    )
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(src, "k.c", settings).suggestions
    return found[0].pragma.render() if found[0].pragma is not None else None


def test_columns_inside_a_row_of_a_derived_size_are_apart() -> None:
    assert _omp("#define GX (NX + 2)") is not None


def test_a_column_reaching_the_next_row_stays_refused() -> None:
    # g[j * GX + NX] is the first element of row j + 1 when GX is NX.
    assert _omp("#define GX (NX + 0)") is None
