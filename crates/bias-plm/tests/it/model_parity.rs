//! Parity with Hugging Face `transformers` (5.23.0, torch 2.11.0, eager attention, float32) on
//! the tiny random checkpoints in `fixtures/models/{arch}`: token ids from `tokenizer.json`,
//! unmasked log-probabilities `log P(w_i | S)` (the AUL quantity of kaneko2022, Eq. 4) and the
//! attention each token receives averaged over layers, heads and queries (AULA, Eq. 5), for every
//! sentence of `fixtures/plm/{arch}.json` (written by `scripts/fixtures/plm_models.py`).
//! CrowS-Pairs and StereoSet sentences are read from `data/` by id.

use std::collections::HashMap;

use bias_plm::{
    token_log_probs, DeviceSpec, EncodeRequest, MaskedLanguageModel, PlmModel, PlmTokenizer,
};
use bias_testkit::json::{floats, ints, max_abs_diff as max_diff};
use serde_json::Value;
use tch::{Kind, Tensor};

const TOL: f64 = 1e-4;

use bias_testkit::root;

/// CrowS-Pairs row id → (sent_more, sent_less).
fn crows() -> HashMap<i64, (String, String)> {
    let path = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    let mut reader = csv::Reader::from_path(&path)
        .unwrap_or_else(|e| panic!("CrowS-Pairs data missing at {}: {e}", path.display()));
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (id, more, less) = (col(""), col("sent_more"), col("sent_less"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[id].parse().unwrap(),
                (r[more].to_string(), r[less].to_string()),
            )
        })
        .collect()
}

/// StereoSet intrasentence item id → (stereotype, anti-stereotype) sentences.
fn stereoset() -> HashMap<String, (String, String)> {
    let path = root().join("data/stereoset/dev.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("StereoSet data missing at {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["data"]["intrasentence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let gold = |label: &str| {
                item["sentences"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|s| s["gold_label"] == label)
                    .unwrap()["sentence"]
                    .as_str()
                    .unwrap()
                    .to_string()
            };
            (
                item["id"].as_str().unwrap().to_string(),
                (gold("stereotype"), gold("anti-stereotype")),
            )
        })
        .collect()
}

struct Sentence {
    label: String,
    text: String,
    record: Value,
}

fn sentences(doc: &Value) -> Vec<Sentence> {
    let crows = crows();
    let ss = stereoset();
    let mut out = Vec::new();
    for pair in doc["pairs"].as_array().unwrap() {
        let source = pair["source"].as_str().unwrap();
        let (stereo, anti) = match source {
            "crows-pairs" => crows[&pair["id"].as_i64().unwrap()].clone(),
            "stereoset" => ss[pair["id"].as_str().unwrap()].clone(),
            "custom" => (
                pair["stereo_text"].as_str().unwrap().to_string(),
                pair["anti_text"].as_str().unwrap().to_string(),
            ),
            other => panic!("unknown source {other}"),
        };
        for (side, text) in [("stereo", stereo), ("anti", anti)] {
            out.push(Sentence {
                label: format!("{source}/{}/{side}", pair["id"]),
                text,
                record: pair[side].clone(),
            });
        }
    }
    out
}

