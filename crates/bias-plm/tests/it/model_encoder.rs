//! The encoder on its own: the real all-MiniLM-L6-v2 `BertModel` (no MLM head) against
//! `transformers`' hidden states, padding invariance, and attention probabilities checked by
//! hand on a two-dimensional model written here.

use bias_testkit::json;
use std::path::Path;

use approx::assert_abs_diff_eq;
use bias_plm::{DeviceSpec, EncodeRequest, MaskedLanguageModel, PlmError, PlmModel, PlmTokenizer};
use serde_json::Value;
use tch::{Device, Kind, Tensor};

use bias_testkit::root;

fn minilm() -> (PlmModel, PlmTokenizer) {
    let dir = root().join("data/all-MiniLM-L6-v2");
    let model = PlmModel::load_encoder(&dir, DeviceSpec::Cpu, Kind::Float)
        .unwrap_or_else(|e| panic!("all-MiniLM-L6-v2 must be set up in data/: {e}"));
    (model, PlmTokenizer::from_dir(&dir).unwrap())
}

fn to_vec(t: &Tensor) -> Vec<f32> {
    Vec::<f32>::try_from(t.flatten(0, -1)).unwrap()
}

fn ones(n: i64) -> Tensor {
    Tensor::ones([1, n], (Kind::Int64, Device::Cpu))
}

#[test]
fn minilm_matches_transformers_hidden_states() {
    let (model, tok) = minilm();
    assert!(!model.has_mlm_head());
    let path = root().join("fixtures/plm/minilm_hidden.json");
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("fixture {} missing: {e}", path.display())),
    )
    .unwrap();
    for s in doc["sentences"].as_array().unwrap() {
        let ids = tok.encode(s["text"].as_str().unwrap()).unwrap();
        let expected_ids: Vec<i64> = json::ints(&s["input_ids"]);
        assert_eq!(ids, expected_ids);
        let n = ids.len() as i64;
        let out = model
            .encode(
                &Tensor::from_slice(&ids).reshape([1, n]),
                &ones(n),
                EncodeRequest::default(),
            )
            .unwrap();
        let got = to_vec(&out.last_hidden);
        let want: Vec<f64> = s["last_hidden_state"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|row| row.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
            .collect();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_abs_diff_eq!(f64::from(*g), *w, epsilon = 1e-4);
        }
    }
}

#[test]
fn padding_does_not_change_real_positions() {
    let (model, tok) = minilm();
    let pad = tok.pad_id().unwrap();
    let a = tok.encode("The nurse said she would be late.").unwrap();
    let b = tok
        .encode("A much longer sentence about an engineer who fixed the bridge before the storm.")
        .unwrap();
    let len = a.len().max(b.len());
    let padded = |ids: &[i64]| -> Vec<i64> {
        ids.iter()
            .copied()
            .chain(std::iter::repeat(pad))
            .take(len)
            .collect()
    };
    let mask = |ids: &[i64]| -> Vec<i64> { (0..len).map(|i| i64::from(i < ids.len())).collect() };
    let ids = Tensor::from_slice(&[padded(&a), padded(&b)].concat()).reshape([2, len as i64]);
    let masks = Tensor::from_slice(&[mask(&a), mask(&b)].concat()).reshape([2, len as i64]);
    let request = EncodeRequest {
        attentions: true,
        all_hidden: true,
    };
    let batched = model.encode(&ids, &masks, request).unwrap();
    let all = batched.all_hidden.as_ref().unwrap();
    assert_eq!(all.len(), 7, "embeddings + 6 layers");
    assert_eq!(to_vec(&all[6]), to_vec(&batched.last_hidden));
    assert_eq!(batched.attentions.as_ref().unwrap().len(), 6);

    for (row, sentence) in [&a, &b].into_iter().enumerate() {
        let n = sentence.len() as i64;
        let single = model
            .encode(
                &Tensor::from_slice(sentence).reshape([1, n]),
                &ones(n),
                request,
            )
            .unwrap();
        let got = batched.last_hidden.get(row as i64).narrow(0, 0, n);
        let diff = f64::try_from((got - single.last_hidden.get(0)).abs().max()).unwrap();
        assert!(diff < 1e-5, "row {row}: padded vs single differ by {diff}");
        // Attention of real queries over real keys is unchanged too.
        for (l, (bat, one)) in batched
            .attentions
            .as_ref()
            .unwrap()
            .iter()
            .zip(single.attentions.as_ref().unwrap())
            .enumerate()
        {
            let got = bat.get(row as i64).narrow(1, 0, n).narrow(2, 0, n);
            let diff = f64::try_from((got - one.get(0)).abs().max()).unwrap();
            assert!(
                diff < 1e-5,
                "layer {l} row {row}: attention differs by {diff}"
            );
        }
    }
}

