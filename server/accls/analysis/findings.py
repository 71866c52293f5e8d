"""The catalog of finding kinds `accls check` reports for pragmas already written."""

from __future__ import annotations

from accls.analysis.concurrency_kinds import CONCURRENCY_KINDS
from accls.analysis.data_kinds import (
    LOST_HOST_WRITES,
    MAPPED_TWICE,
    NEEDLESS_COPY,
    REPEATED_TRANSFERS,
    SHORT_SECTION,
    STALE_HOST_COPY,
    STALE_IN_LIFETIME,
    STALE_IN_REGION,
    UNINITIALISED_DEVICE_READ,
    UNMAPPED_POINTER,
    UNWRITTEN_COPYOUT,
)
from accls.analysis.finding_types import (
    Category,
    Finding,
    FindingKind,
    Severity,
    finding,
)

__all__ = [
    "CATALOG",
    "Category",
    "Finding",
    "FindingKind",
    "Severity",
    "finding",
]


RACE = Category.RACE
ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CARRIED_DEPENDENCE = FindingKind(
    "ACC101",
    RACE,
    ERROR,
    "parallel loop over a loop-carried dependence",
    "`{directive}` runs the loop at line {line} in parallel, but {dep}",
)
"""A parallel loop carries a proved flow, anti or output dependence.

Why: iterations run in any order, so the value read depends on scheduling.
Example: `#pragma omp parallel for` over `a[i] = a[i-1] + 1;`.
"""

POSSIBLE_DEPENDENCE = FindingKind(
    "ACC102",
    RACE,
    WARNING,
    "cannot prove a parallel loop free of dependences",
    "`{directive}` runs the loop at line {line} in parallel, but the analysis "
    "cannot prove iterations independent: {dep}",
)
"""A parallel loop may carry a dependence that the exact tests cannot rule out.

Why: non-affine or indirect subscripts may make iterations touch the same element.
Example: `a[idx[i]] = a[i] + 1;` under `parallel for`.
"""

SHARED_SCALAR_WRITE = FindingKind(
    "ACC103",
    RACE,
    ERROR,
    "written scalar is shared",
    "`{var}` is written at line {write} by every thread of `{directive}` but is "
    "shared: {why}; {fix}",
)
"""A scalar written in a parallel loop is neither private nor a reduction.

Why: all threads write one location, so each reads another's value.
Example: `double t; #pragma omp parallel for` over `t = a[i]; b[i] = t * t;`.
"""

MISSING_REDUCTION = FindingKind(
    "ACC104",
    RACE,
    ERROR,
    "missing reduction clause",
    "`{var}` accumulates with `{op}` at line {write}{reads} in the parallel loop at "
    "line {line} but has no reduction clause; add `reduction({op}:{var})`",
)
"""A scalar updated as `s = s op e` in a parallel loop has no `reduction` clause.

Why: the updates race (or, if private, partial results are lost).
Example: `#pragma omp parallel for` over `sum += a[i];`.
"""

WRONG_REDUCTION = FindingKind(
    "ACC105",
    RACE,
    ERROR,
    "reduction operator does not match the update",
    "`reduction({clause}:{var})` at line {line}, but `{var}` is combined with "
    "`{op}` at line {write}; use `reduction({op}:{var})`",
)
"""The reduction operator in the clause differs from the update in the body.

Why: partial results are combined with the wrong operator.
Example: `reduction(+:m)` over `m = fmax(m, a[i]);`.
"""

MISSING_LASTPRIVATE = FindingKind(
    "ACC106",
    RACE,
    ERROR,
    "value used after the loop is not lastprivate",
    "`{var}` is written in the parallel loop at line {line} and read after it, but "
    "is not `lastprivate`: its value after the loop is undefined; add "
    "`lastprivate({var})`",
)
"""A scalar written in every iteration and read after an OpenMP loop is not lastprivate.

Why: private copies vanish at the end of the loop (and a shared one races).
Example: `#pragma omp parallel for private(t)` then `return t;` after the loop.
"""

