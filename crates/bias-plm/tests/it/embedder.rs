//! `PlmEmbedder` on the real all-MiniLM-L6-v2 encoder against `transformers`' mean-pooled
//! sentence embeddings (`fixtures/plm/minilm_hidden.json`), batched with padding.

use approx::abs_diff_eq;
use std::path::PathBuf;

use bias_core::Embedder;
use bias_plm::{
    DeviceSpec, EmbedOptions, EncodeRequest, Layer, MaskedLanguageModel, PlmEmbedder, PlmError,
    SpecialTokens,
};
use serde_json::Value;
use tch::{Device, Kind, Tensor};

const TOL: f64 = 1e-4;

use bias_testkit::root;

fn minilm_dir() -> PathBuf {
    root().join("data/all-MiniLM-L6-v2")
}

fn embedder(options: EmbedOptions) -> PlmEmbedder {
    PlmEmbedder::load(minilm_dir(), DeviceSpec::Cpu, options)
        .unwrap_or_else(|e| panic!("all-MiniLM-L6-v2 must be set up in data/: {e}"))
}

struct Sentence {
    text: String,
    input_ids: Vec<i64>,
    last_hidden: Vec<Vec<f64>>,
    mean_pooled: Vec<f64>,
}

fn fixture() -> Vec<Sentence> {
    let path = root().join("fixtures/plm/minilm_hidden.json");
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("fixture {} missing: {e}", path.display())),
    )
    .unwrap();
    let floats = |v: &Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    doc["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| Sentence {
            text: s["text"].as_str().unwrap().to_owned(),
            input_ids: s["input_ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect(),
            last_hidden: s["last_hidden_state"]
                .as_array()
                .unwrap()
                .iter()
                .map(floats)
                .collect(),
            mean_pooled: floats(&s["mean_pooled"]),
        })
        .collect()
}

fn assert_row_close(got: &[f32], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: dimension");
    for (j, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            abs_diff_eq!(f64::from(g), w, epsilon = tol),
            "{what}: coordinate {j}: got {g}, want {w}"
        );
    }
}

fn row(m: &ndarray::Array2<f32>, i: usize) -> Vec<f32> {
    m.row(i).to_vec()
}

fn texts(sentences: &[Sentence]) -> Vec<&str> {
    sentences.iter().map(|s| s.text.as_str()).collect()
}

#[test]
fn one_padded_batch_matches_transformers_mean_pooling() {
    let sentences = fixture();
    let mut emb = embedder(EmbedOptions::default());
    assert_eq!(emb.dim(), 384);
    // The fixture's sentences differ in length (10, 8, 14, 7, 3 tokens), so one call of five
    // runs one batch padded to 14.
    let lengths: Vec<usize> = sentences.iter().map(|s| s.input_ids.len()).collect();
    assert!(lengths.iter().any(|&l| l != lengths[0]));
    for s in &sentences {
        assert_eq!(emb.tokenizer().encode(&s.text).unwrap(), s.input_ids);
    }
    let out = emb.embed(&texts(&sentences)).unwrap();
    assert_eq!(out.dim(), (sentences.len(), 384));
    for (i, s) in sentences.iter().enumerate() {
        assert_row_close(&row(&out, i), &s.mean_pooled, TOL, &s.text);
    }
}

#[test]
fn batch_size_does_not_change_the_result() {
    let sentences = fixture();
    let all = embedder(EmbedOptions::default())
        .embed(&texts(&sentences))
        .unwrap();
    let twos = embedder(EmbedOptions {
        batch_size: 2,
        ..EmbedOptions::default()
    })
    .embed(&texts(&sentences))
    .unwrap();
    for (i, s) in sentences.iter().enumerate() {
        let want: Vec<f64> = row(&all, i).iter().map(|&v| f64::from(v)).collect();
        assert_row_close(&row(&twos, i), &want, 1e-5, &s.text);
    }
}

#[test]
fn exclude_averages_all_but_the_first_and_last_token() {
    let sentences = fixture();
    let mut emb = embedder(EmbedOptions {
        special_tokens: SpecialTokens::Exclude,
        ..EmbedOptions::default()
    });
    let out = emb.embed(&texts(&sentences)).unwrap();
    for (i, s) in sentences.iter().enumerate() {
        let len = s.last_hidden.len();
        assert_eq!(len, s.input_ids.len());
        let inner = &s.last_hidden[1..len - 1];
        let want: Vec<f64> = (0..384)
            .map(|j| inner.iter().map(|r| r[j]).sum::<f64>() / inner.len() as f64)
            .collect();
        assert_row_close(&row(&out, i), &want, TOL, &s.text);
        // and it differs from the default (special tokens included)
        let diff: f64 = row(&out, i)
            .iter()
            .zip(&s.mean_pooled)
            .map(|(&g, &w)| (f64::from(g) - w).abs())
            .sum();
        assert!(diff > 1e-2, "{}: Exclude equals Include", s.text);
    }
}

