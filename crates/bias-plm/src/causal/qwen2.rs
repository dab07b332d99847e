//! Qwen2 (Yang et al. 2024, "Qwen2 Technical Report"; `transformers`' `Qwen2ForCausalLM`):
//! Llama's layers ([`super::llama`]) with biases on the query, key and value projections, and a
//! sliding window only when `use_sliding_window` asks for it.

use serde_json::Value;

use super::config::{LlamaFamily, Raw, LLAMA};
use super::llama::load_llama;
use super::registry::CausalArchitecture;
use crate::PlmError;

/// `Qwen2Config`'s defaults: its vocabulary, a 22016-wide MLP, 32768 positions, no BOS or EOS
/// default, biases on q, k and v.
const QWEN2: LlamaFamily = LlamaFamily {
    vocab_size: 151936,
    intermediate_size: 22016,
    max_position_embeddings: 32768,
    bos_token_id: None,
    eos_token_id: None,
    biases: |_| Ok((true, false, false)),
    sliding_windows,
    ..LLAMA
};

/// The sliding window of each layer, as `transformers` 5 decides it for Qwen2: only with
/// `use_sliding_window`, on the layers `layer_types` marks `sliding_attention` (by default those
/// from `max_window_layers` on).
fn sliding_windows(raw: &Raw<'_>, layers: i64) -> Result<Vec<Option<i64>>, PlmError> {
    let n = layers.max(0) as usize;
    if raw.boolean("use_sliding_window")? != Some(true) {
        return Ok(vec![None; n]);
    }
    let w = raw.sliding_window()?;
    if let Some(types) = raw.get("layer_types").and_then(Value::as_array) {
        return Ok((0..n)
            .map(|i| {
                let sliding = types.get(i).and_then(Value::as_str) == Some("sliding_attention");
                if sliding {
                    w
                } else {
                    None
                }
            })
            .collect());
    }
    let from = raw.int("max_window_layers")?.unwrap_or(28);
    Ok((0..n)
        .map(|i| if (i as i64) >= from { w } else { None })
        .collect())
}

/// Qwen2 in the registry.
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "qwen2",
    rotary: true,
    mlp_matrices: 3.0,
    config: |raw| raw.llama_style(&ARCHITECTURE, &QWEN2),
    load: load_llama,
};
