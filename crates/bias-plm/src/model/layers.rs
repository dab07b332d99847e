//! Building blocks shared by every architecture, named after the `transformers` modules they
//! mirror: linear layers, layer norm, activations (`transformers.activations.ACT2FN`),
//! multi-head self-attention that can return its probabilities, the post-layer-norm
//! transformer block (`BertLayer`, `AlbertLayer`, DistilBERT's `TransformerBlock`), the
//! embedding sum, the encoder loop and the masked-LM head. Scoring runs in eval mode
//! ([`Dropout::NONE`]: dropout is the identity); fine-tuning passes the configuration's dropout
//! rates, applied where `transformers` applies them.

use crate::model::EncoderInput;
use crate::model::Trace;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tch::{Device, Kind, Tensor};

use crate::config::Activation;
use crate::{EncoderOutput, ModelConfig, PlmError};

/// The parameters of a checkpoint by Hugging Face name, converted on request to the model's
/// device and floating-point kind.
#[derive(Debug)]
pub(crate) struct Weights {
    map: HashMap<String, Tensor>,
    path: PathBuf,
    device: Device,
    kind: Kind,
}

impl Weights {
    /// Reads one or more safetensors files (all shards of one checkpoint); `path` names the
    /// checkpoint in errors.
    pub(crate) fn read(
        files: &[PathBuf],
        path: PathBuf,
        device: Device,
        kind: Kind,
    ) -> Result<Self, PlmError> {
        let mut map = HashMap::new();
        // Floating-point tensors are read in `kind` (f32 stays f32; an f32 checkpoint loaded in
        // bf16 is converted tensor by tensor, never held whole in f32).
        let read_kind = if matches!(
            kind,
            Kind::Double | Kind::Float | Kind::Half | Kind::BFloat16
        ) {
            kind
        } else {
            Kind::Float
        };
        for file in files {
            for (name, tensor) in crate::model::tensor_file::read_tensors(file, read_kind)? {
                map.insert(name, tensor);
            }
        }
        Ok(Weights {
            map,
            path,
            device,
            kind,
        })
    }

    /// Wraps parameters already on `device` in `kind` (the trainable tensors of fine-tuning,
    /// which must be used as they are so that gradients reach them).
    pub(crate) fn from_map(
        map: HashMap<String, Tensor>,
        path: PathBuf,
        device: Device,
        kind: Kind,
    ) -> Self {
        Weights {
            map,
            path,
            device,
            kind,
        }
    }

    /// Wraps tensors handed over in memory ([`crate::ModelParts::tensors`], a `state_dict`);
    /// `path` names them in errors. Each is detached from autograd: a new handle on the same
    /// storage, not a copy (so that scoring never records a graph through a training model's
    /// parameters). A name given twice keeps its last tensor, as [`Weights::read`] does for
    /// shards.
    pub(crate) fn from_tensors(
        tensors: &[(String, Tensor)],
        path: PathBuf,
        device: Device,
        kind: Kind,
    ) -> Result<Self, PlmError> {
        let mut map = HashMap::with_capacity(tensors.len());
        for (name, tensor) in tensors {
            map.insert(name.clone(), tensor.f_detach()?);
        }
        Ok(Weights::from_map(map, path, device, kind))
    }

    /// The bytes the parameters take in memory (each tensor's elements times its kind's width),
    /// for `bias bench`'s peak memory against the weights.
    pub(crate) fn bytes(&self) -> u64 {
        self.map
            .values()
            .map(|t| t.numel() as u64 * t.kind().elt_size_in_bytes() as u64)
            .sum()
    }

    /// The checkpoint file, for messages.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Merges a LoRA adapter into the weights ([`crate::LoraAdapter`]).
    pub(crate) fn merge_adapter(&mut self, adapter: &crate::LoraAdapter) -> Result<(), PlmError> {
        adapter.merge(&mut self.map)
    }

    /// The model's device.
    pub(crate) fn device(&self) -> Device {
        self.device
    }

