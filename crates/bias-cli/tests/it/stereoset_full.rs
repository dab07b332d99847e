//! StereoSet's two tasks, both splits, on the tiny GPT-2 (causal) and BERT (masked) fixtures
//! against fixtures/plm/stereoset_full_{gpt2,bert}.json (scripts/fixtures/stereoset_full.py):
//! every sentence's mean log-likelihood per token to 5e-5 — lm-evaluation-harness's `loglikelihood` for
//! GPT-2, `transformers`' masked-LM log-probabilities for BERT's PLL given the context — and SS,
//! LMS and ICAT per task, domain and overall equal to what StereoSet's own `evaluation.py`
//! (`ScoreEvaluator`, moinnadeem/StereoSet ead7d08) computes from the reference's sentence
//! scores, on the first 100 items of each task of dev and test.
//!
//! The BERT with a next-sentence head (fixtures/models/bert-nsp,
//! fixtures/plm/stereoset_full_bert-nsp.json, scripts/fixtures/stereoset_nsp.py): its
//! intersentence scores are the probabilities StereoSet's own `evaluate_intersentence`
//! (`eval_discriminative_models.py`, `BertNextSentence`) printed, whose logarithms ours are.

use std::collections::HashMap;

use bias_core::ContinuationScorer;
use bias_data::stereoset::{read_stereoset_path, GoldLabel, Section, StereoSet};
use bias_metrics::stereoset::{
    stereoset_full_scores, ItemOutcome, ItemScores, Scores, StereoSetFullScores,
};
use bias_plm::{DeviceSpec, LanguageModel, NextSentenceModel, ScoringOptions};
use bias_tasks::stereoset::{run_stereoset, Intersentence, SplitByContext};
use serde_json::Value;
use tch::Kind;

/// Per-sentence tolerance on a mean log-likelihood per token (the largest difference seen is
/// 2.8e-6, float32 sums of a few tokens).
const TOL: f64 = 5e-5;

use bias_testkit::root;

fn set(split: &str) -> StereoSet {
    let path = root().join(format!("data/stereoset/{split}.json"));
    assert!(
        path.is_file(),
        "{} missing: run scripts/setup.sh",
        path.display()
    );
    read_stereoset_path(&path).unwrap()
}

/// `ScoreEvaluator`'s dictionary for one group against ours (`Count` is three times the items
/// per domain in its code, once per item overall: compared through the ratios only).
fn same(theirs: &Value, ours: &Scores, what: &str) {
    for (key, value) in [
        ("SS Score", ours.ss),
        ("LM Score", ours.lms),
        ("ICAT Score", ours.icat),
    ] {
        let expected = theirs[key].as_f64().unwrap();
        assert!(
            (value - expected).abs() < 1e-9,
            "{what} {key}: ours {value}, StereoSet's {expected}"
        );
    }
}

/// Our aggregation of the reference's own sentence scores, and the smallest gap between two
/// sentence scores of one item (the margin by which our scores may differ without changing a
/// comparison).
fn aggregate(set: &StereoSet, n: usize, predictions: &Value) -> (StereoSetFullScores, f64) {
    let mut gap = f64::INFINITY;
    let mut outcomes: Vec<Vec<ItemOutcome>> = Vec::new();
    for section in [Section::Intrasentence, Section::Intersentence] {
        let scores: HashMap<&str, f64> = predictions[section.as_str()]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["id"].as_str().unwrap(), p["score"].as_f64().unwrap()))
            .collect();
        let mut of = Vec::new();
        for item in &set.items(section)[..n] {
            let score = |g: GoldLabel| scores[item.sentence_with(g).unwrap().id.as_str()];
            let it = ItemScores {
                target: item.target.clone(),
                domain: item.bias_type.to_string(),
                stereo: score(GoldLabel::Stereotype),
                anti: score(GoldLabel::AntiStereotype),
                unrelated: score(GoldLabel::Unrelated),
            };
            gap = gap
                .min((it.stereo - it.anti).abs())
                .min((it.stereo - it.unrelated).abs())
                .min((it.anti - it.unrelated).abs());
            of.push(ItemOutcome::from(&it));
        }
        outcomes.push(of);
    }
    (stereoset_full_scores(&outcomes[0], &outcomes[1]), gap)
}

fn same_all(results: &Value, s: &StereoSetFullScores, what: &str) {
    same(&results["overall"], &s.overall, &format!("{what} overall"));
    for (section, ours) in [
        ("intrasentence", &s.intrasentence),
        ("intersentence", &s.intersentence),
    ] {
        same(
            &results[section]["overall"],
            &ours.overall,
            &format!("{what} {section}"),
        );
        for (domain, theirs) in results[section].as_object().unwrap() {
            if domain == "overall" || theirs["SS Score"].is_null() {
                continue;
            }
            same(
                theirs,
                &ours.by_domain[domain.as_str()],
                &format!("{what} {section} {domain}"),
            );
        }
    }
}

