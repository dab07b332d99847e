//! The causal LMs against `transformers` (fixtures/plm/causal_{arch}.json, written by
//! scripts/fixtures/causal_models.py): for GPT-2, Llama (GQA, Llama-3 RoPE scaling), Mistral
//! (multi-query, head_dim ≠ hidden/heads, sliding window 8) and Qwen2 (q/k/v biases, tied head),
//! the prefix token, the token ids, every per-token log-probability, `ll-sum`, `ll-mean` and the
//! arg-max hits of every fixture pair to 1e-4, batched and one sequence per forward pass;
//! identical pairs are skipped. CrowS-Pairs and StereoSet sentences are read from `data/` by id.

use approx::assert_abs_diff_eq;
use bias_testkit::json;

use bias_core::{BiasType, Direction, PairOutcome, PairScorer, SentencePair, SkipReason};
use bias_plm::{
    BatchOptions, CausalLm, CausalScorerKind, CausalType, DeviceSpec, LanguageModel, PlmError,
    ScoringOptions,
};
use bias_testkit::json::ints as ids;
use serde_json::Value;
use tch::Kind;

const TOL: f64 = 1e-4;
/// Every causal family, and a peft LoRA adapter on gpt2 (Conv1D: fan_in_fan_out; rsLoRA),
/// merged at load, against peft's merged model (scripts/fixtures/lora_adapters.py).
fn archs() -> impl Iterator<Item = &'static str> {
    CAUSAL_FAMILIES.into_iter().chain(["gpt2-lora"])
}

use crate::support::{open_causal, pairs, CAUSAL_FAMILIES};
use bias_testkit::root;

fn fixture(arch: &str) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(root().join(format!("fixtures/plm/causal_{arch}.json"))).unwrap(),
    )
    .unwrap()
}

fn open(arch: &str) -> CausalLm {
    open_causal(arch)
}

fn options(max_batch: usize) -> ScoringOptions {
    ScoringOptions {
        batch: BatchOptions {
            max_batch,
            max_tokens: 4096,
        },
        ..ScoringOptions::default()
    }
}

