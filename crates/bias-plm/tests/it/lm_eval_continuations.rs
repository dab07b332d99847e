//! Conditional log-likelihoods of the tiny causal LMs (fixtures/models/gpt2, a GPT-2 whose
//! tokenizer adds no special token, and fixtures/models/llama, whose tokenizer adds `<s>`)
//! against lm-evaluation-harness 0.4.13 on the same checkpoints
//! (fixtures/plm/lm_eval_bbq_winogender_{model}.json, written by
//! scripts/fixtures/lm_eval_bbq_winogender.py with lm-eval's own tasks, `HFLM` and
//! `simple_evaluate`): every request of its `bbq` (264 documents × 12 choices) and
//! `winogender_all` (720 × 2) runs, and eight edge requests (empty context, trailing
//! whitespace, a context starting with the prefix token's text, non-ASCII, a continuation
//! inside a word, a context past the model's window), each log-likelihood to 1e-4 and each
//! is-greedy flag equal.

use crate::support::{open_causal, open_causal_as};
use bias_core::Continuation;
use bias_plm::{BatchOptions, CausalScorerKind, ScoringOptions};
use serde_json::Value;

const TOL: f64 = 1e-4;

use bias_testkit::root;

fn fixture(model: &str) -> Value {
    let path = root().join(format!("fixtures/plm/lm_eval_bbq_winogender_{model}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Every (request, log-likelihood, is-greedy) of the fixture.
fn requests(fixture: &Value) -> Vec<(Continuation, f64, bool)> {
    let mut out = Vec::new();
    for task in ["bbq", "winogender_all"] {
        for doc in fixture["tasks"][task]["documents"].as_array().unwrap() {
            let context = doc["context"].as_str().unwrap();
            let lls = doc["loglikelihoods"].as_array().unwrap();
            let greedy = doc["is_greedy"].as_array().unwrap();
            for (i, c) in doc["continuations"].as_array().unwrap().iter().enumerate() {
                out.push((
                    Continuation::new(context, c.as_str().unwrap()),
                    lls[i].as_f64().unwrap(),
                    greedy[i].as_bool().unwrap(),
                ));
            }
        }
    }
    for r in fixture["edge_requests"].as_array().unwrap() {
        out.push((
            Continuation::new(
                r["context"].as_str().unwrap(),
                r["continuation"].as_str().unwrap(),
            ),
            r["loglikelihood"].as_f64().unwrap(),
            r["is_greedy"].as_bool().unwrap(),
        ));
    }
    out
}

fn check(model: &str, batch: BatchOptions) {
    let fixture = fixture(model);
    let lm = open_causal_as(model, &fixture);
    let expected = requests(&fixture);
    assert!(expected.len() > 4000, "{}", expected.len());
    let options = ScoringOptions {
        batch,
        ..ScoringOptions::default()
    };
    let mut scorer = lm.scorer(&[CausalScorerKind::LlSum], options).unwrap();
    let asked: Vec<Continuation> = expected.iter().map(|(r, _, _)| r.clone()).collect();
    let got = scorer.loglikelihood(&asked).unwrap();
    let mut worst = 0.0f64;
    for ((request, ll, greedy), ours) in expected.iter().zip(&got) {
        let diff = (ours.log_likelihood - ll).abs();
        worst = worst.max(diff);
        assert!(
            diff <= TOL,
            "{model}: {request:?}: ours {} lm-eval {ll}",
            ours.log_likelihood
        );
        assert_eq!(ours.is_greedy, *greedy, "{model}: {request:?}");
    }
    eprintln!(
        "{model}: {} requests, largest difference {worst:.2e}",
        got.len()
    );
}

#[test]
fn gpt2_equals_lm_eval_batched() {
    check("gpt2", BatchOptions::default());
}

#[test]
fn llama_equals_lm_eval_batched() {
    check("llama", BatchOptions::default());
}

#[test]
fn llama_equals_lm_eval_one_sequence_per_pass() {
    check(
        "llama",
        BatchOptions {
            max_batch: 1,
            ..BatchOptions::default()
        },
    );
}

#[test]
fn the_edge_requests_use_the_window_and_the_boundary_rules() {
    // The fixture's edge cases are what they say: the long context exceeds the window, and the
    // context starting with the prefix token's text is scored without a second one.
    for model in ["gpt2", "llama"] {
        let fixture = fixture(model);
        let edges = fixture["edge_requests"].as_array().unwrap();
        let window = fixture["max_length"].as_u64().unwrap();
        assert!(edges
            .iter()
            .any(|e| e["tokens_of_context_plus_continuation"].as_u64().unwrap() > window + 1));
        let lm = open_causal(model);
        let scorer = lm
            .scorer(&[CausalScorerKind::LlSum], ScoringOptions::default())
            .unwrap();
        let plain = scorer
            .encode_continuation(&Continuation::new("Q: Who?\nA: ", "Yes"))
            .unwrap();
        let moved = scorer
            .encode_continuation(&Continuation::new("Q: Who?\nA:", " Yes"))
            .unwrap();
        assert_eq!(plain, moved, "{model}: the trailing space moves over");
        let empty = scorer
            .encode_continuation(&Continuation::new("", "Yes"))
            .unwrap();
        assert_eq!(empty.context, vec![lm.prefix_token_id()], "{model}");
    }
}

#[test]
fn a_continuation_without_tokens_is_refused_naming_the_request() {
    let lm = open_causal("gpt2");
    let mut scorer = lm
        .scorer(&[CausalScorerKind::LlSum], ScoringOptions::default())
        .unwrap();
    let err = scorer
        .loglikelihood(&[
            Continuation::new("A:", " yes"),
            Continuation::new("Q: who?", ""),
        ])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("request 1") && err.contains("Q: who?"),
        "{err}"
    );
}
