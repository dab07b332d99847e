//! ELECTRA's generator (Clark et al. 2020, "ELECTRA: Pre-training Text Encoders as
//! Discriminators Rather Than Generators", ICLR; `transformers.models.electra.modeling_electra.
//! ElectraForMaskedLM`): the masked-LM half of ELECTRA pre-training, and the only ELECTRA
//! checkpoint that predicts tokens (a discriminator, `ElectraForPreTraining`, has no MLM head and
//! loads only as an encoder, for embeddings).
//!
//! Parameters: `electra.embeddings.*` of width `embedding_size` (BERT's embedding sum: words,
//! token type 0, absolute positions, LayerNorm), `electra.embeddings_project` (a linear map to
//! `hidden_size`, present only when the two widths differ), BERT layers under
//! `electra.encoder.layer.{i}`, and the head: `generator_predictions.dense`
//! (`hidden_size → embedding_size`), the exact (erf) GELU whatever `hidden_act` says
//! (`ElectraGeneratorPredictions` calls `get_activation("gelu")`),
//! `generator_predictions.LayerNorm`, then `generator_lm_head` (`embedding_size → vocab`, weight
//! tied to the word embeddings when `tie_word_embeddings`, with its own bias).

use super::bert;
use super::layers::{
    Embeddings, Encoder, HeadNames, Linear, MaskStyle, MlmHead, PositionIds, TransformerBlock,
};
use crate::config::Activation;
use crate::{ModelConfig, PlmError};
use super::{boxed_load, LoadSource};
use super::registry::Architecture;
use crate::config::ClassDefaults;

/// ELECTRA (the generator) in the registry: `ElectraConfig`'s defaults (electra-small's sizes)
/// and factorised embeddings of `embedding_size` (128).
pub(crate) static ARCHITECTURE: Architecture = Architecture::new(
    &["electra"],
    |raw, name, _, path| {
        let defaults = ClassDefaults {
            hidden_size: 256,
            num_attention_heads: 4,
            intermediate_size: 1024,
            ..ClassDefaults::BERT
        };
        let activation = ("hidden_act", raw.hidden_act.as_ref());
        let mut config =
            ModelConfig::bert_style(&ARCHITECTURE, name, raw, &defaults, activation, path)?;
        config.embedding_size = raw.embedding_size.unwrap_or(128);
        config.validated(path)
    },
    boxed_load!(load),
)
    .factorised();

/// Parameter names of `ElectraGeneratorPredictions` + `generator_lm_head`.
const HEAD: HeadNames = HeadNames {
    dense: "generator_predictions.dense",
    norm: "generator_predictions.LayerNorm",
    decoder_weight: "generator_lm_head.weight",
    bias: &["generator_lm_head.bias"],
};

/// Loads an ELECTRA encoder (`ElectraModel`: embeddings, the projection to the hidden width when
/// `embedding_size ≠ hidden_size`, BERT layers) under `base` (`"electra."`, or `""` for a bare
/// `ElectraModel` checkpoint) and, if `with_head`, the generator's MLM head.
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
    // `ElectraModel` creates `embeddings_project` exactly when the widths differ.
    let mapping_in = if e != config.hidden_size {
        Some(Linear::load(
            w,
            &format!("{base}embeddings_project"),
            e,
            config.hidden_size,
        )?)
    } else {
        None
    };
    let blocks = (0..config.num_hidden_layers)
        .map(|i| {
            TransformerBlock::load(
                w,
                &format!("{base}encoder.layer.{i}"),
                &bert::BLOCK,
                config,
                MaskStyle::Additive,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let head = MlmHead::load_if(with_head, w, &HEAD, config, (Activation::Gelu, e), &embeddings.word)?;
    Ok((
        Encoder {
            embeddings,
            mapping_in,
            schedule: (0..blocks.len()).map(|i| vec![i]).collect(),
            blocks,
            kind: w.kind(),
        },
        head,
    ))
}

#[cfg(test)]
mod tests {
    use crate::{ModelConfig, ModelType};

    #[test]
    fn config_takes_electra_config_defaults() {
        let config = ModelConfig::from_json_str(r#"{"model_type": "electra"}"#, "c.json").unwrap();
        assert_eq!(config.model_type, ModelType::Electra);
        assert_eq!(
            (
                config.vocab_size,
                config.embedding_size,
                config.hidden_size,
                config.num_attention_heads,
                config.intermediate_size,
                config.pad_token_id,
            ),
            (30522, 128, 256, 4, 1024, 0)
        );
        // Absolute positions: no RoBERTa offset.
        assert_eq!(config.max_tokens(), 512);
        let same = ModelConfig::from_json_str(
            r#"{"model_type": "electra", "embedding_size": 64, "hidden_size": 64}"#,
            "c.json",
        )
        .unwrap();
        assert_eq!(same.embedding_size, same.hidden_size);
    }
}
