"""`accls-train export`: write `models/<name>/` that accls and vLLM serve as is.

The folder holds merged safetensors weights (or, with `--adapter`, the LoRA
adapter and the name of its base), the tokenizer, `training_run.json` and a
model card `README.md` with the data, the configuration, the metrics and the
exact `vllm serve` command line.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accls.files import replace_file

from accls_train.card import model_card
from accls_train.tokenizer import load_tokenizer

__all__ = ["ExportError", "export_model", "main"]


class ExportError(Exception):
    """The run or model folder cannot be exported."""


def _run_summary(source: Path) -> dict[str, Any]:
    """The run.json next to a run's `final/` folder (or in the run folder given)."""
    for folder in (source, source.parent):
        file = folder / "run.json"
        if file.is_file():
            data = json.loads(file.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
    return {}


def _weights_folder(source: Path) -> Path:
    for folder in (source / "final", source):
        if (folder / "config.json").is_file() or (
            folder / "adapter_config.json"
        ).is_file():
            return folder
    raise ExportError(f"no model in {source} (expected final/ or config.json)")


def _merged(folder: Path, base: str) -> Any:
    """Base weights in full precision with the adapter folded in."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(base)
    return PeftModel.from_pretrained(model, str(folder)).merge_and_unload()


def export_model(
    source: Path,
    dest: Path,
    *,
    name: str,
    adapter: bool = False,
    report: dict[str, Any] | None = None,
) -> Path:
    """Write the servable model folder `dest` from a run (or model) folder."""
    from transformers import AutoModelForCausalLM

    folder = _weights_folder(source)
    summary = _run_summary(source)
    is_adapter = (folder / "adapter_config.json").is_file()
    raw_base = summary.get("base")
    if is_adapter and not raw_base:
        config = json.loads((folder / "adapter_config.json").read_text("utf-8"))
        raw_base = config.get("base_model_name_or_path")
    base = str(raw_base) if raw_base else None
    if is_adapter and base is None:
        raise ExportError(f"{folder} is an adapter but names no base model")
    tokenizer = load_tokenizer(folder)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    if is_adapter and adapter:
        for file in folder.glob("adapter_*"):
            shutil.copy2(file, dest / file.name)
    else:
        model = (
            _merged(folder, str(base))
            if is_adapter and base is not None
            else AutoModelForCausalLM.from_pretrained(str(folder))
        )
        model.generation_config.eos_token_id = tokenizer.eos_token_id
        model.generation_config.pad_token_id = tokenizer.pad_token_id
        model.save_pretrained(str(dest), safe_serialization=True)
        context = int(getattr(model.config, "max_position_embeddings", 0) or 0)
        summary = {**summary, "context": context}
    tokenizer.save_pretrained(str(dest))
    replace_file(
        str(dest / "training_run.json"),
        (json.dumps(summary, indent=2) + "\n").encode("utf-8"),
    )
    card = model_card(
        name,
        summary,
        report,
        dest=dest,
        adapter_base=base if is_adapter and adapter else None,
    )
    replace_file(str(dest / "README.md"), card.encode("utf-8"))
    return dest


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train export", description="Write a servable model folder."
    )
    parser.add_argument("--run", required=True, help="run folder (or a model folder)")
    parser.add_argument("--name", help="model name (default: the run's config name)")
    parser.add_argument("--out", default="models", help="parent folder (models/)")
    parser.add_argument(
        "--adapter",
        action="store_true",
        help="write the LoRA adapter and its base's name instead of merged weights",
    )
    parser.add_argument(
        "--report", help="an evaluate JSON report for the metrics table"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Export; 0 on success, 2 with a one-line error otherwise."""
    args = _parser().parse_args(argv)
    source = Path(args.run)
    try:
        report = None
        if args.report:
            report = json.loads(Path(args.report).read_text(encoding="utf-8"))
            if not isinstance(report, dict):
                raise ExportError(f"{args.report}: not a JSON object")
        name = args.name or str(_run_summary(source).get("name") or source.name)
        dest = export_model(
            source,
            Path(args.out) / name,
            name=name,
            adapter=args.adapter,
            report=report,
        )
    except (ExportError, OSError, ValueError) as exc:
        print(f"accls-train export: error: {exc}", file=sys.stderr)
        return 2
    print(f"export: {dest}")
    return 0
