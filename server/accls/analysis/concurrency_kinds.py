"""Finding kinds of the OpenMP concurrency model: races between whole statements."""

from __future__ import annotations

from accls.analysis.finding_types import Category, FindingKind, Severity

__all__ = [
    "ASYNC_RACE",
    "CALLEE_STATE_RACE",
    "CONCURRENCY_KINDS",
    "EXCLUSION_RACE",
    "PHASE_RACE",
    "POSSIBLE_RACE",
    "TASK_RACE",
    "TEAMS_CRITICAL",
    "TEAMS_REPLICATED",
]

_PAIR = (
    "`{first}` ({first_access}, line {first_line}) and `{second}` ({second_access}, "
    "line {second_line}) {overlap} in the `{region}` region at line {line}: {rule}"
)

PHASE_RACE = FindingKind(
    "ACC120",
    Category.RACE,
    Severity.ERROR,
    "threads of a parallel region race between barriers",
    "data race: " + _PAIR + "; {fix}",
)
"""Two accesses in one barrier phase of a `parallel` region, run by different threads.

Why: between two barriers the threads of a team run freely; code outside worksharing
is run by every thread, `master`/`masked` and `single nowait` end without a barrier.
Example: `#pragma omp parallel { x = omp_get_thread_num(); }` with a shared `x`.
"""

EXCLUSION_RACE = FindingKind(
    "ACC121",
    Category.RACE,
    Severity.ERROR,
    "mutual exclusion that does not exclude",
    "data race: " + _PAIR + "; {fix}",
)
"""Accesses guarded by different `critical` names or locks, or atomic mixed with plain.

Why: only the same critical name or the same lock excludes; an `atomic` access does
not order a plain access to the same location. Example: `critical(a) x++;` in one
place and `critical(b) x++;` in another.
"""

TASK_RACE = FindingKind(
    "ACC122",
    Category.RACE,
    Severity.ERROR,
    "task races with its creator or a sibling",
    "data race: " + _PAIR + "; {fix}",
)
"""An explicit task may run while its creator or a sibling task touches the same data.

Why: a task runs any time between its creation and the next `taskwait` (children
only), the end of its `taskgroup` or a barrier; `depend` orders sibling tasks only.
Example: `#pragma omp task x = 1;` followed by `y = x;` without `taskwait`.
"""

POSSIBLE_RACE = FindingKind(
    "ACC123",
    Category.RACE,
    Severity.WARNING,
    "possible race the concurrency model cannot decide",
    "possible data race: " + _PAIR + "; {undecided}",
)
"""Two accesses may happen in parallel, but what would decide the race is unknown.

Why: a lock passed through a pointer, hand-made synchronisation with `flush`, or
subscripts the analysis cannot compare leave the verdict open.
Example: `omp_set_lock(lk)` through a pointer around `x++`.
"""

CALLEE_STATE_RACE = FindingKind(
    "ACC124",
    Category.RACE,
    Severity.ERROR,
    "called function's static or global state races",
    "data race: `{var}` ({what}) is written by `{callee}` (line {write}){also}, "
    "which "
    "{who} at line {call} calls in the `{region}` region at line {line}; {rule}; "
    "{fix}",
)
"""A function called from a parallel region writes a `static` local or a global.

Why: a `static` local is one variable shared by every thread that calls the function.
Example: `int next(void) { static int n; return n++; }` called in `omp parallel`.
"""

TEAMS_REPLICATED = FindingKind(
    "ACC125",
    Category.RACE,
    Severity.ERROR,
    "every team or gang runs the code outside `distribute` or a gang loop",
    "data race between {who}: `{var}` is written at line {write} by every {one} of "
    "`{directive}` (line {line}) outside {split}: each {one} runs that code, so "
    "{meet}; {fix}",
)
"""Code of a `teams` region outside `distribute`, or of an OpenACC `parallel` region
outside a gang loop, writes data shared by the teams or gangs.

Why: `teams` starts a league of teams and `parallel` a set of gangs; each runs
the region's code, and only `distribute` (or `loop`) or a gang-partitioned `loop`
divides a loop's iterations between them. Example: `#pragma omp target teams`
over `for (i...) a[i] += 1;`.
"""

TEAMS_CRITICAL = FindingKind(
    "ACC126",
    Category.RACE,
    Severity.ERROR,
    "`critical` does not exclude across teams",
    "data race between teams: `{var}` is written at line {write} inside the "
    "`critical` at line {critical}, but `critical` excludes only the threads of "
    "one team, and every team of `{directive}` (line {line}) runs it; use "
    "`atomic` or a `reduction` on the teams construct",
)
"""A `critical` construct in a `teams` region guards data that all teams share.

Why: mutual exclusion of `critical` holds within a contention group, and each
team is its own contention group. Example: `#pragma omp target teams` with
`#pragma omp parallel` and `#pragma omp critical` over `count += 1;`.
"""

ASYNC_RACE = FindingKind(
    "ACC127",
    Category.RACE,
    Severity.ERROR,
    "`async` work used before a `wait`",
    "data race: `{var}` is {access} at line {use} {who} while the `async` work of "
    "line {line} (queue `{queue}`) may still be running: no `wait` orders them; "
    "{fix}",
)
"""The host, or another queue, touches data of `async` OpenACC work before a `wait`.

Why: `async(q)` returns at once; its kernels and copies run on queue `q` until a
`wait` covers `q`, and queues are not ordered with each other. Example:
`#pragma acc parallel loop async(1) copyout(a[0:n])` followed by `x = a[0];`.
"""

CONCURRENCY_KINDS = (
    PHASE_RACE,
    EXCLUSION_RACE,
    TASK_RACE,
    POSSIBLE_RACE,
    CALLEE_STATE_RACE,
    TEAMS_REPLICATED,
    TEAMS_CRITICAL,
    ASYNC_RACE,
)
"""The kinds in code order."""
