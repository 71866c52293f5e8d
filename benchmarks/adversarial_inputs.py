"""The adversarial C inputs of benchmarks/adversarial.py, generated, never stored."""

from __future__ import annotations

__all__ = [
    "busy_document",
    "escaping_program",
    "long_loop",
    "macro_bomb",
    "many_loops",
    "one_line_loop",
]

_HEAD = (
    "void f(int n, double *restrict a, double *restrict b, double *restrict c, "
    "double *restrict d)"
)


def _statement(k: int) -> str:
    # Three arrays, many constants: long, but few distinct subscript shapes.
    return (
        f"a[i] = a[i] + b[i] * {k}.0;",
        f"c[i] = b[i] - {k}.0;",
        f"d[i] += c[i] * {k}.0;",
    )[k % 3]


def long_loop(statements: int) -> str:
    """One loop whose body holds `statements` statements."""
    body = "\n".join(f"        {_statement(k)}" for k in range(statements))
    return f"{_HEAD} {{\n    for (int i = 0; i < n; i++) {{\n{body}\n    }}\n}}\n"


def one_line_loop(size: int) -> str:
    """A loop of about `size` bytes on one line."""
    parts: list[str] = []
    total, k = 0, 0
    while total < size:
        part = f"a[i] = a[i] + b[i] * {k}.0; "
        parts.append(part)
        total += len(part)
        k += 1
    return f"{_HEAD} {{ for (int i = 0; i < n; i++) {{ {''.join(parts)}}} }}\n"


def many_loops(count: int) -> str:
    """One function holding `count` loops one after another."""
    loops = "\n".join(
        f"    for (int i = 0; i < n; i++) a[i] = b[i] + {k}.0;" for k in range(count)
    )
    return f"{_HEAD} {{\n{loops}\n}}\n"


def macro_bomb(depth: int = 32) -> str:
    """About 1 KB whose preprocessing doubles a macro `depth` times."""
    lines = ["#define X0 1+"]
    lines += [f"#define X{k} X{k - 1} X{k - 1}" for k in range(1, depth + 1)]
    lines.append(f"int v = X{depth} 1;")
    return "\n".join(lines) + "\n" + long_loop(3)


def busy_document(functions: int) -> str:
    """A file of `functions` small parallel kernels with pragmas (checks run on all)."""
    kernel = (
        "void f{k}(int n, double *restrict a, const double *restrict b) {{\n"
        "  #pragma omp parallel for\n"
        "  for (int i = 0; i < n; i++) {{\n"
        "    a[i] = a[i] * 2.0 + b[i];\n"
        "  }}\n"
        "}}\n"
    )
    return "".join(kernel.format(k=k) for k in range(functions))


def escaping_program(target: str) -> str:
    """An OpenMP-ready program that also writes `target`, outside its folder."""
    return f"""#include <stdio.h>
#define N 1000
static double a[N], b[N];
int main(void) {{
    FILE *leak = fopen("{target}", "w");
    if (leak) {{ fputs("escaped\\n", leak); fclose(leak); }}
    for (int i = 0; i < N; i++) b[i] = i;
    for (int i = 0; i < N; i++) a[i] = 2.0 * b[i];
    double s = 0.0;
    for (int i = 0; i < N; i++) s += a[i];
    printf("%f\\n", s);
    return 0;
}}
"""
