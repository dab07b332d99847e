//! Every value one call reports for a set of score slices: each measure on each (data set,
//! scorer, model) slice, overall and per bias type, with its bootstrap interval, its named test
//! ([`MeasureSpec::null_test`]) and its adjusted p within its data set's family (every value of
//! the call on that data set). What `bias measure` prints and writes; any front end gets the
//! same numbers from [`measure_slices`].

use std::collections::BTreeMap;

use bias_core::{BiasType, Measurement, ScoreSlice};
use serde::Serialize;

use crate::stats::{Correction, PermutationOptions};
use crate::{
    bootstrap_by_type, test_measure, BootstrapOptions, FamilyOptions, Indicator, IndicatorReport,
    Interval, MeasureSpec, MeasureTest, MetricsError, NangiaScores, Rounding, TestName,
    TypeBootstrap,
};

/// How [`measure_slices`] measures, tests and adjusts.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceOptions {
    /// The measures with their settings (ties, aggregation, small types, JSS variant); their
    /// own rounding is replaced by `rounding`.
    pub measures: Vec<MeasureSpec>,
    /// Rounding of the reported values and intervals. Replicates and tests are never rounded:
    /// rounding would quantise them.
    pub rounding: Rounding,
    /// A stratified percentile bootstrap per value, or none.
    pub bootstrap: Option<BootstrapOptions>,
    /// The sign-flip test's flip sets (KLS, JSS).
    pub permutation: PermutationOptions,
    /// The family's correction and level.
    pub family: FamilyOptions,
}

/// One measure's result on one slice: the value overall and per bias type, each with its test,
/// its adjusted p and (for the sign test) the smallest deviation its pairs can detect.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SliceMeasurement {
    /// The slice's data set.
    pub dataset: String,
    /// The slice's scorer.
    pub scorer: String,
    /// The slice's model.
    pub model: String,
    /// The measure's name.
    pub measure: String,
    /// The value (rounded as asked).
    pub value: f64,
    /// The value of no bias (50 for the indicator, 0 for KLS and JSS).
    pub no_bias: f64,
    /// Pairs measured.
    pub n: usize,
    /// The overall value's interval and test.
    #[serde(flatten)]
    pub tested: Tested,
    /// The test of every value of this result.
    pub test: TestName,
    /// For a permutation test: its null values (`2ⁿ` when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permutations: Option<usize>,
    /// The family's correction.
    pub correction: Correction,
    /// The family's level.
    pub alpha: f64,
    /// How many values the family holds.
    pub family_size: usize,
    /// Every bias type's value.
    pub by_type: BTreeMap<BiasType, TypeMeasurement>,
    /// The indicator's counts (indicator only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indicator: Option<IndicatorDetails>,
    /// The overall bootstrap interval and how it was drawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<BootstrapSummary>,
}

/// One bias type's value of a [`SliceMeasurement`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeMeasurement {
    /// The value.
    pub value: f64,
    /// Pairs of this type.
    pub n: usize,
    /// Its interval and test.
    #[serde(flatten)]
    pub tested: Tested,
}

/// What the statistics say of one value.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tested {
    /// The interval's lower end, when bootstrapped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_low: Option<f64>,
    /// The interval's upper end, when bootstrapped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_high: Option<f64>,
    /// The test's p.
    pub p_value: f64,
    /// The p adjusted within the family.
    pub p_adjusted: f64,
    /// Whether the adjusted p is below the family's level.
    pub significant: bool,
    /// Sign test only: the smallest deviation from 50 % (points) detected with power 0.8 at the
    /// family's first-step level; `null` when the value's pairs can detect none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detectable_deviation: Option<Option<f64>>,
}

/// The indicator's counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndicatorDetails {
    /// Pairs whose stereotypical sentence scored higher.
    pub stereotypical: usize,
    /// Pairs scored equal.
    pub ties: usize,
    /// Nangia et al.'s sub-scores, when ties are neutral.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nangia: Option<NangiaScores>,
}

