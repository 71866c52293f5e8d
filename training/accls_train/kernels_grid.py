"""Templates of grid and nest kernels: stencils, triangles, regions, temporaries."""

from __future__ import annotations

import random

from accls_train.template_kit import (
    _INNER,
    _INNERMOST,
    _OUTER,
    _SIZES,
    Kernel,
    Names,
    _ctype,
    _ptr,
)


def stencil2d(rng: random.Random, nm: Names) -> Kernel:
    """A five-point stencil from one grid into another."""
    t, (src, dst), i, j, n = (
        _ctype(rng),
        nm.arrays(2),
        nm.pick(_OUTER),
        nm.pick(_INNER),
        nm.pick(_SIZES),
    )
    w = rng.choice(["0.25", "0.2", "0.5"])
    return Kernel(
        "stencil2d",
        f"""void stencil2d(int {n}, {t} {src}[{n}][{n}], {t} {dst}[{n}][{n}])
{{
    for (int {i} = 1; {i} < {n} - 1; {i}++)
        for (int {j} = 1; {j} < {n} - 1; {j}++)
            {dst}[{i}][{j}] = {w} * ({src}[{i} - 1][{j}] + {src}[{i} + 1][{j}]
                                + {src}[{i}][{j} - 1] + {src}[{i}][{j} + 1]);
}}
""",
    )


def stencil3d(rng: random.Random, nm: Names) -> Kernel:
    """A seven-point stencil on a flat 3D grid."""
    t, (u, v) = _ctype(rng), nm.arrays(2)
    i, j, k, n = nm.pick(_OUTER), nm.pick(_INNER), nm.pick(_INNERMOST), nm.pick(_SIZES)
    at = f"(({i}) * {n} + ({j})) * {n} + ({k})"
    return Kernel(
        "stencil3d",
        f"""#define AT(x, y, z) ((((x) * {n}) + (y)) * {n} + (z))
void stencil3d(int {n}, {_ptr(rng, t, u, True)}, {_ptr(rng, t, v)})
{{
    for (int {i} = 1; {i} < {n} - 1; {i}++)
        for (int {j} = 1; {j} < {n} - 1; {j}++)
            for (int {k} = 1; {k} < {n} - 1; {k}++)
                {v}[{at}] = {u}[AT({i} - 1, {j}, {k})] + {u}[AT({i} + 1, {j}, {k})]
                    + {u}[AT({i}, {j} - 1, {k})] + {u}[AT({i}, {j} + 1, {k})]
                    + {u}[AT({i}, {j}, {k} - 1)] + {u}[AT({i}, {j}, {k} + 1)]
                    - 6 * {u}[{at}];
}}
""",
    )


def jacobi(rng: random.Random, nm: Names) -> Kernel:
    """A Jacobi sweep that also finds the largest change."""
    (a, b), i, j, n = nm.arrays(2), nm.pick(_OUTER), nm.pick(_INNER), nm.pick(_SIZES)
    err = nm.pick(["err", "error", "diff", "delta"])
    return Kernel(
        "jacobi",
        f"""double jacobi(int {n}, double {a}[{n}][{n}], double {b}[{n}][{n}])
{{
    double {err} = 0.0;
    for (int {i} = 1; {i} < {n} - 1; {i}++)
        for (int {j} = 1; {j} < {n} - 1; {j}++) {{
            {b}[{i}][{j}] = 0.25 * ({a}[{i}][{j} + 1] + {a}[{i}][{j} - 1]
                              + {a}[{i} - 1][{j}] + {a}[{i} + 1][{j}]);
            {err} = fmax({err}, fabs({b}[{i}][{j}] - {a}[{i}][{j}]));
        }}
    return {err};
}}
""",
    )


def triangular(rng: random.Random, nm: Names) -> Kernel:
    """A triangular nest: the inner bound depends on the outer index."""
    t, (L, x) = _ctype(rng), nm.arrays(2)
    i, j, n = nm.pick(_OUTER), nm.pick(_INNER), nm.pick(_SIZES)
    # Lower (j up to i) or upper (j from i) triangle.
    lo, hi = rng.choice([("0", i), (i, n)])
    cmp = "<=" if hi == i and rng.random() < 0.5 else "<"
    value = rng.choice([f"{x}[{i}] * {x}[{j}]", f"{x}[{i}] - {x}[{j}]", "0"])
    return Kernel(
        "triangular",
        f"""void lower(int {n}, {t} {L}[{n}][{n}], const {t} {x}[{n}])
{{
    for (int {i} = 0; {i} < {n}; {i}++)
        for (int {j} = {lo}; {j} {cmp} {hi}; {j}++)
            {L}[{i}][{j}] = {value};
}}
""",
    )


def soa(rng: random.Random, nm: Names) -> Kernel:
    """A struct-of-arrays update through local restrict pointers."""
    i, n = nm.pick(_OUTER), nm.pick(_SIZES)
    dt = nm.pick(["dt", "step", "h"])
    return Kernel(
        "soa",
        f"""typedef struct {{ double *x, *y, *vx, *vy; }} particles_t;
void advance(int {n}, double {dt}, particles_t p)
{{
    double *restrict px = p.x, *restrict py = p.y;
    const double *restrict vx = p.vx, *restrict vy = p.vy;
    for (int {i} = 0; {i} < {n}; {i}++) {{
        px[{i}] += {dt} * vx[{i}];
        py[{i}] += {dt} * vy[{i}];
    }}
}}
""",
    )


def private_temp(rng: random.Random, nm: Names) -> Kernel:
    """A nest whose temporaries are declared outside it: they must be private."""
    t, (a, b), i, j, n, m = (
        _ctype(rng),
        nm.arrays(2),
        nm.pick(_OUTER),
        nm.pick(_INNER),
        nm.pick(_SIZES),
        nm.pick(_SIZES),
    )
    tmp = nm.pick(["t", "tmp0", "w0", "q0"])
    return Kernel(
        "private_temp",
        f"""void transform(int {n}, int {m}, {t} {a}[{n}][{m}], {t} {b}[{n}][{m}])
{{
    {t} {tmp};
    int {j};
    for (int {i} = 0; {i} < {n}; {i}++)
        for ({j} = 0; {j} < {m}; {j}++) {{
            {tmp} = {a}[{i}][{j}] * {a}[{i}][{j}];
            {b}[{i}][{j}] = {tmp} + 1;
        }}
}}
""",
    )


def in_region(rng: random.Random, nm: Names) -> Kernel:
    """Two loops inside a data region that keeps the arrays on the device."""
    t, (a, b), i, n = _ctype(rng), nm.arrays(2), nm.pick(_OUTER), nm.pick(_SIZES)
    return Kernel(
        "in_region",
        f"""void pipeline(int {n}, {_ptr(rng, t, a)}, {_ptr(rng, t, b)})
{{
    #pragma ACCLS_REGION copy({a}[0:{n}]) copyout({b}[0:{n}])
    {{
        for (int {i} = 0; {i} < {n}; {i}++)
            {a}[{i}] = 2 * {a}[{i}];
        for (int {i} = 0; {i} < {n}; {i}++)
            {b}[{i}] = {a}[{i}] + 1;
    }}
}}
""",
    )
