//! Two models compared on the same pairs: the difference B − A of every measure, overall and per
//! bias type, with a paired bootstrap interval and a paired test.
//!
//! Two models scored on the same pairs are not independent samples: a pair that is hard for one
//! model tends to be hard for the other. Resampling the pairs once for both models (the paired
//! bootstrap) and testing within pairs (McNemar's exact test for the indicators; the paired
//! sign-flip permutation test otherwise) uses that, so the interval of the difference is much
//! narrower than two overlapping intervals suggest. This answers "is the debiased model less
//! biased than the original?" (Kaneko et al. 2023; Meade et al. 2022, bias-bench) as a test.

use std::collections::HashMap;

use bias_core::{AnyMeasure, BiasType, ScoreRow, ScoreTable};
use serde::{Deserialize, Serialize};

use crate::bootstrap::{for_each_resample, validate};
use crate::significance::{components, lean_rows, measure_named, NullTest, TestName};
use crate::stats::{mcnemar_exact, mcnemar_table, sign_flip_test, Alternative, PermutationOptions};
use crate::{BootstrapOptions, Interval, MetricsError};

/// `b`'s rows in the order of `a`'s pairs, after checking that both tables hold the same pairs:
/// the same pair ids, each once, with the same bias type and the same two sentences. `what`
/// names the two tables in an error.
///
/// # Errors
/// [`MetricsError::NotPaired`] naming the first pair (in `a`'s order, then `b`'s) that is
/// missing from one table, repeated, or different in type or sentences.
pub fn align_pairs(a: &ScoreTable, b: &ScoreTable, what: &str) -> Result<ScoreTable, MetricsError> {
    let not_paired = |pair_id: &str, detail: String| MetricsError::NotPaired {
        what: what.to_owned(),
        pair_id: pair_id.to_owned(),
        detail,
    };
    let mut in_b: HashMap<&str, &ScoreRow> = HashMap::with_capacity(b.len());
    for r in b.rows() {
        if in_b.insert(&r.pair_id, r).is_some() {
            return Err(not_paired(
                &r.pair_id,
                "appears twice in B's table".to_owned(),
            ));
        }
    }
    let mut seen: HashMap<&str, ()> = HashMap::with_capacity(a.len());
    let mut rows = Vec::with_capacity(a.len());
    for r in a.rows() {
        if seen.insert(&r.pair_id, ()).is_some() {
            return Err(not_paired(
                &r.pair_id,
                "appears twice in A's table".to_owned(),
            ));
        }
        let Some(other) = in_b.get(r.pair_id.as_str()) else {
            return Err(not_paired(
                &r.pair_id,
                "is in A's table but not in B's".to_owned(),
            ));
        };
        if other.bias_type != r.bias_type {
            return Err(not_paired(
                &r.pair_id,
                format!(
                    "is {} in A's table but {} in B's",
                    r.bias_type, other.bias_type
                ),
            ));
        }
        if other.stereo != r.stereo || other.anti != r.anti {
            return Err(not_paired(
                &r.pair_id,
                "has other sentences in B's table than in A's".to_owned(),
            ));
        }
        rows.push((*other).clone());
    }
    if let Some(extra) = b
        .rows()
        .iter()
        .find(|r| !seen.contains_key(r.pair_id.as_str()))
    {
        return Err(not_paired(
            &extra.pair_id,
            "is in B's table but not in A's".to_owned(),
        ));
    }
    Ok(ScoreTable::new(rows))
}

/// Settings of [`compare_paired`].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct PairedOptions {
    /// The paired bootstrap of the interval (stratified by bias type by default).
    pub bootstrap: BootstrapOptions,
    /// The flip sets of the paired sign-flip test.
    pub permutation: PermutationOptions,
}

