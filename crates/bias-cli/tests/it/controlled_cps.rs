//! CPS of bias-controlled models, oriented male vs female as kaneko2023's study uses it, against
//! `transformers` (fixtures/plm/controlled_cps.json, scripts/fixtures/controlled_cps.py).
//!
//! The fixture's two models are the tiny BERT fine-tuned by `bias controlled` at r = 0 (female
//! sentences only) and r = 1 (male only). The script orients the CrowS-Pairs gender pairs by its
//! own rule and computes CPS with `transformers`; here the crates score the same pairs and orient
//! them with `bias_robust::controlled::orient_by_gender`. They must agree pair by pair on which
//! pairs are kept, which sentence is the male one, and both CPS values (1e-4), so the CPS
//! indicator of the controlled study is the share of male sentences preferred, with the sign
//! the paper uses.

use approx::abs_diff_eq;
use std::collections::HashMap;

use bias_core::run::score_to_table;
use bias_core::{BiasType, ScoreTable, SentencePair};
use bias_data::corpus::GenderWords;
use bias_plm::{DeviceSpec, MaskedLm, ScorerKind, ScoringOptions};
use bias_robust::controlled::orient_by_gender;
use serde_json::Value;
use tch::Kind;

const TOL: f64 = 1e-4;

use bias_testkit::root;

fn gender_pairs() -> Vec<SentencePair> {
    let path = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    assert!(
        path.is_file(),
        "{} missing: run scripts/setup.sh",
        path.display()
    );
    bias_data::load_pairs(&path)
        .unwrap()
        .pairs
        .into_iter()
        .filter(|p| p.bias_type == BiasType::Gender)
        .collect()
}

fn cps_table(folder: &str, pairs: &[SentencePair]) -> ScoreTable {
    let lm = MaskedLm::open(root().join(folder), DeviceSpec::Cpu, Kind::Float).unwrap();
    let mut scorer = lm
        .scorer(&[ScorerKind::Cps], ScoringOptions::default())
        .unwrap();
    score_to_table(&mut scorer, pairs, "crows-pairs", folder)
        .unwrap()
        .0
}

#[test]
fn oriented_cps_of_controlled_models_matches_transformers() {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/plm/controlled_cps.json")).unwrap(),
    )
    .unwrap();
    let words = GenderWords::kaneko2023_extended();
    let male: Vec<String> = words.male().iter().cloned().collect();
    let female: Vec<String> = words.female().iter().cloned().collect();
    let pairs = gender_pairs();
    for (rate, want) in fixture["rates"].as_object().unwrap() {
        let table = cps_table(want["folder"].as_str().unwrap(), &pairs);
        let (oriented, left_out) = orient_by_gender(&table, &male, &female);
        let expected = want["pairs"].as_array().unwrap();
        assert_eq!(oriented.len(), expected.len(), "r = {rate}: oriented pairs");
        assert_eq!(
            left_out.len() as u64,
            want["left_out"].as_u64().unwrap(),
            "r = {rate}: pairs left out"
        );
        let ours: HashMap<&str, _> = oriented
            .rows()
            .iter()
            .map(|r| (r.pair_id.as_str(), r))
            .collect();
        let (mut worst, mut male_higher) = (0.0_f64, 0);
        for p in expected {
            let id = p["id"].as_str().unwrap();
            let row = ours
                .get(id)
                .unwrap_or_else(|| panic!("r = {rate}: pair {id} not oriented here"));
            // After orientation `stereo` is the male sentence.
            assert_eq!(row.stereo, p["male"].as_str().unwrap(), "pair {id}");
            assert_eq!(row.anti, p["female"].as_str().unwrap(), "pair {id}");
            let (m, f) = (
                p["cps_male"].as_f64().unwrap(),
                p["cps_female"].as_f64().unwrap(),
            );
            worst = worst
                .max((row.score_stereo - m).abs())
                .max((row.score_anti - f).abs());
            // A tie within the tolerance could fall either way; the fixture has none.
            assert!((m - f).abs() > 10.0 * TOL, "pair {id}: near tie");
            male_higher += usize::from(row.score_stereo > row.score_anti);
        }
        eprintln!("r = {rate}: max |Δ CPS| = {worst:e}");
        assert!(worst < TOL, "r = {rate}: max |Δ CPS| = {worst:e}");
        let indicator = 100.0 * male_higher as f64 / expected.len() as f64;
        let reference = want["indicator"].as_f64().unwrap();
        assert!(
            abs_diff_eq!(indicator, reference, epsilon = 1e-9),
            "r = {rate}: {indicator} vs {reference}"
        );
    }
}
