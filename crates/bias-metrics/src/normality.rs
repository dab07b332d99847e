//! The normality check of liu2024 ("Normality Test"): Shapiro–Wilk on each side's scores,
//! overall and within each bias type, before Gaussians are fitted for KLS and JSS.

use bias_core::{BiasType, ScoreRow, ScoreTable};
use serde::{Deserialize, Serialize};

use crate::stats::shapiro_wilk;

/// Which sentence of the pairs a test is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The stereotypical sentences (`score_stereo`, fitted as `P_st`).
    Stereo,
    /// The anti-stereotypical sentences (`score_anti`, fitted as `P_at`).
    Anti,
}

/// One Shapiro–Wilk test of [`normality_by_type`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NormalityTest {
    /// The bias type tested, or `None` for all pairs together.
    pub bias_type: Option<BiasType>,
    /// The side tested.
    pub side: Side,
    /// Number of scores.
    pub n: usize,
    /// The statistic W, when the test is defined for this sample.
    pub w: Option<f64>,
    /// Its p-value, when defined.
    pub p_value: Option<f64>,
    /// Why the test is undefined (fewer than 3 scores, all scores equal, n > 5000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undefined: Option<String>,
}

impl NormalityTest {
    /// `Some(true)` when normality is not rejected at level `alpha` (`p ≥ alpha`); `None` when
    /// the test is undefined.
    pub fn normal_at(&self, alpha: f64) -> Option<bool> {
        self.p_value.map(|p| p >= alpha)
    }
}

fn test(rows: &[&ScoreRow], bias_type: Option<&BiasType>, side: Side) -> NormalityTest {
    let values: Vec<f64> = rows
        .iter()
        .map(|r| match side {
            Side::Stereo => r.score_stereo,
            Side::Anti => r.score_anti,
        })
        .collect();
    let (w, p_value, undefined) = match shapiro_wilk(&values) {
        Ok(t) => (Some(t.w), Some(t.p_value), None),
        Err(e) => (None, None, Some(e.to_string())),
    };
    NormalityTest {
        bias_type: bias_type.cloned(),
        side,
        n: values.len(),
        w,
        p_value,
        undefined,
    }
}

/// Shapiro–Wilk ([`shapiro_wilk`]) on `score_stereo` and on `score_anti`, first over all rows,
/// then within each bias type (in `BiasType` order): the normality table of liu2024. A sample on
/// which the test is undefined is reported with its reason, not dropped.
///
/// Call it on one (dataset, scorer, model) slice ([`ScoreTable::slices`]).
///
/// # Errors
/// None: undefined tests are reported in [`NormalityTest::undefined`].
pub fn normality_by_type(table: &ScoreTable) -> Vec<NormalityTest> {
    let all: Vec<&ScoreRow> = table.rows().iter().collect();
    let mut out = Vec::new();
    for side in [Side::Stereo, Side::Anti] {
        out.push(test(&all, None, side));
    }
    for (ty, rows) in table.by_bias_type() {
        for side in [Side::Stereo, Side::Anti] {
            out.push(test(&rows, Some(ty), side));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    fn row(ty: BiasType, s: f64, a: f64) -> ScoreRow {
        ScoreRow::builder(format!("{s}{a}"), ty, s, a)
            .dataset("d")
            .sentences("x", "y")
            .scorer("aul")
            .model("m")
            .build()
    }

    #[test]
    fn every_side_and_type_is_reported_and_small_types_say_why() {
        // Gender: equally spaced stereo scores (W = 1, p = 1 for n = 3); age: one pair.
        let table = ScoreTable::new(vec![
            row(BiasType::Gender, 1.0, 0.3),
            row(BiasType::Gender, 2.0, 0.1),
            row(BiasType::Gender, 3.0, 0.2),
            row(BiasType::Age, 0.0, 0.0),
        ]);
        let tests = normality_by_type(&table);
        assert_eq!(tests.len(), 6);
        assert_eq!((tests[0].bias_type.as_ref(), tests[0].n), (None, 4));
        // Types come in `BiasType` order (gender before age).
        let age = &tests[4];
        assert_eq!((age.bias_type.as_ref(), age.n), (Some(&BiasType::Age), 1));
        assert!(age.w.is_none() && age.undefined.is_some());
        let gender_stereo = &tests[2];
        assert_eq!(gender_stereo.side, Side::Stereo);
        assert_abs_diff_eq!(gender_stereo.w.unwrap(), 1.0, epsilon = 1e-12);
        assert_eq!(gender_stereo.normal_at(0.05), Some(true));
    }
}
