//! DeBERTa-v2 settings that the scorer-parity fixture (a DeBERTa-v3 layout) does not exercise,
//! against `transformers` (fixtures/plm/deberta-v2-variants.json and
//! fixtures/models/deberta-v2-variants/, written by scripts/fixtures/plm_deberta.py): the
//! convolution layer, separate position projections, c2p or p2c alone, unbucketed relative
//! positions, absolute positions and token types, `embed_proj`, an untied legacy decoder, the
//! non-legacy head and no relative attention. Every position's log-probabilities, the attention
//! each position receives and every layer's hidden states are compared, for the sequences
//! batched with right padding and one at a time. Also: the legacy head over a checkpoint that
//! only holds the non-legacy one is refused, and the DeBERTa tokenizer's special tokens are found.

use std::path::Path;

use crate::support::encode_padded;
use bias_plm::{DeviceSpec, MaskedLanguageModel, PlmError, PlmModel, PlmTokenizer};
use bias_testkit::json::{at_root as read_json, floats, ints as ids};
use serde_json::Value;
use tch::{Kind, Tensor};

const TOL: f64 = 1e-4;

use bias_testkit::root;

fn to_vec(t: &Tensor) -> Vec<f64> {
    Vec::<f64>::try_from(&t.to_kind(Kind::Double).reshape([-1])).unwrap()
}

/// Largest |a − b|, asserting equal lengths.
fn max_diff(what: &str, got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    got.iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max)
}

/// Runs `sequences` (indices into the variant's list) as one right-padded batch and compares
/// every real position with the fixture; returns the largest difference seen.
fn check_batch(name: &str, model: &PlmModel, sequences: &[&Value]) -> f64 {
    let pad = model.config().pad_token_id;
    let b = sequences.len();
    let rows: Vec<Vec<i64>> = sequences.iter().map(|s| ids(&s["input_ids"])).collect();
    let out = encode_padded(model, &rows, pad);
    let layers = out.attentions.as_ref().unwrap();
    let hidden = out.all_hidden.as_ref().unwrap();
    let mut worst = 0.0f64;
    for (row, s) in sequences.iter().enumerate() {
        let n = s["input_ids"].as_array().unwrap().len() as i64;
        let what = format!("{name} length {n} in a batch of {b}");
        let h = out.last_hidden.get(row as i64).narrow(0, 0, n);
        let log_probs = model.mlm_logits(&h).unwrap().log_softmax(-1, Kind::Float);
        let want: Vec<f64> = s["log_probs"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(floats)
            .collect();
        let d = max_diff(&what, &to_vec(&log_probs), &want);
        assert!(d <= TOL, "{what}: log-probabilities differ by {d}");
        worst = worst.max(d);
        // Attention received: mean over layers, heads and (real) queries.
        let received = layers
            .iter()
            .map(|a| a.get(row as i64).narrow(1, 0, n).narrow(2, 0, n))
            .fold(
                Tensor::zeros([n], (Kind::Double, tch::Device::Cpu)),
                |acc, a| {
                    acc + a
                        .to_kind(Kind::Double)
                        .mean_dim(&[0i64, 1][..], false, Kind::Double)
                },
            )
            / layers.len() as f64;
        let d = max_diff(&what, &to_vec(&received), &floats(&s["attention_received"]));
        assert!(d <= TOL, "{what}: attention received differs by {d}");
        worst = worst.max(d);
        let want_hidden = s["hidden_states"].as_array().unwrap();
        assert_eq!(
            hidden.len(),
            want_hidden.len(),
            "{what}: hidden-state count"
        );
        for (k, (got, want)) in hidden.iter().zip(want_hidden).enumerate() {
            let want: Vec<f64> = want.as_array().unwrap().iter().flat_map(floats).collect();
            let got = got.get(row as i64).narrow(0, 0, n);
            let d = max_diff(&what, &to_vec(&got), &want);
            assert!(d <= TOL, "{what}: hidden states {k} differ by {d}");
            worst = worst.max(d);
        }
    }
    worst
}

#[test]
fn deberta_variants_match_transformers_batched_and_alone() {
    let fixture = read_json("fixtures/plm/deberta-v2-variants.json");
    let variants = fixture["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 4);
    for v in variants {
        let name = v["name"].as_str().unwrap();
        let dir = root().join(v["model_dir"].as_str().unwrap());
        let model = PlmModel::load(&dir, DeviceSpec::Cpu, Kind::Float).unwrap();
        let sequences: Vec<&Value> = v["sequences"].as_array().unwrap().iter().collect();
        let mut worst = check_batch(name, &model, &sequences);
        for s in &sequences {
            worst = worst.max(check_batch(name, &model, &[s]));
        }
        eprintln!("{name}: max |Δ| {worst:.2e}");
    }
}

/// Microsoft's original DeBERTa checkpoints hold `lm_predictions.lm_head.*` while their
/// `config.json` leaves `legacy` at its default (true), under which `transformers` builds a
/// randomly initialised `cls.predictions` head: refused, with the setting that fixes it.
#[test]
fn legacy_head_over_a_non_legacy_checkpoint_is_refused() {
    let src = root().join("fixtures/models/deberta-v2-variants/lm-head");
    let dir = std::env::temp_dir().join(format!("bias-plm-deberta-legacy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(src.join("model.safetensors"), dir.join("model.safetensors")).unwrap();
    let mut config = read_json("fixtures/models/deberta-v2-variants/lm-head/config.json");
    config.as_object_mut().unwrap().remove("legacy");
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let err = PlmModel::load(&dir, DeviceSpec::Cpu, Kind::Float).unwrap_err();
    let message = err.to_string();
    let refused = matches!(&err, PlmError::UnsupportedConfig { key, .. } if key == "legacy");
    // The encoder alone (embeddings) does not need the head.
    let encoder = PlmModel::load_encoder(&dir, DeviceSpec::Cpu, Kind::Float);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(refused, "{err:?}");
    assert!(message.contains("\"legacy\": false"), "{message}");
    assert!(encoder.is_ok());
    // The fixture's encoder (config.json: hidden_size 16), read without any head.
    let encoder = encoder.unwrap();
    assert!(!encoder.has_mlm_head());
    assert_eq!(encoder.config().hidden_size, 16);
}

/// `[CLS] … [SEP]` around the pieces, and the mask and padding tokens found by name.
#[test]
fn deberta_tokenizer_finds_its_special_tokens() {
    let fixture = read_json("fixtures/plm/deberta-v2.json");
    let special = &fixture["special_tokens"];
    let dir: &Path = &root().join("fixtures/models/deberta-v2");
    let tok = PlmTokenizer::from_dir(dir).unwrap();
    assert_eq!(tok.mask_id().unwrap(), special["mask"].as_i64().unwrap());
    assert_eq!(tok.pad_id().unwrap(), special["pad"].as_i64().unwrap());
    assert_eq!(tok.pad_id().unwrap(), 0);
    let detailed = tok.encode_detailed("The nurse is kind.").unwrap();
    assert_eq!(detailed.ids.first(), special["cls"].as_i64().as_ref());
    assert_eq!(detailed.ids.last(), special["sep"].as_i64().as_ref());
    assert!(detailed.special[0] && *detailed.special.last().unwrap());
    assert!(!detailed.special[1..detailed.special.len() - 1]
        .iter()
        .any(|&s| s));
    let model = PlmModel::load(dir, DeviceSpec::Cpu, Kind::Float).unwrap();
    assert_eq!(model.config().pad_token_id, 0);
    assert!(tok.mask_id().unwrap() < model.config().vocab_size);
}
