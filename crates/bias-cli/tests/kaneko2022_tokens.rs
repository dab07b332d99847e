//! Token-prediction accuracy of Kaneko & Bollegala (2022, §4.2, Tables 1 and 4) against
//! `transformers` (scripts/fixtures/kaneko2022_tokens.py → fixtures/kaneko2022/tokens.json) on
//! the fixture BERT and RoBERTa: per-token arg-max outcomes of `StudiedLm`, and the accuracies and
//! McNemar tests of `bias_robust::reproduce::scorer_accuracy` / `unrelated_accuracy` under every
//! option. The fixture keeps only pairs with no near-tied arg-max (top-2 log-probabilities 1e-4
//! apart or more), so the boolean outcomes are compared exactly.

use std::path::{Path, PathBuf};

use bias_core::{SentencePair, StudyModel, TokenQuery};
use bias_plm::{DeviceSpec, LanguageModel, StudiedLm};
use bias_robust::reproduce::{
    scorer_accuracy, stereoset_unrelated_pairs, unrelated_accuracy, AccuracyOptions, AccuracySet,
    AulTokens, StereoSetAccuracy,
};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture() -> Value {
    let text = std::fs::read_to_string(root().join("fixtures/kaneko2022/tokens.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn open(name: &str) -> StudiedLm {
    let lm = LanguageModel::open(
        root().join("fixtures/models").join(name),
        DeviceSpec::Cpu,
        tch::Kind::Float,
    )
    .unwrap();
    StudiedLm::new(lm)
}

fn bools(v: &Value) -> Vec<bool> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_bool().unwrap())
        .collect()
}

fn counts(v: &Value) -> (usize, usize) {
    (
        v[0].as_u64().unwrap() as usize,
        v[1].as_u64().unwrap() as usize,
    )
}

/// The fixture's pairs, as the data loader reads them (checked sentence by sentence).
fn pairs(set: &str, fx: &Value) -> Vec<SentencePair> {
    let path = match set {
        "crows-pairs" => bias_data::layout::crows_pairs(root().join("data")),
        _ => bias_data::layout::stereoset_dev(root().join("data")),
    };
    let all = bias_data::load_pairs(path).unwrap().pairs;
    fx.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let id = p["id"].as_str().unwrap();
            let found = all
                .iter()
                .find(|q| q.id == id)
                .unwrap_or_else(|| panic!("pair {id} not in {set}"));
            assert_eq!(found.stereo, p["stereo"].as_str().unwrap(), "{set} {id}");
            assert_eq!(found.anti, p["anti"].as_str().unwrap(), "{set} {id}");
            found.clone()
        })
        .collect()
}

#[test]
fn per_token_outcomes_match_transformers() {
    let fx = fixture();
    for name in ["bert", "roberta"] {
        let mut m = open(name);
        let mut checked = 0;
        for set in ["crows-pairs", "stereoset"] {
            for p in fx["models"][name][set]["pairs"].as_array().unwrap() {
                let sentences = [p["stereo"].as_str().unwrap(), p["anti"].as_str().unwrap()];
                let outcomes = m.token_outcomes(&sentences).unwrap().unwrap();
                for (side, sd) in p["sides"].as_array().unwrap().iter().enumerate() {
                    let ids: Vec<i64> = sd["ids"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_i64().unwrap())
                        .collect();
                    assert_eq!(m.token_ids(sentences[side]).unwrap().unwrap(), ids);
                    let unmasked = bools(&sd["unmasked"]);
                    // token_outcomes: the non-special positions.
                    assert_eq!(
                        outcomes[side],
                        unmasked[1..unmasked.len() - 1],
                        "{name} {set} {} side {side}",
                        p["id"]
                    );
                    // predict_tokens with the masked scorer's masks.
                    let at: Vec<usize> = sd["paper"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_u64().unwrap() as usize)
                        .collect();
                    let masked = bools(&sd["masked"]);
                    if set == "stereoset" && !at.is_empty() {
                        let q = TokenQuery {
                            ids: ids.clone(),
                            masked: at.clone(),
                            targets: at.clone(),
                        };
                        assert_eq!(m.predict_tokens(&[q]).unwrap().unwrap()[0], masked);
                    } else if set == "crows-pairs" {
                        let qs: Vec<TokenQuery> = at
                            .iter()
                            .map(|&p| TokenQuery {
                                ids: ids.clone(),
                                masked: vec![p],
                                targets: vec![p],
                            })
                            .collect();
                        let got: Vec<bool> = m
                            .predict_tokens(&qs)
                            .unwrap()
                            .unwrap()
                            .into_iter()
                            .map(|o| o[0])
                            .collect();
                        assert_eq!(got, masked);
                    }
                    checked += unmasked.len() + masked.len();
                }
            }
        }
        assert!(checked > 1000, "{name}: only {checked} outcomes compared");
    }
}