EARLY_EXIT = FindingKind(
    "ACC107",
    Category.SYNTAX,
    ERROR,
    "early exit from a parallel loop",
    "`{exit}` at line {exit_line} leaves the loop at line {line}, which `{directive}` "
    "runs in parallel: the construct forbids it",
)
"""A `break`, `return` or `goto` leaves a loop associated with a parallel pragma.

Why: OpenMP rejects it (the loop must be in canonical form); OpenACC compilers
serialize or reject it. Example: `#pragma omp parallel for` over `if (a[i]) break;`.
"""

BAD_COLLAPSE = FindingKind(
    "ACC108",
    Category.SYNTAX,
    ERROR,
    "collapse over loops that cannot be collapsed",
    "`collapse({count})` at line {line}: {why}",
)
"""`collapse(n)` names more loops than are perfectly nested, or a non-rectangular nest.

Why: compilers reject imperfect nests; non-rectangular nests need OpenMP 5.0
and are rejected by OpenACC. Example: `collapse(2)` over `for (j = 0; j < i; j++)`.
"""

UNPROTECTED_UPDATE = FindingKind(
    "ACC109",
    RACE,
    WARNING,
    "indirect update without atomic",
    "`{ref}` at line {write} is updated through an indirect index in the parallel "
    "loop at line {line}; two iterations may hit one element: add `#pragma "
    "{dialect} atomic update` above it",
)
"""An update `h[idx[i]] += v` in a parallel loop is not inside `atomic`/`critical`.

Why: unless `idx` is a permutation, iterations update one element at once.
Example: a histogram `hist[bin[i]]++` under `parallel for`.
"""

NOWAIT_RACE = FindingKind(
    "ACC111",
    RACE,
    ERROR,
    "result of a nowait loop used without a barrier",
    "`{var}` is written at line {write} by the `nowait` loop at line {line} and used "
    "at line {use} "
    "by the next loop of the same parallel region with no barrier in between; "
    "remove `nowait` or add `#pragma omp barrier`",
)
"""A loop with `nowait` writes an array that the next worksharing loop reads.

Why: threads leave the first loop early and read elements others still write.
Example: `#pragma omp for nowait` filling `b`, then `#pragma omp for` reading `b[i+1]`.
"""

OUT_OF_EXTENT = FindingKind(
    "ACC113",
    RACE,
    ERROR,
    "access outside its declared extent",
    "`{ref}` at line {use}: {how}, {reach}, in the loop at line {line}, which "
    "`{directive}` runs in parallel",
)
"""A subscript of a multi-dimensional array leaves its row in a parallel loop.

Why: `x[i][j - 1]` at `j == 0` is `x[i - 1][M - 1]` in C; a test that compares
subscripts dimension by dimension sees no dependence between rows, but there is.
Example: `#pragma omp parallel for` over `x[i][j] = x[i][j - 1] + 1` with `j` from 0.
"""

UNKNOWN_CALL = FindingKind(
    "ACC110",
    RACE,
    INFO,
    "parallel loop calls a function with unknown effects",
    "the parallel loop at line {line} calls `{name}()` at line {call_line}, whose "
    "side effects are unknown: the analysis cannot check it for races",
)
"""A parallel loop calls a function the analysis cannot see or that writes globals.

Why: the call may write shared state; the analysis stays silent rather than guess.
Example: `#pragma omp parallel for` over `b[i] = update(a, i);` from another file.
"""

CARRIED_SCALAR_PRIVATIZED = FindingKind(
    "ACC112",
    Category.RESULT,
    ERROR,
    "scalar whose value flows between iterations is privatized",
    "`{var}` carries its value from one iteration to the next (its running value "
    "is read at line {read}), but {clause} on the loop at line {line} gives each "
    "thread its own copy, so the loop computes a different result; {fix}",
)
"""A privatizing or reduction clause names a scalar the loop reads before writing.

Why: a counter such as `t` in `tmp[t++]` needs the value the earlier iterations
left; `reduction(+:t)` starts each thread's copy at 0 and `private(t)` leaves it
uninitialised, so the loop reads wrong values although nothing races.
Example: `#pragma omp parallel for reduction(+:t)` over `re[i] = tmp[t++];`.
"""