    /// The model's floating-point kind.
    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    /// Whether the checkpoint has a parameter of this name.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    /// The parameter `name`, checked against `shape` and converted to the model's device and
    /// kind.
    pub(crate) fn get(&self, name: &str, shape: &[i64]) -> Result<Tensor, PlmError> {
        self.get_opt(name, shape)?
            .ok_or_else(|| PlmError::MissingWeight {
                name: name.to_string(),
                path: self.path.clone(),
            })
    }

    /// Like [`Weights::get`], but `None` when the parameter is absent.
    ///
    /// A tensor already on the model's device in its kind (or not floating point) is returned
    /// as it is, sharing its storage: `Tensor::to_device` and `Tensor::to_kind` (libtorch's
    /// `Tensor::to` with `copy=false`) return the same tensor when nothing changes, so a
    /// float32 model on the CPU, loaded in `Kind::Float` on the CPU, uses its parameters in
    /// place, without a copy (for [`crate::ModelParts`], the caller's very tensors: changing
    /// them in place changes the model). Only a move to another device or a conversion to
    /// another kind copies.
    pub(crate) fn get_opt(&self, name: &str, shape: &[i64]) -> Result<Option<Tensor>, PlmError> {
        let Some(tensor) = self.map.get(name) else {
            return Ok(None);
        };
        let found = tensor.size();
        if found != shape {
            return Err(PlmError::WeightShape {
                name: name.to_string(),
                expected: shape.to_vec(),
                found,
                path: self.path.clone(),
            });
        }
        let moved = tensor.f_to_device(self.device)?;
        let converted = if moved.is_floating_point() {
            moved.f_to_kind(self.kind)?
        } else {
            moved
        };
        Ok(Some(converted))
    }

    /// The first of `names` present, or [`PlmError::MissingWeight`] naming the first.
    pub(crate) fn get_any(&self, names: &[String], shape: &[i64]) -> Result<Tensor, PlmError> {
        for name in names {
            if let Some(t) = self.get_opt(name, shape)? {
                return Ok(t);
            }
        }
        Err(PlmError::MissingWeight {
            name: names[0].clone(),
            path: self.path.clone(),
        })
    }
}

/// Dropout rates of a forward pass (`hidden_dropout_prob`, `attention_probs_dropout_prob`);
/// zero in eval mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Dropout {
    /// After the embeddings and after each residual branch's output projection.
    pub(crate) hidden: f64,
    /// On the attention probabilities.
    pub(crate) attention: f64,
}

impl Dropout {
    /// Eval mode: no dropout anywhere.
    pub(crate) const NONE: Dropout = Dropout {
        hidden: 0.0,
        attention: 0.0,
    };
}

/// Applies dropout with probability `p` (training mode), or returns `x` unchanged when `p = 0`.
fn drop(x: Tensor, p: f64) -> Result<Tensor, PlmError> {
    Ok(if p > 0.0 { x.f_dropout(p, true)? } else { x })
}

/// `torch.nn.Linear`: `y = x Wᵀ + b`, `W` of shape `[out, in]`.
#[derive(Debug)]
pub(crate) struct Linear {
    weight: Tensor,
    bias: Option<Tensor>,
}

impl Linear {
    /// Loads `{prefix}.weight` `[out, in]` and `{prefix}.bias` `[out]`.
    pub(crate) fn load(
        w: &Weights,
        prefix: &str,
        in_dim: i64,
        out_dim: i64,
    ) -> Result<Self, PlmError> {
        Ok(Linear {
            weight: w.get(&format!("{prefix}.weight"), &[out_dim, in_dim])?,
            bias: Some(w.get(&format!("{prefix}.bias"), &[out_dim])?),
        })
    }

    /// Builds a layer from tensors (the tied decoder, tests).
    pub(crate) fn new(weight: Tensor, bias: Option<Tensor>) -> Self {
        Linear { weight, bias }
    }