/// One measure's difference between two models, overall or within one bias type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedDifference {
    /// The measure's name.
    pub measure: String,
    /// The bias type; `None` for the overall value.
    pub bias_type: Option<BiasType>,
    /// Pairs compared.
    pub n: usize,
    /// The measure on model A.
    pub value_a: f64,
    /// The measure on model B.
    pub value_b: f64,
    /// `value_b − value_a`.
    pub difference: f64,
    /// The measure's no-bias value (50 for the indicator and KLS, 100 for JSS).
    pub no_bias: f64,
    /// The paired percentile bootstrap interval of the difference.
    pub interval: Interval,
    /// The interval's level.
    pub level: f64,
    /// The paired test's two-sided p-value, unadjusted.
    pub p_value: f64,
    /// The paired test.
    pub test: TestName,
    /// For McNemar: pairs only A prefers stereotypically, and pairs only B does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discordant: Option<[u64; 2]>,
}

/// The differences B − A of every measure on two models' tables of the same pairs (`b` aligned
/// to `a` by [`align_pairs`]), overall and per bias type, in the order of `measures` (each
/// overall first, then its types in sorted order).
///
/// - The interval: the stratified percentile bootstrap of [`crate::bootstrap_ci`] with the
///   same draws, each replicate's pair indices applied to both tables, so both models are
///   resampled on the same pairs.
/// - The test: for [`NullTest::Sign`] (the indicators), McNemar's exact test on the pairs one
///   model prefers stereotypically and the other does not (a tie is not stereotypical,
///   whatever the tie rule of the value; `statsmodels`' `mcnemar(exact=True)`); for
///   [`NullTest::SignFlip`], the paired sign-flip permutation test of the difference,
///   two-sided: random sets of pairs have their A and B rows swapped.
///
/// ```
/// use bias_core::{BiasType, ScoreRow, ScoreTable};
/// use bias_metrics::{compare_paired, MeasureSpec, PairedOptions, TestName};
///
/// let table = |stereo: &[bool]| ScoreTable::new(stereo.iter().enumerate().map(|(i, &s)| {
///     ScoreRow::builder(i.to_string(), BiasType::Gender, if s { -1.0 } else { -3.0 }, -2.0).build()
/// }).collect());
/// let a = table(&[true; 10]);
/// let b = table(&[true, true, false, false, false, false, false, false, false, false]);
/// let spec = MeasureSpec::INDICATOR;
/// let rows = compare_paired(&[(&spec, spec.null_test())], &a, &b, &PairedOptions::default())?;
/// assert_eq!(rows[0].difference, -80.0);
/// assert_eq!(rows[0].test, TestName::McnemarExact);
/// assert_eq!(rows[0].discordant, Some([8, 0]));
/// assert!((rows[0].p_value - 2.0 / 256.0).abs() < 1e-13);
/// # Ok::<(), bias_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::LengthMismatch`] when `b` is not aligned to `a` (use [`align_pairs`]);
/// invalid bootstrap or permutation options; [`MetricsError::Measure`] when a measure fails on
/// a table, a replicate or a swapped copy.
pub fn compare_paired(
    measures: &[(&(dyn AnyMeasure + Sync), NullTest)],
    a: &ScoreTable,
    b: &ScoreTable,
    options: &PairedOptions,
) -> Result<Vec<PairedDifference>, MetricsError> {
    if a.len() != b.len()
        || a.rows()
            .iter()
            .zip(b.rows())
            .any(|(x, y)| x.pair_id != y.pair_id)
    {
        return Err(MetricsError::LengthMismatch {
            what: "compare_paired: the tables must hold the same pairs in the same order \
                   (align_pairs)"
                .to_owned(),
            left: a.len(),
            right: b.len(),
        });
    }
    validate(&options.bootstrap)?;
    let (lean_a, lean_b) = (lean_rows(a), lean_rows(b));
    let mut out = Vec::new();
    for &(measure, null) in measures {
        let ma = measure_named(measure, a, "model A")?;
        let mb = measure_named(measure, b, "model B")?;
        let types: Vec<BiasType> = ma.by_type.keys().cloned().collect();
        let observed_a = components(&ma, &types, |v| v)?;
        let observed_b = components(&mb, &types, |v| v)?;
        let intervals = paired_intervals(measure, &types, (&lean_a, &lean_b), a, options)?;
        let tests = paired_tests(measure, null, &types, (&lean_a, &lean_b), options)?;
        for (j, ((interval, (p_value, discordant)), (va, vb))) in intervals
            .into_iter()
            .zip(tests.p_values)
            .zip(observed_a.iter().zip(&observed_b))
            .enumerate()
        {
            let bias_type = (j > 0).then(|| types[j - 1].clone());
            let n = bias_type.as_ref().map_or(ma.n, |t| ma.by_type[t].n);
            out.push(PairedDifference {
                measure: measure.name().to_owned(),
                bias_type,
                n,
                value_a: *va,
                value_b: *vb,
                difference: vb - va,
                no_bias: ma.no_bias,
                interval,
                level: options.bootstrap.level,
                p_value,
                test: tests.test,
                discordant,
            });
        }
    }
    Ok(out)
}

