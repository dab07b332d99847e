#!/usr/bin/env python3
"""A randomly initialised causal LM of a realistic shape, for timing and memory (`bias bench`,
`/usr/bin/time -v bias score`) where no real checkpoint can be downloaded. Its numbers mean
nothing; its cost is that of the real model's shape.

    python3 scripts/random_causal.py --shape llama-1b --out out/llama-1b-random

The tokenizer is copied from the tiny fixture checkpoint of the same family,
fixtures/models/<arch>/ (2,000 tokens); the embedding table and the head have the real model's
vocabulary size all the same, so the projection onto the vocabulary costs what it costs in the
real model (token ids above 2,000 are never produced by the tokenizer, which changes no cost).
Shapes: gpt2-small (GPT-2 124M: 12 layers, hidden 768, vocabulary 50,257) and llama-1b (Llama
3.2 1B: 16 layers, hidden 2048, 32 heads, 8 key-value heads, feed-forward 8192, vocabulary
128,256, tied embeddings; 1.24B parameters). Seeded; saved with safetensors in `--dtype`.
"""
import argparse
from pathlib import Path

import torch
import transformers

from random_mlm import save_with_tokenizer

ROOT = Path(__file__).resolve().parent.parent
SHAPES = {
    "gpt2-small": ("gpt2", lambda: transformers.GPT2Config(
        vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12,
        bos_token_id=0, eos_token_id=0)),
    "llama-1b": ("llama", lambda: transformers.LlamaConfig(
        vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
        num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=2048,
        tie_word_embeddings=True, bos_token_id=1, eos_token_id=2)),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", choices=sorted(SHAPES), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    arch, config = SHAPES[a.shape]
    torch.manual_seed(a.seed)
    model = transformers.AutoModelForCausalLM.from_config(config())
    model = model.to(getattr(torch, a.dtype))
    out, n = save_with_tokenizer(model, ROOT / "fixtures/models" / arch, Path(a.out))
    print(f"{out}: random {arch} of shape {a.shape}, {n / 1e6:.1f} M parameters, {a.dtype}")


if __name__ == "__main__":
    main()
