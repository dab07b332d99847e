//! Mistral (Jiang et al. 2023, "Mistral 7B"; `transformers`' `MistralForCausalLM`): Llama's
//! layers ([`super::llama`]) with grouped-query attention by default and a sliding attention
//! window on every layer.

use super::config::{LlamaFamily, LLAMA};
use super::llama::load_llama;
use super::registry::CausalArchitecture;

/// `MistralConfig`'s defaults (Mistral 7B): 8 key-value heads, 14336-wide MLP, no biases,
/// every layer sliding over `sliding_window` (4096 by default; `null` turns it off).
const MISTRAL: LlamaFamily = LlamaFamily {
    intermediate_size: 14336,
    num_key_value_heads: Some(8),
    max_position_embeddings: 4096 * 32,
    biases: |_| Ok((false, false, false)),
    sliding_windows: |raw, layers| Ok(vec![raw.sliding_window()?; layers.max(0) as usize]),
    ..LLAMA
};

/// Mistral in the registry.
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "mistral",
    rotary: true,
    mlp_matrices: 3.0,
    config: |raw| raw.llama_style(&ARCHITECTURE, &MISTRAL),
    load: load_llama,
};