impl PairedDifference {
    /// Whether B lies nearer the no-bias value than A (`|value_b − no_bias| < |value_a −
    /// no_bias|`): "B is less biased" when the difference is significant.
    pub fn b_less_biased(&self) -> bool {
        (self.value_b - self.no_bias).abs() < (self.value_a - self.no_bias).abs()
    }
}

/// The paired bootstrap intervals of `[overall, types…]` of B − A.
fn paired_intervals(
    measure: &(dyn AnyMeasure + Sync),
    types: &[BiasType],
    (lean_a, lean_b): (&[ScoreRow], &[ScoreRow]),
    a: &ScoreTable,
    options: &PairedOptions,
) -> Result<Vec<Interval>, MetricsError> {
    let mut values: Vec<Vec<f64>> =
        vec![Vec::with_capacity(options.bootstrap.replicates); 1 + types.len()];
    for_each_resample(a, &options.bootstrap, |replicate, indices| {
        let pick =
            |rows: &[ScoreRow]| ScoreTable::new(indices.iter().map(|&i| rows[i].clone()).collect());
        let what = format!("paired bootstrap replicate {replicate}");
        let ra = measure_named(measure, &pick(lean_a), &what)?;
        let rb = measure_named(measure, &pick(lean_b), &what)?;
        let (ca, cb) = (
            components(&ra, types, |v| v)?,
            components(&rb, types, |v| v)?,
        );
        for (store, (x, y)) in values.iter_mut().zip(ca.iter().zip(&cb)) {
            let d = y - x;
            if !d.is_finite() {
                return Err(MetricsError::InvalidParameter {
                    name: format!("{} ({what})", measure.name()),
                    value: d.to_string(),
                    expected: "a finite difference".to_owned(),
                });
            }
            store.push(d);
        }
        Ok(())
    })?;
    Ok(values
        .into_iter()
        .map(|v| Interval::of(v, options.bootstrap.level))
        .collect())
}

struct PairedTests {
    test: TestName,
    p_values: Vec<(f64, Option<[u64; 2]>)>,
}