    /// Applies the layer to the last dimension of `x`.
    pub(crate) fn forward(&self, x: &Tensor) -> Result<Tensor, PlmError> {
        Ok(x.f_linear(&self.weight, self.bias.as_ref())?)
    }
}

/// `torch.nn.LayerNorm` over the last dimension.
#[derive(Debug)]
pub(crate) struct LayerNorm {
    weight: Tensor,
    bias: Tensor,
    dim: i64,
    eps: f64,
}

impl LayerNorm {
    /// Loads `{prefix}.weight` and `{prefix}.bias`, both `[dim]`.
    pub(crate) fn load(w: &Weights, prefix: &str, dim: i64, eps: f64) -> Result<Self, PlmError> {
        Ok(LayerNorm {
            weight: w.get(&format!("{prefix}.weight"), &[dim])?,
            bias: w.get(&format!("{prefix}.bias"), &[dim])?,
            dim,
            eps,
        })
    }

    /// A layer norm of `weight` and `bias`, both `[dim]`; without a bias it is
    /// `nn.LayerNorm(dim, bias=False)` (ModernBERT's `norm_bias = false`), computed with a zero
    /// bias, which changes no value.
    pub(crate) fn new(
        weight: Tensor,
        bias: Option<Tensor>,
        dim: i64,
        eps: f64,
    ) -> Result<Self, PlmError> {
        let bias = match bias {
            Some(b) => b,
            None => weight.f_zeros_like()?,
        };
        Ok(LayerNorm {
            weight,
            bias,
            dim,
            eps,
        })
    }

    /// Normalises the last dimension of `x`.
    pub(crate) fn forward(&self, x: &Tensor) -> Result<Tensor, PlmError> {
        Ok(x.f_layer_norm(
            [self.dim],
            Some(&self.weight),
            Some(&self.bias),
            self.eps,
            true,
        )?)
    }
}

/// Applies an activation (`transformers.activations.ACT2FN[name]`).
pub(crate) fn activate(x: &Tensor, act: Activation) -> Result<Tensor, PlmError> {
    Ok(match act {
        Activation::Gelu => x.f_gelu("none")?,
        Activation::GeluTanh => x.f_gelu("tanh")?,
        Activation::Relu => x.f_relu()?,
        Activation::Silu => x.f_silu()?,
        Activation::QuickGelu => x.f_mul(&x.f_mul_scalar(1.702)?.f_sigmoid()?)?,
    })
}

/// The most negative finite value of a floating-point kind (`torch.finfo(dtype).min`), which
/// `transformers` adds to the attention scores of padded keys.
pub(crate) fn finfo_min(kind: Kind) -> f64 {
    match kind {
        Kind::Half => -65504.0,
        Kind::BFloat16 => -3.389_531_389_251_535_5e38,
        Kind::Double => f64::MIN,
        _ => f32::MIN as f64,
    }
}

/// How padded keys are removed from the attention scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MaskStyle {
    /// BERT, RoBERTa, ALBERT (`get_extended_attention_mask`): add `(1 − mask)·finfo.min` to
    /// `QKᵀ/√d`.
    Additive,
    /// DistilBERT (`MultiHeadSelfAttention`): scale `Q` by `1/√d` first, then overwrite the
    /// scores of padded keys with `finfo.min` (`masked_fill`).
    Fill,
}

/// The attention mask of a batch in the two forms the attention layers use.
#[derive(Debug)]
pub(crate) struct KeyMask {
    /// `(1 − mask)·finfo.min`, `[batch, 1, 1, length]`, in the model's kind.
    additive: Tensor,
    /// `mask == 0`, `[batch, 1, 1, length]`, boolean.
    padded: Tensor,
    /// `finfo.min` of the model's kind.
    min: f64,
}

