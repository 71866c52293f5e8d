"""The applications of `apps.py`: where they are, how they build, how they run.

Flags come from each application's Makefile (the GNU branch); run options are
small inputs chosen so that a run takes about a second on one core.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# A `{threads}` argument is replaced by the run's thread count (XSBench and RSBench
# call omp_set_num_threads with their -t option, which would override
# OMP_NUM_THREADS).
THREADS = "{threads}"

# CoMD's Makefile writes CoMD_info.h with the build's host and flags.
_COMD_INFO = "".join(
    f'#define CoMD_{key} "accls"\n'
    for key in (
        "VARIANT HOSTNAME KERNEL_NAME KERNEL_RELEASE PROCESSOR COMPILER "
        "COMPILER_VERSION CFLAGS LDFLAGS"
    ).split()
)

# Lines that report what a program computed, not how long it took.
_XS_VERIFY = r"^Verification checksum:"
_COMD_VERIFY = r"^\s+\d+\s+\d+\.\d+\s+-?\d+\.\d+\s+-?\d+\.\d+\s+-?\d+\.\d+\s+\d"
_AMR_VERIFY = r"^\d+ var \d+ sum |^\s*(Number of blocks|Total blocks)"

_MINIAMR_OBJECT = (
    "--num_objects 1 --object 2 0 -1.1 -1.1 -1.1 0.030 0.030 0.030 "
    "1.5 1.5 1.5 0.0 0.0 0.0"
).split()


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One command line of an application and how to read its answer."""

    args: tuple[str, ...]
    verify: str  # regex: stdout lines whose numbers must agree with the serial run
    # Columns (0-based, of the numbers on a matching line) that are timings.
    ignore_columns: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class App:
    """A whole application: its folder in the data set and its build."""

    name: str
    folder: str  # <owner>+<name>/<path> under the materialised data set
    # C files to build, relative to `folder`; () means every *.c in it.
    sources: tuple[str, ...] = ()
    cc: str = "gcc"
    cflags: tuple[str, ...]
    ldflags: tuple[str, ...] = ("-lm",)
    generated: tuple[tuple[str, str], ...] = ()  # (file, text) a Makefile writes
    runs: tuple[Run, ...]
    quick: int = 1  # how many of `runs` --quick keeps

    def source_names(self, folder: Path) -> list[str]:
        """The C files to strip, suggest for and build, relative to the folder."""
        if self.sources:
            return list(self.sources)
        generated = {name for name, _ in self.generated}
        return sorted(p.name for p in folder.glob("*.c") if p.name not in generated)


def _xs_runs(size: tuple[str, ...]) -> tuple[Run, ...]:
    base = ("-t", THREADS, "-s", "small", *size)
    return tuple(
        Run(args=(*base, *extra), verify=_XS_VERIFY)
        for extra in (
            ("-m", "event", "-l", "50000"),
            ("-m", "history", "-p", "2000", "-l", "34"),
            ("-m", "event", "-l", "50000", "-k", "1"),
            ("-m", "event", "-l", "50000", "-G", "nuclide"),
            ("-m", "event", "-l", "50000", "-G", "hash", "-h", "1000"),
        )
    )


_XS_FLAGS = ("-std=gnu99", "-O2", "-fopenmp")
_COMD_RUNS = tuple(
    Run(args=args, verify=_COMD_VERIFY, ignore_columns=(6,))
    for args in (
        ("-x", "6", "-y", "6", "-z", "6", "-N", "20", "-n", "5"),
        ("-x", "5", "-y", "7", "-z", "4", "-N", "10", "-n", "2", "-T", "3000"),
    )
)
_AMR_RUNS = tuple(
    Run(args=args, verify=_AMR_VERIFY)
    for args in (
        (
            "--num_tsteps 6 --nx 8 --ny 8 --nz 8 --init_x 2 --init_y 2 "
            "--init_z 2 --num_refine 2 --checksum_freq 1 --report_diffusion "
            "--num_vars 4"
        ).split()
        + _MINIAMR_OBJECT,
        (
            "--num_tsteps 4 --nx 6 --ny 6 --nz 6 --num_refine 2 --max_blocks 2000 "
            "--checksum_freq 2 --report_diffusion --num_vars 3 --stencil 27 "
            "--uniform_refine 1"
        ).split(),
    )
)

