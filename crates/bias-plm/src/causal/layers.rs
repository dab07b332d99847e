//! Building blocks of the decoder-only models, named after the `transformers` modules they
//! mirror: GPT-2's `Conv1D`, the RMSNorms of Llama, OLMo 2 and Gemma 2, the rotary embedding (`LlamaRotaryEmbedding`,
//! `apply_rotary_pos_emb`), the causal (optionally sliding-window) attention mask of
//! `transformers.masking_utils`, and eager attention with grouped key-value heads
//! (`repeat_kv`, `eager_attention_forward`). Linear layers, layer norm and activations are the
//! masked models' (`crate::model`). Everything runs in eval mode (no dropout).

use tch::{Device, Kind, Tensor};

use crate::causal::cache::{remember, KvSlot, Pass};
use crate::causal::config::{CausalConfig, RopeScaling};
use crate::model::{finfo_min, Linear, Weights};
use crate::PlmError;

/// GPT-2's `Conv1D`: `y = x W + b` with `W` stored `[in, out]` (the transpose of
/// `torch.nn.Linear`'s), computed as `transformers` does, `addmm(b, x, W)`.
#[derive(Debug)]
pub(crate) struct Conv1d {
    weight: Tensor,
    bias: Tensor,
    out_dim: i64,
}

impl Conv1d {
    /// Loads `{prefix}.weight` `[in, out]` and `{prefix}.bias` `[out]`.
    pub(crate) fn load(
        w: &Weights,
        prefix: &str,
        in_dim: i64,
        out_dim: i64,
    ) -> Result<Self, PlmError> {
        Ok(Conv1d {
            weight: w.get(&format!("{prefix}.weight"), &[in_dim, out_dim])?,
            bias: w.get(&format!("{prefix}.bias"), &[out_dim])?,
            out_dim,
        })
    }

    /// Applies the layer to the last dimension of `x`.
    pub(crate) fn forward(&self, x: &Tensor) -> Result<Tensor, PlmError> {
        let mut shape = x.size();
        let in_dim = *shape.last().unwrap_or(&0);
        let flat = x.f_reshape([-1, in_dim])?;
        let y = self.bias.f_addmm(&flat, &self.weight)?;
        if let Some(last) = shape.last_mut() {
            *last = self.out_dim;
        }
        Ok(y.f_reshape(shape.as_slice())?)
    }
}

/// Where an RMSNorm's weight is applied, as each family's `*RMSNorm` module does it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RmsWeight {
    /// `LlamaRMSNorm`: normalise in float32, cast back, then multiply by the weight.
    Llama,
    /// `Olmo2RMSNorm`: multiply by the weight in float32, then cast back.
    Olmo2,
    /// `Gemma2RMSNorm`: multiply by `1 + weight` in float32 (the weight is stored centred on 0),
    /// then cast back.
    Gemma,
}

/// RMSNorm (Zhang & Sennrich 2019) as `transformers` computes it: `x / √(mean(x²) + ε)` in
/// float32, and the weight applied where [`RmsWeight`] says.
#[derive(Debug)]
pub(crate) struct RmsNorm {
    weight: Tensor,
    eps: f64,
    apply: RmsWeight,
}

impl RmsNorm {
    /// Loads `{prefix}.weight` `[dim]` of a `LlamaRMSNorm`.
    pub(crate) fn load(w: &Weights, prefix: &str, dim: i64, eps: f64) -> Result<Self, PlmError> {
        Self::load_as(w, prefix, dim, eps, RmsWeight::Llama)
    }

    /// Loads `{prefix}.weight` `[dim]`, applied as `apply` says.
    pub(crate) fn load_as(
        w: &Weights,
        prefix: &str,
        dim: i64,
        eps: f64,
        apply: RmsWeight,
    ) -> Result<Self, PlmError> {
        Ok(RmsNorm {
            weight: w.get(&format!("{prefix}.weight"), &[dim])?,
            eps,
            apply,
        })
    }