TOO_LARGE_TO_CHECK = FindingKind(
    "ACC114",
    RACE,
    INFO,
    "loop too large to analyse here",
    "the `{directive}` loop at line {line} is too large to analyse here (past the "
    "dependence test's work budget): it was not checked for races",
)
"""A loop nest with a pragma needs more work than the dependence test's budget.

Why: the test compares every pair of array references, so a nest of thousands of
distinct references costs minutes; past a fixed budget of references, subscript
pairs and dependences it stops and says so instead of stalling the editor.
Example: a generated loop body of 10,000 statements, each with its own subscript.
"""

UNREADABLE_PRAGMA = FindingKind(
    "ACC128",
    Category.SYNTAX,
    WARNING,
    "pragma the checker cannot read",
    "`{pragma}` (line {line}): {problem}; the checker {effect}",
)
"""An OpenMP pragma with unbalanced text, an unknown clause, or a bad `depend` item.

Why: a compiler rejects or ignores what the checker cannot read, and the checker
must not guess what the pragma was meant to order. Example: `#pragma omp
parallel for private(` or `#pragma omp task depend(out: x + 1)`.
"""

SHORT_REDUCTION_SECTION = FindingKind(
    "ACC129",
    RACE,
    ERROR,
    "reduction section misses elements the loop updates",
    "`{clause}` over the loop at line {line} gives each thread a copy of "
    "`{section}` only, but `{ref}` (line {use}) {reach}: {why}",
)
"""A reduction over an array section the loop's updates reach outside of.

Why: only the section is privatized and combined; an update outside it lands
outside the thread's copy (past its end with gcc and clang, or in the shared
array with no reduction), so the sums are wrong. Example: `#pragma omp parallel
for reduction(+:c[0:5])` over `for (j = 0; j < 10; j++) c[j] += v[i];`.
"""


DEFAULT_NONE = FindingKind(
    "ACC301",
    Category.PORTABILITY,
    INFO,
    "worksharing loop relies on implicit data sharing",
    "the `{directive}` loop at line {line} writes scalars with default sharing; "
    "`default(none)` makes every variable's sharing explicit",
)
"""An OpenMP parallel loop writes scalars without `default(none)`.

Why: explicit sharing catches the forgotten `private` that ACC103 reports.
Example: `#pragma omp parallel for private(t)` becomes `... default(none)
shared(a, b, n) private(t)`.
"""

CATALOG: tuple[FindingKind, ...] = (
    CARRIED_DEPENDENCE,
    POSSIBLE_DEPENDENCE,
    SHARED_SCALAR_WRITE,
    MISSING_REDUCTION,
    WRONG_REDUCTION,
    MISSING_LASTPRIVATE,
    EARLY_EXIT,
    BAD_COLLAPSE,
    UNPROTECTED_UPDATE,
    UNKNOWN_CALL,
    NOWAIT_RACE,
    CARRIED_SCALAR_PRIVATIZED,
    OUT_OF_EXTENT,
    *CONCURRENCY_KINDS,
    UNREADABLE_PRAGMA,
    SHORT_REDUCTION_SECTION,
    TOO_LARGE_TO_CHECK,
    STALE_HOST_COPY,
    UNINITIALISED_DEVICE_READ,
    UNMAPPED_POINTER,
    NEEDLESS_COPY,
    SHORT_SECTION,
    LOST_HOST_WRITES,
    STALE_IN_REGION,
    MAPPED_TWICE,
    UNWRITTEN_COPYOUT,
    STALE_IN_LIFETIME,
    DEFAULT_NONE,
    REPEATED_TRANSFERS,
)
"""Every finding kind, in code order."""
