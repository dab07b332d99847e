//! The parts Llama's descendants share (Llama, Mistral, Qwen2, Gemma 2, Phi-3, OLMo 2): the
//! grouped-query head layout, Llama's `self_attn` block, the gated MLP and the decoder stack
//! (token embeddings, rotary layers, a final RMSNorm, the LM head). Each family's file keeps
//! what is its own: where its norms stand, fused projections, scaled embeddings, soft caps.

use tch::Tensor;

use crate::causal::cache::Pass;
use crate::causal::config::CausalConfig;
use crate::causal::layers::{
    attend, decode, linear, lm_head, model_prefix, LayerContext, RmsNorm, RmsWeight, Rotary,
    RotaryLayer, Scores,
};
use crate::causal::registry::CausalNet;
use crate::config::Activation;
use crate::model::{activate, Linear, Weights};
use crate::PlmError;

/// Grouped-query attention's head layout (Ainslie et al. 2023): `heads` query heads of
/// `head_dim` dimensions sharing `kv_heads` key-value heads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Heads {
    pub(crate) heads: i64,
    pub(crate) kv_heads: i64,
    pub(crate) head_dim: i64,
}

impl Heads {
    /// The layout `config` gives.
    pub(crate) fn of(config: &CausalConfig) -> Self {
        Heads {
            heads: config.num_attention_heads,
            kv_heads: config.num_key_value_heads,
            head_dim: config.head_dim,
        }
    }

    /// `head_dim^−½`, the default scaling of attention scores.
    pub(crate) fn scaling(&self) -> f64 {
        (self.head_dim as f64).powf(-0.5)
    }

    /// `[batch, length, n · head_dim]` → `[batch, n, length, head_dim]`.
    fn split(&self, t: &Tensor, n: i64) -> Result<Tensor, PlmError> {
        let size = t.size();
        Ok(t.f_view([size[0], size[1], n, self.head_dim])?
            .f_transpose(1, 2)?)
    }

    /// The query, key and value projections `[batch, length, ·]` split into heads, with the
    /// rotary embedding applied to the queries and keys.
    pub(crate) fn rotated(
        &self,
        (q, k, v): (&Tensor, &Tensor, &Tensor),
        at: &LayerContext<'_>,
    ) -> Result<(Tensor, Tensor, Tensor), PlmError> {
        let q = at.rotate(&self.split(q, self.heads)?)?;
        let k = at.rotate(&self.split(k, self.kv_heads)?)?;
        Ok((q, k, self.split(v, self.kv_heads)?))
    }
}

/// Llama's `self_attn`: `q_proj`, `k_proj`, `v_proj`, `o_proj`, and (OLMo 2) RMSNorms over
/// the whole query and key projections before they are split into heads.
#[derive(Debug)]
pub(crate) struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    qk_norm: Option<(RmsNorm, RmsNorm)>,
    heads: Heads,
    scores: Scores,
}

impl Attention {
    /// Loads `{prefix}.{q,k,v,o}_proj`, with biases on q, k and v if `qkv_bias` and on o if
    /// `o_bias`; scores scaled by `head_dim^−½`.
    pub(crate) fn load(
        w: &Weights,
        prefix: &str,
        config: &CausalConfig,
        (qkv_bias, o_bias): (bool, bool),
    ) -> Result<Self, PlmError> {
        let heads = Heads::of(config);
        let (h, d) = (config.hidden_size, heads.head_dim);
        let p = |n: &str| format!("{prefix}.{n}");
        Ok(Attention {
            q: linear(w, &p("q_proj"), h, heads.heads * d, qkv_bias)?,
            k: linear(w, &p("k_proj"), h, heads.kv_heads * d, qkv_bias)?,
            v: linear(w, &p("v_proj"), h, heads.kv_heads * d, qkv_bias)?,
            o: linear(w, &p("o_proj"), heads.heads * d, h, o_bias)?,
            qk_norm: None,
            scores: Scores::scaled(heads.scaling()),
            heads,
        })
    }

    /// Loads `{prefix}.q_norm` and `{prefix}.k_norm` too (OLMo 2).
    pub(crate) fn with_qk_norm(
        mut self,
        w: &Weights,
        prefix: &str,
        eps: f64,
        apply: RmsWeight,
    ) -> Result<Self, PlmError> {
        let d = self.heads.head_dim;
        let norm =
            |n: &str, dim: i64| RmsNorm::load_as(w, &format!("{prefix}.{n}"), dim, eps, apply);
        self.qk_norm = Some((
            norm("q_norm", self.heads.heads * d)?,
            norm("k_norm", self.heads.kv_heads * d)?,
        ));
        Ok(self)
    }

    /// Scores scaled and capped as `scores` says (Gemma 2).
    pub(crate) fn with_scores(mut self, scores: Scores) -> Self {
        self.scores = scores;
        self
    }