fn check_arch(arch: &str) {
    let fixture = root().join(format!("fixtures/plm/{arch}.json"));
    let text = std::fs::read_to_string(&fixture)
        .unwrap_or_else(|e| panic!("fixture {} missing: {e}", fixture.display()));
    let doc: Value = serde_json::from_str(&text).unwrap();
    let dir = root().join(format!("fixtures/models/{arch}"));
    let model = PlmModel::load(&dir, DeviceSpec::Cpu, Kind::Float).unwrap();
    let tok = PlmTokenizer::from_dir(&dir).unwrap();
    let special = &doc["special_tokens"];
    assert_eq!(tok.mask_id().unwrap(), special["mask"].as_i64().unwrap());
    assert_eq!(tok.pad_id().unwrap(), special["pad"].as_i64().unwrap());
    assert_eq!(
        model.config().vocab_size,
        doc["vocab_size"].as_i64().unwrap()
    );

    let all = sentences(&doc);
    assert_eq!(all.len(), 2 * doc["pairs"].as_array().unwrap().len());
    let request = EncodeRequest {
        attentions: true,
        all_hidden: false,
    };
    let (mut worst_lp, mut worst_att) = (0.0f64, 0.0f64);
    let mut batch_ids = Vec::new();
    for s in &all {
        let ids = tok.encode(&s.text).unwrap();
        assert_eq!(
            ids,
            ints(&s.record["input_ids"]),
            "{arch} {}: token ids",
            s.label
        );
        let n = ids.len() as i64;
        let input = Tensor::from_slice(&ids).reshape([1, n]);
        let out = model
            .encode(
                &input,
                &Tensor::ones([1, n], (Kind::Int64, tch::Device::Cpu)),
                request,
            )
            .unwrap();
        let logits = model.mlm_logits(&out.last_hidden.get(0)).unwrap();
        let lp = token_log_probs(&logits, &ids).unwrap();
        let d = max_diff(&lp, &floats(&s.record["unmasked_logprobs"]));
        assert!(d < TOL, "{arch} {}: log-probs differ by {d}", s.label);
        worst_lp = worst_lp.max(d);

        let argmax = Vec::<i64>::try_from(logits.argmax(-1, false)).unwrap();
        assert_eq!(
            argmax,
            ints(&s.record["unmasked_argmax"]),
            "{arch} {}",
            s.label
        );

        let att = out.attentions.unwrap();
        assert_eq!(att.len() as i64, model.config().num_hidden_layers);
        let received = Tensor::stack(&att, 0).select(1, 0).mean_dim(
            [0i64, 1, 2].as_slice(),
            false,
            Kind::Float,
        );
        let received = Vec::<f64>::try_from(received.to_kind(Kind::Double)).unwrap();
        let d = max_diff(&received, &floats(&s.record["attention_received"]));
        assert!(
            d < TOL,
            "{arch} {}: attention received differs by {d}",
            s.label
        );
        worst_att = worst_att.max(d);
        batch_ids.push((ids, lp));
    }

    // The whole set in one padded batch gives the same log-probabilities.
    let pad = tok.pad_id().unwrap();
    let len = batch_ids.iter().map(|(i, _)| i.len()).max().unwrap();
    let mut flat = Vec::new();
    let mut mask = Vec::new();
    for (ids, _) in &batch_ids {
        flat.extend(ids.iter().copied().chain(std::iter::repeat(pad)).take(len));
        mask.extend((0..len).map(|i| i64::from(i < ids.len())));
    }
    let b = batch_ids.len() as i64;
    let out = model
        .encode(
            &Tensor::from_slice(&flat).reshape([b, len as i64]),
            &Tensor::from_slice(&mask).reshape([b, len as i64]),
            EncodeRequest::default(),
        )
        .unwrap();
    let mut worst_batch = 0.0f64;
    for (row, (ids, lp)) in batch_ids.iter().enumerate() {
        let hidden = out
            .last_hidden
            .get(row as i64)
            .narrow(0, 0, ids.len() as i64);
        let batched = token_log_probs(&model.mlm_logits(&hidden).unwrap(), ids).unwrap();
        worst_batch = worst_batch.max(max_diff(&batched, lp));
    }
    assert!(
        worst_batch < TOL,
        "{arch}: padded batch differs by {worst_batch}"
    );
    eprintln!(
        "{arch}: {} sentences, max |Δ log P| = {worst_lp:.2e}, max |Δ attention received| = \
         {worst_att:.2e}, padded batch vs single max |Δ| = {worst_batch:.2e}",
        all.len()
    );
}

#[test]
fn bert_matches_transformers() {
    check_arch("bert");
}

#[test]
fn roberta_matches_transformers() {
    check_arch("roberta");
}

#[test]
fn albert_matches_transformers() {
    check_arch("albert");
}

#[test]
fn distilbert_matches_transformers() {
    check_arch("distilbert");
}

/// ModernBERT (scripts/fixtures/plm_modernbert.py): a local window of 8 tokens cuts most
/// sentences, so the padded batch also checks the band mask against padding.
#[test]
fn modernbert_matches_transformers() {
    check_arch("modernbert");
}
