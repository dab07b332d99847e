//! ALBERT (`transformers.models.albert.modeling_albert.AlbertForMaskedLM`): factorised
//! embeddings of width `embedding_size` projected to the hidden width by
//! `albert.encoder.embedding_hidden_mapping_in`, and `num_hidden_groups` groups of
//! `inner_group_num` shared layers (`albert.encoder.albert_layer_groups.{g}.albert_layers.{j}`)
//! applied `num_hidden_layers` times; the head is `predictions.*`.

use super::layers::{
    BlockNames, Embeddings, Encoder, HeadNames, Linear, MaskStyle, MlmHead, PositionIds,
    TransformerBlock,
};
use crate::{ModelConfig, PlmError};
use super::{boxed_load, LoadSource};
use super::registry::Architecture;
use crate::config::ClassDefaults;

/// ALBERT in the registry: `AlbertConfig`'s defaults (xxlarge's sizes, `gelu_new`, no
/// dropout), factorised embeddings of `embedding_size` (128) and shared layer groups.
pub(crate) static ARCHITECTURE: Architecture = Architecture::new(
    &["albert"],
    |raw, name, _, path| {
        let defaults = ClassDefaults {
            vocab_size: 30000,
            hidden_size: 4096,
            num_attention_heads: 64,
            intermediate_size: 16384,
            hidden_act: "gelu_new",
            hidden_dropout: 0.0,
            attention_dropout: 0.0,
            ..ClassDefaults::BERT
        };
        let activation = ("hidden_act", raw.hidden_act.as_ref());
        let mut config =
            ModelConfig::bert_style(&ARCHITECTURE, name, raw, &defaults, activation, path)?;
        config.embedding_size = raw.embedding_size.unwrap_or(128);
        config.num_hidden_groups = raw.num_hidden_groups.unwrap_or(1);
        config.inner_group_num = raw.inner_group_num.unwrap_or(1);
        config.validated(path)
    },
    boxed_load!(load),
)
    .factorised();

/// Parameter names of an `AlbertLayer`.
const BLOCK: BlockNames = BlockNames {
    query: "attention.query",
    key: "attention.key",
    value: "attention.value",
    attn_out: "attention.dense",
    attn_norm: "attention.LayerNorm",
    ffn_in: "ffn",
    ffn_out: "ffn_output",
    out_norm: "full_layer_layer_norm",
};

/// Parameter names of `AlbertMLMHead`; the decoder bias is tied to `predictions.bias`.
const HEAD: HeadNames = HeadNames {
    dense: "predictions.dense",
    norm: "predictions.LayerNorm",
    decoder_weight: "predictions.decoder.weight",
    bias: &["predictions.bias", "predictions.decoder.bias"],
};

/// The blocks each of the `num_hidden_layers` steps runs, as `AlbertTransformer` picks them:
/// step `i` runs every inner layer of group `int(i / (num_hidden_layers / num_hidden_groups))`
/// (the division in floating point, as in Python).
pub(crate) fn schedule(config: &ModelConfig) -> Vec<Vec<usize>> {
    let per_group = config.num_hidden_layers as f64 / config.num_hidden_groups as f64;
    let inner = config.inner_group_num as usize;
    (0..config.num_hidden_layers)
        .map(|i| {
            let group = (i as f64 / per_group) as usize;
            (group * inner..(group + 1) * inner).collect()
        })
        .collect()
}

/// Loads an ALBERT encoder and, if `with_head`, `AlbertMLMHead` (dense to `embedding_size`,
/// `hidden_act`, LayerNorm, decoder).
pub(crate) fn load(src: LoadSource<'_>) -> Result<(Encoder, Option<MlmHead>), PlmError> {
    let LoadSource { w, config, base, with_head } = src;
    let e = config.embedding_size;
    let embeddings = Embeddings::load(
        w,
        &format!("{base}embeddings"),
        config,
        e,
        PositionIds::Absolute,
    )?;
    let mapping_in = Linear::load(
        w,
        &format!("{base}encoder.embedding_hidden_mapping_in"),
        e,
        config.hidden_size,
    )?;
    let mut blocks = Vec::new();
    for g in 0..config.num_hidden_groups {
        for j in 0..config.inner_group_num {
            blocks.push(TransformerBlock::load(
                w,
                &format!("{base}encoder.albert_layer_groups.{g}.albert_layers.{j}"),
                &BLOCK,
                config,
                MaskStyle::Additive,
            )?);
        }
    }
    let head = MlmHead::load_if(with_head, w, &HEAD, config, (config.hidden_act, e), &embeddings.word)?;
    Ok((
        Encoder {
            embeddings,
            mapping_in: Some(mapping_in),
            blocks,
            schedule: schedule(config),
            kind: w.kind(),
        },
        head,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_follows_albert_transformer() {
        let json = r#"{"model_type": "albert", "num_hidden_layers": 6, "num_hidden_groups": 3,
                       "inner_group_num": 2, "hidden_size": 8, "num_attention_heads": 2}"#;
        let config = ModelConfig::from_json_str(json, "config.json").unwrap();
        // Layers 0–1 use group 0 (blocks 0, 1), 2–3 group 1 (blocks 2, 3), 4–5 group 2.
        assert_eq!(
            schedule(&config),
            vec![
                vec![0, 1],
                vec![0, 1],
                vec![2, 3],
                vec![2, 3],
                vec![4, 5],
                vec![4, 5]
            ]
        );
        let shared = ModelConfig::from_json_str(
            r#"{"model_type": "albert", "num_hidden_layers": 3, "hidden_size": 8,
                "num_attention_heads": 2}"#,
            "config.json",
        )
        .unwrap();
        assert_eq!(schedule(&shared), vec![vec![0], vec![0], vec![0]]);
    }
}
