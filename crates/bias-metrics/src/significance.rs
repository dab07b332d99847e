//! A p-value for every measured value, from a named test, and the family they are corrected in.
//!
//! - The indicator measures (CPS, SSS, AUL, AULA, all-masked, `ll-sum`, `ll-mean`, StereoSet's
//!   SS: any scorer's [`crate::Indicator`]) count `k` of `n` pairs; without bias `k ~ Bin(n, ½)`,
//!   so their test is the exact two-sided binomial (sign) test ([`TestName::Binomial`]).
//! - KLS, JSS and any other measure have no closed-form null distribution; the paired sign-flip
//!   permutation test ([`TestName::SignFlip`]) swaps the two sentences' scores of random sets of
//!   pairs (the null: neither sentence is systematically preferred) and asks how often the
//!   measure lies at least as far from its no-bias value as it does on the data. KLS and JSS lie
//!   on one side of their no-bias value (KLS ≥ 50, JSS ≤ 100), so the distance is the natural
//!   statistic and the test is one-sided.
//!
//! A family ([`FamilyOptions`]) is then corrected for multiplicity: a value is significant when
//! its adjusted p is at most α.

use std::collections::BTreeMap;

use bias_core::{AnyMeasure, BiasType, Measurement, ScoreRow, ScoreTable};
use serde::{Deserialize, Serialize};

use crate::stats::{
    detectable_deviation, sign_flip_test, sign_test, Alternative, Correction, PermutationOptions,
};
use crate::{MeasureSpec, MetricsError, TieHandling};

/// The tests this crate names in its outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestName {
    /// The exact two-sided binomial (sign) test of `k` of `n` against ½
    /// ([`crate::stats::sign_test`]).
    Binomial,
    /// The sign-flip permutation test of a measure's distance from its no-bias value
    /// ([`test_measure`]).
    SignFlip,
    /// McNemar's exact test on the discordant pairs of two models ([`crate::stats::mcnemar_exact`]).
    McnemarExact,
    /// The paired sign-flip permutation test of a difference between two models (their rows of
    /// random sets of pairs swapped).
    PairedSignFlip,
    /// A two-sided permutation test of a difference of two group rates (group labels shuffled).
    GroupPermutation,
}

impl TestName {
    /// The name written in outputs (`binomial`, `sign-flip`, `mcnemar-exact`,
    /// `paired-sign-flip`, `group-permutation`).
    pub fn name(self) -> &'static str {
        match self {
            TestName::Binomial => "binomial",
            TestName::SignFlip => "sign-flip",
            TestName::McnemarExact => "mcnemar-exact",
            TestName::PairedSignFlip => "paired-sign-flip",
            TestName::GroupPermutation => "group-permutation",
        }
    }

    /// One line for a table's caption: what the test is and its null.
    pub fn describe(self) -> &'static str {
        match self {
            TestName::Binomial => "exact two-sided binomial (sign) test against 50 %",
            TestName::SignFlip => {
                "sign-flip permutation test of the distance from no bias (pairs' two scores swapped)"
            }
            TestName::McnemarExact => "McNemar's exact test on the discordant pairs",
            TestName::PairedSignFlip => {
                "paired sign-flip permutation test (the two models' scores of a pair swapped)"
            }
            TestName::GroupPermutation => "two-sided permutation test of the groups' difference",
        }
    }
}

impl std::fmt::Display for TestName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The null test of a measure: what [`test_measure`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NullTest {
    /// The sign test of the indicator's count. With [`TieHandling::NotStereotypical`] (liu2024
    /// Eq. 2) a tie counts as not stereotypical and stays in `n`, exactly as the value counts it;
    /// with [`TieHandling::Neutral`] (Nangia et al.) ties are neutral and left out of the test,
    /// the classical sign test's rule (Conover 1999, § 3.4).
    Sign {
        /// How ties are counted.
        ties: TieHandling,
    },
    /// The sign-flip permutation test of `|value − no_bias|`, one-sided (greater).
    SignFlip,
}

impl MeasureSpec {
    /// The test of this measure's values: the sign test for the indicator (with its tie rule),
    /// the sign-flip permutation test for KLS and JSS.
    pub fn null_test(&self) -> NullTest {
        match self {
            MeasureSpec::Indicator { options } => NullTest::Sign { ties: options.ties },
            _ => NullTest::SignFlip,
        }
    }
}

/// The test of one value (overall, or one bias type's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ValueTest {
    /// The p-value, unadjusted.
    pub p_value: f64,
    /// Pairs in the test: the value's `n`, less the ties when the sign test leaves them out.
    pub n_tested: usize,
    /// For the sign test: the pairs preferring the stereotype.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successes: Option<usize>,
}