/// The paired tests of `[overall, types…]`.
fn paired_tests(
    measure: &(dyn AnyMeasure + Sync),
    null: NullTest,
    types: &[BiasType],
    (lean_a, lean_b): (&[ScoreRow], &[ScoreRow]),
    options: &PairedOptions,
) -> Result<PairedTests, MetricsError> {
    match null {
        NullTest::Sign { .. } => {
            let mut p_values = Vec::with_capacity(1 + types.len());
            let groups = std::iter::once(None).chain(types.iter().map(Some));
            for ty in groups {
                let keep = |r: &&ScoreRow| ty.is_none_or(|t| &r.bias_type == t);
                let xa: Vec<bool> = lean_a
                    .iter()
                    .filter(keep)
                    .map(ScoreRow::prefers_stereo)
                    .collect();
                let xb: Vec<bool> = lean_b
                    .iter()
                    .filter(keep)
                    .map(ScoreRow::prefers_stereo)
                    .collect();
                let table = mcnemar_table(&xa, &xb)?;
                p_values.push((
                    mcnemar_exact(table).p_value,
                    Some([table[0][1], table[1][0]]),
                ));
            }
            Ok(PairedTests {
                test: TestName::McnemarExact,
                p_values,
            })
        }
        NullTest::SignFlip => {
            let statistic = |flipped: &[bool]| {
                let (mut ra, mut rb) = (
                    Vec::with_capacity(lean_a.len()),
                    Vec::with_capacity(lean_b.len()),
                );
                for ((x, y), &f) in lean_a.iter().zip(lean_b).zip(flipped) {
                    let (x, y) = if f { (y, x) } else { (x, y) };
                    ra.push(x.clone());
                    rb.push(y.clone());
                }
                let what = "a table with the models' rows swapped";
                let ma = measure_named(measure, &ScoreTable::new(ra), what)?;
                let mb = measure_named(measure, &ScoreTable::new(rb), what)?;
                let (ca, cb) = (
                    components(&ma, types, |v| v)?,
                    components(&mb, types, |v| v)?,
                );
                Ok(ca.iter().zip(&cb).map(|(x, y)| y - x).collect())
            };
            let test = sign_flip_test(
                lean_a.len(),
                statistic,
                Alternative::TwoSided,
                &options.permutation,
            )?;
            Ok(PairedTests {
                test: TestName::PairedSignFlip,
                p_values: test.p_values.into_iter().map(|p| (p, None)).collect(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MeasureSpec;

    fn row(id: &str, ty: BiasType, st: f64) -> ScoreRow {
        ScoreRow::builder(id, ty, st, 0.0)
            .sentences(format!("s{id}"), format!("a{id}"))
            .build()
    }

    #[test]
    fn align_names_the_first_pair_that_differs() {
        let a = ScoreTable::new(vec![
            row("1", BiasType::Gender, 1.0),
            row("2", BiasType::Age, 1.0),
        ]);
        let b = ScoreTable::new(vec![
            row("2", BiasType::Age, -1.0),
            row("1", BiasType::Gender, 2.0),
        ]);
        let aligned = align_pairs(&a, &b, "A vs B").unwrap();
        assert_eq!(aligned.rows()[0].score_stereo, 2.0);
        let c = ScoreTable::new(vec![
            row("1", BiasType::Gender, 1.0),
            row("3", BiasType::Age, 1.0),
        ]);
        let err = align_pairs(&a, &c, "A vs C").unwrap_err().to_string();
        assert!(
            err.contains("pair `2` is in A's table but not in B's"),
            "{err}"
        );
        let d = ScoreTable::new(vec![
            row("1", BiasType::Race, 1.0),
            row("2", BiasType::Age, 1.0),
        ]);
        let err = align_pairs(&a, &d, "A vs D").unwrap_err().to_string();
        assert!(
            err.contains("pair `1` is gender in A's table but race in B's"),
            "{err}"
        );
    }

    /// The paired interval of identical models is exactly zero, and their test p is 1.
    #[test]
    fn identical_models_differ_by_nothing() {
        let a = ScoreTable::new(
            (0..30)
                .map(|i| {
                    row(
                        &i.to_string(),
                        if i % 2 == 0 {
                            BiasType::Gender
                        } else {
                            BiasType::Age
                        },
                        f64::from(i % 3) - 1.0,
                    )
                })
                .collect(),
        );
        let kls = MeasureSpec::liu2024()[1];
        let options = PairedOptions {
            bootstrap: BootstrapOptions {
                replicates: 50,
                ..BootstrapOptions::default()
            },
            permutation: PermutationOptions {
                permutations: 99,
                seed: 1,
            },
        };
        let rows = compare_paired(&[(&kls, kls.null_test())], &a, &a, &options).unwrap();
        assert_eq!(rows.len(), 3);
        for r in rows {
            assert_eq!(
                (r.interval.lower, r.interval.upper, r.difference),
                (0.0, 0.0, 0.0)
            );
            assert_eq!(r.p_value, 1.0);
        }
    }
}
