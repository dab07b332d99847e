//! Phi-3 (Abdin et al. 2024, "Phi-3 Technical Report"), laid out like `transformers`'
//! `Phi3ForCausalLM` so that its weights load by name.
//!
//! Llama's blocks with the query, key and value projections fused into one `qkv_proj`
//! (`[q | k | v]` along the output) and the gate and up projections into one `gate_up_proj`
//! (`[gate | up]`); rotary embeddings over the first `partial_rotary_factor · head_dim`
//! dimensions, with LongRoPE (`rope_type` `longrope`, Phi-3-mini-128k and Phi-3.5) read from
//! `rope_parameters` and the top-level `original_max_position_embeddings`; a sliding window on
//! every layer when `sliding_window` is set (Phi-3-mini: 2047).

use tch::Tensor;

use crate::causal::config::{CausalConfig, LlamaFamily};
use crate::causal::decoder::{DecoderStack, Heads};
use crate::causal::layers::{attend, linear, RmsNorm, RmsWeight, LayerContext, RotaryLayer, Scores};
use crate::causal::registry::CausalArchitecture;
use crate::config::Activation;
use crate::model::{activate, Linear, Weights};
use crate::PlmError;

/// One `Phi3DecoderLayer`.
#[derive(Debug)]
struct Layer {
    input_norm: RmsNorm,
    qkv: Linear,
    o: Linear,
    post_norm: RmsNorm,
    gate_up: Linear,
    down: Linear,
    act: Activation,
    heads: Heads,
    window: Option<i64>,
}

impl Layer {
    /// Loads layer `i` from `{p}` (`model.layers.{i}.`).
    fn load(w: &Weights, config: &CausalConfig, p: &str, i: usize) -> Result<Self, PlmError> {
        let heads = Heads::of(config);
        let (h, d, eps) = (config.hidden_size, heads.head_dim, config.norm_eps);
        let inter = config.intermediate_size;
        let qkv_width = (heads.heads + 2 * heads.kv_heads) * d;
        let p = |n: &str| format!("{p}{n}");
        Ok(Layer {
            input_norm: RmsNorm::load(w, &p("input_layernorm"), h, eps)?,
            qkv: linear(w, &p("self_attn.qkv_proj"), h, qkv_width, false)?,
            o: linear(w, &p("self_attn.o_proj"), heads.heads * d, h, false)?,
            post_norm: RmsNorm::load(w, &p("post_attention_layernorm"), h, eps)?,
            gate_up: linear(w, &p("mlp.gate_up_proj"), h, 2 * inter, false)?,
            down: linear(w, &p("mlp.down_proj"), inter, h, false)?,
            act: config.hidden_act,
            heads,
            window: config.sliding_window.get(i).copied().flatten(),
        })
    }
}

impl RotaryLayer for Layer {
    fn window(&self) -> Option<i64> {
        self.window
    }

    fn forward(&self, x: &Tensor, at: &LayerContext<'_>) -> Result<Tensor, PlmError> {
        let Heads { heads, kv_heads, head_dim: d } = self.heads;
        let qkv = self.qkv.forward(&self.input_norm.forward(x)?)?;
        let q = qkv.f_narrow(-1, 0, heads * d)?;
        let k = qkv.f_narrow(-1, heads * d, kv_heads * d)?;
        let v = qkv.f_narrow(-1, (heads + kv_heads) * d, kv_heads * d)?;
        let (q, k, v) = self.heads.rotated((&q, &k, &v), at)?;
        let (k, v) = at.cached(k, v)?;
        let scores = Scores::scaled(self.heads.scaling());
        let h = x.f_add(&self.o.forward(&attend(&q, &k, &v, at.mask, scores)?)?)?;
        let gate_up = self.gate_up.forward(&self.post_norm.forward(&h)?)?;
        let halves = gate_up.f_chunk(2, -1)?;
        let gated = halves[1].f_mul(&activate(&halves[0], self.act)?)?;
        Ok(h.f_add(&self.down.forward(&gated)?)?)
    }
}

/// `Phi3Config`'s defaults (Phi-3-mini-4k): 32 heads of 96 dimensions, an 8192-wide MLP,
/// 4096 positions, no biases, no sliding window unless `sliding_window` is set.
const PHI3: LlamaFamily = LlamaFamily {
    vocab_size: 32064,
    hidden_size: 3072,
    intermediate_size: 8192,
    num_hidden_layers: 32,
    num_attention_heads: 32,
    num_key_value_heads: None,
    head_dim: None,
    max_position_embeddings: 4096,
    rms_norm_eps: 1e-5,
    bos_token_id: Some(1),
    eos_token_id: Some(32000),
    tie_word_embeddings: false,
    biases: |_| Ok((false, false, false)),
    sliding_windows: |raw, layers| Ok(vec![raw.int("sliding_window")?; layers.max(0) as usize]),
    partial_rotary: true,
    top_level_original_max: Some(4096),
};

/// Phi-3 in the registry (`Phi3ForCausalLM` in eval mode).
pub(crate) static ARCHITECTURE: CausalArchitecture = CausalArchitecture {
    model_type: "phi3",
    rotary: true,
    mlp_matrices: 3.0,
    config: |raw| raw.llama_style(&ARCHITECTURE, &PHI3),
    load: |w, config| {
        let stack = DecoderStack::load(w, config, RmsWeight::Llama, |p, i| {
            Layer::load(w, config, p, i)
        })?;
        Ok(Box::new(stack))
    },
};

#[cfg(test)]
mod tests {
    use crate::{CausalConfig, RopeScaling};

    /// Phi-3-mini-128k's rotary settings: LongRoPE with the top-level
    /// `original_max_position_embeddings` (which wins over `rope_parameters`') and its
    /// attention factor `√(1 + ln 32 / ln 4096)`; a partial rotary factor.
    #[test]
    fn longrope_reads_the_top_level_original_length() {
        let short: Vec<f64> = (0..48).map(|i| 1.0 + i as f64 / 100.0).collect();
        let json = format!(
            r#"{{"model_type": "phi3", "max_position_embeddings": 131072,
            "original_max_position_embeddings": 4096, "sliding_window": 262144,
            "rope_scaling": {{"type": "longrope", "short_factor": {s:?}, "long_factor": {s:?},
            "original_max_position_embeddings": 99}}}}"#,
            s = short
        );
        let c = CausalConfig::from_json_str(&json, "config.json").unwrap();
        let RopeScaling::LongRope {
            original_max_position_embeddings,
            attention_factor,
            ..
        } = c.rope_scaling
        else {
            panic!("{:?}", c.rope_scaling)
        };
        assert_eq!(original_max_position_embeddings, 4096);
        let expected = (1.0 + 32f64.ln() / 4096f64.ln()).sqrt();
        assert!((attention_factor - expected).abs() < 1e-15);
        assert_eq!(c.sliding_window, vec![Some(262144); 32]);
        let json = json.replace(
            "\"max_position_embeddings\"",
            "\"partial_rotary_factor\": 0.5, \"max_position_embeddings\"",
        );
        let e = CausalConfig::from_json_str(&json, "config.json").unwrap_err();
        assert!(e.to_string().contains("short_factor"), "{e}");
    }
}
