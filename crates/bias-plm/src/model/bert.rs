//! BERT (`transformers.models.bert.modeling_bert.BertForMaskedLM`): `bert.embeddings.*`,
//! `bert.encoder.layer.{i}.*` and the head `cls.predictions.*`.

use super::layers::{
    BlockNames, Embeddings, Encoder, HeadNames, MaskStyle, MlmHead, PositionIds, TransformerBlock,
    Weights,
};
use super::{boxed_load, LoadSource};
use super::registry::Architecture;
use crate::config::ClassDefaults;
use crate::{ModelConfig, PlmError};

/// BERT in the registry: `model_type` `bert`, `BertConfig`'s defaults.
pub(crate) static ARCHITECTURE: Architecture = Architecture::new(
    &["bert"],
    |raw, name, _, path| {
        let activation = ("hidden_act", raw.hidden_act.as_ref());
        ModelConfig::bert_style(&ARCHITECTURE, name, raw, &ClassDefaults::BERT, activation, path)?
            .validated(path)
    },
    boxed_load!(load),
);

/// Parameter names of a `BertLayer` under `encoder.layer.{i}` (shared by RoBERTa).
pub(crate) const BLOCK: BlockNames = BlockNames {
    query: "attention.self.query",
    key: "attention.self.key",
    value: "attention.self.value",
    attn_out: "attention.output.dense",
    attn_norm: "attention.output.LayerNorm",
    ffn_in: "intermediate.dense",
    ffn_out: "output.dense",
    out_norm: "output.LayerNorm",
};

/// Parameter names of `BertOnlyMLMHead` (`cls.predictions`); the decoder bias is tied to
/// `cls.predictions.bias`.
pub(crate) const HEAD: HeadNames = HeadNames {
    dense: "cls.predictions.transform.dense",
    norm: "cls.predictions.transform.LayerNorm",
    decoder_weight: "cls.predictions.decoder.weight",
    bias: &["cls.predictions.bias", "cls.predictions.decoder.bias"],
};

/// Loads `BertEmbeddings` and `BertEncoder` under `base` (`"bert."` or `""` for a bare
/// `BertModel` checkpoint) with the given position-id rule (RoBERTa reuses this).
pub(crate) fn load_encoder(
    w: &Weights,
    config: &ModelConfig,
    base: &str,
    positions: PositionIds,
) -> Result<Encoder, PlmError> {
    let embeddings = Embeddings::load(
        w,
        &format!("{base}embeddings"),
        config,
        config.hidden_size,
        positions,
    )?;
    let blocks = (0..config.num_hidden_layers)
        .map(|i| {
            TransformerBlock::load(
                w,
                &format!("{base}encoder.layer.{i}"),
                &BLOCK,
                config,
                MaskStyle::Additive,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Encoder::sequential(embeddings, blocks, w.kind()))
}

/// Loads a BERT encoder (absolute positions) under `base`, without any head: the encoder of
/// the next-sentence model (`crate::next_sentence`).
pub(crate) fn load_plain_encoder(
    w: &Weights,
    config: &ModelConfig,
    base: &str,
) -> Result<Encoder, PlmError> {
    load_encoder(w, config, base, PositionIds::Absolute)
}

/// Loads a BERT encoder and, if `with_head`, its MLM head
/// (`BertPredictionHeadTransform` with `hidden_act`, then the decoder).
pub(crate) fn load(src: LoadSource<'_>) -> Result<(Encoder, Option<MlmHead>), PlmError> {
    let LoadSource { w, config, base, with_head } = src;
    let encoder = load_encoder(w, config, base, PositionIds::Absolute)?;
    let head = MlmHead::load_if(with_head, w, &HEAD, config, (config.hidden_act, config.hidden_size), &encoder.embeddings.word)?;
    Ok((encoder, head))
}