#[test]
fn accuracies_and_mcnemar_match_the_reference_under_every_option() {
    let fx = fixture();
    let unrelated_all =
        stereoset_unrelated_pairs(&bias_data::layout::stereoset_dev(root().join("data"))).unwrap();
    for name in ["bert", "roberta"] {
        let mut m = open(name);
        for (set_name, set) in [
            ("crows-pairs", AccuracySet::CrowsPairs),
            ("stereoset", AccuracySet::StereoSet),
        ] {
            let entry = &fx["models"][name][set_name];
            let ps = pairs(set_name, &entry["pairs"]);
            let unrelated: Vec<SentencePair> = ps
                .iter()
                .filter(|_| set == AccuracySet::StereoSet)
                .map(|p| {
                    let id = format!("{}/stereo-unrelated", p.id);
                    unrelated_all.iter().find(|u| u.id == id).unwrap().clone()
                })
                .collect();
            for (key, want) in entry["accuracy"].as_object().unwrap() {
                let (tokens, unit) = key.split_once('/').unwrap();
                let options = AccuracyOptions {
                    aul_tokens: tokens.parse::<AulTokens>().unwrap(),
                    stereoset: unit.parse::<StereoSetAccuracy>().unwrap(),
                };
                let got = scorer_accuracy(&mut m, set, &ps, options).unwrap();
                let ctx = format!("{name} {set_name} {key}");
                assert_eq!(got.unit, unit, "{ctx}");
                assert_eq!(
                    (got.masked.correct(), got.masked.total()),
                    counts(&want["masked"]),
                    "{ctx}"
                );
                assert_eq!(
                    (got.aul.correct(), got.aul.total()),
                    counts(&want["aul"]),
                    "{ctx}"
                );
                assert_eq!(got.pairs as u64, want["pairs"].as_u64().unwrap(), "{ctx}");
                let test = got.test.unwrap();
                let table: [[u64; 2]; 2] =
                    serde_json::from_value(want["mcnemar"]["table"].clone()).unwrap();
                assert_eq!(test.table, table, "{ctx}");
                let p = want["mcnemar"]["exact_p"].as_f64().unwrap();
                assert!(
                    (test.exact.p_value - p).abs() <= 1e-9 * p.max(1e-300),
                    "{ctx}"
                );
                match want["mcnemar"]["chi2_p"].as_f64() {
                    Some(p) => assert!(
                        (test.chi2.unwrap().p_value - p).abs() <= 1e-9 * p.max(1e-300),
                        "{ctx}"
                    ),
                    None => assert!(test.chi2.is_none(), "{ctx}"),
                }
                if set == AccuracySet::StereoSet {
                    let u = unrelated_accuracy(&mut m, &ps, &unrelated, options).unwrap();
                    assert_eq!(
                        (u.changed.correct(), u.changed.total()),
                        counts(&want["unrelated"]),
                        "{ctx} unrelated"
                    );
                    assert_eq!(u.original, got.aul, "{ctx} unrelated original");
                    assert!(u.test.is_none());
                }
            }
        }
    }
}
