//! What several of these modules share: the fixtures' pairs, read from `data/` by id; the causal
//! families; a right-padded batch through an encoder.

use std::collections::HashMap;

use bias_core::{BiasType, Direction, SentencePair};
use bias_testkit::root;
use serde_json::Value;

pub(crate) fn real_pairs(rel: &str) -> HashMap<String, SentencePair> {
    pairs_in_order(rel)
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect()
}

/// The pairs of `data/<rel>`, in file order.
pub(crate) fn pairs_in_order(rel: &str) -> Vec<SentencePair> {
    let path = root().join("data").join(rel);
    assert!(
        path.is_file(),
        "{} missing: run scripts/setup.sh",
        path.display()
    );
    bias_data::load_pairs(&path).unwrap().pairs
}

/// The fixture's pairs as `SentencePair`s, in fixture order.
pub(crate) fn pairs(fixture: &Value) -> Vec<SentencePair> {
    let crows = real_pairs("crows-pairs/crows_pairs_anonymized.csv");
    let stereoset = real_pairs("stereoset/dev.json");
    fixture["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let id = match &p["id"] {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            match p["source"].as_str().unwrap() {
                "crows-pairs" => crows[&id].clone(),
                "stereoset" => stereoset[&id].clone(),
                _ => SentencePair {
                    id,
                    stereo: p["stereo_text"].as_str().unwrap().to_owned(),
                    anti: p["anti_text"].as_str().unwrap().to_owned(),
                    bias_type: BiasType::Other("custom".into()),
                    direction: Direction::Stereo,
                    group_id: None,
                },
            }
        })
        .collect()
}

/// The causal families with a fixture checkpoint (`fixtures/models/<family>`).
pub(crate) const CAUSAL_FAMILIES: [&str; 9] = [
    "gpt2", "llama", "mistral", "qwen2", "gpt_neox", "opt", "gemma2", "phi3", "olmo2",
];

/// `sequences` right-padded with `pad` into one batch, encoded with every layer's attentions
/// and hidden states.
pub(crate) fn encode_padded(
    model: &impl bias_plm::MaskedLanguageModel,
    sequences: &[Vec<i64>],
    pad: i64,
) -> bias_plm::EncoderOutput {
    let width = sequences.iter().map(Vec::len).max().unwrap();
    let (mut flat, mut mask) = (Vec::new(), Vec::new());
    for seq in sequences {
        flat.extend(
            seq.iter()
                .copied()
                .chain(std::iter::repeat(pad))
                .take(width),
        );
        mask.extend((0..width).map(|i| i64::from(i < seq.len())));
    }
    let shape = [sequences.len() as i64, width as i64];
    let request = bias_plm::EncodeRequest {
        attentions: true,
        all_hidden: true,
    };
    model
        .encode(
            &tch::Tensor::from_slice(&flat).reshape(shape),
            &tch::Tensor::from_slice(&mask).reshape(shape),
            request,
        )
        .unwrap()
}

/// The causal fixture checkpoint `fixtures/models/<arch>` on the CPU in float32.
pub(crate) fn open_causal(arch: &str) -> bias_plm::CausalLm {
    let dir = root().join("fixtures/models").join(arch);
    bias_plm::CausalLm::open(dir, bias_plm::DeviceSpec::Cpu, tch::Kind::Float).unwrap()
}

/// [`open_causal`], checked to condition on the reference's `prefix_token_id`.
pub(crate) fn open_causal_as(arch: &str, reference: &Value) -> bias_plm::CausalLm {
    let lm = open_causal(arch);
    assert_eq!(
        lm.prefix_token_id(),
        reference["prefix_token_id"].as_i64().unwrap(),
        "{arch}: prefix token"
    );
    lm
}
