//! The floating-point work of scoring, for throughput figures (`bias bench`).

use crate::{EngineStats, ModelConfig};

/// Multiply-adds of the work counted in `stats` on a model of `config`: one encoder pass over
/// every padded token, plus the MLM head at every projected position — the floating-point
/// floor of the work, from which a GMAC/s throughput follows.
///
/// Per token and layer: the Q, K, V and output projections (4h²), the feed-forward (2hi) and the
/// attention products over the sequence (2·w·h, `w` the mean padded width); the head costs
/// `h·e + e·v` per position (`e` = ALBERT's or ELECTRA's embedding size, else `h`).
pub fn multiply_adds(config: &ModelConfig, stats: &EngineStats) -> f64 {
    let h = config.hidden_size as f64;
    let i = config.intermediate_size as f64;
    let l = config.num_hidden_layers as f64;
    let v = config.vocab_size as f64;
    let padded = stats.padded_tokens as f64;
    let width = padded / stats.sequences.max(1) as f64;
    let encoder = padded * l * (4.0 * h * h + 2.0 * h * i + 2.0 * width * h);
    let head_width = if config.model_type.architecture().factorised_head {
        config.embedding_size.max(1) as f64
    } else {
        h
    };
    encoder + stats.projected as f64 * (h * head_width + head_width * v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_a_bert_base_pass_by_hand() {
        let config = ModelConfig::from_json_str(
            r#"{"model_type": "bert", "hidden_size": 768, "intermediate_size": 3072,
                "num_hidden_layers": 12, "num_attention_heads": 12, "vocab_size": 30522,
                "max_position_embeddings": 512}"#,
            "config.json",
        )
        .unwrap();
        // Two sequences of 10 padded tokens, 4 positions projected.
        let stats = EngineStats {
            forward_passes: 1,
            sequences: 2,
            tokens: 18,
            padded_tokens: 20,
            projected: 4,
        };
        let per_token_layer = 4.0 * 768.0 * 768.0 + 2.0 * 768.0 * 3072.0 + 2.0 * 10.0 * 768.0;
        let head = 4.0 * (768.0 * 768.0 + 768.0 * 30522.0);
        assert_eq!(
            multiply_adds(&config, &stats),
            20.0 * 12.0 * per_token_layer + head
        );
    }
}
