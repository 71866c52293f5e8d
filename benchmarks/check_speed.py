"""`accls check` speed on a 5,000-line OpenMP file with about 500 pragmas.

    python benchmarks/check_speed.py [--lines N] [--runs N]

The file is made of parallel regions of the kinds the concurrency model follows:
tasks with `depend`, `taskwait` and `taskgroup`, `single`/`master`, `critical`,
locks, barriers and worksharing loops. Prints the median and best wall time of
`check_file` over the runs and the findings per code; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "server")]

from accls.analysis.checks import check_file  # noqa: E402

_REGION = """
double region_{k}(int n, double *restrict a, double *restrict b, omp_lock_t *locks) {{
  double sum = 0.0, best = 0.0, shared_{k} = 0.0;
  int count = 0;
  omp_lock_t lock;
  omp_init_lock(&lock);
  #pragma omp parallel
  {{
    int me = omp_get_thread_num();
    double mine = 0.0;
    #pragma omp for nowait
    for (int i = 0; i < n; i++)
      a[i] = b[i] * {k}.0;
    #pragma omp barrier
    #pragma omp single
    {{
      #pragma omp task depend(out: best)
      for (int i = 0; i < n; i++)
        if (a[i] > best)
          best = a[i];
      #pragma omp task depend(in: best)
      shared_{k} = best + 1.0;
      #pragma omp taskwait
      #pragma omp taskgroup
      {{
        #pragma omp task
        {{
          #pragma omp task
          count = count + {k};
        }}
      }}
    }}
    #pragma omp master
    sum = sum + shared_{k};
    for (int t = 0; t < 4; t++) {{
      mine = mine + a[(me + t) % n];
      #pragma omp barrier
    }}
    omp_set_lock(&lock);
    sum = sum + mine;
    omp_unset_lock(&lock);
    #pragma omp critical(sum_{k})
    count = count + 1;
    #pragma omp atomic
    sum += 1.0;
  }}
  omp_destroy_lock(&lock);
  return sum + best + count;
}}
"""


_DEVICE = """
double device_{k}(int n, double *a, double *b) {{
  double s = 0.0;
  int hits = 0;
  #pragma omp target teams map(tofrom: a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = a[i] + {k}.0;
  #pragma omp target teams distribute parallel for reduction(+:s) map(to: a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  #pragma omp target teams distribute parallel for map(to: a[0:n]) map(tofrom: hits)
  for (int i = 0; i < n; i++) {{
    #pragma omp critical
    hits = hits + 1;
  }}
  #pragma acc parallel loop async(1) copy(b[0:n])
  for (int i = 0; i < n; i++)
    b[i] = 2.0 * b[i];
  #pragma acc parallel loop async(2) copy(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = a[i] + 1.0;
  #pragma acc wait(1)
  s += b[0];
  return s + a[0] + hits;
}}
"""


_PLAIN = """
void smooth_{k}(int n, double *restrict out, const double *restrict in) {{
  for (int i = 1; i < n - 1; i++) {{
    double left = in[i - 1];
    double right = in[i + 1];
    out[i] = 0.25 * left + 0.5 * in[i] + 0.25 * right;
  }}
}}
"""


def generated(lines: int, pragmas: int, device: bool = False) -> str:
    """About `lines` lines: parallel regions up to `pragmas`, then serial code.

    With `device`, every other region is one of target teams and OpenACC queues.
    """
    parts = ["#include <omp.h>\n"]
    k = 0
    used = 0
    while True:
        region = _DEVICE if device and k % 2 else _REGION
        if used + region.count("#pragma") > pragmas:
            break
        parts.append(region.format(k=k))
        used += region.count("#pragma")
        k += 1
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(_PLAIN.format(k=k))
        k += 1
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Print the timing report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--pragmas", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--device", action="store_true", help="mix in target teams and acc async"
    )
    args = parser.parse_args(argv)
    text = generated(args.lines, args.pragmas, args.device)
    pragmas = text.count("#pragma omp") + text.count("#pragma acc")
    tasks = text.count("#pragma omp task ") + text.count("#pragma omp task\n")
    times: list[float] = []
    findings: collections.Counter[str] = collections.Counter()
    for _ in range(args.runs):
        start = time.perf_counter()
        items = check_file(text, "speed.c")
        times.append(time.perf_counter() - start)
        findings = collections.Counter(f.code for f in items)
    print(f"file: {text.count(chr(10))} lines, {pragmas} pragmas, {tasks} tasks")
    print(
        f"accls check: median {statistics.median(times):.3f} s, "
        f"best {min(times):.3f} s over {args.runs} runs (target: under 2 s)"
    )
    print("findings:", dict(sorted(findings.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