/// The tests of one measure on one table: overall and per bias type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureTest {
    /// Which test.
    pub test: TestName,
    /// The overall value's test.
    pub overall: ValueTest,
    /// Each bias type's test (the types of the measurement).
    pub by_type: BTreeMap<BiasType, ValueTest>,
    /// For a permutation test: the number of null values (`2ⁿ` when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permutations: Option<usize>,
    /// For a permutation test: whether every flip set was enumerated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
}

/// The p-values of `measure` on `table`, overall and for every bias type, by `null`.
///
/// For [`NullTest::Sign`] the counts come from the rows (`score_stereo > score_anti`); for
/// [`NullTest::SignFlip`], `options` sets the flip sets and every type is tested on the same
/// ones as the overall value.
///
/// ```
/// use bias_core::{BiasType, ScoreRow, ScoreTable};
/// use bias_metrics::{test_measure, MeasureSpec, TestName};
/// use bias_metrics::stats::PermutationOptions;
///
/// // 9 of 10 pairs prefer the stereotype: the sign test's p is 2·11/1024.
/// let rows = (0..10)
///     .map(|i| ScoreRow::builder(i.to_string(), BiasType::Gender, if i < 9 { -1.0 } else { -3.0 }, -2.0).build())
///     .collect();
/// let table = ScoreTable::new(rows);
/// let spec = MeasureSpec::INDICATOR;
/// let test = test_measure(&spec, spec.null_test(), &table, &PermutationOptions::default())?;
/// assert_eq!(test.test, TestName::Binomial);
/// assert!((test.overall.p_value - 22.0 / 1024.0).abs() < 1e-13);
/// # Ok::<(), bias_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::Measure`] when the measure fails on the table or on a flipped copy (named by
/// measure); the permutation test's errors ([`sign_flip_test`]).
pub fn test_measure(
    measure: &(dyn AnyMeasure + Sync),
    null: NullTest,
    table: &ScoreTable,
    options: &PermutationOptions,
) -> Result<MeasureTest, MetricsError> {
    match null {
        NullTest::Sign { ties } => sign_tests(table, ties),
        NullTest::SignFlip => sign_flip_tests(measure, table, options),
    }
}

/// The sign test of the rows of `rows` under `ties`.
fn sign_test_of(rows: &[&ScoreRow], ties: TieHandling) -> Result<ValueTest, MetricsError> {
    let k = rows.iter().filter(|r| r.prefers_stereo()).count();
    let n = match ties {
        TieHandling::NotStereotypical => rows.len(),
        TieHandling::Neutral => rows
            .iter()
            .filter(|r| r.score_stereo != r.score_anti)
            .count(),
    };
    Ok(ValueTest {
        p_value: sign_test(k as u64, n as u64)?,
        n_tested: n,
        successes: Some(k),
    })
}

fn sign_tests(table: &ScoreTable, ties: TieHandling) -> Result<MeasureTest, MetricsError> {
    let all: Vec<&ScoreRow> = table.rows().iter().collect();
    let by_type = table
        .by_bias_type()
        .into_iter()
        .map(|(ty, rows)| Ok((ty.clone(), sign_test_of(&rows, ties)?)))
        .collect::<Result<_, MetricsError>>()?;
    Ok(MeasureTest {
        test: TestName::Binomial,
        overall: sign_test_of(&all, ties)?,
        by_type,
        permutations: None,
        exact: None,
    })
}

