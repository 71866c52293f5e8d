"""Build the model to train: a from-scratch Llama or a pretrained base, LoRA/QLoRA."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from accls_train.config import Quantization, TrainConfig

__all__ = [
    "build_from_scratch",
    "can_quantize",
    "load_trainable",
    "save_weights",
]

log = logging.getLogger(__name__)


def can_quantize() -> bool:
    """Whether QLoRA can run here: CUDA and bitsandbytes are both present."""
    import importlib.util

    import torch

    return (
        torch.cuda.is_available()
        and importlib.util.find_spec("bitsandbytes") is not None
    )


def build_from_scratch(config: TrainConfig, tokenizer: Any) -> Any:
    """A randomly initialised Llama of the config's sizes, for `tokenizer`."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    m = config.model
    torch.manual_seed(config.training.seed)
    llama = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=m.hidden,
        intermediate_size=m.intermediate,
        num_hidden_layers=m.layers,
        num_attention_heads=m.heads,
        num_key_value_heads=m.heads,
        max_position_embeddings=m.context,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    return LlamaForCausalLM(llama)


def _load_base(config: TrainConfig, path: str, device_index: int | None) -> Any:
    """The pretrained base at `path`, 4-bit when the config asks and CUDA allows."""
    import torch
    from transformers import AutoModelForCausalLM

    kwargs: dict[str, Any] = {}
    if config.lora.enabled and config.lora.quantization is Quantization.FOUR_BIT:
        if can_quantize():
            import transformers

            quantization: Any = transformers.BitsAndBytesConfig
            kwargs["quantization_config"] = quantization(
                load_in_4bit=True,
                bnb_4bit_quant_type="nf4",
                bnb_4bit_use_double_quant=True,
                bnb_4bit_compute_dtype=torch.bfloat16,
            )
            kwargs["device_map"] = {"": device_index or 0}
        else:
            print(
                "accls-train: note: QLoRA needs CUDA and bitsandbytes; "
                "training plain LoRA on full-precision weights",
                file=sys.stderr,
            )
    elif torch.cuda.is_available():
        kwargs["dtype"] = torch.bfloat16
    model = AutoModelForCausalLM.from_pretrained(path, **kwargs)
    if "quantization_config" in kwargs:
        import peft

        prepare: Any = peft.prepare_model_for_kbit_training
        model = prepare(model)
    return model


def _with_lora(config: TrainConfig, model: Any) -> Any:
    from peft import LoraConfig, get_peft_model

    lora = config.lora
    return get_peft_model(
        model,
        LoraConfig(
            r=lora.r,
            lora_alpha=lora.alpha,
            lora_dropout=lora.dropout,
            target_modules=list(lora.targets),
            task_type="CAUSAL_LM",
        ),
    )


def load_trainable(
    config: TrainConfig,
    tokenizer: Any,
    *,
    start: Path | None,
    base: str | None,
    device_index: int | None = None,
) -> Any:
    """The model to train, from a checkpoint `start` if given, else fresh.

    `base` is a pretrained model directory or hub id; None builds one from the
    config's sizes. A LoRA checkpoint is an adapter over `base`; a full
    checkpoint is a whole model.
    """
    if start is not None and (start / "adapter_config.json").is_file():
        from peft import PeftModel

        if base is None:
            raise ValueError(f"{start} is an adapter, but no base model was named")
        model = _load_base(config, base, device_index)
        return PeftModel.from_pretrained(model, str(start), is_trainable=True)
    if start is not None:
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained(str(start))
        return _with_lora(config, model) if config.lora.enabled else model
    if base is None:
        model = build_from_scratch(config, tokenizer)
    else:
        model = _load_base(config, base, device_index)
    return _with_lora(config, model) if config.lora.enabled else model


def save_weights(model: Any, out: Path) -> None:
    """Save the weights (the adapter alone for a LoRA model) as safetensors."""
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out), safe_serialization=True)
