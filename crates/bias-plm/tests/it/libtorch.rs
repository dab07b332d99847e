//! Proves that libtorch links and computes: log-probabilities against hand calculations.

use approx::assert_abs_diff_eq;
use bias_plm::{token_log_probs, PlmError};
use tch::Tensor;

#[test]
fn log_softmax_gather_matches_hand_calculation() {
    // Row 0: logits (0, ln 3) → softmax (1/4, 3/4). Row 1: logits (ln 2, ln 2) → (1/2, 1/2).
    let ln3 = 3f32.ln();
    let ln2 = 2f32.ln();
    let logits = Tensor::from_slice(&[0.0f32, ln3, ln2, ln2]).reshape([2, 2]);
    let lp = token_log_probs(&logits, &[1, 0]).unwrap();
    assert_eq!(lp.len(), 2);
    assert_abs_diff_eq!(lp[0], 0.75f64.ln(), epsilon = 1e-6);
    assert_abs_diff_eq!(lp[1], 0.5f64.ln(), epsilon = 1e-6);
}

#[test]
fn log_probs_over_a_row_sum_to_one_in_probability() {
    let logits = Tensor::from_slice(&[1.5f32, -0.3, 2.2, 0.0, 4.0]).reshape([1, 5]);
    let total: f64 = (0..5)
        .map(|t| token_log_probs(&logits, &[t]).unwrap()[0].exp())
        .sum();
    assert_abs_diff_eq!(total, 1.0, epsilon = 1e-6);
}

#[test]
fn shape_and_range_errors_are_typed() {
    let logits = Tensor::zeros([2, 3], (tch::Kind::Float, tch::Device::Cpu));
    assert!(matches!(
        token_log_probs(&logits, &[0]),
        Err(PlmError::Shape(_))
    ));
    assert!(matches!(
        token_log_probs(&logits, &[0, 3]),
        Err(PlmError::Shape(_))
    ));
}
