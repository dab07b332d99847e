//! Masked-LM fine-tuning (`MlmTrainer`) against `transformers` and against itself.
//!
//! fixtures/plm/finetuned.json (scripts/fixtures/finetuned_models.py) holds two checkpoints that
//! this trainer saved — the tiny BERT fine-tuned, and a bare tiny BERT encoder given a new MLM
//! head and fine-tuned — as `transformers` reads them back: its loading report and the
//! per-token log-probabilities of a few sentences, unmasked and masked one position at a time.
//! The tests check that (1) this crate computes the same log-probabilities from the committed
//! folders (1e-4), (2) training again with the recorded settings reproduces the committed
//! weights, so (1) speaks for the code as it is, and (3) an interrupted run resumes to the
//! weights of an uninterrupted one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bias_core::{MaskedLmTrainer, TrainingConfig};
use bias_plm::{DeviceSpec, EncodeRequest, MaskedLanguageModel, MlmTrainer, PlmError, PlmModel};
use serde_json::Value;
use tch::{Kind, Tensor};

const TOL: f64 = 1e-4;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture() -> Value {
    let path = root().join("fixtures/plm/finetuned.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn config(settings: &Value) -> TrainingConfig {
    let f = |k: &str| settings[k].as_f64().unwrap();
    let u = |k: &str| settings[k].as_u64().unwrap() as usize;
    TrainingConfig {
        epochs: u("epochs"),
        max_steps: Some(u("max_steps")),
        batch_size: u("batch_size"),
        learning_rate: f("learning_rate"),
        warmup_ratio: f("warmup_ratio"),
        weight_decay: f("weight_decay"),
        mask_probability: f("mask_probability"),
        max_grad_norm: f("max_grad_norm"),
        seed: settings["seed"].as_u64().unwrap(),
    }
}

fn corpus() -> Vec<String> {
    std::fs::read_to_string(root().join("fixtures/train/sentences.txt"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Log-softmax of the model at every position of `ids`.
fn log_probs(model: &PlmModel, ids: &[i64]) -> Tensor {
    let input = Tensor::from_slice(ids).unsqueeze(0);
    let mask = input.ones_like();
    let out = model
        .encode(&input, &mask, EncodeRequest::default())
        .unwrap();
    let logits = model.mlm_logits(&out.last_hidden.squeeze_dim(0)).unwrap();
    logits.log_softmax(-1, Kind::Float)
}

#[test]
fn saved_checkpoints_give_the_log_probabilities_transformers_gives() {
    let fixture = fixture();
    for (name, m) in fixture["models"].as_object().unwrap() {
        for (key, missing) in m["loading_info"].as_object().unwrap() {
            assert!(
                missing.as_array().unwrap().is_empty(),
                "{name}: transformers reported {key}: {missing}"
            );
        }
        let model = PlmModel::load(
            root().join(m["folder"].as_str().unwrap()),
            DeviceSpec::Cpu,
            Kind::Float,
        )
        .unwrap();
        let mask_id = 103; // [MASK] of the uncased WordPiece vocabulary
        let mut worst: f64 = 0.0;
        for s in m["sentences"].as_array().unwrap() {
            let ids: Vec<i64> = serde_json::from_value(s["ids"].clone()).unwrap();
            let lp = log_probs(&model, &ids);
            for (i, want) in s["unmasked"].as_array().unwrap().iter().enumerate() {
                let got = lp.double_value(&[i as i64, ids[i]]);
                worst = worst.max((got - want.as_f64().unwrap()).abs());
            }
            for (k, want) in s["masked"].as_array().unwrap().iter().enumerate() {
                let i = k + 1;
                let mut masked = ids.clone();
                masked[i] = mask_id;
                let got = log_probs(&model, &masked).double_value(&[i as i64, ids[i]]);
                worst = worst.max((got - want.as_f64().unwrap()).abs());
            }
        }
        eprintln!("{name}: max |Δ log p| = {worst:e}");
        assert!(worst < TOL, "{name}: max |Δ log p| = {worst:e}");
    }
}

fn weights(file: &Path) -> HashMap<String, Tensor> {
    Tensor::read_safetensors(file)
        .unwrap()
        .into_iter()
        .collect()
}

fn max_weight_diff(a: &Path, b: &Path) -> f64 {
    let (a, b) = (weights(a), weights(b));
    let mut names: Vec<&String> = a.keys().collect();
    names.sort();
    let b_names: Vec<&String> = {
        let mut n: Vec<&String> = b.keys().collect();
        n.sort();
        n
    };
    assert_eq!(names, b_names, "the two checkpoints hold different tensors");
    names
        .iter()
        .map(|n| {
            (&a[*n] - &b[*n])
                .abs()
                .max()
                .to_kind(Kind::Double)
                .double_value(&[])
        })
        .fold(0.0, f64::max)
}

#[test]
fn training_again_reproduces_the_committed_checkpoints() {
    let fixture = fixture();
    let config = config(&fixture["settings"]);
    let max_length = fixture["settings"]["max_length"].as_u64().unwrap() as usize;
    tch::set_num_threads(1);
    for (name, m) in fixture["models"].as_object().unwrap() {
        let tmp = tempdir(name);
        let mut trainer = MlmTrainer::new(
            root().join(m["base"].as_str().unwrap()),
            &tmp,
            DeviceSpec::Cpu,
        )
        .new_mlm_head(m["new_mlm_head"].as_bool().unwrap())
        .max_length(max_length)
        .checkpoint_every(0);
        let trained = trainer.train(&corpus(), &config).unwrap();
        assert_eq!(trained.steps, config.max_steps.unwrap());
        let committed = root().join(m["folder"].as_str().unwrap());
        let diff = max_weight_diff(
            &committed.join("model.safetensors"),
            &tmp.join("model.safetensors"),
        );
        // Same code, seed and data; only the CPU's floating-point kernels may differ.
        eprintln!("{name}: retrained, max |Δw| = {diff:e}");
        assert!(diff < 1e-5, "{name}: max |Δw| = {diff:e}");
        let cfg: Value =
            serde_json::from_str(&std::fs::read_to_string(tmp.join("config.json")).unwrap())
                .unwrap();
        assert_eq!(cfg["architectures"][0], "BertForMaskedLM");
        assert!(tmp.join("tokenizer.json").is_file());
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "bias-train-{name}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn small_config() -> TrainingConfig {
    TrainingConfig {
        epochs: 3,
        max_steps: Some(7),
        batch_size: 8,
        learning_rate: 1e-3,
        seed: 3,
        ..TrainingConfig::default()
    }
}

fn trainer(out: &Path) -> MlmTrainer {
    MlmTrainer::new(root().join("fixtures/models/bert"), out, DeviceSpec::Cpu)
        .max_length(32)
        .checkpoint_every(2)
}

#[test]
fn an_interrupted_run_resumes_to_the_weights_of_an_uninterrupted_one() {
    let (whole, parts) = (tempdir("whole"), tempdir("parts"));
    let config = small_config();
    let a = trainer(&whole).train(&corpus(), &config).unwrap();
    assert_eq!((a.steps, a.resumed_from, a.reused), (7, 0, false));

    // Stopped after 5 steps: the checkpoint of step 4 is what a crash would leave.
    let err = trainer(&parts)
        .stop_after(Some(5))
        .train(&corpus(), &config)
        .unwrap_err();
    assert!(
        matches!(err, PlmError::Interrupted { step: 5, .. }),
        "{err}"
    );
    assert!(parts.join("checkpoint/optimizer.safetensors").is_file());
    let b = trainer(&parts).train(&corpus(), &config).unwrap();
    assert_eq!((b.steps, b.resumed_from), (7, 4));
    let diff = max_weight_diff(
        &whole.join("model.safetensors"),
        &parts.join("model.safetensors"),
    );
    assert!(diff < 1e-6, "max |Δw| = {diff:e}");
    assert!(!parts.join("checkpoint").exists());
    // The log holds each step once, with the losses of the uninterrupted run.
    let log_a = std::fs::read_to_string(whole.join("train_log.csv")).unwrap();
    let log_b = std::fs::read_to_string(parts.join("train_log.csv")).unwrap();
    let losses = |log: &str| -> Vec<f64> {
        log.lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
            .collect()
    };
    assert_eq!(losses(&log_b).len(), 7);
    for (x, y) in losses(&log_a).iter().zip(losses(&log_b)) {
        assert!((x - y).abs() < 1e-5, "{log_a}\n{log_b}");
    }

    // Run again: reused, nothing trained. Other settings: refused.
    let c = trainer(&parts).train(&corpus(), &config).unwrap();
    assert!(c.reused);
    let other = TrainingConfig {
        learning_rate: 2e-3,
        ..config
    };
    let err = trainer(&parts).train(&corpus(), &other).unwrap_err();
    assert!(matches!(err, PlmError::ResumeMismatch { .. }), "{err}");
    std::fs::remove_dir_all(&whole).unwrap();
    std::fs::remove_dir_all(&parts).unwrap();
}

#[test]
fn training_lowers_the_loss() {
    let out = tempdir("loss");
    let config = TrainingConfig {
        epochs: 20,
        max_steps: Some(60),
        batch_size: 8,
        learning_rate: 3e-3,
        warmup_ratio: 0.1,
        seed: 11,
        ..TrainingConfig::default()
    };
    let t = trainer(&out).train(&corpus(), &config).unwrap();
    // 60 steps over 40 sentences: the model memorises much of them.
    let (first, last) = (t.loss_first.unwrap(), t.loss_last.unwrap());
    assert!(last < 0.7 * first, "{first} -> {last}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn bad_requests_are_refused_with_the_reason() {
    let out = tempdir("bad");
    let head = MlmTrainer::new(root().join("fixtures/models/bert"), &out, DeviceSpec::Cpu)
        .new_mlm_head(true)
        .train(&corpus(), &small_config())
        .unwrap_err();
    assert!(
        head.to_string().contains("already has a masked-LM head"),
        "{head}"
    );
    let empty = trainer(&out).train(&[], &small_config()).unwrap_err();
    assert!(
        empty.to_string().contains("no training sentences"),
        "{empty}"
    );
    let blank = trainer(&out)
        .train(&["ok then".into(), "   ".into()], &small_config())
        .unwrap_err();
    assert!(blank.to_string().contains("sentence 2"), "{blank}");
    let encoder = MlmTrainer::new(
        root().join("fixtures/models/bert-encoder"),
        &out,
        DeviceSpec::Cpu,
    )
    .train(&corpus(), &small_config())
    .unwrap_err();
    assert!(
        matches!(encoder, PlmError::MissingMlmHead { .. }),
        "{encoder}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