    /// Normalises the last dimension of `x`.
    pub(crate) fn forward(&self, x: &Tensor) -> Result<Tensor, PlmError> {
        let kind = x.kind();
        let x32 = x.f_to_kind(Kind::Float)?;
        let variance = x32
            .f_pow_tensor_scalar(2)?
            .f_mean_dim(&[-1i64][..], true, Kind::Float)?;
        let normed = x32.f_mul(&variance.f_add_scalar(self.eps)?.f_rsqrt()?)?;
        Ok(match self.apply {
            RmsWeight::Llama => self.weight.f_mul(&normed.f_to_kind(kind)?)?,
            RmsWeight::Olmo2 => self
                .weight
                .f_to_kind(Kind::Float)?
                .f_mul(&normed)?
                .f_to_kind(kind)?,
            RmsWeight::Gemma => normed
                .f_mul(&self.weight.f_to_kind(Kind::Float)?.f_add_scalar(1.0)?)?
                .f_to_kind(kind)?,
        })
    }
}

/// Rotary position embeddings (Su et al. 2021, "RoFormer"), `LlamaRotaryEmbedding` with the
/// `default`, `linear`, `llama3` and `longrope` frequency rules of
/// `transformers.modeling_rope_utils`, over the first `rotary_dim` dimensions of each head.
#[derive(Debug)]
pub(crate) struct Rotary {
    /// `inv_freq`, `[rotary_dim / 2]`, float32 on the model's device (LongRoPE's short ones).
    inv_freq: Tensor,
    /// LongRoPE: the long frequencies, and the longest sequence that keeps the short ones.
    long: Option<(Tensor, i64)>,
    /// Multiplies `cos` and `sin` (LongRoPE's `attention_factor`; 1 otherwise).
    attention_factor: f64,
}

impl Rotary {
    /// The rotary embedding `config` describes (`rotary_dim`, `rope_theta`, `rope_scaling`), on
    /// `device`.
    pub(crate) fn of(config: &CausalConfig, device: Device) -> Result<Self, PlmError> {
        Self::new(
            config.rotary_dim,
            config.rope_theta,
            &config.rope_scaling,
            device,
        )
    }

    /// The inverse frequencies for `rotary_dim` rotated dimensions, base `theta` and `scaling`,
    /// computed in float32 with the operations of `transformers`
    /// (`1 / θ^(arange(0, d, 2) / d)`, then the scaling).
    pub(crate) fn new(
        rotary_dim: i64,
        theta: f64,
        scaling: &RopeScaling,
        device: Device,
    ) -> Result<Self, PlmError> {
        let exponent = Tensor::f_arange_start_step(0, rotary_dim, 2, (Kind::Float, Device::Cpu))?
            .f_div_scalar(rotary_dim as f64)?;
        let powers = Tensor::f_pow_scalar(theta, &exponent)?;
        let inv_freq = powers.f_reciprocal()?;
        let on_device = |t: Tensor| t.f_to_device(device);
        let (inv_freq, long, attention_factor) = match scaling {
            RopeScaling::None => (inv_freq, None, 1.0),
            RopeScaling::Linear { factor } => (inv_freq.f_div_scalar(*factor)?, None, 1.0),
            RopeScaling::Llama3 {
                factor,
                low_freq_factor,
                high_freq_factor,
                original_max_position_embeddings,
            } => (
                llama3(
                    &inv_freq,
                    *factor,
                    *low_freq_factor,
                    *high_freq_factor,
                    *original_max_position_embeddings,
                )?,
                None,
                1.0,
            ),
            RopeScaling::LongRope {
                short_factor,
                long_factor,
                original_max_position_embeddings,
                attention_factor,
            } => {
                // `1.0 / (ext_factors * base**inv_freq_shape)`.
                // (`CausalConfig` has checked one factor per frequency.)
                let scaled = |factors: &[f64]| -> Result<Tensor, PlmError> {
                    let f = Tensor::f_from_slice(factors)?.f_to_kind(Kind::Float)?;
                    Ok(f.f_mul(&powers)?.f_reciprocal()?)
                };
                let long = on_device(scaled(long_factor)?)?;
                (
                    scaled(short_factor)?,
                    Some((long, *original_max_position_embeddings)),
                    *attention_factor,
                )
            }
        };
        Ok(Rotary {
            inv_freq: on_device(inv_freq)?,
            long,
            attention_factor,
        })
    }

