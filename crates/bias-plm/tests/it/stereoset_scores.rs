//! StereoSet's own scores (Nadeem et al. 2021: SS, LMS, ICAT, aggregated per target term as the
//! authors' `ScoreEvaluator` does) on the tiny fixture BERT under AUL, against
//! fixtures/plm/stereoset_scores_bert.json (scripts/fixtures/stereoset_scores.py: `transformers`
//! AUL and a transcription of `ScoreEvaluator.count` / `ScoreEvaluator.score`). Every
//! intrasentence item of data/stereoset/dev.json is scored.
//!
//! Sentence scores agree with `transformers` to 1e-4, so an item whose two compared scores lie
//! within that of each other could be decided the other way on another CPU's kernels (as the
//! argmax near ties of scorer_parity.rs). The fixture stores such items (its smallest gaps, among
//! its spot items); for them we check our scores against the fixture's and then take the
//! fixture's, so that the verdict is the reference's. Every other item uses our own scores.

use approx::abs_diff_eq;
use std::collections::HashMap;

use bias_core::{PairOutcome, PairScorer, SentencePair};
use bias_data::stereoset::{read_stereoset_triples, Section, StereoSetTriple};
use bias_metrics::stereoset::{stereoset_scores, ItemScores, Scores};
use bias_plm::{
    DeviceSpec, MlmScorer, PlmModel, PlmTokenizer, ScorerKind, ScoringOptions, SpecialIds,
};
use serde_json::Value;
use tch::Kind;

/// Per-sentence agreement with `transformers`.
const SENTENCE_TOL: f64 = 1e-4;
/// Agreement of the aggregates.
const SCORE_TOL: f64 = 1e-6;

use bias_testkit::root;

/// AUL of every triple's three sentences: (stereo, anti, unrelated).
fn aul_scores(triples: &[StereoSetTriple]) -> Vec<(f64, f64, f64)> {
    let dir = root().join("fixtures/models/bert");
    let model = PlmModel::load(&dir, DeviceSpec::Cpu, Kind::Float).unwrap();
    let tok = PlmTokenizer::from_dir(&dir).unwrap();
    let special = SpecialIds::of(&model, &tok).unwrap();
    let mut scorer = MlmScorer::new(
        &model,
        &tok,
        special,
        &[ScorerKind::Aul],
        ScoringOptions::default(),
    )
    .unwrap();
    // AUL of a sentence does not depend on its counterpart: (stereo, unrelated) gives the
    // stereotype and unrelated scores, (anti, unrelated) the anti-stereotype score.
    let pairs: Vec<SentencePair> = triples
        .iter()
        .flat_map(|t| {
            let pair = |s: &str, tag: &str| SentencePair {
                id: format!("{}-{tag}", t.id),
                stereo: s.to_owned(),
                anti: t.unrelated.clone(),
                bias_type: bias_core::BiasType::Other(t.domain.clone()),
                direction: bias_core::Direction::Stereo,
                group_id: None,
            };
            [pair(&t.stereo, "stereo"), pair(&t.anti, "anti")]
        })
        .collect();
    let outcomes = scorer.score_pairs(&pairs).unwrap();
    assert_eq!(outcomes.len(), pairs.len());
    let aul = |o: &PairOutcome, id: &str| -> (f64, f64) {
        match o {
            PairOutcome::Scored { scores, unscorable } => {
                assert!(unscorable.is_empty(), "{id}: {unscorable:?}");
                assert_eq!(scores.len(), 1);
                assert_eq!(scores[0].scorer, "aul");
                (scores[0].stereo.score, scores[0].anti.score)
            }
            PairOutcome::Skipped(why) => panic!("{id} skipped: {why:?}"),
        }
    };
    outcomes
        .chunks(2)
        .zip(&pairs.chunks(2).collect::<Vec<_>>())
        .map(|(o, p)| {
            let (stereo, unrelated) = aul(&o[0], &p[0].id);
            let (anti, unrelated2) = aul(&o[1], &p[1].id);
            assert_eq!(unrelated, unrelated2, "{}", p[0].id);
            (stereo, anti, unrelated)
        })
        .collect()
}