#[test]
fn layer_indices_follow_transformers_hidden_states() {
    let sentences = fixture();
    let texts = texts(&sentences);
    let last = embedder(EmbedOptions::default()).embed(&texts).unwrap();
    let six = embedder(EmbedOptions {
        layer: Layer::Index(6),
        ..EmbedOptions::default()
    })
    .embed(&texts)
    .unwrap();
    assert_eq!(last, six, "Index(num_hidden_layers) must equal Last");

    // Index(0) is the embedding output, averaged: check against the encoder's own
    // hidden_states[0], one unpadded sentence at a time.
    let mut zero = embedder(EmbedOptions {
        layer: Layer::Index(0),
        ..EmbedOptions::default()
    });
    let got = zero.embed(&texts).unwrap();
    for (i, s) in sentences.iter().enumerate() {
        let n = s.input_ids.len() as i64;
        let out = zero
            .model()
            .encode(
                &Tensor::from_slice(&s.input_ids).reshape([1, n]),
                &Tensor::ones([1, n], (Kind::Int64, Device::Cpu)),
                EncodeRequest {
                    attentions: false,
                    all_hidden: true,
                },
            )
            .unwrap();
        let all = out.all_hidden.unwrap();
        assert_eq!(all.len(), 7);
        let mean = all[0].mean_dim(1, false, Kind::Float).flatten(0, -1);
        let want: Vec<f64> = Vec::<f32>::try_from(mean)
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect();
        assert_row_close(&row(&got, i), &want, 1e-5, &s.text);
        let diff: f64 = row(&got, i)
            .iter()
            .zip(&s.mean_pooled)
            .map(|(&g, &w)| (f64::from(g) - w).abs())
            .sum();
        assert!(diff > 1e-2, "{}: layer 0 equals the last layer", s.text);
    }
}

#[test]
fn a_layer_beyond_the_model_is_refused() {
    let err = PlmEmbedder::load(
        minilm_dir(),
        DeviceSpec::Cpu,
        EmbedOptions {
            layer: Layer::Index(7),
            ..EmbedOptions::default()
        },
    )
    .unwrap_err();
    match &err {
        PlmError::UnsupportedConfig { key, value, .. } => {
            assert_eq!(key, "layer");
            assert_eq!(value, "7");
        }
        other => panic!("expected UnsupportedConfig, got {other:?}"),
    }
    assert!(err.to_string().contains("6 layers"), "{err}");
}

#[test]
fn a_zero_batch_size_is_refused() {
    let err = PlmEmbedder::load(
        minilm_dir(),
        DeviceSpec::Cpu,
        EmbedOptions {
            batch_size: 0,
            ..EmbedOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(&err, PlmError::UnsupportedConfig { key, .. } if key == "batch_size"),
        "{err:?}"
    );
}

#[test]
fn rows_come_back_in_input_order() {
    let sentences = fixture();
    // Shortest, longest, and middle lengths interleaved, with a repeat.
    let order = [4, 2, 3, 0, 1, 2];
    let inputs: Vec<&str> = order.iter().map(|&k| sentences[k].text.as_str()).collect();
    let mut emb = embedder(EmbedOptions {
        batch_size: 4,
        ..EmbedOptions::default()
    });
    let out = emb.embed(&inputs).unwrap();
    assert_eq!(out.nrows(), inputs.len());
    for (i, &k) in order.iter().enumerate() {
        assert_row_close(
            &row(&out, i),
            &sentences[k].mean_pooled,
            TOL,
            &sentences[k].text,
        );
        // one text on its own gives the same row
        let single = emb.embed(&[inputs[i]]).unwrap();
        let want: Vec<f64> = row(&single, 0).iter().map(|&v| f64::from(v)).collect();
        assert_row_close(&row(&out, i), &want, 1e-5, &sentences[k].text);
    }
}

#[test]
fn an_empty_list_gives_an_empty_array() {
    let out = embedder(EmbedOptions::default()).embed(&[]).unwrap();
    assert_eq!(out.dim(), (0, 384));
}

#[test]
fn a_too_long_text_is_an_error() {
    let mut emb = embedder(EmbedOptions::default());
    let long = "word ".repeat(600);
    let err = emb
        .embed(&["A short sentence.", long.as_str()])
        .unwrap_err();
    match err {
        PlmError::SequenceTooLong { length, max } => {
            assert_eq!(max, 512);
            assert_eq!(length, 602);
        }
        other => panic!("expected SequenceTooLong, got {other:?}"),
    }
    // exactly at the limit is fine: 510 words + [CLS] + [SEP]
    let fits = "word ".repeat(510);
    assert_eq!(emb.embed(&[fits.as_str()]).unwrap().nrows(), 1);
}

#[test]
fn exclude_refuses_a_text_with_only_special_tokens() {
    let mut emb = embedder(EmbedOptions {
        special_tokens: SpecialTokens::Exclude,
        ..EmbedOptions::default()
    });
    let err = emb.embed(&["fine", ""]).unwrap_err();
    assert!(err.to_string().contains("text 1"), "{err}");
}