    /// `(cos, sin)` for the last `queries` of the positions `0..length` of the rows of
    /// `attention_mask` `[batch, length]`, each `[1, 1, queries, rotary_dim]` in `kind` — or
    /// `[batch, 1, queries, rotary_dim]` under LongRoPE, where each row takes the short or long
    /// frequencies by its own length (the tokens its mask keeps; when decoding, the tokens so far,
    /// as `transformers`' `_longrope_frequency_update` takes `max(position_ids) + 1`).
    pub(crate) fn cos_sin(
        &self,
        attention_mask: &Tensor,
        queries: i64,
        kind: Kind,
    ) -> Result<(Tensor, Tensor), PlmError> {
        let length = attention_mask.size()[1];
        let last = |t: Tensor| t.f_narrow(2, length - queries, queries);
        let (cos, sin) = self.table(&self.inv_freq, length, kind)?;
        let (cos, sin) = (last(cos)?, last(sin)?);
        let Some((long, original)) = &self.long else {
            return Ok((cos, sin));
        };
        let rows = attention_mask
            .f_ne(0)?
            .f_sum_dim_intlist(&[1i64][..], false, Kind::Int64)?;
        let is_long = rows.f_gt(*original)?.f_view([-1, 1, 1, 1])?;
        let (long_cos, long_sin) = self.table(long, length, kind)?;
        let (long_cos, long_sin) = (last(long_cos)?, last(long_sin)?);
        Ok((
            long_cos.f_where_self(&is_long, &cos)?,
            long_sin.f_where_self(&is_long, &sin)?,
        ))
    }

    /// `cos` and `sin` of `positions ⊗ inv_freq`, times the attention factor, in `kind`.
    fn table(
        &self,
        inv_freq: &Tensor,
        length: i64,
        kind: Kind,
    ) -> Result<(Tensor, Tensor), PlmError> {
        let device = inv_freq.device();
        let positions = Tensor::f_arange(length, (Kind::Float, device))?;
        let freqs = positions.f_unsqueeze(1)?.f_mul(&inv_freq.f_unsqueeze(0)?)?;
        let emb = Tensor::f_cat(&[&freqs, &freqs], -1)?;
        let finish = |t: Tensor| -> Result<Tensor, PlmError> {
            let t = if self.attention_factor == 1.0 {
                t
            } else {
                t.f_mul_scalar(self.attention_factor)?
            };
            Ok(t.f_to_kind(kind)?.f_unsqueeze(0)?.f_unsqueeze(0)?)
        };
        Ok((finish(emb.f_cos()?)?, finish(emb.f_sin()?)?))
    }
}

/// `_compute_llama3_parameters`: low frequencies divided by `factor`, high ones kept, the band
/// between interpolated.
fn llama3(
    inv_freq: &Tensor,
    factor: f64,
    low_freq_factor: f64,
    high_freq_factor: f64,
    old: f64,
) -> Result<Tensor, PlmError> {
    let low_freq_wavelen = old / low_freq_factor;
    let high_freq_wavelen = old / high_freq_factor;
    let wavelen = inv_freq
        .f_reciprocal()?
        .f_mul_scalar(2.0 * std::f64::consts::PI)?;
    let divided = inv_freq.f_div_scalar(factor)?;
    let is_low = wavelen.f_gt(low_freq_wavelen)?;
    let scaled = divided.f_where_self(&is_low, inv_freq)?;
    let smooth = wavelen
        .f_reciprocal()?
        .f_mul_scalar(old)?
        .f_sub_scalar(low_freq_factor)?
        .f_div_scalar(high_freq_factor - low_freq_factor)?;
    let smoothed = smooth
        .f_neg()?
        .f_add_scalar(1.0)?
        .f_mul(&scaled)?
        .f_div_scalar(factor)?
        .f_add(&smooth.f_mul(&scaled)?)?;
    let is_medium = wavelen
        .f_lt(high_freq_wavelen)?
        .f_logical_not()?
        .f_logical_and(&is_low.f_logical_not()?)?;
    Ok(smoothed.f_where_self(&is_medium, &scaled)?)
}