fn check(what: &str, got: &Scores, want: &Value) {
    for (key, g) in [("ss", got.ss), ("lms", got.lms), ("icat", got.icat)] {
        let w = want[key].as_f64().unwrap();
        assert!(
            abs_diff_eq!(g, w, epsilon = SCORE_TOL),
            "{what} {key}: rust {g} vs python {w}"
        );
    }
    assert_eq!(
        got.n_items as u64,
        want["n_items"].as_u64().unwrap(),
        "{what}"
    );
    assert_eq!(
        got.n_targets as u64,
        want["n_targets"].as_u64().unwrap(),
        "{what}"
    );
}

#[test]
fn stereoset_ss_lms_icat_match_the_authors_aggregation() {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/plm/stereoset_scores_bert.json")).unwrap(),
    )
    .unwrap();
    let path = root().join("data/stereoset/dev.json");
    assert!(
        path.is_file(),
        "{} missing: run scripts/setup.sh",
        path.display()
    );
    let triples = read_stereoset_triples(&path, Section::Intrasentence).unwrap();
    assert_eq!(triples.len() as u64, fixture["n_items"].as_u64().unwrap());
    let ours = aul_scores(&triples);

    // Spot checks: our AUL against transformers' on the fixture's items.
    let spot: HashMap<&str, &Value> = fixture["spot_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["id"].as_str().unwrap(), v))
        .collect();
    let reference = |v: &Value| -> (f64, f64, f64) {
        let f = |k: &str| v[k].as_f64().unwrap();
        (f("stereo"), f("anti"), f("unrelated"))
    };
    let mut checked = 0;
    for (t, &(s, a, u)) in triples.iter().zip(&ours) {
        if let Some(v) = spot.get(t.id.as_str()) {
            let (rs, ra, ru) = reference(v);
            for (what, g, w) in [("stereo", s, rs), ("anti", a, ra), ("unrelated", u, ru)] {
                assert!(
                    abs_diff_eq!(g, w, epsilon = SENTENCE_TOL),
                    "{} {what}: rust {g} vs transformers {w}",
                    t.id
                );
            }
            assert_eq!(t.target, v["target"].as_str().unwrap());
            assert_eq!(t.domain, v["domain"].as_str().unwrap());
            checked += 1;
        }
    }
    assert_eq!(checked, spot.len(), "every spot item is in the data");

    // Near ties: items whose smallest gap is within twice the per-sentence tolerance take the
    // fixture's scores (checked above), so that their verdicts are the reference's.
    let near_tie: HashMap<&str, (f64, f64, f64)> = fixture["smallest_gaps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["gap"].as_f64().unwrap() <= 2.0 * SENTENCE_TOL)
        .map(|g| {
            let id = g["id"].as_str().unwrap();
            let v = spot
                .get(id)
                .unwrap_or_else(|| panic!("near tie {id} not a spot item"));
            (id, reference(v))
        })
        .collect();
    let verdicts = |(s, a, u): (f64, f64, f64)| (s > a, s > u, a > u);
    let flipped = triples
        .iter()
        .zip(&ours)
        .filter(|(t, &o)| {
            near_tie
                .get(t.id.as_str())
                .is_some_and(|&r| verdicts(r) != verdicts(o))
        })
        .count();
    let items: Vec<ItemScores> = triples
        .iter()
        .zip(&ours)
        .map(|(t, &(s, a, u))| {
            let (stereo, anti, unrelated) =
                near_tie.get(t.id.as_str()).copied().unwrap_or((s, a, u));
            ItemScores {
                target: t.target.clone(),
                domain: t.domain.clone(),
                stereo,
                anti,
                unrelated,
            }
        })
        .collect();

    let scores = stereoset_scores(&items);
    check("overall", &scores.overall, &fixture["overall"]);
    let domains = fixture["by_domain"].as_object().unwrap();
    assert_eq!(
        scores.by_domain.keys().collect::<Vec<_>>(),
        domains.keys().collect::<Vec<_>>()
    );
    for (d, want) in domains {
        check(d, &scores.by_domain[d], want);
    }
    println!(
        "overall SS {:.6} LMS {:.6} ICAT {:.6} ({} near ties taken from the fixture, {} of them decided otherwise by our scores)",
        scores.overall.ss,
        scores.overall.lms,
        scores.overall.icat,
        near_tie.len(),
        flipped
    );
    for (d, s) in &scores.by_domain {
        println!("{d}: SS {:.6} LMS {:.6} ICAT {:.6}", s.ss, s.lms, s.icat);
    }
}