impl KeyMask {
    /// Builds both forms from a `[batch, length]` 0/1 mask.
    pub(crate) fn new(attention_mask: &Tensor, kind: Kind) -> Result<Self, PlmError> {
        let min = finfo_min(kind);
        let m = attention_mask.f_unsqueeze(1)?.f_unsqueeze(1)?;
        let padded = m.f_eq(0)?;
        let additive = m
            .f_to_kind(kind)?
            .f_neg()?
            .f_add_scalar(1.0)?
            .f_mul_scalar(min)?;
        Ok(KeyMask {
            additive,
            padded,
            min,
        })
    }
}

/// Multi-head self-attention (`BertSelfAttention` + the output projection of `BertSelfOutput`
/// without its residual; DistilBERT's `MultiHeadSelfAttention`) returning the post-softmax
/// probabilities when asked.
#[derive(Debug)]
pub(crate) struct SelfAttention {
    query: Linear,
    key: Linear,
    value: Linear,
    heads: i64,
    head_dim: i64,
    style: MaskStyle,
}

impl SelfAttention {
    /// Runs attention on `x` `[batch, length, hidden]`; returns the per-head contexts merged
    /// back to `[batch, length, hidden]` and, if `want_probs`, the probabilities
    /// `[batch, heads, length, length]` (rows: queries, columns: keys).
    pub(crate) fn forward(
        &self,
        x: &Tensor,
        mask: &KeyMask,
        want_probs: bool,
        dropout: Dropout,
    ) -> Result<(Tensor, Option<Tensor>), PlmError> {
        let size = x.size();
        let (b, l) = (size[0], size[1]);
        let split = |t: Tensor| -> Result<Tensor, PlmError> {
            Ok(t.f_view([b, l, self.heads, self.head_dim])?
                .f_transpose(1, 2)?)
        };
        let q = split(self.query.forward(x)?)?;
        let k = split(self.key.forward(x)?)?;
        let v = split(self.value.forward(x)?)?;
        let scale = (self.head_dim as f64).sqrt();
        let scores = match self.style {
            MaskStyle::Additive => q
                .f_matmul(&k.f_transpose(-1, -2)?)?
                .f_div_scalar(scale)?
                .f_add(&mask.additive)?,
            MaskStyle::Fill => q
                .f_div_scalar(scale)?
                .f_matmul(&k.f_transpose(-1, -2)?)?
                .f_masked_fill(&mask.padded, mask.min)?,
        };
        let probs = scores.f_softmax(-1, scores.kind())?;
        // transformers returns the probabilities before dropout.
        let context = drop(probs.shallow_clone(), dropout.attention)?
            .f_matmul(&v)?
            .f_transpose(1, 2)?
            .f_contiguous()?
            .f_view([b, l, self.heads * self.head_dim])?;
        Ok((context, want_probs.then_some(probs)))
    }
}

/// The parameter names of one post-layer-norm transformer block, relative to its prefix.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockNames {
    pub(crate) query: &'static str,
    pub(crate) key: &'static str,
    pub(crate) value: &'static str,
    pub(crate) attn_out: &'static str,
    pub(crate) attn_norm: &'static str,
    pub(crate) ffn_in: &'static str,
    pub(crate) ffn_out: &'static str,
    pub(crate) out_norm: &'static str,
}

/// One post-layer-norm transformer block:
/// `h = LN(x + W_o·Attn(x))`, `y = LN(h + W_2·act(W_1·h))`
/// (`BertLayer`, `AlbertLayer`, DistilBERT's `TransformerBlock`).
#[derive(Debug)]
pub(crate) struct TransformerBlock {
    attention: SelfAttention,
    attn_out: Linear,
    attn_norm: LayerNorm,
    ffn_in: Linear,
    ffn_out: Linear,
    out_norm: LayerNorm,
    act: Activation,
}