/// `apply_rotary_pos_emb` on `x` `[batch, heads, length, head_dim]`:
/// `x·cos + rotate_half(x)·sin`, `rotate_half(x) = (−x₂, x₁)`, over the first dimensions that
/// `cos` covers (all, or GPT-NeoX's and Phi-3's partial rotary); the rest pass unchanged.
pub(crate) fn apply_rotary(x: &Tensor, cos: &Tensor, sin: &Tensor) -> Result<Tensor, PlmError> {
    let d = *x.size().last().unwrap_or(&0);
    let r = *cos.size().last().unwrap_or(&0);
    let rotate = |x: &Tensor| -> Result<Tensor, PlmError> {
        let halves = x.f_chunk(2, -1)?;
        let rotated = Tensor::f_cat(&[&halves[1].f_neg()?, &halves[0]], -1)?;
        Ok(x.f_mul(cos)?.f_add(&rotated.f_mul(sin)?)?)
    };
    if r == d {
        return rotate(x);
    }
    let turned = rotate(&x.f_narrow(-1, 0, r)?)?;
    Ok(Tensor::f_cat(&[&turned, &x.f_narrow(-1, r, d - r)?], -1)?)
}

/// The additive attention mask `[batch, 1, queries, length]` in `kind` of the last `queries`
/// positions over all `length` keys of `attention_mask` `[batch, length]` (`queries = length`
/// for a whole batch, 1 for a decoding step): 0 where query `q` may attend to key `k`,
/// `finfo(kind).min` elsewhere. A key is visible when it is not padding, `k ≤ q` (causal) and,
/// with a sliding `window` `w`, `k > q − w` (`transformers.masking_utils`:
/// `causal_mask_function`, `sliding_window_overlay`, `padding_mask_function`).
pub(crate) fn causal_mask(
    attention_mask: &Tensor,
    queries: i64,
    window: Option<i64>,
    kind: Kind,
) -> Result<Tensor, PlmError> {
    let size = attention_mask.size();
    let (b, l) = (size[0], size[1]);
    let device = attention_mask.device();
    let q = Tensor::f_arange_start(l - queries, l, (Kind::Int64, device))?.f_unsqueeze(1)?;
    let k = Tensor::f_arange(l, (Kind::Int64, device))?.f_unsqueeze(0)?;
    let mut allowed = k.f_le_tensor(&q)?;
    if let Some(w) = window {
        allowed = allowed.f_logical_and(&k.f_gt_tensor(&q.f_sub_scalar(w)?)?)?;
    }
    let keys = attention_mask.f_ne(0)?.f_view([b, 1, 1, l])?;
    let allowed = allowed.f_view([1, 1, queries, l])?.f_logical_and(&keys)?;
    Ok(Tensor::f_zeros([b, 1, queries, l], (kind, device))?
        .f_masked_fill(&allowed.f_logical_not()?, finfo_min(kind))?)
}

/// How attention scores are formed and normalised ([`attend`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scores {
    /// Multiplies `q kᵀ` (`head_dim^−½` in most families).
    pub(crate) scaling: f64,
    /// Gemma 2's `attn_logit_softcapping` `c`: scores become `c · tanh(s / c)` before the mask.
    pub(crate) softcap: Option<f64>,
    /// The softmax runs in float32 (the rotary families) or in the activations' kind (GPT-2).
    pub(crate) softmax_f32: bool,
}