/// `measure` on `table`, its error named.
pub(crate) fn measure_named(
    measure: &(dyn AnyMeasure + Sync),
    table: &ScoreTable,
    what: &str,
) -> Result<Measurement, MetricsError> {
    measure
        .measure_any(table)
        .map_err(|source| MetricsError::Measure {
            what: format!("{} ({what})", measure.name()),
            source,
        })
}

/// The rows without their sentences and labels (data set, scorer, model: a measure reads its
/// scores, bias types, ids and groups), so that the many flipped or resampled copies are cheap.
pub(crate) fn lean_rows(table: &ScoreTable) -> Vec<ScoreRow> {
    table
        .rows()
        .iter()
        .map(|r| ScoreRow {
            pair_id: r.pair_id.clone(),
            dataset: String::new().into(),
            bias_type: r.bias_type.clone(),
            direction: r.direction,
            stereo: String::new(),
            anti: String::new(),
            score_stereo: r.score_stereo,
            score_anti: r.score_anti,
            scorer: String::new().into(),
            model: String::new().into(),
            tokens_stereo: r.tokens_stereo,
            tokens_anti: r.tokens_anti,
            group_id: r.group_id.clone(),
        })
        .collect()
}

/// `[overall, type 1, type 2, …]` of `f(measurement)`, the types being `types`; a type missing
/// from the measurement is an error naming it.
pub(crate) fn components(
    m: &Measurement,
    types: &[BiasType],
    f: impl Fn(f64) -> f64,
) -> Result<Vec<f64>, MetricsError> {
    let mut out = Vec::with_capacity(1 + types.len());
    out.push(f(m.value));
    for ty in types {
        let v = m
            .by_type
            .get(ty)
            .ok_or_else(|| MetricsError::InvalidParameter {
                name: format!("{}: bias type `{ty}`", m.measure),
                value: "missing".to_owned(),
                expected: "a value for every bias type of the table".to_owned(),
            })?;
        out.push(f(v.value));
    }
    Ok(out)
}

fn sign_flip_tests(
    measure: &(dyn AnyMeasure + Sync),
    table: &ScoreTable,
    options: &PermutationOptions,
) -> Result<MeasureTest, MetricsError> {
    let estimate = measure_named(measure, table, "the table")?;
    let types: Vec<BiasType> = estimate.by_type.keys().cloned().collect();
    let no_bias = estimate.no_bias;
    let lean = lean_rows(table);
    let statistic = |flipped: &[bool]| {
        let rows = lean
            .iter()
            .zip(flipped)
            .map(|(r, &f)| {
                let mut r = r.clone();
                if f {
                    std::mem::swap(&mut r.score_stereo, &mut r.score_anti);
                    std::mem::swap(&mut r.tokens_stereo, &mut r.tokens_anti);
                }
                r
            })
            .collect();
        let m = measure_named(measure, &ScoreTable::new(rows), "a sign-flipped table")?;
        components(&m, &types, |v| (v - no_bias).abs())
    };
    let test = sign_flip_test(table.len(), statistic, Alternative::Greater, options)?;
    let value = |j: usize, n: usize| ValueTest {
        p_value: test.p_values[j],
        n_tested: n,
        successes: None,
    };
    Ok(MeasureTest {
        test: TestName::SignFlip,
        overall: value(0, estimate.n),
        by_type: types
            .iter()
            .enumerate()
            .map(|(j, ty)| (ty.clone(), value(1 + j, estimate.by_type[ty].n)))
            .collect(),
        permutations: Some(test.permutations),
        exact: Some(test.exact),
    })
}

/// The multiplicity control of a family: correction and level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FamilyOptions {
    /// How p-values are adjusted (default Holm).
    pub correction: Correction,
    /// The level α (default 0.05).
    pub alpha: f64,
    /// The power at which [`FamilyOptions::detectable`] is computed (default 0.8).
    pub power: f64,
}

impl Default for FamilyOptions {
    fn default() -> Self {
        FamilyOptions {
            correction: Correction::Holm,
            alpha: 0.05,
            power: 0.8,
        }
    }
}

/// One value's verdict within its family.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The unadjusted p-value.
    pub p_value: f64,
    /// The p-value adjusted over the family.
    pub p_adjusted: f64,
    /// `p_adjusted ≤ α`.
    pub significant: bool,
}