/// The overall bootstrap interval of a [`SliceMeasurement`] and how it was drawn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BootstrapSummary {
    /// Lower end (rounded as the value).
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Confidence level.
    pub level: f64,
    /// Replicates.
    pub replicates: usize,
    /// The seed.
    pub seed: u64,
}

/// A measure's value on one slice before the family is known.
struct Computed {
    measurement: Measurement,
    indicator: Option<IndicatorDetails>,
    bootstrap: Option<TypeBootstrap>,
    test: MeasureTest,
}

/// Every measure of `options` on every slice, tested and adjusted within each data set's family
/// (Holm by default; every value of the call on that data set: every measure, scorer and model,
/// overall and per bias type), in the order of `slices` then of the measures.
///
/// # Errors
/// The first measure, bootstrap or test that fails, as `(slice index, error)`: the caller names
/// the slice's file; an error of the adjustment has index `None`.
pub fn measure_slices(
    slices: &[ScoreSlice],
    options: &SliceOptions,
) -> Result<Vec<SliceMeasurement>, (Option<usize>, MetricsError)> {
    let mut computed = Vec::new();
    for (i, slice) in slices.iter().enumerate() {
        for c in compute(options, slice).map_err(|e| (Some(i), e))? {
            computed.push((slice, c));
        }
    }
    adjust(options, computed).map_err(|e| (None, e))
}

fn compute(options: &SliceOptions, slice: &ScoreSlice) -> Result<Vec<Computed>, MetricsError> {
    let table = &slice.table;
    let mut results = Vec::new();
    for &spec in &options.measures {
        let measure = spec.with_rounding(options.rounding);
        let (measurement, indicator) = if let MeasureSpec::Indicator { options } = measure {
            let IndicatorReport {
                measurement,
                stereotypical,
                ties,
                nangia,
            } = Indicator::new(options).report(table)?;
            let details = IndicatorDetails {
                stereotypical,
                ties,
                nangia,
            };
            (measurement, Some(details))
        } else {
            (measure.measure(table)?, None)
        };
        let unrounded = spec.with_rounding(Rounding::None);
        let bootstrap = options
            .bootstrap
            .as_ref()
            .map(|b| bootstrap_by_type(&[&unrounded], table, b).map(|mut v| v.remove(0)))
            .transpose()?;
        let test = test_measure(
            &unrounded,
            unrounded.null_test(),
            table,
            &options.permutation,
        )?;
        results.push(Computed {
            measurement,
            indicator,
            bootstrap,
            test,
        });
    }
    Ok(results)
}

