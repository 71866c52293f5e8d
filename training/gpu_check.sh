#!/usr/bin/env bash
# GPU check: 50 LoRA steps (q/k/v, rank 64) of training/configs/small-lora.toml on
# CUDA, a ~100M-parameter Llama whose weights and tokenizer are built here from
# synthesized pairs, so nothing is downloaded. Prints one line:
#   train_gpu_check: steps=50 tokens_per_s=... peak_mem_mb=... seconds=...
# Exits non-zero with a one-line error when there is no GPU. Takes well under
# 5 minutes on one GPU. Needs python with torch (CUDA build), transformers, peft,
# accelerate, tokenizers and accls' own dependencies (tree-sitter, ...), and gcc.
# ACCLS_GPU_CHECK_CPU=1 runs the same steps on the CPU with the tiny config and
# 5 steps, to test this script on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}
export PYTHONPATH="server:training${PYTHONPATH:+:$PYTHONPATH}"
export TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
work=$(mktemp -d "${TMPDIR:-/tmp}/accls-gpu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

config=training/configs/small-lora.toml steps=50
if [ "${ACCLS_GPU_CHECK_CPU:-0}" = 1 ]; then
    config=training/configs/tiny.toml steps=5
elif ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
        2>/dev/null; then
    echo "train_gpu_check: error: no CUDA GPU visible to torch ($PY)" >&2
    exit 1
fi

"$PY" -m accls_train.cli synthesize --count 400 --seed 7 --out "$work/pairs.jsonl" \
    >"$work/log" 2>&1 || { echo "train_gpu_check: error: synthesize failed: $(tail -n 1 "$work/log")" >&2; exit 1; }
start=$(date +%s)
"$PY" -m accls_train.cli finetune --config "$config" --data "$work/pairs.jsonl" \
    --out "$work/run" --max-steps "$steps" --no-progress >>"$work/log" 2>&1 \
    || { echo "train_gpu_check: error: finetune failed: $(tail -n 1 "$work/log")" >&2; exit 1; }
end=$(date +%s)
"$PY" - "$work/run/run.json" "$steps" "$((end - start))" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
print(
    f"train_gpu_check: steps={sys.argv[2]} tokens_per_s={run['tokens_per_s']} "
    f"peak_mem_mb={run['peak_mem_mb']:.0f} seconds={sys.argv[3]}"
)
EOF
