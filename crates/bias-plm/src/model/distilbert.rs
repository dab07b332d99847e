//! DistilBERT (`transformers.models.distilbert.modeling_distilbert.DistilBertForMaskedLM`):
//! `distilbert.embeddings.*` (words and learned positions, no token types),
//! `distilbert.transformer.layer.{i}.*` (`q_lin`/`k_lin`/`v_lin`/`out_lin`, `sa_layer_norm`,
//! `ffn.lin1`/`ffn.lin2`, `output_layer_norm`) and the head `vocab_transform` →
//! activation → `vocab_layer_norm` → `vocab_projector`.

use super::layers::{
    BlockNames, Embeddings, Encoder, HeadNames, MaskStyle, MlmHead, PositionIds, TransformerBlock,
};
use crate::{ModelConfig, PlmError};
use super::{boxed_load, LoadSource};
use super::registry::Architecture;
use crate::config::ClassDefaults;
use crate::config::RawConfig;

/// DistilBERT in the registry: `DistilBertConfig`'s names (`dim`, `n_layers`, `n_heads`,
/// `hidden_dim`, `activation`, `dropout`, `attention_dropout`) and defaults (6 layers), no token
/// types, layer-norm epsilon fixed at 1e-12 as `transformers` fixes it, learned positions only.
pub(crate) static ARCHITECTURE: Architecture = Architecture::new(
    &["distilbert"],
    |raw, name, _, path| {
        if raw.sinusoidal_pos_embds == Some(true) {
            return Err(crate::config::unsupported_setting(
                path,
                "sinusoidal_pos_embds",
                "true".into(),
                "only learned DistilBERT position embeddings are implemented",
            ));
        }
        let renamed = RawConfig {
            hidden_size: raw.dim,
            num_hidden_layers: raw.n_layers,
            num_attention_heads: raw.n_heads,
            intermediate_size: raw.hidden_dim,
            hidden_dropout_prob: raw.dropout,
            attention_probs_dropout_prob: raw.attention_dropout,
            ..raw.clone()
        };
        let defaults = ClassDefaults {
            num_hidden_layers: 6,
            ..ClassDefaults::BERT
        };
        let activation = ("activation", raw.activation.as_ref());
        let mut config =
            ModelConfig::bert_style(&ARCHITECTURE, name, &renamed, &defaults, activation, path)?;
        config.type_vocab_size = 0;
        config.layer_norm_eps = 1e-12;
        config.validated(path)
    },
    boxed_load!(load),
);

/// Parameter names of a DistilBERT `TransformerBlock`.
const BLOCK: BlockNames = BlockNames {
    query: "attention.q_lin",
    key: "attention.k_lin",
    value: "attention.v_lin",
    attn_out: "attention.out_lin",
    attn_norm: "sa_layer_norm",
    ffn_in: "ffn.lin1",
    ffn_out: "ffn.lin2",
    out_norm: "output_layer_norm",
};

/// Parameter names of DistilBERT's MLM head.
const HEAD: HeadNames = HeadNames {
    dense: "vocab_transform",
    norm: "vocab_layer_norm",
    decoder_weight: "vocab_projector.weight",
    bias: &["vocab_projector.bias"],
};

/// Loads a DistilBERT encoder (attention scales `Q` by `1/√d` and fills padded keys with
/// `finfo.min`, as `MultiHeadSelfAttention` does) and, if `with_head`, its MLM head with the
/// configured `activation`.
pub(crate) fn load(src: LoadSource<'_>) -> Result<(Encoder, Option<MlmHead>), PlmError> {
    let LoadSource { w, config, base, with_head } = src;
    let embeddings = Embeddings::load(
        w,
        &format!("{base}embeddings"),
        config,
        config.hidden_size,
        PositionIds::Absolute,
    )?;
    let blocks = (0..config.num_hidden_layers)
        .map(|i| {
            TransformerBlock::load(
                w,
                &format!("{base}transformer.layer.{i}"),
                &BLOCK,
                config,
                MaskStyle::Fill,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let head = MlmHead::load_if(with_head, w, &HEAD, config, (config.hidden_act, config.hidden_size), &embeddings.word)?;
    Ok((
        Encoder::sequential(embeddings, blocks, w.kind()),
        head,
    ))
}