impl TransformerBlock {
    /// Loads the block under `prefix` with the given names.
    pub(crate) fn load(
        w: &Weights,
        prefix: &str,
        names: &BlockNames,
        config: &ModelConfig,
        style: MaskStyle,
    ) -> Result<Self, PlmError> {
        let h = config.hidden_size;
        let i = config.intermediate_size;
        let eps = config.layer_norm_eps;
        let p = |n: &str| format!("{prefix}.{n}");
        Ok(TransformerBlock {
            attention: SelfAttention {
                query: Linear::load(w, &p(names.query), h, h)?,
                key: Linear::load(w, &p(names.key), h, h)?,
                value: Linear::load(w, &p(names.value), h, h)?,
                heads: config.num_attention_heads,
                head_dim: config.head_dim(),
                style,
            },
            attn_out: Linear::load(w, &p(names.attn_out), h, h)?,
            attn_norm: LayerNorm::load(w, &p(names.attn_norm), h, eps)?,
            ffn_in: Linear::load(w, &p(names.ffn_in), h, i)?,
            ffn_out: Linear::load(w, &p(names.ffn_out), i, h)?,
            out_norm: LayerNorm::load(w, &p(names.out_norm), h, eps)?,
            act: config.hidden_act,
        })
    }

    /// Runs the block; returns the new hidden states and, if asked, the attention
    /// probabilities.
    pub(crate) fn forward(
        &self,
        x: &Tensor,
        mask: &KeyMask,
        want_probs: bool,
        dropout: Dropout,
    ) -> Result<(Tensor, Option<Tensor>), PlmError> {
        let (context, probs) = self.attention.forward(x, mask, want_probs, dropout)?;
        let attn = drop(self.attn_out.forward(&context)?, dropout.hidden)?;
        let h = self.attn_norm.forward(&attn.f_add(x)?)?;
        let inner = activate(&self.ffn_in.forward(&h)?, self.act)?;
        let out = drop(self.ffn_out.forward(&inner)?, dropout.hidden)?;
        let y = self.out_norm.forward(&out.f_add(&h)?)?;
        Ok((y, probs))
    }
}

/// How position ids are derived from the input ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PositionIds {
    /// `0, 1, …, length − 1` (BERT, ALBERT, DistilBERT).
    Absolute,
    /// RoBERTa's `create_position_ids_from_input_ids`:
    /// `cumsum(ids ≠ pad)·(ids ≠ pad) + pad`, so padding keeps position `pad` and real tokens
    /// count from `pad + 1`.
    RobertaOffset {
        /// `pad_token_id`.
        pad: i64,
    },
}

/// The embedding sum `LN(word + position [+ token_type])` (`BertEmbeddings`,
/// `RobertaEmbeddings`, `AlbertEmbeddings`, DistilBERT's `Embeddings`); every token has type 0
/// unless [`Embeddings::forward_typed`] is given the types (BERT's sentence pairs).
#[derive(Debug)]
pub(crate) struct Embeddings {
    /// `word_embeddings.weight`, `[vocab, width]` (also the tied decoder).
    pub(crate) word: Tensor,
    position: Tensor,
    /// `token_type_embeddings.weight`, `[type_vocab_size, width]`.
    token_types: Option<Tensor>,
    /// Its row 0 (the type of every token of a single sentence), `[width]`.
    token_type0: Option<Tensor>,
    norm: LayerNorm,
    positions: PositionIds,
}

impl Embeddings {
    /// Loads `{prefix}.word_embeddings`, `{prefix}.position_embeddings`,
    /// `{prefix}.token_type_embeddings` (when `config.type_vocab_size > 0`) and
    /// `{prefix}.LayerNorm`, all of width `width`.
    pub(crate) fn load(
        w: &Weights,
        prefix: &str,
        config: &ModelConfig,
        width: i64,
        positions: PositionIds,
    ) -> Result<Self, PlmError> {
        let token_types = if config.type_vocab_size > 0 {
            Some(w.get(
                &format!("{prefix}.token_type_embeddings.weight"),
                &[config.type_vocab_size, width],
            )?)
        } else {
            None
        };
        let token_type0 = token_types.as_ref().map(|t| t.f_get(0)).transpose()?;
        Ok(Embeddings {
            word: w.get(
                &format!("{prefix}.word_embeddings.weight"),
                &[config.vocab_size, width],
            )?,
            position: w.get(
                &format!("{prefix}.position_embeddings.weight"),
                &[config.max_position_embeddings, width],
            )?,
            token_types,
            token_type0,
            norm: LayerNorm::load(
                w,
                &format!("{prefix}.LayerNorm"),
                width,
                config.layer_norm_eps,
            )?,
            positions,
        })
    }

