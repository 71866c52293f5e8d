"""Templates of vector and matrix kernels, reductions and serial recurrences."""

from __future__ import annotations

import random

from accls_train.template_kit import (
    _ACCUMULATORS,
    _INNER,
    _INNERMOST,
    _OUTER,
    _SCALARS,
    _SIZES,
    Kernel,
    Names,
    _ctype,
    _ptr,
    _start,
    _upper,
)


def vector_op(rng: random.Random, nm: Names) -> Kernel:
    """c[i] = a[i] op b[i]."""
    t, (a, b, c), i, n = _ctype(rng), nm.arrays(3), nm.pick(_OUTER), nm.pick(_SIZES)
    op = rng.choice(["+", "-", "*"])
    fn = rng.choice(["vadd", "vec_op", "combine", "elementwise"])
    body = rng.choice(
        [
            f"{c}[{i}] = {a}[{i}] {op} {b}[{i}];",
            f"{c}[{i}] += {a}[{i}] {op} {b}[{i}];",
            f"{c}[{i}] = 0.5 * ({a}[{i}] {op} {b}[{i}]);",
            f"{c}[{i}] = {a}[{i}] > {b}[{i}] ? {a}[{i}] : {b}[{i}];",
        ]
    )
    params = (
        f"int {n}, {_ptr(rng, t, c)}, {_ptr(rng, t, a, True)}, {_ptr(rng, t, b, True)}"
    )
    return Kernel(
        "vector_op",
        f"""void {fn}({params})
{{
    for (int {i} = {_start(rng)}; {_upper(rng, i, n)}; {i}++)
        {body}
}}
""",
    )


def saxpy(rng: random.Random, nm: Names) -> Kernel:
    """Y = alpha * x + y."""
    t, (x, y), i, n, al = (
        _ctype(rng),
        nm.arrays(2),
        nm.pick(_OUTER),
        nm.pick(_SIZES),
        nm.pick(_SCALARS),
    )
    body = rng.choice(
        [
            f"{y}[{i}] = {al} * {x}[{i}] + {y}[{i}];",
            f"{y}[{i}] += {al} * {x}[{i}];",
            f"{y}[{i}] = {al} * {y}[{i}] + {x}[{i}];",
        ]
    )
    return Kernel(
        "saxpy",
        f"""void axpy(int {n}, {t} {al}, {_ptr(rng, t, x, True)}, {_ptr(rng, t, y)})
{{
    for (int {i} = 0; {_upper(rng, i, n)}; {i}++) {{
        {body}
    }}
}}
""",
    )


def dot(rng: random.Random, nm: Names) -> Kernel:
    """A dot product: a sum reduction."""
    t, (a, b), i, n, s = (
        _ctype(rng),
        nm.arrays(2),
        nm.pick(_OUTER),
        nm.pick(_SIZES),
        nm.pick(_ACCUMULATORS),
    )
    term = rng.choice(
        [
            f"{a}[{i}] * {b}[{i}]",
            f"({a}[{i}] - {b}[{i}]) * ({a}[{i}] - {b}[{i}])",
            f"{a}[{i}] * {b}[{i}] * {b}[{i}]",
            f"{a}[{i}] + {b}[{i}]",
        ]
    )
    return Kernel(
        "dot",
        f"""{t} dot(int {n}, {_ptr(rng, t, a, True)}, {_ptr(rng, t, b, True)})
{{
    {t} {s} = 0;
    for (int {i} = 0; {_upper(rng, i, n)}; {i}++)
        {s} += {term};
    return {s};
}}
""",
    )


def norm(rng: random.Random, nm: Names) -> Kernel:
    """A 2-norm or 1-norm."""
    t, (x,), i, n, s = (
        _ctype(rng),
        nm.arrays(1),
        nm.pick(_OUTER),
        nm.pick(_SIZES),
        nm.pick(_ACCUMULATORS),
    )
    term = rng.choice([f"{x}[{i}] * {x}[{i}]", f"fabs({x}[{i}])"])
    return Kernel(
        "norm",
        f"""double norm(int {n}, {_ptr(rng, t, x, True)})
{{
    double {s} = 0.0;
    for (int {i} = 0; {i} < {n}; {i}++)
        {s} += {term};
    return sqrt({s});
}}
""",
    )