fn adjust(
    options: &SliceOptions,
    computed: Vec<(&ScoreSlice, Computed)>,
) -> Result<Vec<SliceMeasurement>, MetricsError> {
    let family = options.family;
    let mut keys = Vec::new();
    let mut p_values = Vec::new();
    for (slice, c) in &computed {
        keys.push(slice.dataset.clone());
        p_values.push(c.test.overall.p_value);
        for t in c.test.by_type.values() {
            keys.push(slice.dataset.clone());
            p_values.push(t.p_value);
        }
    }
    let mut verdicts = family.verdicts_by_family(&keys, &p_values)?.into_iter();
    let round = |x: f64| options.rounding.apply(x);
    let mut out = Vec::with_capacity(computed.len());
    for (slice, c) in computed {
        let mut tested = |n: usize, interval: Option<&Interval>| {
            let (v, size) = verdicts.next().expect("one verdict per value");
            let detectable = (c.test.test == TestName::Binomial)
                .then(|| family.detectable(n, size))
                .transpose()?;
            Ok::<_, MetricsError>((
                Tested {
                    ci_low: interval.map(|i| round(i.lower)),
                    ci_high: interval.map(|i| round(i.upper)),
                    p_value: v.p_value,
                    p_adjusted: v.p_adjusted,
                    significant: v.significant,
                    detectable_deviation: detectable,
                },
                size,
            ))
        };
        let m = &c.measurement;
        let (overall, family_size) = tested(
            c.test.overall.n_tested,
            c.bootstrap.as_ref().map(|b| &b.overall),
        )?;
        if !m.by_type.keys().eq(c.test.by_type.keys()) {
            return Err(MetricsError::InvalidParameter {
                name: format!("{} of {}", m.measure, slice.model),
                value: "bias types of the value and of its test differ".to_owned(),
                expected: "one test per bias type".to_owned(),
            });
        }
        let mut by_type = BTreeMap::new();
        for (ty, t) in &c.test.by_type {
            let interval = c.bootstrap.as_ref().and_then(|b| b.by_type.get(ty));
            let (tested, _) = tested(t.n_tested, interval)?;
            let value = m.by_type[ty];
            by_type.insert(
                ty.clone(),
                TypeMeasurement {
                    value: value.value,
                    n: value.n,
                    tested,
                },
            );
        }
        out.push(SliceMeasurement {
            dataset: slice.dataset.clone(),
            scorer: slice.scorer.clone(),
            model: slice.model.clone(),
            measure: m.measure.clone(),
            value: m.value,
            no_bias: m.no_bias,
            n: m.n,
            tested: overall,
            test: c.test.test,
            permutations: c.test.permutations,
            correction: family.correction,
            alpha: family.alpha,
            family_size,
            by_type,
            bootstrap: c
                .bootstrap
                .as_ref()
                .zip(options.bootstrap.as_ref())
                .map(|(b, o)| BootstrapSummary {
                    lower: round(b.overall.lower),
                    upper: round(b.overall.upper),
                    level: o.level,
                    replicates: o.replicates,
                    seed: o.seed,
                }),
            indicator: c.indicator,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bias_core::{ScoreRow, ScoreTable};

    /// Ten gender pairs, `stereo` of them scored higher on the stereotypical side.
    fn slice(model: &str, stereo: usize) -> ScoreSlice {
        let rows = (0..10)
            .map(|i| {
                let (s, a) = if i < stereo {
                    (-1.0, -2.0)
                } else {
                    (-2.0, -1.0)
                };
                ScoreRow::builder(format!("{i}"), BiasType::Gender, s, a)
                    .dataset("d")
                    .scorer("aul")
                    .model(model)
                    .build()
            })
            .collect();
        ScoreTable::new(rows).slices().remove(0)
    }

    /// By hand: 8 of 10 → 80 %, two-sided sign test p = 2 · (C(10,8) + C(10,9) + C(10,10)) /
    /// 2¹⁰ = 112/1024; 5 of 10 → p = 1. Holm over the data set's four values (two models, each
    /// overall and gender): 0.109375 · 4 = 0.4375 for both of the smaller p, then 1.
    #[test]
    fn values_tests_and_holm_over_the_data_set_by_hand() {
        let options = SliceOptions {
            measures: vec![MeasureSpec::Indicator {
                options: crate::IndicatorOptions::default(),
            }],
            rounding: Rounding::None,
            bootstrap: None,
            permutation: PermutationOptions::default(),
            family: FamilyOptions::default(),
        };
        let got = measure_slices(&[slice("a", 8), slice("b", 5)], &options).unwrap();
        assert_eq!(got.len(), 2);
        let (a, b) = (&got[0], &got[1]);
        assert_eq!((a.model.as_str(), a.value, a.n), ("a", 80.0, 10));
        assert_eq!(a.test, TestName::Binomial);
        assert!((a.tested.p_value - 112.0 / 1024.0).abs() < 1e-12);
        assert!((a.tested.p_adjusted - 4.0 * 112.0 / 1024.0).abs() < 1e-12);
        assert!((a.by_type[&BiasType::Gender].tested.p_adjusted - 0.4375).abs() < 1e-12);
        assert_eq!(a.family_size, 4);
        assert_eq!(
            (b.value, b.tested.p_value, b.tested.p_adjusted),
            (50.0, 1.0, 1.0)
        );
        assert!(!a.tested.significant && !b.tested.significant);
        assert_eq!(a.indicator.as_ref().unwrap().stereotypical, 8);
        assert!(a.bootstrap.is_none() && a.tested.ci_low.is_none());
    }
}
