//! Our `ll-sum` score tables of the tiny GPT-2 and GPT-NeoX (fixtures/models/{gpt2,gpt_neox})
//! on all of CrowS-Pairs against lm-evaluation-harness's `crows_pairs_english` on the same model
//! and rows (fixtures/plm/lm_eval_crows_{gpt2,gpt_neox}.json, written by scripts/fixtures/lm_eval_crows.py with
//! lm-eval's own task, `HFLM` and `simple_evaluate`): every document's two log-likelihoods to
//! 1e-4 (or 1e-6 relative, lm-eval's float32 sums being as coarse at these magnitudes), and `pct_stereotype` and `likelihood_diff` from `bias_metrics::lm_eval_crows` equal to
//! the harness's (the count exactly, the mean difference to 1e-6 relative).

use crate::support::open_causal_as;
use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::collections::HashMap;

use bias_core::run::score_to_table;
use bias_metrics::lm_eval_crows;
use bias_plm::{CausalScorerKind, ScoringOptions};
use serde_json::Value;

use bias_testkit::root;

#[test]
fn ll_sum_reproduces_lm_eval_crows_pairs_english() {
    reproduce("gpt2");
}

/// GPT-NeoX (Pythia's architecture: partial rotary embeddings, parallel residuals).
#[test]
fn ll_sum_reproduces_lm_eval_crows_pairs_english_on_gpt_neox() {
    reproduce("gpt_neox");
}

fn reproduce(arch: &str) {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(format!("fixtures/plm/lm_eval_crows_{arch}.json")))
            .unwrap(),
    )
    .unwrap();
    let csv = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    assert!(
        csv.is_file(),
        "{} missing: run scripts/setup.sh",
        csv.display()
    );
    let mut pairs = bias_data::load_pairs(&csv).unwrap().pairs;
    // The reference fed lm-eval the fields as the file stores them (Python's csv module with
    // newline=""), so row 1293's "white\r\n." reached the model with its "\r"; bias_data reads
    // line breaks as the papers' own code does (Python's text mode: "\n"). Give the scorer the
    // stored text, as the reference did (the file's only line breaks inside a field are CRLF).
    let mut restored = 0;
    for p in &mut pairs {
        for s in [&mut p.stereo, &mut p.anti] {
            if s.contains('\n') {
                *s = s.replace('\n', "\r\n");
                restored += 1;
            }
        }
    }
    assert_eq!(
        restored, 1,
        "one sentence of CrowS-Pairs holds a line break (row 1293)"
    );
    let docs = fixture["documents"].as_array().unwrap();
    assert_eq!(pairs.len(), docs.len());

    let lm = open_causal_as(arch, &fixture);
    let mut scorer = lm
        .scorer(&[CausalScorerKind::LlSum], ScoringOptions::default())
        .unwrap();
    let (table, tally) = score_to_table(&mut scorer, &pairs, "crows-pairs", lm.name()).unwrap();
    assert_eq!(
        tally.skipped(),
        0,
        "no CrowS-Pairs pair tokenises identically"
    );
    assert_eq!(table.len(), docs.len());

    // Per document: lm-eval's float32 sums against ours.
    let by_id: HashMap<&str, _> = table
        .rows()
        .iter()
        .map(|r| (r.pair_id.as_str(), r))
        .collect();
    let mut worst: f64 = 0.0;
    for d in docs {
        let id = d["id"].as_i64().unwrap().to_string();
        let row = by_id[id.as_str()];
        for (ours, theirs) in [
            (row.score_stereo, d["ll_sent_more"].as_f64().unwrap()),
            (row.score_anti, d["ll_sent_less"].as_f64().unwrap()),
        ] {
            // lm-eval sums float32 log-probabilities (one float32 ulp at |ll| = 440 is 3e-5);
            // we sum them in float64.
            let delta = (ours - theirs).abs();
            assert!(
                delta < 1e-4_f64.max(1e-6 * theirs.abs()),
                "pair {id}: {ours} vs lm-eval {theirs}"
            );
            worst = worst.max(delta);
        }
    }

    let ours = lm_eval_crows(&table).unwrap();
    let pct = fixture["pct_stereotype"].as_f64().unwrap();
    let diff = fixture["likelihood_diff"].as_f64().unwrap();
    eprintln!(
        "{arch}: lm-eval: pct_stereotype {pct}, likelihood_diff {diff}; ours: {}, {}; \
         max per-document |Δ| {worst:.2e}",
        ours.pct_stereotype, ours.likelihood_diff
    );
    assert_eq!(ours.n, 1508);
    assert_eq!(
        (ours.pct_stereotype * 1508.0).round(),
        (pct * 1508.0).round()
    );
    assert_abs_diff_eq!(ours.pct_stereotype, pct, epsilon = 1e-12);
    assert!(
        abs_diff_eq!(ours.likelihood_diff, diff, epsilon = 1e-6 * diff.abs()),
        "{} vs {diff}",
        ours.likelihood_diff
    );
}