fn check(model: &str, intersentence: Intersentence) {
    let mut fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(format!("fixtures/plm/stereoset_full_{model}.json")))
            .unwrap(),
    )
    .unwrap();
    let n = fixture["items_per_task"].as_u64().unwrap() as usize;
    let dir = root().join("fixtures/models").join(model);
    let lm = LanguageModel::open(&dir, DeviceSpec::Cpu, Kind::Float).unwrap();
    let mut sentences = lm.continuation_scorer(ScoringOptions::default()).unwrap();
    let head = (intersentence == Intersentence::NextSentenceHead)
        .then(|| NextSentenceModel::open(&dir, DeviceSpec::Cpu, Kind::Float).unwrap());
    let mut pairs = head.as_ref().map(|h| h.scorer(ScoringOptions::default()));
    let mut split_scorer;
    let scorer: &mut dyn ContinuationScorer = match pairs.as_mut() {
        Some(pairs) => {
            // StereoSet prints P(IsNext); ours is its logarithm (the same order).
            for split in ["dev", "test"] {
                let scores = &mut fixture["splits"][split]["predictions"]["intersentence"];
                for p in scores.as_array_mut().unwrap() {
                    p["score"] = p["score"].as_f64().unwrap().ln().into();
                }
            }
            split_scorer = SplitByContext {
                alone: &mut *sentences,
                with_context: pairs,
            };
            &mut split_scorer
        }
        None => &mut *sentences,
    };
    let mut worst = 0.0f64;
    for split in ["dev", "test"] {
        let expected = &fixture["splits"][split];
        let run = run_stereoset(
            &mut *scorer,
            &set(split),
            Some(n),
            intersentence,
            None,
            bias_tasks::ChoiceRunOptions::default(),
            &mut |_, _| {},
        )
        .unwrap();
        for (section, ours) in [
            ("intrasentence", &run.intrasentence),
            ("intersentence", &run.intersentence),
        ] {
            let theirs = expected["predictions"][section].as_array().unwrap();
            assert_eq!(ours.len(), theirs.len(), "{model} {split} {section}");
            for (o, t) in ours.iter().zip(theirs) {
                assert_eq!(o.id, t["id"].as_str().unwrap());
                let t = t["score"].as_f64().unwrap();
                assert!(
                    (o.score - t).abs() < TOL,
                    "{model} {split} {section} {}: {} vs {t}",
                    o.id,
                    o.score
                );
                worst = worst.max((o.score - t).abs());
            }
        }
        let results = &expected["results"];
        // The aggregation alone: StereoSet's code and ours on the same sentence scores.
        let data = set(split);
        let (theirs_aggregated, gap) = aggregate(&data, n, &expected["predictions"]);
        same_all(
            results,
            &theirs_aggregated,
            &format!("{model} {split} (their scores)"),
        );
        // The whole run: each of our scores is within TOL of the reference's, and no two
        // sentences of an item are within 2 TOL, so no comparison can turn and every score is
        // the same.
        eprintln!("{model} {split}: largest score difference {worst:e}, smallest gap {gap:e}");
        assert!(
            gap > 2.0 * TOL,
            "{model} {split}: a near tie of {gap:e} in the fixture"
        );
        same_all(results, &run.scores, &format!("{model} {split}"));
    }
}

#[test]
fn gpt2_equals_stereosets_own_aggregation() {
    check("gpt2", Intersentence::Conditional);
}

#[test]
fn bert_equals_stereosets_own_aggregation() {
    check("bert", Intersentence::Conditional);
}

#[test]
fn bert_next_sentence_head_equals_stereosets_own_evaluation() {
    check("bert-nsp", Intersentence::NextSentenceHead);
}

#[test]
fn a_masked_lm_without_the_head_is_refused_by_name() {
    let dir = root().join("fixtures/models/bert");
    assert!(!bias_plm::has_next_sentence_head(&dir).unwrap());
    assert!(bias_plm::has_next_sentence_head(root().join("fixtures/models/bert-nsp")).unwrap());
    assert!(!bias_plm::has_next_sentence_head(root().join("fixtures/models/roberta")).unwrap());
    assert!(!bias_plm::has_next_sentence_head(root().join("fixtures/models/gpt2")).unwrap());
    let err = NextSentenceModel::open(&dir, DeviceSpec::Cpu, Kind::Float).unwrap_err();
    assert!(
        err.to_string().contains("cls.seq_relationship.weight"),
        "{err}"
    );
    let gpt2 = root().join("fixtures/models/gpt2");
    let err = NextSentenceModel::open(&gpt2, DeviceSpec::Cpu, Kind::Float).unwrap_err();
    assert!(
        err.to_string().contains("model_type = gpt2") && err.to_string().contains("only BERT"),
        "{err}"
    );
}
