"""C kernels of real computational patterns, with randomised names, types and sizes.

Each template writes one function; `synthesize` labels its loops with the
analysis engine. Patterns follow HPC-INSTRUCT's spirit: BLAS-1/2/3, stencils,
reductions, histograms, triangular and struct-of-arrays loops, and loops that
must stay serial (prefix sums, recurrences) so the refusals are exercised too.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from accls_train.kernels_grid import (
    in_region,
    jacobi,
    private_temp,
    soa,
    stencil2d,
    stencil3d,
    triangular,
)
from accls_train.kernels_linear import (
    dot,
    extremum,
    histogram,
    matmul,
    matvec,
    norm,
    prefix,
    saxpy,
    vector_op,
)
from accls_train.template_kit import Kernel, Names

__all__ = ["TEMPLATES", "Kernel", "Names"]

TEMPLATES: dict[str, Callable[[random.Random, Names], Kernel]] = {
    f.__name__: f
    for f in (
        vector_op, saxpy, dot, norm, extremum, matvec, matmul, stencil2d, stencil3d,
        jacobi, histogram, prefix, triangular, soa, private_temp, in_region,
    )
}  # fmt: skip