/// Scores every fixture pair with `ll-sum` and `ll-mean` at `max_batch` sequences per pass and
/// returns the largest |Δ| from transformers over every per-token value and score.
fn check(arch: &str, max_batch: usize) -> f64 {
    let fx = fixture(arch);
    let lm = open(arch);
    assert_eq!(
        lm.prefix_token_id(),
        fx["prefix_token_id"].as_i64().unwrap(),
        "{arch}"
    );
    let pairs = pairs(&fx);
    let fixture_pairs = fx["pairs"].as_array().unwrap();
    let mut worst: f64 = 0.0;
    let mut scorer = lm
        .scorer(&CausalScorerKind::ALL, options(max_batch))
        .unwrap();
    // Token ids and per-token log-probabilities.
    let mut sequences = Vec::new();
    for (p, fp) in pairs.iter().zip(fixture_pairs) {
        for (text, side) in [(&p.stereo, "stereo"), (&p.anti, "anti")] {
            let got = lm.encode(text).unwrap();
            assert_eq!(
                got,
                ids(&fp[side]["input_ids"]),
                "{arch} {} {side}",
                fp["id"]
            );
            sequences.push((got, &fp[side]));
        }
    }
    let seqs: Vec<&[i64]> = sequences.iter().map(|(s, _)| s.as_slice()).collect();
    let lps = scorer.log_likelihoods(&seqs).unwrap();
    for ((_, rec), got) in sequences.iter().zip(&lps) {
        let want: Vec<f64> = json::floats(&rec["token_logprobs"]);
        assert_eq!(got.log_probs.len(), want.len(), "{arch}");
        for (g, w) in got.log_probs.iter().zip(&want) {
            assert!(
                (g - w).abs() < TOL,
                "{arch}: token log-probability {g} vs {w}"
            );
            worst = worst.max((g - w).abs());
        }
        let hits = got.correct.iter().filter(|&&c| c).count() as i64;
        assert_eq!(
            hits,
            rec["correct"].as_i64().unwrap(),
            "{arch}: arg-max hits"
        );
    }
    // Pair scores through the PairScorer trait.
    let outcomes = scorer.score_pairs(&pairs).unwrap();
    assert_eq!(outcomes.len(), pairs.len());
    for (outcome, fp) in outcomes.iter().zip(fixture_pairs) {
        if fp["identical"].as_bool().unwrap() {
            assert_eq!(
                outcome,
                &PairOutcome::Skipped(SkipReason::IdenticalTokens),
                "{arch} {}",
                fp["id"]
            );
            continue;
        }
        let PairOutcome::Scored { scores, unscorable } = outcome else {
            panic!("{arch} {}: {outcome:?}", fp["id"]);
        };
        assert!(unscorable.is_empty());
        assert_eq!(
            scores.iter().map(|s| s.scorer.as_str()).collect::<Vec<_>>(),
            ["ll-sum", "ll-mean"]
        );
        for s in scores {
            let key = if s.scorer == "ll-sum" {
                "ll_sum"
            } else {
                "ll_mean"
            };
            for (got, side) in [(&s.stereo, "stereo"), (&s.anti, "anti")] {
                let rec = &fp[side];
                let want = rec[key].as_f64().unwrap();
                let d = (got.score - want).abs();
                // A sum of float32 log-probabilities carries their relative error (~6e-8 each,
                // on both sides): 1e-4 plus 1e-7 of the sum's size. OPT's longest fixture
                // sentence (ll-sum -2085.9) differs by 1.5e-4 on AVX2 kernels.
                let tol = TOL + 1e-7 * want.abs();
                assert!(
                    d < tol,
                    "{arch} {} {side} {}: {} vs {want}",
                    fp["id"],
                    s.scorer,
                    got.score
                );
                worst = worst.max(d);
                assert_eq!(
                    got.scored_tokens,
                    rec["token_logprobs"].as_array().unwrap().len()
                );
                assert_eq!(
                    got.correct_predictions,
                    Some(rec["correct"].as_u64().unwrap() as usize)
                );
            }
        }
    }
    worst
}

#[test]
fn every_arch_matches_transformers_batched_and_unbatched() {
    for arch in archs() {
        let batched = check(arch, 64);
        let unbatched = check(arch, 1);
        eprintln!("{arch}: max |Δ| batched {batched:.2e}, unbatched {unbatched:.2e}");
    }
}

#[test]
fn configurations_are_read_as_transformers_reads_them() {
    for arch in archs() {
        let fx = fixture(arch);
        let lm = open(arch);
        let c = lm.model().unwrap().config();
        assert_eq!(c.model_type.name(), fx["model_type"].as_str().unwrap());
        assert_eq!(
            c.tie_word_embeddings,
            fx["tie_word_embeddings"].as_bool().unwrap(),
            "{arch}"
        );
        assert_eq!(
            c.num_key_value_heads,
            fx["num_key_value_heads"].as_i64().unwrap()
        );
        let window = fx["sliding_window"].as_i64();
        // Gemma 2 slides on the layers `layer_types` marks; the others on all or none.
        // (An adapter folder has no config.json; its base's has no layer types.)
        let config: Value = std::fs::read_to_string(
            root()
                .join("fixtures/models")
                .join(arch)
                .join("config.json"),
        )
        .map_or(Value::Null, |t| serde_json::from_str(&t).unwrap());
        let windows: Vec<Option<i64>> = match config["layer_types"].as_array() {
            Some(types) => types
                .iter()
                .map(|t| (t == "sliding_attention").then_some(window).flatten())
                .collect(),
            None => vec![window; c.num_hidden_layers as usize],
        };
        assert_eq!(c.sliding_window, windows, "{arch}");
    }
    let c = open("mistral");
    assert_eq!(c.model().unwrap().config().head_dim, 16);
    assert_eq!(c.model().unwrap().config().model_type, CausalType::Mistral);
}

