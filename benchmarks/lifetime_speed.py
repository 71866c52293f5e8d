"""Speed of the lifetime action: resolving it with its compile check on a big file.

    .venv/bin/python benchmarks/lifetime_speed.py [--lines 3000] [--runs 5]

Generates a file of about `--lines` lines: `--kernels` static kernel functions
(vector updates on pointer parameters), a `main` that allocates the vectors,
calls every kernel in a time loop, reads a probe every few steps and frees them,
and unrelated functions (an offloadable loop each) filling the rest. Times what
the language server does, on the slice of `main` (the buffer with every function
`main` does not call blanked, as listing analyses it): the slice's analysis, the
lifetime's proposal, then resolve (`lifetime_problem`: the race re-check and the
compile check of the whole edit: cold, and with the unedited slice already
compiled, as after any other action of the version). `--kernels 0`
makes every function a kernel of `main` (the slice is the whole file). Prints the
figures; never fails because something is slow.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))

from accls.analysis import AnalysisOptions, analyze_text  # noqa: E402
from accls.frontend.incremental import IncrementalTree  # noqa: E402
from accls.pipeline import lifetime_problem  # noqa: E402
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file  # noqa: E402
from accls.suggest.lifetimes import propose_lifetimes  # noqa: E402
from accls.validation import CompilerSettings, edit_compiles  # noqa: E402

_KERNEL = """\
static void k{k}(int n, double a, const double *restrict x, double *restrict y)
{{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i] * {c};
}}

"""


_OTHER = """\
void other{k}(int n, double *restrict z)
{{
    for (int i = 0; i < n; i++)
        z[i] = z[i] * {c} + 1.0;
}}

"""


def generate(lines: int, called: int = 0) -> str:
    """A file of about `lines` lines; `called` kernels (0: all) in one owner."""
    total = max(1, (lines - 40) // 6)
    count = called or total
    kernels = "".join(_KERNEL.format(k=k, c=0.5 + k % 5 * 0.1) for k in range(count))
    kernels += "".join(
        _OTHER.format(k=k, c=0.5 + k % 3 * 0.1) for k in range(total - count)
    )
    calls = "".join(
        f"        k{k}(n, 0.{k % 9 + 1}, {'u' if k % 2 else 'v'}, "
        f"{'v' if k % 2 else 'u'});\n"
        for k in range(count)
    )
    return (
        "#include <stdio.h>\n#include <stdlib.h>\n\n"
        + kernels
        + "int main(void)\n{\n    int n = 100000;\n"
        "    double *u = malloc(sizeof(double) * n);\n"
        "    double *v = malloc(sizeof(double) * n);\n\n"
        "    if (u == NULL || v == NULL)\n        return 1;\n"
        "    for (int i = 0; i < n; i++) {\n        u[i] = i % 7;\n"
        "        v[i] = 1.0;\n    }\n"
        "    for (int t = 0; t < 10; t++) {\n" + calls + "        if (t % 5 == 0) {\n"
        '            printf("%f\\n", u[3]);\n        }\n    }\n'
        '    printf("%f %f\\n", u[0], v[1]);\n    free(u);\n    free(v);\n'
        "    return 0;\n}\n"
    )


def main(argv: list[str] | None = None) -> int:
    """Time the stages and print them."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--kernels", type=int, default=12)
    ap.add_argument("--cc", default="gcc")
    args = ap.parse_args(argv)
    whole = generate(args.lines, args.kernels)
    data = whole.encode()
    piece = IncrementalTree(data).function_slice(data.index(b"int main(void)"))
    assert piece is not None
    text = piece.text
    opts = SuggestOptions(Dialect.OPENACC, Target.GPU)
    started = time.perf_counter()
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    suggestions = suggest_file(analysis, opts)
    analysed = time.perf_counter() - started
    started = time.perf_counter()
    lifetimes = propose_lifetimes(analysis, suggestions, opts)
    proposed = time.perf_counter() - started
    if not lifetimes:
        print("no lifetime proposed: nothing to resolve", file=sys.stderr)
        return 1
    compiler = CompilerSettings(cc=args.cc)
    cold: list[float] = []
    warm: list[float] = []
    why = ""
    for run in range(args.runs):
        # A comment at the end makes each run's units new to the compile cache.
        fresh = f"{text}/* cold {run} */\n"
        started = time.perf_counter()
        why = lifetime_problem(
            fresh, "big.c", analysis, suggestions, lifetimes, compiler
        )
        cold.append(time.perf_counter() - started)
        # Warm: the unedited slice was compiled before (each action of a version
        # compiles it as its baseline); the edited one is new.
        fresh = f"{text}/* warm {run} */\n"
        edit_compiles(fresh, fresh, "big.c", compiler, "openacc")
        started = time.perf_counter()
        why = lifetime_problem(
            fresh, "big.c", analysis, suggestions, lifetimes, compiler
        )
        warm.append(time.perf_counter() - started)
    print(
        f"file: {whole.count(chr(10))} lines; the slice of main: "
        f"{len(piece.kept)} functions, {len(suggestions)} loops"
    )
    print(f"slice analysis + suggestions (listing): {analysed * 1000:.0f} ms")
    print(f"propose lifetimes: {proposed * 1000:.1f} ms ({lifetimes[0].title[:60]}...)")
    for kind, times in (("cold", cold), ("warm baseline", warm)):
        print(
            f"resolve, {kind} (race re-check + compile check), p50 of {args.runs}: "
            f"{statistics.median(times) * 1000:.0f} ms "
            f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})"
        )
    print(f"verdict: {why or 'checks out'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
