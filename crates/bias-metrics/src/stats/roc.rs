//! The receiver operating characteristic curve and the area under it.

use super::{ranks::average_ranks, validate};
use crate::MetricsError;

/// Points of a ROC curve, one per distinct score plus the origin.
#[derive(Debug, Clone, PartialEq)]
pub struct RocCurve {
    /// False-positive rates, non-decreasing from 0 to 1.
    pub fpr: Vec<f64>,
    /// True-positive rates, non-decreasing from 0 to 1.
    pub tpr: Vec<f64>,
    /// Decision thresholds, decreasing: `thresholds[0] = +∞` (nothing predicted positive), then
    /// each distinct score; point i predicts positive every score `≥ thresholds[i]`.
    pub thresholds: Vec<f64>,
}

/// Checks shared by the ROC functions; returns (positives, negatives).
fn check(what: &str, scores: &[f64], labels: &[bool]) -> Result<(usize, usize), MetricsError> {
    validate::same_len(
        &format!("{what}: scores, labels"),
        scores.len(),
        labels.len(),
    )?;
    if scores.is_empty() {
        return Err(MetricsError::Empty {
            what: format!("{what}: scores"),
        });
    }
    validate::finite(&format!("{what}: scores"), scores)?;
    let positives = labels.iter().filter(|&&l| l).count();
    let negatives = labels.len() - positives;
    if positives == 0 || negatives == 0 {
        return Err(MetricsError::InvalidParameter {
            name: format!("{what}: labels"),
            value: format!("{positives} positive, {negatives} negative"),
            expected: "at least one positive and one negative".to_owned(),
        });
    }
    Ok((positives, negatives))
}

/// The ROC curve of `scores` (higher means more likely positive) against `labels`.
///
/// Sweeping the threshold t down through the distinct scores,
/// `TPR(t) = #{positives with score ≥ t} / #positives` and
/// `FPR(t) = #{negatives with score ≥ t} / #negatives`; tied scores move both rates in one step
/// (a diagonal segment). The curve starts at (0, 0) with threshold +∞ and ends at (1, 1). This is
/// `sklearn.metrics.roc_curve(labels, scores, drop_intermediate=False)`.
///
/// Reference: T. Fawcett (2006), "An introduction to ROC analysis", *Pattern Recognition
/// Letters* 27(8), 861–874.
///
/// # Errors
///
/// * [`MetricsError::LengthMismatch`] if `scores` and `labels` differ in length;
/// * [`MetricsError::Empty`] if they are empty;
/// * [`MetricsError::InvalidParameter`] for a NaN or infinite score, or when only one class is
///   present (one of the rates is then undefined).
pub fn roc_curve(scores: &[f64], labels: &[bool]) -> Result<RocCurve, MetricsError> {
    let (positives, negatives) = check("roc_curve", scores, labels)?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));

    let mut fpr = vec![0.0];
    let mut tpr = vec![0.0];
    let mut thresholds = vec![f64::INFINITY];
    let (mut tp, mut fp) = (0usize, 0usize);
    let mut start = 0;
    while start < order.len() {
        let threshold = scores[order[start]];
        let mut end = start;
        while end < order.len() && scores[order[end]] == threshold {
            if labels[order[end]] {
                tp += 1;
            } else {
                fp += 1;
            }
            end += 1;
        }
        fpr.push(fp as f64 / negatives as f64);
        tpr.push(tp as f64 / positives as f64);
        thresholds.push(threshold);
        start = end;
    }
    Ok(RocCurve {
        fpr,
        tpr,
        thresholds,
    })
}

/// Area under the ROC curve, ties counted one half.
///
/// ```text
/// AUC = P(S⁺ > S⁻) + ½ P(S⁺ = S⁻) = (R⁺ − n⁺(n⁺ + 1)/2) / (n⁺ n⁻)
/// ```
///
/// with R⁺ the sum of the average ranks (see [`average_ranks`](super::average_ranks)) of the
/// positives' scores: the Mann–Whitney U statistic over n⁺n⁻, equal to the trapezoidal area under
/// [`roc_curve`]. Matches `sklearn.metrics.roc_auc_score(labels, scores)`.
///
/// Reference: J. A. Hanley, B. J. McNeil (1982), "The meaning and use of the area under a
/// receiver operating characteristic (ROC) curve", *Radiology* 143(1), 29–36.
///
/// # Errors
///
/// * [`MetricsError::LengthMismatch`] if `scores` and `labels` differ in length;
/// * [`MetricsError::Empty`] if they are empty;
/// * [`MetricsError::InvalidParameter`] for a NaN or infinite score, or when only one class is
///   present.
pub fn roc_auc(scores: &[f64], labels: &[bool]) -> Result<f64, MetricsError> {
    let (positives, negatives) = check("roc_auc", scores, labels)?;
    let ranks = average_ranks(scores)?;
    let rank_sum: f64 = ranks
        .iter()
        .zip(labels)
        .filter(|(_, &l)| l)
        .map(|(r, _)| r)
        .sum();
    let np = positives as f64;
    let u = rank_sum - np * (np + 1.0) / 2.0;
    Ok(u / (np * negatives as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn errors() {
        assert!(matches!(roc_auc(&[], &[]), Err(MetricsError::Empty { .. })));
        assert!(matches!(
            roc_curve(&[0.1, 0.2], &[true]),
            Err(MetricsError::LengthMismatch {
                left: 2,
                right: 1,
                ..
            })
        ));
        assert!(matches!(
            roc_auc(&[0.1, 0.2], &[true, true]),
            Err(MetricsError::InvalidParameter { .. })
        ));
    }

    #[test]
    fn auc_is_trapezoid_area() {
        let scores = [0.3, 0.3, 0.9, 0.1, 0.5, 0.5, 0.5, 0.2];
        let labels = [true, false, true, false, false, true, true, false];
        let c = roc_curve(&scores, &labels).unwrap();
        let area: f64 = (1..c.fpr.len())
            .map(|i| (c.fpr[i] - c.fpr[i - 1]) * (c.tpr[i] + c.tpr[i - 1]) / 2.0)
            .sum();
        assert_abs_diff_eq!(roc_auc(&scores, &labels).unwrap(), area, epsilon = 1e-12);
    }
}