    /// Embeds `ids` `[batch, length]` into `[batch, length, width]` (before dropout), every
    /// token of type 0.
    pub(crate) fn forward(&self, ids: &Tensor) -> Result<Tensor, PlmError> {
        self.forward_typed(ids, None)
    }

    /// Embeds `ids` with the token types `types` (`[batch, length]`, each below
    /// `type_vocab_size`), or type 0 everywhere when `None`.
    pub(crate) fn forward_typed(
        &self,
        ids: &Tensor,
        types: Option<&Tensor>,
    ) -> Result<Tensor, PlmError> {
        let size = ids.size();
        let (b, l) = (size[0], size[1]);
        let position_ids = match self.positions {
            PositionIds::Absolute => Tensor::f_arange(l, (Kind::Int64, ids.device()))?
                .f_unsqueeze(0)?
                .f_expand([b, l], false)?,
            PositionIds::RobertaOffset { pad } => {
                let real = ids.f_ne(pad)?.f_to_kind(Kind::Int64)?;
                real.f_cumsum(1, Kind::Int64)?
                    .f_mul(&real)?
                    .f_add_scalar(pad)?
            }
        };
        // Summed in the order of `transformers`: words, token types, then positions.
        let mut sum = Tensor::f_embedding(&self.word, ids, -1, false, false)?;
        match (&self.token_types, &self.token_type0, types) {
            (Some(table), _, Some(types)) => {
                sum = sum.f_add(&Tensor::f_embedding(table, types, -1, false, false)?)?;
            }
            (_, Some(row0), _) => sum = sum.f_add(row0)?,
            _ => {}
        }
        let sum = sum.f_add(&Tensor::f_embedding(
            &self.position,
            &position_ids,
            -1,
            false,
            false,
        )?)?;
        self.norm.forward(&sum)
    }
}

/// Embeddings, an optional projection to the hidden width (ALBERT's
/// `embedding_hidden_mapping_in`) and the transformer blocks, run in `schedule` order.
#[derive(Debug)]
pub(crate) struct Encoder {
    pub(crate) embeddings: Embeddings,
    pub(crate) mapping_in: Option<Linear>,
    pub(crate) blocks: Vec<TransformerBlock>,
    /// One entry per reported layer: the blocks it runs in turn. BERT: `[[0], [1], …]`;
    /// ALBERT: layer `i` runs every inner layer of group
    /// `⌊i / (num_hidden_layers / num_hidden_groups)⌋` (`AlbertTransformer`).
    pub(crate) schedule: Vec<Vec<usize>>,
    pub(crate) kind: Kind,
}

impl Encoder {
    /// An encoder running `blocks` once each, in order (every family but ALBERT's shared
    /// groups).
    pub(crate) fn sequential(
        embeddings: Embeddings,
        blocks: Vec<TransformerBlock>,
        kind: Kind,
    ) -> Self {
        Encoder {
            embeddings,
            mapping_in: None,
            schedule: (0..blocks.len()).map(|i| vec![i]).collect(),
            blocks,
            kind,
        }
    }
    /// Runs the encoder on validated inputs on the model's device, with token types (`None`:
    /// type 0 everywhere).
    pub(crate) fn forward_typed(
        &self,
        input: EncoderInput<'_>,
        types: Option<&Tensor>,
    ) -> Result<EncoderOutput, PlmError> {
        let (ids, attention_mask, request, dropout) = input.parts();
        let mask = KeyMask::new(attention_mask, self.kind)?;
        let mut hidden = drop(self.embeddings.forward_typed(ids, types)?, dropout.hidden)?;
        if let Some(mapping) = &self.mapping_in {
            hidden = mapping.forward(&hidden)?;
        }
        let mut trace = Trace::new(request, &hidden);
        for step in &self.schedule {
            for &index in step {
                let (next, probs) =
                    self.blocks[index].forward(&hidden, &mask, request.attentions, dropout)?;
                hidden = next;
                trace.attention(probs);
            }
            trace.hidden(&hidden);
        }
        Ok(trace.finish(hidden, false))
    }
}

