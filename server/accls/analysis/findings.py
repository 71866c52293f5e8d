"""The catalog of finding kinds `accls check` reports for pragmas already written."""

from __future__ import annotations

from accls.analysis.concurrency_kinds import CONCURRENCY_KINDS
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
    "`{var}` accumulates with `{op}` at line {write} in the parallel loop at line "
    "{line} but has no reduction clause; add `reduction({op}:{var})`",
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

STALE_HOST_COPY = FindingKind(
    "ACC201",
    Category.DATA,
    ERROR,
    "array written on the device is only copied in",
    "`{var}` is written on the device at line {write} but its data clause "
    "`{clause}` (line {clause_line}) never copies it back: {after}",
)
"""An array the device writes is only copied in, so the host keeps stale data.

Why: the results are discarded when the region ends.
Example: `#pragma acc parallel loop copyin(b)` over `b[i] = 2 * a[i];`.
"""

UNINITIALISED_DEVICE_READ = FindingKind(
    "ACC202",
    Category.DATA,
    ERROR,
    "array read on the device is never copied in",
    "`{var}` is read on the device at line {read} before it is written there, but "
    "its data clause `{clause}` (line {clause_line}) does not copy it in",
)
"""An array read before it is written on the device has only `copyout`/`create`.

Why: the device reads uninitialised memory.
Example: `#pragma acc parallel loop copyout(a)` over `a[i] = a[i] + 1;`.
"""

UNMAPPED_POINTER = FindingKind(
    "ACC203",
    Category.PORTABILITY,
    WARNING,
    "pointer used in an offloaded loop has no data clause",
    "`{var}` is a pointer used at line {use} in the offloaded loop at line {line} "
    "but no data clause in this file names it: {why}",
)
"""A pointer dereferenced on the device appears in no data clause in the file.

Why: OpenMP maps it as a zero-length section (a device fault); OpenACC relies on the
compiler guessing the extent. Example: `#pragma omp target teams distribute parallel
for` over `a[i] = 0;` with `double *a` and no `map`.
"""

NEEDLESS_COPY = FindingKind(
    "ACC204",
    Category.PERFORMANCE,
    INFO,
    "array copied back but never written",
    "`{var}` is only read on the device but `{clause}` (line {clause_line}) copies "
    "it back to the host; `{better}` suffices",
)
"""An array with `copy`/`map(tofrom:)` is never written on the device.

Why: the copy back to the host is wasted transfer time.
Example: `#pragma acc parallel loop copy(a)` over `b[i] = a[i];`.
"""

SHORT_SECTION = FindingKind(
    "ACC205",
    Category.DATA,
    ERROR,
    "array section smaller than the accessed range",
    "`{clause}` moves {moved} but the loop at line {line} {verb} {accessed} "
    "(`{ref}`), {side} the section",
)
"""A data clause moves a section that provably misses elements the loop touches.

Why: the device reads or writes outside the mapped memory: garbage, a fault, or lost
results. Example: `copyin(a[0:n])` over `b[i] = a[i + 1];` for `i < n`.
"""

LOST_HOST_WRITES = FindingKind(
    "ACC206",
    Category.DATA,
    WARNING,
    "device copy overwrites host writes",
    "`{copy}` (line {line}) copies the device's `{var}` over the host's, but the "
    "host wrote `{var}` at line {write} after the device got it ({how}); add "
    "`{update}({var})` after that write, or offload it",
)
"""A copy back (`exit data copyout`, `update self`) replaces host writes made after
the device got the array.

Why: the host's results are lost. A lifetime goes stale this way when a function
it relied on as a kernel runs on the host again. Example: `enter data copyin(u)`,
`scale(n, u)` with no offloaded loop, `exit data copyout(u)`.
"""

REPEATED_TRANSFERS = FindingKind(
    "ACC302",
    Category.PERFORMANCE,
    INFO,
    "transfers repeated by an enclosing sequential loop",
    "the offloaded loop at line {line} runs once per iteration of the sequential "
    "loop at line {outer}, and each launch moves {bytes} (`{clauses}`) against "
    "{flops}; hoist a `{region}` around the loop at line {outer}",
)
"""An offloaded loop with copy clauses sits inside a sequential host loop.

Why: every outer iteration moves the arrays to the device and back, which usually
costs more than the computation. Example: `for (t...)` around `#pragma acc parallel
loop copy(a[0:n])`.
"""

STALE_IN_REGION = FindingKind(
    "ACC207",
    Category.DATA,
    WARNING,
    "one side reads what the other changed inside a data region",
    "the {reader} reads `{var}` at line {read}, but the {writer} wrote it at line "
    "{write} inside `{region}` (line {line}) and no `{update}({var})` between "
    "brings it over, so the {reader} reads its old copy",
)
"""Inside a structured data region the host and the device each hold a copy.

Why: a host read after a kernel wrote the array (no `update self` between), or a
kernel read after the host wrote it (no `update device`), sees the old values.
Example: `acc data copy(a)` around a kernel writing `a[i]`, then `printf("%f",
a[3])` inside the region.
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
    TOO_LARGE_TO_CHECK,
    STALE_HOST_COPY,
    UNINITIALISED_DEVICE_READ,
    UNMAPPED_POINTER,
    NEEDLESS_COPY,
    SHORT_SECTION,
    LOST_HOST_WRITES,
    STALE_IN_REGION,
    DEFAULT_NONE,
    REPEATED_TRANSFERS,
)
"""Every finding kind, in code order."""
