"""Finding kinds of device data: what the data clauses move between host and device."""

from __future__ import annotations

from accls.analysis.finding_types import Category, FindingKind, Severity

__all__ = [
    "LOST_HOST_WRITES",
    "MAPPED_TWICE",
    "NEEDLESS_COPY",
    "REPEATED_TRANSFERS",
    "SHORT_SECTION",
    "STALE_HOST_COPY",
    "STALE_IN_LIFETIME",
    "STALE_IN_REGION",
    "UNINITIALISED_DEVICE_READ",
    "UNMAPPED_POINTER",
    "UNWRITTEN_COPYOUT",
]

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

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


MAPPED_TWICE = FindingKind(
    "ACC208",
    Category.DATA,
    ERROR,
    "one object mapped under two names in one construct",
    "`{var}` and `{other}` point into one object ({why}) and this construct maps "
    "both with overlapping sections: OpenACC stops at run time (partially present) "
    "and OpenMP leaves it unspecified; map the object once through one name",
)
"""Two data clauses of one construct map overlapping parts of one object.

Why: the runtime finds the storage partly present under the first name.
Example: `double *a = base + 10;` then `#pragma acc parallel loop copyin(a[0:n],
base[0:n])`.
"""


UNWRITTEN_COPYOUT = FindingKind(
    "ACC209",
    Category.DATA,
    ERROR,
    "copyout moves back elements the device never writes",
    "`{clause}` copies back {moved}, but the loop at line {line} never writes "
    "{missed}: the host's values there are replaced by uninitialised device memory; "
    "use `copy`, or a section of the elements the loop writes",
)
"""A `copyout` section holds elements that no write of the loop can reach.

Why: at the end of the construct the whole section comes back to the host, so the
host's values of the elements the device never wrote are lost.
Example: `#pragma acc parallel loop copyout(b[0:n])` over `b[i] = a[i]` for `i < n - 1`.
"""


STALE_IN_LIFETIME = FindingKind(
    "ACC210",
    Category.DATA,
    WARNING,
    "one side reads what the other changed while `enter data` holds the array",
    "the {reader} reads `{var}` at line {read}, but the {writer} wrote it at line "
    "{write} while `{region}` (line {line}) keeps it on the device, and no "
    "`{update}({var})` between brings it over, so the {reader} reads its old copy",
)
"""Between `enter data` and `exit data` the host and the device each hold a copy.

Why: a host loop reading the array after a kernel wrote it (no `update self`
between) sees the values from before the kernel; a kernel reading it after the
host wrote it (no `update device`) computes with the device's old values.
Example: `enter data create(a)`, a host loop filling `a`, then a kernel reading it.
"""
