//! What several of these modules share: the fixtures' pairs, read from `data/` by id.

use std::collections::HashMap;

use bias_core::{BiasType, Direction, SentencePair};
use bias_testkit::root;
use serde_json::Value;

pub(crate) fn real_pairs(rel: &str) -> HashMap<String, SentencePair> {
    let path = root().join("data").join(rel);
    assert!(
        path.is_file(),
        "{} missing: run scripts/setup.sh",
        path.display()
    );
    bias_data::load_pairs(&path)
        .unwrap()
        .pairs
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect()
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
