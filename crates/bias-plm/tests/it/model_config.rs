//! `config.json` parsing: class defaults, DistilBERT's names, RoBERTa's position offset.

use bias_plm::{Activation, ModelConfig, ModelType};

#[test]
fn defaults_follow_the_transformers_classes() {
    let bert = ModelConfig::from_json_str(r#"{"model_type": "bert"}"#, "c.json").unwrap();
    assert_eq!(bert.model_type, ModelType::Bert);
    assert_eq!(
        (bert.vocab_size, bert.hidden_size, bert.num_hidden_layers),
        (30522, 768, 12)
    );
    assert_eq!(bert.hidden_act, Activation::Gelu);
    assert_eq!(bert.max_tokens(), 512);
    assert!(bert.tie_word_embeddings);

    let albert = ModelConfig::from_json_str(r#"{"model_type": "albert"}"#, "c.json").unwrap();
    assert_eq!(albert.hidden_act, Activation::GeluTanh);
    assert_eq!((albert.embedding_size, albert.hidden_size), (128, 4096));

    let xlmr = ModelConfig::from_json_str(r#"{"model_type": "xlm-roberta"}"#, "c.json").unwrap();
    assert_eq!(xlmr.model_type, ModelType::Roberta);
    assert_eq!(xlmr.model_type_name, "xlm-roberta");
    assert_eq!(xlmr.pad_token_id, 1);
}

#[test]
fn roberta_max_tokens_subtracts_the_offset() {
    let c = ModelConfig::from_json_str(
        r#"{"model_type": "roberta", "max_position_embeddings": 514, "pad_token_id": 1,
            "vocab_size": 50265, "type_vocab_size": 1, "layer_norm_eps": 1e-5}"#,
        "c.json",
    )
    .unwrap();
    assert_eq!(c.position_offset(), 2);
    assert_eq!(c.max_tokens(), 512);
    assert_eq!(c.layer_norm_eps, 1e-5);
}

#[test]
fn distilbert_names_are_mapped() {
    let c = ModelConfig::from_json_str(
        r#"{"model_type": "distilbert", "dim": 16, "n_layers": 2, "n_heads": 2,
            "hidden_dim": 32, "activation": "relu", "layer_norm_eps": 0.1}"#,
        "c.json",
    )
    .unwrap();
    assert_eq!(
        (
            c.hidden_size,
            c.num_hidden_layers,
            c.num_attention_heads,
            c.intermediate_size
        ),
        (16, 2, 2, 32)
    );
    assert_eq!(c.hidden_act, Activation::Relu);
    assert_eq!(c.type_vocab_size, 0);
    assert_eq!(c.layer_norm_eps, 1e-12, "DistilBERT fixes eps at 1e-12");
    assert_eq!(c.head_dim(), 8);
}