impl Scores {
    /// `q kᵀ · scaling`, softmax in float32, no cap: the Llama family's.
    pub(crate) fn scaled(scaling: f64) -> Self {
        Scores {
            scaling,
            softcap: None,
            softmax_f32: true,
        }
    }
}

/// `c · tanh(x / c)` (Gemma 2's soft-capping of attention scores and logits).
pub(crate) fn softcap(x: &Tensor, cap: f64) -> Result<Tensor, PlmError> {
    Ok(x.f_div_scalar(cap)?.f_tanh()?.f_mul_scalar(cap)?)
}

/// Eager attention with grouped key-value heads (`repeat_kv` + `eager_attention_forward`):
/// `softmax(q kᵀ · scaling + mask) v` for `q` `[batch, heads, queries, d]` and `k`, `v`
/// `[batch, kv_heads, keys, d]`, with the scores formed as `scores` says. Returns
/// `[batch, queries, heads·d]`.
pub(crate) fn attend(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    mask: &Tensor,
    scores: Scores,
) -> Result<Tensor, PlmError> {
    let size = q.size();
    let (b, heads, l, d) = (size[0], size[1], size[2], size[3]);
    let (kv_heads, keys) = (k.size()[1], k.size()[2]);
    let repeat = |t: &Tensor| -> Result<Tensor, PlmError> {
        if kv_heads == heads {
            return Ok(t.shallow_clone());
        }
        let groups = heads / kv_heads;
        Ok(t.f_unsqueeze(2)?
            .f_expand([b, kv_heads, groups, keys, d], false)?
            .f_reshape([b, heads, keys, d])?)
    };
    let (k, v) = (repeat(k)?, repeat(v)?);
    let mut logits = q
        .f_matmul(&k.f_transpose(2, 3)?)?
        .f_mul_scalar(scores.scaling)?;
    if let Some(cap) = scores.softcap {
        logits = softcap(&logits, cap)?;
    }
    let logits = logits.f_add(mask)?;
    let kind = q.kind();
    let probs = if scores.softmax_f32 {
        logits.f_softmax(-1, Kind::Float)?.f_to_kind(kind)?
    } else {
        logits.f_softmax(-1, kind)?
    };
    Ok(probs
        .f_matmul(&v)?
        .f_transpose(1, 2)?
        .f_contiguous()?
        .f_reshape([b, l, heads * d])?)
}

/// The attention masks of a forward pass, one per distinct sliding window (`None`: full causal
/// attention), each built once and shared by the layers that use it.
pub(crate) struct Masks<'a> {
    attention_mask: &'a Tensor,
    queries: i64,
    kind: Kind,
    built: Vec<(Option<i64>, Tensor)>,
}

impl<'a> Masks<'a> {
    /// Masks of the last `queries` positions of the 0/1 `attention_mask` `[batch, length]`, in
    /// `kind`.
    pub(crate) fn new(attention_mask: &'a Tensor, queries: i64, kind: Kind) -> Self {
        Masks {
            attention_mask,
            queries,
            kind,
            built: Vec::new(),
        }
    }

    /// The additive mask for a layer with sliding `window` ([`causal_mask`]).
    pub(crate) fn get(&mut self, window: Option<i64>) -> Result<&Tensor, PlmError> {
        let at = match self.built.iter().position(|(w, _)| *w == window) {
            Some(i) => i,
            None => {
                let mask = causal_mask(self.attention_mask, self.queries, window, self.kind)?;
                self.built.push((window, mask));
                self.built.len() - 1
            }
        };
        Ok(&self.built[at].1)
    }
}