    /// `W_o · Attn(RoPE(W_q·x), RoPE(W_k·x), W_v·x)` on `x` `[batch, length, hidden]`.
    pub(crate) fn forward(&self, x: &Tensor, at: &LayerContext<'_>) -> Result<Tensor, PlmError> {
        let (mut q, mut k) = (self.q.forward(x)?, self.k.forward(x)?);
        if let Some((q_norm, k_norm)) = &self.qk_norm {
            q = q_norm.forward(&q)?;
            k = k_norm.forward(&k)?;
        }
        let v = self.v.forward(x)?;
        let (q, k, v) = self.heads.rotated((&q, &k, &v), at)?;
        let (k, v) = at.cached(k, v)?;
        self.o.forward(&attend(&q, &k, &v, at.mask, self.scores)?)
    }
}

/// The gated MLP (SwiGLU; Shazeer 2020): `W_down · (act(W_gate·x) ⊙ W_up·x)`.
#[derive(Debug)]
pub(crate) struct GatedMlp {
    gate: Linear,
    up: Linear,
    down: Linear,
    act: Activation,
}

impl GatedMlp {
    /// Loads `{prefix}.gate_proj`, `{prefix}.up_proj` and `{prefix}.down_proj`.
    pub(crate) fn load(
        w: &Weights,
        prefix: &str,
        config: &CausalConfig,
        bias: bool,
    ) -> Result<Self, PlmError> {
        let (h, inter) = (config.hidden_size, config.intermediate_size);
        let p = |n: &str| format!("{prefix}.{n}");
        Ok(GatedMlp {
            gate: linear(w, &p("gate_proj"), h, inter, bias)?,
            up: linear(w, &p("up_proj"), h, inter, bias)?,
            down: linear(w, &p("down_proj"), inter, h, bias)?,
            act: config.hidden_act,
        })
    }

    /// The MLP on `x` `[batch, length, hidden]`.
    pub(crate) fn forward(&self, x: &Tensor) -> Result<Tensor, PlmError> {
        let gated = activate(&self.gate.forward(x)?, self.act)?.f_mul(&self.up.forward(x)?)?;
        self.down.forward(&gated)
    }
}

/// A Llama-style decoder: `embed_tokens`, the layers, the final `norm` and the LM head, found
/// with the `model.` prefix of `*ForCausalLM` or without it.
#[derive(Debug)]
pub(crate) struct DecoderStack<L> {
    embed: Tensor,
    layers: Vec<L>,
    norm: RmsNorm,
    /// The LM head `[vocab, hidden]` (the embedding matrix when tied).
    head: Tensor,
    rotary: Rotary,
}

impl<L: RotaryLayer> DecoderStack<L> {
    /// Loads the stack; `layer(prefix, i)` loads layer `i` from `{prefix}` (`model.layers.{i}.`)
    /// and the final norm applies its weight as `norm` says.
    pub(crate) fn load(
        w: &Weights,
        config: &CausalConfig,
        norm: RmsWeight,
        layer: impl Fn(&str, usize) -> Result<L, PlmError>,
    ) -> Result<Self, PlmError> {
        let base = model_prefix(w)?;
        let h = config.hidden_size;
        let embed = w.get(
            &format!("{base}embed_tokens.weight"),
            &[config.vocab_size, h],
        )?;
        let layers = (0..config.num_hidden_layers as usize)
            .map(|i| layer(&format!("{base}layers.{i}."), i))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(DecoderStack {
            head: lm_head(w, config, &embed)?,
            embed,
            layers,
            norm: RmsNorm::load_as(w, &format!("{base}norm"), h, config.norm_eps, norm)?,
            rotary: Rotary::of(config, w.device())?,
        })
    }

    /// The token embeddings of `ids`.
    pub(crate) fn embed(&self, ids: &Tensor) -> Result<Tensor, PlmError> {
        Ok(Tensor::f_embedding(&self.embed, ids, -1, false, false)?)
    }

    /// The final hidden states (after the last norm) of `embedded` tokens of a pass; positions
    /// count from 0 in every row.
    pub(crate) fn decode(&self, embedded: Tensor, pass: &Pass<'_>) -> Result<Tensor, PlmError> {
        let hidden = decode(embedded, pass, &self.rotary, &self.layers)?;
        self.norm.forward(&hidden)
    }

    /// Vocabulary logits of hidden states `[n, hidden]`.
    pub(crate) fn head(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        Ok(hidden.f_linear::<Tensor>(&self.head, None)?)
    }
}

impl<L: RotaryLayer + std::fmt::Debug + Send> CausalNet for DecoderStack<L> {
    fn forward(&self, ids: &Tensor, pass: &Pass<'_>) -> Result<Tensor, PlmError> {
        self.decode(self.embed(ids)?, pass)
    }

    fn layers(&self) -> usize {
        self.layers.len()
    }

    fn logits(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        self.head(hidden)
    }
}
