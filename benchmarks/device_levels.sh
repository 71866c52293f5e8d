#!/usr/bin/env bash
# Device check for issue 14 (levels, routines, --gpu, data lifetimes), for a
# machine with a GPU.
#
#   benchmarks/device_levels.sh [OUT_DIR]      (ACCLS=path/to/accls, GPU=nvidia|amd,
#                                              FIXTURES="name ..." for a subset)
#
# For each fixture below: annotate it with accls (OpenACC, OpenMP offload), make
# a single-level copy (inner `loop` / `parallel for` pragmas removed, the outer
# one made `parallel loop` / `target teams distribute parallel for`), build the
# serial program and every variant with each offload compiler found (nvc, clang
# -fopenmp-targets, gcc -foffload), run them, compare outputs with the serial
# run, and print one line per run: fixture, variant, compiler, seconds, output
# match. The `copies` variant is annotated with --no-lifetimes: every kernel
# moves its own arrays, against `levels`, whose arrays stay on the device across
# the kernel calls (enter/exit data, update, present). Nothing in accls depends
# on this script; it only reports.
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-${OUT:-/tmp/accls-device}}"
accls="${ACCLS:-accls}"
gpu="${GPU:-nvidia}"
fixtures="${FIXTURES:-levels_stencil levels_row_reduction particles_kernel solver_kernel jacobi2d gemm blas_lifetime stencil_host_reads solver_lifetime modulo_sections}"
mkdir -p "$out"
report="$out/device_levels.tsv"
printf 'fixture\tvariant\tcompiler\tseconds\tmatch\n' >"$report"

single_level() {  # $1 dialect (acc|omp), stdin annotated C, stdout single-level C
    if [ "$1" = acc ]; then
        sed -E '/^[[:space:]]*#pragma acc loop/d; s/(#pragma acc parallel loop) (gang|worker|vector)( |$)/\1\3/'
    else
        sed -E '/^[[:space:]]*#pragma omp parallel for/d; s/#pragma omp target teams distribute( |$)/#pragma omp target teams distribute parallel for\1/; s/distribute parallel for parallel for/distribute parallel for/'
    fi
}

timed() {  # $1 label prefix, rest: command; prints seconds, leaves stdout in $out/run.txt
    local start end
    shift
    start=$(date +%s.%N)
    timeout 120 "$@" >"$out/run.txt" 2>"$out/run.err"
    local rc=$?
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" -v rc="$rc" 'BEGIN { if (rc) print "rc=" rc; else printf "%.3f\n", b - a }'
}

same_output() {  # numbers may differ by a relative 1e-9 (reductions reorder sums)
    python3 - "$1" "$2" <<'PY' 2>/dev/null || { cmp -s "$1" "$2" && echo yes || echo differs; }
import sys
a, b = (open(p).read().split() for p in sys.argv[1:3])
def same(x, y):
    try:
        fx, fy = float(x), float(y)
    except ValueError:
        return x == y
    return abs(fx - fy) <= 1e-9 * max(abs(fx), abs(fy), 1e-300)
print("yes" if len(a) == len(b) and all(map(same, a, b)) else "differs")
PY
}

compilers=()
if command -v nvc >/dev/null; then
    compilers+=("nvc-acc:nvc -O2 -acc -gpu=ccnative -Minfo=accel"
                "nvc-omp:nvc -O2 -mp=gpu -gpu=ccnative -Minfo=mp")
fi
if command -v clang >/dev/null; then
    target=nvptx64-nvidia-cuda
    [ "$gpu" = amd ] && target=amdgcn-amd-amdhsa
    compilers+=("clang-omp:clang -O2 -fopenmp -fopenmp-targets=$target")
fi
if command -v gcc >/dev/null; then
    off=nvptx-none
    [ "$gpu" = amd ] && off=amdgcn-amdhsa
    compilers+=("gcc-acc:gcc -O2 -fopenacc -foffload=$off" "gcc-omp:gcc -O2 -fopenmp -foffload=$off")
    # The same code run on the host (no offload): checks the script and the outputs.
    compilers+=("host-acc:gcc -O2 -fopenacc -foffload=disable"
                "host-omp:gcc -O2 -fopenmp -foffload=disable")
fi
echo "compilers: ${compilers[*]:-none}" | tee "$out/compilers.txt"

for name in $fixtures; do
    src="$here/tests/fixtures/c/$name.c"
    [ -f "$src" ] || continue
    gcc -O2 -std=c11 "$src" -o "$out/$name.serial" -lm || continue
    t=$(timed serial "$out/$name.serial"); cp "$out/run.txt" "$out/$name.serial.txt"
    printf '%s\tserial\tgcc\t%s\tyes\n' "$name" "$t" >>"$report"
    for dialect in acc omp; do
        if [ "$dialect" = acc ]; then model=openacc; else model=openmp; fi
        "$accls" annotate --model "$model" --target gpu --gpu "$gpu" "$src" \
            -o "$out/$name.$dialect.levels.c" 2>"$out/$name.$dialect.annotate.err" || continue
        single_level "$dialect" <"$out/$name.$dialect.levels.c" >"$out/$name.$dialect.single.c"
        "$accls" annotate --model "$model" --target gpu --gpu "$gpu" --no-lifetimes "$src" \
            -o "$out/$name.$dialect.copies.c" 2>>"$out/$name.$dialect.annotate.err" || continue
        for entry in "${compilers[@]}"; do
            label="${entry%%:*}"; cmd="${entry#*:}"
            case "$label" in *-"$dialect") ;; *) continue ;; esac
            for variant in levels single copies; do
                exe="$out/$name.$dialect.$variant.$label"
                # shellcheck disable=SC2086
                if ! $cmd -std=c11 "$out/$name.$dialect.$variant.c" -o "$exe" -lm \
                    >"$exe.build.txt" 2>&1; then
                    printf '%s\t%s-%s\t%s\tbuild-failed\t-\n' "$name" "$dialect" "$variant" "$label" >>"$report"
                    continue
                fi
                t=$(timed "$label" "$exe")
                m=$(same_output "$out/run.txt" "$out/$name.serial.txt")
                printf '%s\t%s-%s\t%s\t%s\t%s\n' "$name" "$dialect" "$variant" "$label" "$t" "$m" >>"$report"
            done
        done
    done
done
column -t -s "$(printf '\t')" "$report"