/// Loads `{prefix}.weight` `[out, in]` and, if `bias`, `{prefix}.bias` `[out]`.
pub(crate) fn linear(
    w: &Weights,
    prefix: &str,
    in_dim: i64,
    out_dim: i64,
    bias: bool,
) -> Result<Linear, PlmError> {
    let weight = w.get(&format!("{prefix}.weight"), &[out_dim, in_dim])?;
    let bias = if bias {
        Some(w.get(&format!("{prefix}.bias"), &[out_dim])?)
    } else {
        None
    };
    Ok(Linear::new(weight, bias))
}

/// `model.` when the weights carry the prefix of `*ForCausalLM` (`model.embed_tokens.weight`),
/// `` when they are the bare `*Model`'s (`embed_tokens.weight`).
pub(crate) fn model_prefix(w: &Weights) -> Result<&'static str, PlmError> {
    if w.contains("model.embed_tokens.weight") {
        Ok("model.")
    } else if w.contains("embed_tokens.weight") {
        Ok("")
    } else {
        Err(PlmError::MissingWeight {
            name: "model.embed_tokens.weight".into(),
            path: w.path().to_path_buf(),
        })
    }
}

/// A decoder layer of a rotary family, as [`decode`] runs it.
pub(crate) trait RotaryLayer {
    /// Its sliding attention window; `None` for full causal attention.
    fn window(&self) -> Option<i64>;

    /// The layer on hidden states `x` `[batch, length, hidden]`.
    fn forward(&self, x: &Tensor, at: &LayerContext<'_>) -> Result<Tensor, PlmError>;
}

/// What a rotary layer reads beside its input: the rotary tables of the batch's positions, the
/// additive mask of the layer's window, and its cache slot when decoding.
pub(crate) struct LayerContext<'a> {
    cos: &'a Tensor,
    sin: &'a Tensor,
    /// The additive attention mask.
    pub(crate) mask: &'a Tensor,
    slot: Option<&'a KvSlot>,
}

impl LayerContext<'_> {
    /// The rotary embedding applied to heads `[batch, heads, length, head_dim]`.
    pub(crate) fn rotate(&self, x: &Tensor) -> Result<Tensor, PlmError> {
        apply_rotary(x, self.cos, self.sin)
    }

    /// This step's (rotated) keys and values with the cached ones before them, or unchanged
    /// outside decoding.
    pub(crate) fn cached(&self, k: Tensor, v: Tensor) -> Result<(Tensor, Tensor), PlmError> {
        remember(self.slot, k, v)
    }
}

/// Runs `layers` over the embedded `hidden` `[batch, new, hidden]` of a pass (a right-padded
/// batch, or a decoding step after the cached tokens): the rotary tables once (positions from 0
/// in every row), one mask per distinct window, each layer in turn.
pub(crate) fn decode<L: RotaryLayer>(
    hidden: Tensor,
    pass: &Pass<'_>,
    rotary: &Rotary,
    layers: &[L],
) -> Result<Tensor, PlmError> {
    let kind = hidden.kind();
    let queries = hidden.size()[1];
    let (cos, sin) = rotary.cos_sin(pass.mask, queries, kind)?;
    let mut masks = Masks::new(pass.mask, queries, kind);
    let mut hidden = hidden;
    for (i, layer) in layers.iter().enumerate() {
        let at = LayerContext {
            cos: &cos,
            sin: &sin,
            mask: masks.get(layer.window())?,
            slot: pass.slot(i),
        };
        hidden = layer.forward(&hidden, &at)?;
    }
    Ok(hidden)
}

/// The LM head `[vocab, hidden]`: the token embeddings `embed` when `tie_word_embeddings`, else
/// `lm_head.weight`.
pub(crate) fn lm_head(
    w: &Weights,
    config: &CausalConfig,
    embed: &Tensor,
) -> Result<Tensor, PlmError> {
    if config.tie_word_embeddings {
        Ok(embed.shallow_clone())
    } else {
        w.get("lm_head.weight", &[config.vocab_size, config.hidden_size])
    }
}