def extremum(rng: random.Random, nm: Names) -> Kernel:
    """A max or min reduction."""
    t, (x,), i, n = _ctype(rng), nm.arrays(1), nm.pick(_OUTER), nm.pick(_SIZES)
    m = nm.pick(["best", "peak", "lo", "hi", "m"])
    fn, cmp = rng.choice([("fmax", ">"), ("fmin", "<")])
    body = rng.choice(
        [f"{m} = {fn}({m}, {x}[{i}]);", f"if ({x}[{i}] {cmp} {m}) {m} = {x}[{i}];"]
    )
    return Kernel(
        "extremum",
        f"""{t} extremum(int {n}, {_ptr(rng, t, x, True)})
{{
    {t} {m} = {x}[0];
    for (int {i} = 1; {i} < {n}; {i}++)
        {body}
    return {m};
}}
""",
    )


def matvec(rng: random.Random, nm: Names) -> Kernel:
    """Y = A x with a row-major flat matrix and a private accumulator."""
    t, (A, x, y) = _ctype(rng), nm.arrays(3)
    i, j, n, m, s = (
        nm.pick(_OUTER),
        nm.pick(_INNER),
        nm.pick(_SIZES),
        nm.pick(_SIZES),
        nm.pick(_ACCUMULATORS),
    )
    return Kernel(
        "matvec",
        f"""void matvec(int {n}, int {m}, {_ptr(rng, t, A, True)},
            {_ptr(rng, t, x, True)}, {_ptr(rng, t, y)})
{{
    for (int {i} = 0; {i} < {n}; {i}++) {{
        {t} {s} = 0;
        for (int {j} = 0; {j} < {m}; {j}++)
            {s} += {A}[{i} * {m} + {j}] * {x}[{j}];
        {y}[{i}] {rng.choice(["=", "+=", "-="])} {s};
    }}
}}
""",
    )


def matmul(rng: random.Random, nm: Names) -> Kernel:
    """C = A B on variable-length 2D arrays."""
    t, (A, B, C) = _ctype(rng), nm.arrays(3)
    i, j, k, n, s = (
        nm.pick(_OUTER),
        nm.pick(_INNER),
        nm.pick(_INNERMOST),
        nm.pick(_SIZES),
        nm.pick(_ACCUMULATORS),
    )
    if rng.random() < 0.4:
        # The i-k-j order: the innermost loop is the parallel one.
        return Kernel(
            "matmul",
            f"""void matmul_ikj(int {n}, {t} {A}[{n}][{n}], {t} {B}[{n}][{n}],
            {t} {C}[{n}][{n}])
{{
    for (int {i} = 0; {i} < {n}; {i}++)
        for (int {k} = 0; {k} < {n}; {k}++) {{
            {t} {s} = {A}[{i}][{k}];
            for (int {j} = 0; {j} < {n}; {j}++)
                {C}[{i}][{j}] += {s} * {B}[{k}][{j}];
        }}
}}
""",
        )
    return Kernel(
        "matmul",
        f"""void matmul(int {n}, {t} {A}[{n}][{n}], {t} {B}[{n}][{n}],
            {t} {C}[{n}][{n}])
{{
    for (int {i} = 0; {i} < {n}; {i}++)
        for (int {j} = 0; {j} < {n}; {j}++) {{
            {t} {s} = 0;
            for (int {k} = 0; {k} < {n}; {k}++)
                {s} += {A}[{i}][{k}] * {B}[{k}][{j}];
            {C}[{i}][{j}] = {s};
        }}
}}
""",
    )


def histogram(rng: random.Random, nm: Names) -> Kernel:
    """Counting into bins: an indirect update that needs an atomic."""
    (data, hist), i, n = nm.arrays(2), nm.pick(_OUTER), nm.pick(_SIZES)
    bins = nm.pick(["bins", "nbins", "buckets"])
    return Kernel(
        "histogram",
        f"""void histogram(int {n}, int {bins}, const int *restrict {data},
               int *restrict {hist})
{{
    for (int {i} = 0; {i} < {n}; {i}++)
        {hist}[{data}[{i}] % {bins}]++;
}}
""",
    )


def prefix(rng: random.Random, nm: Names) -> Kernel:
    """A running sum or a recurrence: carried, must be refused."""
    t, (a, b), i, n = _ctype(rng), nm.arrays(2), nm.pick(_OUTER), nm.pick(_SIZES)
    body = rng.choice(
        [
            f"{a}[{i}] += {a}[{i} - 1];",
            f"{a}[{i}] = {a}[{i} - 1] * {b}[{i}] + {b}[{i} - 1];",
        ]
    )
    return Kernel(
        "prefix",
        f"""void prefix(int {n}, {_ptr(rng, t, a)}, {_ptr(rng, t, b, True)})
{{
    for (int {i} = 1; {i} < {n}; {i}++)
        {body}
}}
""",
        serial=True,
    )