/// The masked-LM head: `logits = LN(act(dense(h)))·Eᵀ + b`, with `E` the decoder matrix (the
/// word embeddings when tied). `BertLMPredictionHead`, `RobertaLMHead`, `AlbertMLMHead`, and
/// DistilBERT's `vocab_transform` → `vocab_layer_norm` → `vocab_projector`.
#[derive(Debug)]
pub(crate) struct MlmHead {
    pub(crate) dense: Linear,
    pub(crate) act: Activation,
    pub(crate) norm: LayerNorm,
    pub(crate) decoder: Linear,
}

/// The parameter names of a masked-LM head.
#[derive(Debug)]
pub(crate) struct HeadNames {
    /// The transform's dense layer prefix.
    pub(crate) dense: &'static str,
    /// The transform's layer-norm prefix.
    pub(crate) norm: &'static str,
    /// The decoder weight (absent when tied).
    pub(crate) decoder_weight: &'static str,
    /// Names the output bias may go by (the first present is used).
    pub(crate) bias: &'static [&'static str],
}

impl MlmHead {
    /// [`MlmHead::load`] when `with_head`, else `None` (an encoder loaded for embeddings).
    pub(crate) fn load_if(
        with_head: bool,
        w: &Weights,
        names: &HeadNames,
        config: &ModelConfig,
        (act, width): (Activation, i64),
        word: &Tensor,
    ) -> Result<Option<Self>, PlmError> {
        with_head
            .then(|| Self::load(w, names, config, act, width, word))
            .transpose()
    }

    /// Loads a head whose dense layer maps `hidden → width` and whose decoder maps
    /// `width → vocab`; `word` is the word-embedding matrix `[vocab, width]` for a tied
    /// decoder. A checkpoint without `{dense}.weight` has no head:
    /// [`PlmError::MissingMlmHead`].
    pub(crate) fn load(
        w: &Weights,
        names: &HeadNames,
        config: &ModelConfig,
        act: Activation,
        width: i64,
        word: &Tensor,
    ) -> Result<Self, PlmError> {
        let dense_weight = format!("{}.weight", names.dense);
        if !w.contains(&dense_weight) {
            return Err(PlmError::MissingMlmHead {
                path: w.path().to_path_buf(),
                expected: dense_weight,
            });
        }
        let vocab = config.vocab_size;
        let decoder_weight = match w.get_opt(names.decoder_weight, &[vocab, width])? {
            Some(t) if !config.tie_word_embeddings => t,
            // Tied: transformers overwrites the decoder with the embeddings at load.
            _ if config.tie_word_embeddings => word.shallow_clone(),
            _ => w.get(names.decoder_weight, &[vocab, width])?,
        };
        let bias_names: Vec<String> = names.bias.iter().map(|s| s.to_string()).collect();
        Ok(MlmHead {
            dense: Linear::load(w, names.dense, config.hidden_size, width)?,
            act,
            norm: LayerNorm::load(w, names.norm, width, config.layer_norm_eps)?,
            decoder: Linear::new(decoder_weight, Some(w.get_any(&bias_names, &[vocab])?)),
        })
    }

    /// Vocabulary logits for hidden states `[..., hidden]`.
    pub(crate) fn forward(&self, hidden: &Tensor) -> Result<Tensor, PlmError> {
        let t = activate(&self.dense.forward(hidden)?, self.act)?;
        self.decoder.forward(&self.norm.forward(&t)?)
    }
}
