//! RoBERTa (`transformers.models.roberta.modeling_roberta.RobertaForMaskedLM`; XLM-RoBERTa and
//! CamemBERT share the layout): BERT's layers under `roberta.*` with `RobertaEmbeddings`, whose
//! position ids start after the padding index, and the head `lm_head.*`.

use super::bert;
use super::layers::{Encoder, HeadNames, MlmHead, PositionIds};
use crate::config::Activation;
use crate::{ModelConfig, PlmError};
use super::{boxed_load, LoadSource};
use super::registry::Architecture;
use crate::config::ClassDefaults;

/// RoBERTa in the registry: `roberta` (`RobertaConfig`'s defaults) and the same layout under
/// `xlm-roberta` and `camembert` (their classes keep BERT's vocabulary size); position ids start
/// after the padding index.
pub(crate) static ARCHITECTURE: Architecture = Architecture::new(
    &["roberta", "xlm-roberta", "camembert"],
    |raw, name, _, path| {
        let defaults = ClassDefaults {
            vocab_size: if name == "roberta" { 50265 } else { 30522 },
            pad_token_id: 1,
            ..ClassDefaults::BERT
        };
        let activation = ("hidden_act", raw.hidden_act.as_ref());
        ModelConfig::bert_style(&ARCHITECTURE, name, raw, &defaults, activation, path)?
            .validated(path)
    },
    boxed_load!(load),
)
    .listed_as("roberta (also xlm-roberta, camembert)")
    .position_offset(|config| config.pad_token_id + 1);

/// Parameter names of `RobertaLMHead`; the decoder bias is tied to `lm_head.bias`.
const HEAD: HeadNames = HeadNames {
    dense: "lm_head.dense",
    norm: "lm_head.layer_norm",
    decoder_weight: "lm_head.decoder.weight",
    bias: &["lm_head.bias", "lm_head.decoder.bias"],
};

/// Loads a RoBERTa encoder (position ids `cumsum(ids ≠ pad)·(ids ≠ pad) + pad`, token type 0)
/// and, if `with_head`, `RobertaLMHead`, which always applies the exact (erf) GELU whatever
/// `hidden_act` says.
pub(crate) fn load(src: LoadSource<'_>) -> Result<(Encoder, Option<MlmHead>), PlmError> {
    let LoadSource { w, config, base, with_head } = src;
    let positions = PositionIds::RobertaOffset {
        pad: config.pad_token_id,
    };
    let encoder = bert::load_encoder(w, config, base, positions)?;
    let head = MlmHead::load_if(with_head, w, &HEAD, config, (Activation::Gelu, config.hidden_size), &encoder.embeddings.word)?;
    Ok((encoder, head))
}
