#!/usr/bin/env bash
# gpu_check.sh [MODEL_DIR]: load the exported model with the transformers backend
# on the GPU, run a 500-loop batch through `complete`, print one line of figures.
#
#   gpu_check: device=... loops=500 candidates=... seconds=... suggestions_per_s=... peak_mem_mb=...
#
# MODEL_DIR defaults to models/accls-tiny. Needs the `model` extra (torch with
# CUDA, transformers) and accls itself (pip install -e '.[model]'). Exits 1 with
# one line on stderr when there is no GPU or no model; bounded to 5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
model="${1:-models/accls-tiny}"
python="${PYTHON:-}"
if [[ -z "$python" ]]; then
    if [[ -x .venv/bin/python ]]; then python=.venv/bin/python; else python=python3; fi
fi
export PYTHONPATH="server${PYTHONPATH:+:$PYTHONPATH}"
export ACCLS_GPU_CHECK_MODEL="$model"
exec timeout --kill-after=10 300 "$python" - <<'PY'
import os
import sys
import time


def fail(message: str) -> None:
    print(f"gpu_check: error: {message}", file=sys.stderr)
    sys.exit(1)


try:
    import torch
except ImportError:
    fail("torch is not installed (pip install -e '.[model]')")
if not torch.cuda.is_available():
    fail("no CUDA GPU visible to torch")

try:
    from accls.frontend import parse_source
    from accls.suggest import Dialect, SuggestOptions, build_prompt
    from accls.suggest.backends import BackendError, BackendKind, BackendSettings
    from accls.suggest.backends.transformers_local import TransformersBackend
except ImportError as exc:
    fail(f"accls does not import ({exc}); run pip install -e '.[model]'")

KERNELS = (
    "void k{k}(int n, double *restrict y, const double *restrict x) {{\n"
    "    for (int i = 0; i < n; i++)\n        y[i] = {k}.0 * x[i] + y[i];\n}}\n",
    "double r{k}(int n, const double *a) {{\n    double s = 0.0;\n"
    "    for (int i = 0; i < n; i++)\n        s += a[i] * {k}.0;\n    return s;\n}}\n",
    "void m{k}(int n, double c[n][n], double a[n][n]) {{\n"
    "    for (int i = 0; i < n; i++)\n        for (int j = 0; j < n; j++)\n"
    "            c[i][j] = a[j][i] + {k};\n}}\n",
    "void s{k}(int n, float *a) {{\n"
    "    for (int i = 1; i < n; i++)\n        a[i] = a[i - 1] * 0.5f + a[i];\n}}\n",
)
LOOPS = 500
N = 4
prompts = []
for k in range(LOOPS):
    source = parse_source(KERNELS[k % len(KERNELS)].format(k=k))
    loop = source.nests[0]
    model = Dialect.OPENACC if k % 2 == 0 else Dialect.OPENMP
    prompts.append(build_prompt(source, loop, SuggestOptions(model=model)))

settings = BackendSettings(
    kind=BackendKind.TRANSFORMERS,
    path=os.environ["ACCLS_GPU_CHECK_MODEL"],
    device="cuda",
    n=N,
    temperature=0.8,
    max_tokens=64,
    batch_size=128,
)
try:
    backend = TransformersBackend(settings)
    backend.complete(prompts[:8], N)  # warm-up: kernels, allocator, caches
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    answers = backend.complete(prompts, N)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - started
except BackendError as exc:
    fail(str(exc))
candidates = sum(len(found) for found in answers)
peak = torch.cuda.max_memory_allocated() / 2**20
print(
    f"gpu_check: device={torch.cuda.get_device_name(0).replace(' ', '_')} "
    f"loops={LOOPS} candidates={candidates} seconds={seconds:.2f} "
    f"suggestions_per_s={LOOPS / seconds:.1f} peak_mem_mb={peak:.0f}"
)
PY