#[test]
fn encoder_without_head_refuses_logits() {
    let (model, _) = minilm();
    let hidden = Tensor::zeros([1, 384], (Kind::Float, Device::Cpu));
    assert!(matches!(
        model.mlm_logits(&hidden).unwrap_err(),
        PlmError::MissingMlmHead { .. }
    ));
}

#[test]
fn bad_batches_are_typed_errors() {
    let (model, _) = minilm();
    let long = Tensor::full([1, 513], 101i64, (Kind::Int64, Device::Cpu));
    assert!(matches!(
        model
            .encode(&long, &long.ones_like(), EncodeRequest::default())
            .unwrap_err(),
        PlmError::SequenceTooLong {
            length: 513,
            max: 512
        }
    ));
    let oov = Tensor::from_slice(&[101i64, 30522, 102]).reshape([1, 3]);
    assert!(matches!(
        model
            .encode(&oov, &ones(3), EncodeRequest::default())
            .unwrap_err(),
        PlmError::TokenOutOfVocabulary { id: 30522, .. }
    ));
    let ids = Tensor::from_slice(&[101i64, 102]).reshape([1, 2]);
    assert!(matches!(
        model
            .encode(&ids, &ones(3), EncodeRequest::default())
            .unwrap_err(),
        PlmError::Shape(_)
    ));
}

#[test]
fn tokenizer_special_tokens_and_round_trip() {
    let (_, tok) = minilm();
    assert_eq!(tok.mask_id().unwrap(), 103);
    assert_eq!(tok.pad_id().unwrap(), 0);
    let text = "The doctor asked the nurse a question.";
    let detailed = tok.encode_detailed(text).unwrap();
    assert_eq!(detailed.ids.first(), Some(&101));
    assert_eq!(detailed.ids.last(), Some(&102));
    assert!(detailed.special[0] && *detailed.special.last().unwrap());
    let (s, e) = detailed.offsets[2];
    assert_eq!(&text[s..e], "doctor");
    assert_eq!(tok.id_to_token(103).as_deref(), Some("[MASK]"));
    assert_eq!(
        tok.decode(&detailed.ids, true).unwrap(),
        "the doctor asked the nurse a question."
    );

    let roberta = PlmTokenizer::from_dir(root().join("fixtures/models/roberta")).unwrap();
    assert_eq!(roberta.mask_id().unwrap(), 4);
    assert_eq!(roberta.pad_id().unwrap(), 1);
}

/// Writes a one-layer, one-head BERT with hidden size 2 whose attention is hand-computable.
///
/// Word embeddings: 0 = `[PAD]` = (0, 0), 1 = A = (1, −1), 2 = B = (−1, 1), 3 = (2, −2);
/// position and token-type embeddings are zero, LayerNorm is the identity map on its ±1
/// outputs, `W_q = c·I`, `W_k = I`, biases zero. Then `q·k/√2 = ±c·2/√2` with + for equal
/// patterns, and `c = ln 3 / (2√2)` makes equal keys 3 times as likely as opposite ones.
fn write_tiny_bert(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "bert", "vocab_size": 4, "hidden_size": 2, "num_hidden_layers": 1,
            "num_attention_heads": 1, "intermediate_size": 3, "max_position_embeddings": 8,
            "type_vocab_size": 2, "pad_token_id": 0, "hidden_act": "gelu"}"#,
    )
    .unwrap();
    let f = |v: &[f32], shape: &[i64]| Tensor::from_slice(v).reshape(shape);
    let c = 3f32.ln() / (2.0 * 2f32.sqrt());
    let eye = |s: f32| f(&[s, 0.0, 0.0, s], &[2, 2]);
    let zeros = |shape: &[i64]| Tensor::zeros(shape, (Kind::Float, Device::Cpu));
    let onesf = |shape: &[i64]| Tensor::ones(shape, (Kind::Float, Device::Cpu));
    let p = "bert.encoder.layer.0";
    let tensors: Vec<(String, Tensor)> = vec![
        (
            "bert.embeddings.word_embeddings.weight".into(),
            f(&[0.0, 0.0, 1.0, -1.0, -1.0, 1.0, 2.0, -2.0], &[4, 2]),
        ),
        (
            "bert.embeddings.position_embeddings.weight".into(),
            zeros(&[8, 2]),
        ),
        (
            "bert.embeddings.token_type_embeddings.weight".into(),
            zeros(&[2, 2]),
        ),
        ("bert.embeddings.LayerNorm.weight".into(), onesf(&[2])),
        ("bert.embeddings.LayerNorm.bias".into(), zeros(&[2])),
        (format!("{p}.attention.self.query.weight"), eye(c)),
        (format!("{p}.attention.self.query.bias"), zeros(&[2])),
        (format!("{p}.attention.self.key.weight"), eye(1.0)),
        (format!("{p}.attention.self.key.bias"), zeros(&[2])),
        (format!("{p}.attention.self.value.weight"), eye(1.0)),
        (format!("{p}.attention.self.value.bias"), zeros(&[2])),
        (format!("{p}.attention.output.dense.weight"), eye(1.0)),
        (format!("{p}.attention.output.dense.bias"), zeros(&[2])),
        (
            format!("{p}.attention.output.LayerNorm.weight"),
            onesf(&[2]),
        ),
        (format!("{p}.attention.output.LayerNorm.bias"), zeros(&[2])),
        (format!("{p}.intermediate.dense.weight"), zeros(&[3, 2])),
        (format!("{p}.intermediate.dense.bias"), zeros(&[3])),
        (format!("{p}.output.dense.weight"), zeros(&[2, 3])),
        (format!("{p}.output.dense.bias"), zeros(&[2])),
        (format!("{p}.output.LayerNorm.weight"), onesf(&[2])),
        (format!("{p}.output.LayerNorm.bias"), zeros(&[2])),
        ("cls.predictions.transform.dense.weight".into(), eye(1.0)),
        ("cls.predictions.transform.dense.bias".into(), zeros(&[2])),
        (
            "cls.predictions.transform.LayerNorm.weight".into(),
            onesf(&[2]),
        ),
        (
            "cls.predictions.transform.LayerNorm.bias".into(),
            zeros(&[2]),
        ),
        (
            "cls.predictions.bias".into(),
            f(&[0.0, 0.5, 0.0, 0.0], &[4]),
        ),
    ];
    Tensor::write_safetensors(&tensors, dir.join("model.safetensors")).unwrap();
}

