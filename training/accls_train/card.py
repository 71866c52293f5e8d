"""The model card (README.md) of an exported model: data, config, metrics, serving."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["metrics_table", "model_card", "vllm_command"]


def vllm_command(name: str, dest: Path, context: int, adapter_base: str | None) -> str:
    """The `vllm serve` line for this model folder."""
    if adapter_base is not None:
        return (
            f"vllm serve {adapter_base} --enable-lora --max-lora-rank 64 "
            f"--lora-modules {name}={dest} --port 8000"
        )
    length = f" --max-model-len {context}" if context else ""
    return f"vllm serve {dest} --served-model-name {name}{length} --port 8000"


def _number(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _rows(report: Mapping[str, Any]) -> dict[str, dict[str, object]]:
    """Rows of numbers: {row: {column: value}} from a flat or nested report."""
    rows: dict[str, dict[str, object]] = {}
    flat = {k: v for k, v in report.items() if isinstance(v, int | float | bool)}
    if flat:
        rows["model"] = dict(flat)
    for key, value in report.items():
        if isinstance(value, Mapping):
            numbers: dict[str, object] = {
                str(k): v for k, v in value.items() if isinstance(v, int | float | bool)
            }
            if numbers:
                rows[str(key)] = numbers
            else:
                rows.update(_rows(value))
    return rows


def metrics_table(report: Mapping[str, Any]) -> str:
    """A Markdown table of the numbers of an evaluate report (one row a backend)."""
    backends = report.get("backends")
    rows = _rows(backends if isinstance(backends, Mapping) else report)
    if not rows:
        return "The report holds no numbers.\n"
    columns: list[str] = []
    for values in rows.values():
        columns.extend(c for c in values if c not in columns)
    lines = [
        "| | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for row, values in rows.items():
        cells = (_number(values[c]) if c in values else "" for c in columns)
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _config_lines(summary: Mapping[str, Any]) -> list[str]:
    config = summary.get("config") or {}
    lines = []
    for section in ("model", "lora", "training", "syntax"):
        values = config.get(section) or {}
        if section == "lora" and not values.get("enabled", True):
            lines.append("- `lora`: off (every weight trains)")
        elif values:
            text = ", ".join(f"{k}={v}" for k, v in values.items())
            lines.append(f"- `{section}`: {text}")
    return lines


def _data_lines(summary: Mapping[str, Any]) -> list[str]:
    pairs = summary.get("pairs") or {}
    examples = summary.get("examples") or {}
    skipped = summary.get("skipped") or {}
    origins = summary.get("origins") or {}
    by_origin = ", ".join(f"{k} {v}" for k, v in sorted(origins.items()))
    return [
        f"- pairs: {pairs.get('train', 0)} train, {pairs.get('valid', 0)} valid"
        + (f" ({by_origin})" if by_origin else ""),
        f"- examples used: {examples.get('train', 0)} train, "
        f"{examples.get('valid', 0)} valid; left out: "
        f"{skipped.get('no_loop', 0)} with no loop at their line, "
        f"{skipped.get('too_long', 0)} too long",
    ]


def _evaluation_lines(report: Mapping[str, Any] | None) -> list[str]:
    if not report:
        return ["No evaluation report was given.", ""]
    repos = report.get("repos") or []
    head = (
        f"Evaluated on `{report.get('data')}` (split {report.get('split')}, "
        f"{report.get('n')} pairs: {report.get('models')}; repositories: "
        f"{', '.join(map(str, repos)) or 'n/a'}) by `accls-train evaluate`."
    )
    lines = [head, ""]
    if list(repos) == ["synthetic"]:
        lines += [
            "Synthesized pairs are labelled by the analysis engine, so `analysis`"
            " and `hybrid` match them by construction; the `model` row is the one"
            " to read.",
            "",
        ]
    return [*lines, metrics_table(report)]


def model_card(
    name: str,
    summary: Mapping[str, Any],
    report: Mapping[str, Any] | None,
    *,
    dest: Path,
    adapter_base: str | None,
) -> str:
    """The README.md of an exported model."""
    scratch = bool(summary.get("from_scratch"))
    what = (
        "A small Llama trained from scratch on the CPU with its own BPE tokenizer. "
        "It learns pragma syntax and the clause patterns of its training pairs; it "
        "is not a code model, and a real deployment fine-tunes a pretrained code "
        "model on a GPU (training/configs/seed.toml)."
        if scratch
        else f"Fine-tuned from `{summary.get('init')}` on pragma-loop pairs."
        if summary.get("init")
        else f"LoRA fine-tune of `{summary.get('base')}` on pragma-loop pairs."
    )
    valid = summary.get("valid_loss")
    context = int(summary.get("context") or 0)
    out = [
        f"# {name}",
        "",
        what,
        "",
        "Input: the accls prompt (`accls.suggest.prompt.build_prompt`: model, "
        "target, regions, declarations, loop, then `pragma:`). Output: one "
        "`#pragma acc|omp ...` line, then EOS.",
        "",
        "## Data",
        "",
        *_data_lines(summary),
        "",
        "## Training",
        "",
        f"- steps: {summary.get('steps')}; loss {_number(summary.get('first_loss'))}"
        f" -> {_number(summary.get('last_loss'))}; valid loss "
        f"{_number(valid) if valid is not None else 'n/a'}",
        f"- throughput: {summary.get('tokens_per_s')} tokens/s, "
        f"{summary.get('seconds')} s",
        f"- loss with the syntax term: `{summary.get('syntax_loss', 'CE')}`",
        *_config_lines(summary),
        "",
        "## Metrics",
        "",
        *_evaluation_lines(report),
        "## Serving",
        "",
        "In-process (CPU or GPU), with the transformers backend:",
        "",
        "```sh",
        f"accls suggest --backend transformers --model-path {dest} FILE.c",
        "```",
        "",
        "Editor settings: "
        f'`{{"backend": {{"kind": "transformers", "path": "{dest}"}}}}`.',
        "",
        "With vLLM (the server constrains output with `structured_outputs` regex, "
        "vLLM >= 0.12; older servers take `guided_regex`, set "
        "`--structured-outputs legacy`):",
        "",
        "```sh",
        vllm_command(name, dest, context, adapter_base),
        "```",
        "",
        "then `accls suggest --backend vllm --backend-url http://127.0.0.1:8000/v1 "
        f"--served-model {name} FILE.c`.",
        "",
    ]
    return "\n".join(out)