APPS: tuple[App, ...] = (
    App(
        name="XSBench",
        folder="ANL-CESAR+XSBench/openmp-threading",
        cflags=(*_XS_FLAGS, "-DOPENMP"),
        runs=_xs_runs(("-g", "1000")),
    ),
    App(
        name="XSBench-offload",
        folder="ANL-CESAR+XSBench/openmp-offload",
        cflags=_XS_FLAGS,
        runs=tuple(
            Run(args=r.args[2:], verify=r.verify) for r in _xs_runs(("-g", "1000"))
        )[:1],
    ),
    App(
        name="RSBench",
        folder="ANL-CESAR+RSBench/openmp-threading",
        cflags=_XS_FLAGS,
        runs=(
            Run(
                args=("-t", THREADS, "-s", "small", "-m", "event", "-l", "50000"),
                verify=_XS_VERIFY,
            ),
            Run(
                args=("-t", THREADS, "-s", "small", "-p", "2000", "-l", "34"),
                verify=_XS_VERIFY,
            ),
            Run(
                args=("-t", THREADS, "-s", "small", "-m", "event", "-l", "20000", "-d"),
                verify=_XS_VERIFY,
            ),
        ),
    ),
    App(
        name="RSBench-offload",
        folder="ANL-CESAR+RSBench/openmp-offload",
        cflags=_XS_FLAGS,
        runs=(
            Run(args=("-s", "small", "-m", "event", "-l", "50000"), verify=_XS_VERIFY),
        ),
    ),
    App(
        name="CoMD",
        folder="ECP-copa+CoMD/src-openmp",
        cflags=("-std=c99", "-O2", "-fopenmp", "-DDOUBLE"),
        generated=(("CoMD_info.h", _COMD_INFO),),
        runs=_COMD_RUNS,
    ),
    App(
        name="miniAMR",
        folder="Mantevo+miniAMR/openmp",
        cc="mpicc",
        cflags=("-I.", "-O2", "-fopenmp"),
        runs=_AMR_RUNS,
    ),
    App(
        name="miniAMR-ref",
        folder="Mantevo+miniAMR/ref",
        cc="mpicc",
        cflags=("-I.", "-O2", "-fopenmp"),
        runs=_AMR_RUNS,
    ),
)

# Parallel Research Kernels (dev-sources): one program per folder, built with the
# repository's common files; their make.defs set the -D values below.  The data
# set holds only files with pragmas, so `wtime()` (common/wtime.c) is supplied.
_PRK_WTIME = "#include <omp.h>\ndouble wtime(void) { return omp_get_wtime(); }\n"
# The kernels check, in what was a parallel region, that omp_get_num_threads()
# equals their thread-count argument. Stripped, that check runs serially and
# fails for any count above 1; outside a parallel region this stand-in answers
# the count a region would get, inside one the real team size.
_PRK_THREADS = (
    "#include <omp.h>\n"
    "int omp_get_num_threads(void) {\n"
    "  return omp_in_parallel() ? omp_get_team_size(omp_get_level())\n"
    "                           : omp_get_max_threads();\n"
    "}\n"
)
_PRK_VERIFY = r"Solution validates|ERROR|[Ee]rror|[Cc]hecksum"
_PRK_KERNELS = (
    ("Nstream", "nstream.c", "5 100000 0"),
    ("Stencil", "stencil.c", "5 200"),
    ("Transpose", "transpose.c", "5 300 32"),
    ("DGEMM", "dgemm.c", "3 100 16"),
    ("Reduce", "reduce.c", "5 100000"),
    ("Sparse", "sparse.c", "5 8 2"),
    ("Synch_p2p", "p2p.c", "5 200 200"),
    ("Synch_global", "global.c", "5 100"),
    ("Random", "random.c", "14 16 8"),
    ("PIC", "pic.c", "10 100 2000 1 0 SINUSOIDAL"),
    ("Refcount", "refcount.c", "10000 100"),
    ("Branch", "branch.c", "5 1000 vector_go"),
)
PRK: tuple[App, ...] = tuple(
    App(
        name=f"PRK-{kernel}",
        folder=f"ParRes+Kernels/OPENMP/{kernel}",
        sources=(
            main,
            "../../common/OPENMP_bail_out.c",
            "../../common/random_draw.c",
        ),
        cflags=(
            "-O2",
            "-fopenmp",
            "-I../../include",
            "-DRADIUS=2",
            "-DSTAR",
            "-DDEFAULTBLOCK=32",
            "-DBOFFSET=12",
            "-DERRORPERCENT=1",
        ),
        generated=(("wtime.c", _PRK_WTIME), ("accls_threads.c", _PRK_THREADS)),
        runs=(Run(args=(THREADS, *args.split()), verify=_PRK_VERIFY),),
    )
    for kernel, main, args in _PRK_KERNELS
)