#[test]
fn attention_probabilities_by_hand() {
    let dir = std::env::temp_dir().join(format!("bias-plm-tiny-bert-{}", std::process::id()));
    write_tiny_bert(&dir);
    let model = PlmModel::load(&dir, DeviceSpec::Cpu, Kind::Float).unwrap();
    let _ = std::fs::remove_dir_all(&dir);

    // Row 0: A A B + one padding; row 1: B A + two padding (padding id 0 and mask 0).
    let ids = Tensor::from_slice(&[1i64, 1, 2, 0, 2, 1, 0, 0]).reshape([2, 4]);
    let mask = Tensor::from_slice(&[1i64, 1, 1, 0, 1, 1, 0, 0]).reshape([2, 4]);
    let request = EncodeRequest {
        attentions: true,
        all_hidden: false,
    };
    let out = model.encode(&ids, &mask, request).unwrap();
    let att = &out.attentions.unwrap()[0];
    assert_eq!(att.size(), vec![2, 1, 4, 4]);
    let probs = |b: i64, q: i64| to_vec(&att.get(b).get(0).get(q));
    let expect = [
        // row, query, probabilities over the 4 keys
        (0, 0, [3.0 / 7.0, 3.0 / 7.0, 1.0 / 7.0, 0.0]),
        (0, 1, [3.0 / 7.0, 3.0 / 7.0, 1.0 / 7.0, 0.0]),
        (0, 2, [1.0 / 5.0, 1.0 / 5.0, 3.0 / 5.0, 0.0]),
        (1, 0, [3.0 / 4.0, 1.0 / 4.0, 0.0, 0.0]),
        (1, 1, [1.0 / 4.0, 3.0 / 4.0, 0.0, 0.0]),
    ];
    for (b, q, want) in expect {
        let got = probs(b, q);
        for (g, w) in got.iter().zip(want) {
            assert_abs_diff_eq!(f64::from(*g), w, epsilon = 1e-6);
        }
        // Padded keys get exactly zero, and each row sums to one over the keys.
        for k in 0..4 {
            if want[k] == 0.0 {
                assert_eq!(got[k], 0.0, "row {b} query {q} key {k}");
            }
        }
        assert_abs_diff_eq!(
            got.iter().map(|&x| f64::from(x)).sum::<f64>(),
            1.0,
            epsilon = 1e-6
        );
    }
    // Every row of every query, padded queries included, sums to one.
    let sums = to_vec(&att.sum_dim_intlist(-1, false, Kind::Float));
    for s in sums {
        assert_abs_diff_eq!(f64::from(s), 1.0, epsilon = 1e-6);
    }

    // The MLM head: logits = LN(gelu(h))·Eᵀ + b over the tied word embeddings, shape [n, 4].
    let logits = model
        .mlm_logits(&out.last_hidden.get(0).narrow(0, 0, 3))
        .unwrap();
    assert_eq!(logits.size(), vec![3, 4]);
    // Column 0 is the all-zero `[PAD]` embedding, so its logit is its bias, 0; column 1 has +0.5.
    for row in 0..3 {
        let r = to_vec(&logits.get(row));
        assert_abs_diff_eq!(f64::from(r[0]), 0.0, epsilon = 1e-6);
        assert_abs_diff_eq!(f64::from(r[1] + r[2]), 0.5, epsilon = 1e-5);
    }
}