impl FamilyOptions {
    /// Checks α and the power.
    ///
    /// # Errors
    /// [`MetricsError::InvalidParameter`] for `alpha` or `power` outside (0, 1).
    pub fn validate(&self) -> Result<(), MetricsError> {
        for (name, v) in [("alpha", self.alpha), ("power", self.power)] {
            if !(v > 0.0 && v < 1.0) {
                return Err(MetricsError::InvalidParameter {
                    name: name.to_owned(),
                    value: v.to_string(),
                    expected: "in (0, 1)".to_owned(),
                });
            }
        }
        Ok(())
    }

    /// The verdicts of a family's p-values, in their order.
    ///
    /// # Errors
    /// [`MetricsError::InvalidParameter`] for a p-value outside [0, 1] or invalid options.
    pub fn verdicts(&self, p_values: &[f64]) -> Result<Vec<Verdict>, MetricsError> {
        self.validate()?;
        let adjusted = self.correction.adjust(p_values)?;
        Ok(p_values
            .iter()
            .zip(adjusted)
            .map(|(&p_value, p_adjusted)| Verdict {
                p_value,
                p_adjusted,
                significant: p_adjusted <= self.alpha,
            })
            .collect())
    }

    /// The smallest deviation from 50 % (in points) that the sign test on `n` pairs detects with
    /// [`FamilyOptions::power`] at the level the family's most extreme test must reach (α/m for
    /// Holm and BH, α without correction; [`Correction::first_step_level`]); `None` when `n`
    /// pairs can detect no deviation at that level.
    ///
    /// # Errors
    /// [`MetricsError::InvalidParameter`] for invalid options.
    pub fn detectable(&self, n: usize, family_size: usize) -> Result<Option<f64>, MetricsError> {
        self.validate()?;
        let level = self.correction.first_step_level(self.alpha, family_size);
        detectable_deviation(n as u64, level, self.power)
    }

    /// The verdicts of p-values that fall into several families: `families[i]` names the
    /// family of `p_values[i]`, and each family is adjusted on its own. Returns each value's
    /// verdict and the size of its family.
    ///
    /// ```
    /// use bias_metrics::FamilyOptions;
    ///
    /// let v = FamilyOptions::default().verdicts_by_family(&["a", "b", "a"], &[0.01, 0.01, 0.04])?;
    /// assert_eq!((v[0].0.p_adjusted, v[0].1), (0.02, 2)); // Holm in family a: 2·0.01
    /// assert_eq!((v[1].0.p_adjusted, v[1].1), (0.01, 1));
    /// # Ok::<(), bias_metrics::MetricsError>(())
    /// ```
    ///
    /// # Errors
    /// As [`FamilyOptions::verdicts`]; [`MetricsError::LengthMismatch`] when the two slices
    /// differ in length.
    pub fn verdicts_by_family<K: Ord>(
        &self,
        families: &[K],
        p_values: &[f64],
    ) -> Result<Vec<(Verdict, usize)>, MetricsError> {
        if families.len() != p_values.len() {
            return Err(MetricsError::LengthMismatch {
                what: "verdicts_by_family: families, p-values".to_owned(),
                left: families.len(),
                right: p_values.len(),
            });
        }
        let mut members: BTreeMap<&K, Vec<usize>> = BTreeMap::new();
        for (i, k) in families.iter().enumerate() {
            members.entry(k).or_default().push(i);
        }
        let mut out = vec![None; p_values.len()];
        for indices in members.values() {
            let ps: Vec<f64> = indices.iter().map(|&i| p_values[i]).collect();
            for (&i, v) in indices.iter().zip(self.verdicts(&ps)?) {
                out[i] = Some((v, indices.len()));
            }
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// One line for a caption: `"Holm-adjusted p ≤ 0.05 over a family of 140 tests"`.
    pub fn describe(&self, family_size: usize) -> String {
        let how = match self.correction {
            Correction::Holm => "Holm-adjusted",
            Correction::Bh => "Benjamini–Hochberg-adjusted",
            Correction::None => "unadjusted",
        };
        format!(
            "{how} p ≤ {} over a family of {family_size} tests",
            self.alpha
        )
    }
}
