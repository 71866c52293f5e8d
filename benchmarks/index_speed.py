"""Speed of the workspace index on a generated 20-file, 20,000-line project.

    .venv/bin/python benchmarks/index_speed.py [--files 20] [--lines 1000]

Prints the cold index time, the warm (cached) time, re-summarising one edited
function (p50), the code-action listing (p50) with the index loaded, and the
index's memory. Reports figures only: it never fails because something is slow.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from accls.project import ProjectIndex
from accls.server.documents import Document
from accls.server.suggestions import OFFERS, analyze_buffer, listed
from accls.settings import Settings

_HEADER = "#include <math.h>\n"


def _unit(k: int, files: int, lines: int) -> str:
    """File k: kernels that call the helpers of file k+1, and helpers of its own."""
    nxt = (k + 1) % files
    out = [_HEADER, f"int calls_{k};"]
    out += [
        f"void fill_{nxt}(double x, double *tmp);",
        f"double shade_{nxt}(double v);",
        f"void count_{nxt}(int i);",
    ]
    out += [
        f"void fill_{k}(double x, double *tmp) {{",
        "  for (int q = 0; q < 5; q++) tmp[q] = x * q + 1.0;",
        "}",
        f"double shade_{k}(double v) {{ return sqrt(v * v + 1.0); }}",
        f"void count_{k}(int i) {{ calls_{k} += i; }}",
    ]
    j = 0
    while len(out) < lines:
        out += [
            f"void kernel_{k}_{j}(int n, double *restrict a, double *restrict b) {{",
            "  for (int i = 0; i < n; i++) {",
            "    double tmp[5];",
            f"    fill_{nxt}(a[i], tmp);",
            f"    b[i] = tmp[0] + shade_{nxt}(tmp[4]) * {j}.0;",
            "  }",
            "  for (int i = 1; i < n; i++) {",
            "    a[i] = a[i - 1] + b[i];",
            "  }",
            "  for (int i = 0; i < n; i++) {",
            f"    count_{nxt}(i);",
            "    b[i] *= 0.5;",
            "  }",
            "  for (int i = 0; i < n; i++)",
            "    for (int m = 0; m < 8; m++)",
            "      a[i] += b[i] * m;",
            "}",
            "",
        ]
        j += 1
    return "\n".join(out) + "\n"


def _p50(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main(argv: list[str] | None = None) -> int:
    """Generate the project, index it cold and warm, edit, list; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--lines", type=int, default=1000, help="lines per file")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        root = Path(work, "proj")
        root.mkdir()
        texts = {}
        for k in range(args.files):
            texts[k] = _unit(k, args.files, args.lines)
            (root / f"unit{k}.c").write_text(texts[k])
        total = sum(t.count("\n") for t in texts.values())
        cache = str(Path(work, "cache"))

        start = time.perf_counter()
        cold = ProjectIndex(str(root), cache_dir=cache)
        cold.build()
        cold_s = time.perf_counter() - start

        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        start = time.perf_counter()
        warm = ProjectIndex(str(root), cache_dir=cache)
        warm.build()
        warm_s = time.perf_counter() - start
        warm_parses = warm.parses
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        memory = sum(s.size_diff for s in after.compare_to(before, "filename"))

        edited = root / "unit3.c"
        resummarise: list[float] = []
        warm.update(str(edited))  # the first update of a cached file parses it whole
        for run in range(args.runs):
            text = texts[3].replace(
                "tmp[q] = x * q + 1.0;", f"tmp[q] = x * q + {run}.5;"
            )
            start = time.perf_counter()
            warm.update(str(edited), text)
            resummarise.append(time.perf_counter() - start)

        path = str(root / "unit5.c")
        program = warm.program_for(path)
        doc = Document(Path(path).as_uri(), 1, texts[5], "utf-16")
        offset = texts[5].index("kernel_5_7")
        settings = Settings()
        listing: list[float] = []
        for run in range(args.runs):
            doc.apply(run + 2, [])
            piece = doc.function_slice(offset)
            assert piece is not None
            start = time.perf_counter()
            analysed = analyze_buffer(piece.text, path, (), settings, None, program)
            for option in OFFERS:
                listed(analysed, option)
            listing.append(time.perf_counter() - start)
        parallel = sum(
            1
            for s in listed(analysed, OFFERS[1])
            if s.pragma is not None and s.loop.line < texts[5].count("\n")
        )

    print(f"project: {args.files} files, {total} lines")
    print(f"cold index: {cold_s:.2f} s ({cold.parses} parses)")
    print(f"warm index (cache): {warm_s * 1000:.0f} ms ({warm_parses} parses)")
    print(f"re-summarise one edited function: p50 {_p50(resummarise):.1f} ms")
    print(f"code-action listing with the index: p50 {_p50(listing):.1f} ms")
    print(
        f"index memory: {memory / 1024:.0f} KiB ({len(program.definitions)} summaries)"
    )
    print(f"OpenMP pragmas in the listed function: {parallel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
