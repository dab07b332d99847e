//! ModernBERT's options that the scorer-parity checkpoint leaves at their defaults, against
//! `transformers` (fixtures/plm/modernbert_variant.json, written by
//! scripts/fixtures/plm_modernbert.py): biases everywhere (`norm_bias`, `attention_bias`,
//! `mlp_bias`, `classifier_bias`) but none on the decoder, an untied decoder, `gelu_pytorch_tanh`
//! and `silu` activations, a window of 6 and small RoPE bases, in a `config.json` of the older
//! format (`global_attn_every_n_layers`, `global_rope_theta`, `local_rope_theta`). The sentences
//! run as one right-padded batch, as the reference did: token log-probabilities, arg-max,
//! attention received and every hidden state (`output_hidden_states`) must agree.

use crate::support::encode_padded;
use bias_plm::{
    token_log_probs, DeviceSpec, MaskedLanguageModel, ModelType, PlmModel, PlmTokenizer,
};
use bias_testkit::json::{floats, ints, max_abs_diff as max_diff};
use serde_json::Value;
use tch::{Kind, Tensor};

const TOL: f64 = 1e-4;

use bias_testkit::root;

fn to_f64(t: &Tensor) -> Vec<f64> {
    Vec::<f64>::try_from(t.to_kind(Kind::Double).reshape([-1])).unwrap()
}

#[test]
fn modernbert_options_match_transformers() {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/plm/modernbert_variant.json")).unwrap(),
    )
    .unwrap();
    let dir = root().join("fixtures/models/modernbert-variant");
    let model = PlmModel::load(&dir, DeviceSpec::Cpu, Kind::Float).unwrap();
    let tok = PlmTokenizer::from_dir(&dir).unwrap();
    let config = model.config();
    assert_eq!(config.model_type, ModelType::ModernBert);
    assert!(!config.tie_word_embeddings);
    let options = config.modernbert.as_ref().unwrap();
    assert_eq!(options.sliding_layers, vec![false, true, true, false]);
    assert_eq!(
        (options.global_rope_theta, options.local_rope_theta),
        (1000.0, 50.0)
    );
    assert!(options.norm_bias && options.attention_bias && options.mlp_bias);
    assert!(options.classifier_bias && !options.decoder_bias);

    let sentences = doc["sentences"].as_array().unwrap();
    let ids: Vec<Vec<i64>> = sentences
        .iter()
        .map(|s| {
            let ids = tok.encode(s["text"].as_str().unwrap()).unwrap();
            assert_eq!(ids, ints(&s["input_ids"]), "{}", s["text"]);
            ids
        })
        .collect();
    let pad = doc["pad"].as_i64().unwrap();
    assert_eq!(tok.pad_id().unwrap(), pad);
    let out = encode_padded(&model, &ids, pad);
    let attentions = out.attentions.unwrap();
    let all_hidden = out.all_hidden.unwrap();
    assert_eq!(attentions.len(), 4);
    assert_eq!(all_hidden.len(), 5);
    // transformers' last hidden state is the one after final_norm.
    assert_eq!(to_f64(all_hidden.last().unwrap()), to_f64(&out.last_hidden));

    let (mut worst_lp, mut worst_att, mut worst_hidden) = (0.0f64, 0.0f64, 0.0f64);
    for (b, (s, seq)) in sentences.iter().zip(&ids).enumerate() {
        let n = seq.len() as i64;
        let hidden = out.last_hidden.get(b as i64).narrow(0, 0, n);
        let logits = model.mlm_logits(&hidden).unwrap();
        let lp = token_log_probs(&logits, seq).unwrap();
        let d = max_diff(&lp, &floats(&s["token_logprobs"]));
        assert!(d < TOL, "{}: log-probs differ by {d}", s["text"]);
        worst_lp = worst_lp.max(d);
        let argmax = Vec::<i64>::try_from(logits.argmax(-1, false)).unwrap();
        assert_eq!(argmax, ints(&s["argmax"]), "{}", s["text"]);

        let received = Tensor::stack(&attentions, 0)
            .select(1, b as i64)
            .narrow(2, 0, n)
            .narrow(3, 0, n)
            .mean_dim([0i64, 1, 2].as_slice(), false, Kind::Float);
        let d = max_diff(&to_f64(&received), &floats(&s["attention_received"]));
        assert!(d < TOL, "{}: attention received differs by {d}", s["text"]);
        worst_att = worst_att.max(d);

        for (layer, (h, want)) in all_hidden
            .iter()
            .zip(s["hidden_means"].as_array().unwrap())
            .enumerate()
        {
            let mean =
                h.get(b as i64)
                    .narrow(0, 0, n)
                    .mean_dim([0i64].as_slice(), false, Kind::Float);
            let d = max_diff(&to_f64(&mean), &floats(want));
            assert!(
                d < TOL,
                "{} hidden state {layer}: differs by {d}",
                s["text"]
            );
            worst_hidden = worst_hidden.max(d);
        }
    }
    eprintln!(
        "modernbert-variant: {} sentences in one padded batch, max |Δ log P| = {worst_lp:.2e}, \
         max |Δ attention received| = {worst_att:.2e}, max |Δ hidden mean| = {worst_hidden:.2e}",
        sentences.len()
    );

    // A bare encoder load reads no head and gives the same hidden states.
    let encoder = PlmModel::load_encoder(&dir, DeviceSpec::Cpu, Kind::Float).unwrap();
    assert!(!encoder.has_mlm_head());
    let again = encode_padded(&encoder, &ids, pad);
    assert_eq!(to_f64(&again.last_hidden), to_f64(&out.last_hidden));
}

/// Fine-tuning ModernBERT is refused rather than run unchecked (its weight-decay groups and
/// dropouts are not compared with transformers).
#[test]
fn modernbert_fine_tuning_is_refused() {
    use bias_core::{MaskedLmTrainer, TrainingOptions};
    let out = std::env::temp_dir().join(format!("modernbert-refused-{}", std::process::id()));
    let err = bias_plm::MlmTrainer::new(
        root().join("fixtures/models/modernbert"),
        &out,
        DeviceSpec::Cpu,
    )
    .train(
        &vec!["The nurse is kind.".to_string(); 4],
        &TrainingOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, bias_plm::PlmError::Training(m) if m.contains("ModernBERT")),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
}
