#!/usr/bin/env python3
"""A randomly initialised masked LM of a realistic shape, for timing (`bias bench`,
scripts/bench_transformers.py, scripts/gpu_check.sh) where no real checkpoint of the family can
be downloaded. Its numbers mean nothing; its cost is that of the real model's shape.

    python3 scripts/random_mlm.py --arch bert --shape bert-base --out out/bert-base-random

The tokenizer (and so the vocabulary size) is copied from the tiny fixture checkpoint of the
same family, fixtures/models/<arch>/ (for bert: the real uncased WordPiece vocabulary of
all-MiniLM-L6-v2, 30,522 tokens). Shapes: minilm (6 layers, hidden 384, 12 heads, feed-forward
1536) and bert-base (12 layers, 768, 12 heads, 3072). Seeded; saved with safetensors.
"""
import argparse
import json
import shutil
from pathlib import Path

import torch
import transformers

ROOT = Path(__file__).resolve().parent.parent
SHAPES = {
    "minilm": dict(num_hidden_layers=6, hidden_size=384, num_attention_heads=12,
                   intermediate_size=1536),
    "bert-base": dict(num_hidden_layers=12, hidden_size=768, num_attention_heads=12,
                      intermediate_size=3072),
}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="bert", help="a folder of fixtures/models (bert, roberta, ...)")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="bert-base")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    src = ROOT / "fixtures/models" / a.arch
    config = json.loads((src / "config.json").read_text())
    shape = dict(SHAPES[a.shape])
    model_type = config["model_type"]
    # Families whose feed-forward or head sizes have their own names keep the tiny model's
    # ratios; the common fields follow the shape.
    config.update(shape)
    if "embedding_size" in config:
        config["embedding_size"] = shape["hidden_size"] if model_type != "albert" else 128
    # The attention settings of the family's base model, where the tiny fixture shrank them.
    if model_type == "modernbert":
        # Layer types follow from global_attn_every_n_layers once the fixture's list is gone.
        config.pop("layer_types", None)
        config.update(local_attention=128, global_attn_every_n_layers=3,
                      max_position_embeddings=8192)
    if model_type == "deberta-v2":
        config.update(position_buckets=256, max_relative_positions=-1,
                      max_position_embeddings=512)
    if model_type == "distilbert":
        config.update(n_layers=shape["num_hidden_layers"], dim=shape["hidden_size"],
                      n_heads=shape["num_attention_heads"], hidden_dim=shape["intermediate_size"])
    config.pop("architectures", None)
    config.pop("transformers_version", None)
    cfg = transformers.AutoConfig.for_model(model_type, **{k: v for k, v in config.items()
                                                           if k != "model_type"})
    torch.manual_seed(a.seed)
    model = transformers.AutoModelForMaskedLM.from_config(cfg).eval()
    out, n = save_with_tokenizer(model, src, Path(a.out))
    print(f"{out}: random {model_type} of shape {a.shape}, {n / 1e6:.1f} M parameters")


def save_with_tokenizer(model, src, out):
    """Saves `model` (safetensors) in `out` with the tokenizer files of the folder `src`;
    returns `out` and the model's parameter count. Shared with scripts/random_causal.py."""
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    for f in TOKENIZER_FILES:
        if (src / f).is_file():
            shutil.copy(src / f, out / f)
    return out, sum(p.numel() for p in model.parameters())


if __name__ == "__main__":
    main()
