"""Loops that are the unbraced body of a statement: a pragma there needs braces.

`for (j = 0; j < n; j += t)` followed by `#pragma omp parallel for` and an inner
`for` compiles, but a C parser that does not run the preprocessor (tree-sitter)
reads the directive line as a statement of its own: the outer loop gets an empty
body and the inner loop becomes its sibling. Every later analysis of that text,
the race check of the suggestions among them, then sees the outer loop's
variable read after it (`i = j` in the inner header) and reports a false
`lastprivate`. Wrapping the pragma and its loop in `{ }` keeps the meaning for
the compiler and the structure for the parser.
"""

from __future__ import annotations

from accls.frontend.unbraced_pragmas import code_before, opens_body

__all__ = ["unbraced_body"]


def unbraced_body(data: bytes, offset: int) -> bool:
    """True when the statement at byte `offset` is the unbraced body of another.

    The code before it ends with `)` (a `for`, `while` or `if` header), `else` or
    `do`, past comments and blank lines (not past a preprocessor line). Braces
    around a single statement never change its meaning, so a false
    positive (a macro call `FOO(x)` without `;`) costs only a pair of braces.
    """
    code = code_before(data, offset)
    return code is not None and opens_body(code)