#[test]
fn llama_and_mistral_sequences_are_the_tokenizer_s_own_with_bos() {
    for arch in ["llama", "mistral"] {
        for p in fixture(arch)["pairs"].as_array().unwrap() {
            for side in ["stereo", "anti"] {
                let with_special = ids(&p[side]["with_special_tokens"]);
                let scored = ids(&p[side]["input_ids"]);
                if p["id"] != "custom-prefix" {
                    assert_eq!(with_special, scored, "{arch} {}", p["id"]);
                }
            }
        }
    }
}

#[test]
fn language_model_dispatches_on_model_type_and_refuses_other_scorers() {
    let dir = root().join("fixtures/models/qwen2");
    let lm = LanguageModel::open(&dir, DeviceSpec::Cpu, Kind::Float).unwrap();
    assert!(matches!(lm, LanguageModel::Causal(_)));
    assert_eq!(lm.default_scorers(), ["ll-sum", "ll-mean"]);
    let err = lm.scorer(&["cps"], ScoringOptions::default()).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, PlmError::ScorerNotForModel { .. }), "{err:?}");
    assert!(
        message.contains("qwen2") && message.contains("ll-sum"),
        "{message}"
    );
    let bert = LanguageModel::open(
        root().join("fixtures/models/bert"),
        DeviceSpec::Cpu,
        Kind::Float,
    )
    .unwrap();
    assert!(matches!(bert, LanguageModel::Masked(_)));
    let err = bert
        .scorer(&["ll-sum"], ScoringOptions::default())
        .unwrap_err();
    assert!(err.to_string().contains("aul"), "{err}");
    // The same pairs through the dispatching scorer give the causal scorer's rows.
    let fx = fixture("qwen2");
    let pairs = pairs(&fx);
    let mut scorer = lm
        .scorer(&["ll-sum", "ll-mean"], ScoringOptions::default())
        .unwrap();
    let outcomes = scorer.score_pairs(&pairs[..5]).unwrap();
    let PairOutcome::Scored { scores, .. } = &outcomes[0] else {
        panic!("{outcomes:?}")
    };
    let want = fx["pairs"][0]["stereo"]["ll_sum"].as_f64().unwrap();
    assert_abs_diff_eq!(scores[0].stereo.score, want, epsilon = TOL);
}

#[test]
fn an_unsupported_model_type_lists_masked_and_causal_families() {
    let dir = std::env::temp_dir().join(format!("bias-plm-causal-t5-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), r#"{"model_type": "t5"}"#).unwrap();
    let err = LanguageModel::open(&dir, DeviceSpec::Cpu, Kind::Float).unwrap_err();
    let _ = std::fs::remove_dir_all(&dir);
    let message = err.to_string();
    assert!(matches!(err, PlmError::UnsupportedModel { .. }), "{err:?}");
    for name in ["bert", "roberta", "gpt2", "llama", "mistral", "qwen2"] {
        assert!(message.contains(name), "{message}");
    }
}

#[test]
fn too_long_sentences_are_refused_or_truncated() {
    let lm = open("gpt2");
    let long = "word ".repeat(400);
    let pair = SentencePair {
        id: "long".into(),
        stereo: long.clone(),
        anti: format!("{long} more"),
        bias_type: BiasType::Gender,
        direction: Direction::Stereo,
        group_id: None,
    };
    let mut scorer = lm.scorer(&[CausalScorerKind::LlSum], options(8)).unwrap();
    let err = scorer.score_pairs(std::slice::from_ref(&pair)).unwrap_err();
    assert!(
        matches!(err, PlmError::TooLong { ref pair_id, .. } if pair_id == "long"),
        "{err}"
    );
    let mut truncating = lm
        .scorer(
            &[CausalScorerKind::LlSum],
            ScoringOptions {
                truncate: true,
                ..options(8)
            },
        )
        .unwrap();
    // Both keep their first 256 tokens, which are the same: the pair is skipped.
    assert_eq!(
        truncating.score_pairs(&[pair]).unwrap(),
        [PairOutcome::Skipped(SkipReason::IdenticalTokens)]
    );
}
