//! Seeded percentile bootstrap confidence intervals for any [`BiasMeasure`].

use std::collections::BTreeMap;

use bias_core::{AnyMeasure, BiasMeasure, BiasType, Measurement, ScoreTable};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::stats::quantile_linear;
use crate::MetricsError;

/// Settings of [`bootstrap_ci`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BootstrapOptions {
    /// Number of replicates B (≥ 1).
    pub replicates: usize,
    /// Confidence level, in (0, 1).
    pub level: f64,
    /// Seed of the `ChaCha8Rng` (`seed_from_u64`).
    pub seed: u64,
    /// Resample within each bias type (keeping every `n_k`), instead of from the whole table.
    pub stratified: bool,
}

impl Default for BootstrapOptions {
    /// B = 1000, level 0.95, seed 0, stratified by bias type (so the per-type weights of KLS and
    /// JSS are those of the data and no type can shrink to a single pair).
    fn default() -> Self {
        BootstrapOptions {
            replicates: 1000,
            level: 0.95,
            seed: 0,
            stratified: true,
        }
    }
}

/// A percentile bootstrap interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapInterval {
    /// The measure's name.
    pub measure: String,
    /// The measure on the full table (the point estimate).
    pub estimate: f64,
    /// The `(1 − level)/2` quantile of the replicate values.
    pub lower: f64,
    /// The `(1 + level)/2` quantile of the replicate values.
    pub upper: f64,
    /// Number of replicates B.
    pub replicates: usize,
    /// Confidence level.
    pub level: f64,
    /// Seed used.
    pub seed: u64,
    /// Whether resampling was stratified by bias type.
    pub stratified: bool,
    /// The replicate values, sorted ascending.
    pub values: Vec<f64>,
}

/// Percentile bootstrap confidence interval of `measure` on `table`.
///
/// Each of the B replicates resamples the pairs (rows) with replacement: `N` rows uniformly from
/// the whole table, or, when `stratified`, `n_k` rows from the rows of each bias type `k`
/// (types in their sorted order). Indices come from `ChaCha8Rng::seed_from_u64(seed)` via
/// `random_range`, so the same seed, options and table give the identical result on every
/// platform. The measure's overall value is computed on every replicate; `lower` and `upper`
/// are the `(1 − level)/2` and `(1 + level)/2` quantiles of the replicate values with numpy's
/// default linear interpolation ([`crate::stats::quantile_linear`];
/// `np.percentile(values, [2.5, 97.5])` for level 0.95). The point estimate is the measure on
/// the full table; it is not forced inside the interval.
///
/// # Errors
/// [`MetricsError::InvalidParameter`] for `replicates = 0` or `level` outside (0, 1);
/// [`MetricsError::Measure`] when the measure fails on the full table or on a replicate (named
/// by index), e.g. a resample in which a bias type keeps a single pair (use stratification);
/// [`MetricsError::InvalidParameter`] when the measure returns a non-finite value.
pub fn bootstrap_ci<M: BiasMeasure + ?Sized>(
    measure: &M,
    table: &ScoreTable,
    options: &BootstrapOptions,
) -> Result<BootstrapInterval, MetricsError> {
    validate(options)?;
    let name = measure.name().to_owned();
    let full = || format!("bootstrap of {name}: full table");
    let estimate = finite(run_measure(measure, table, full)?.value, full())?;
    let mut values = Vec::with_capacity(options.replicates);
    for_each_replicate(table, options, |b, sample| {
        let what = || format!("bootstrap of {name}: replicate {b}");
        values.push(finite(run_measure(measure, sample, what)?.value, what())?);
        Ok(())
    })?;
    values.sort_by(f64::total_cmp);
    let alpha = 1.0 - options.level;
    Ok(BootstrapInterval {
        measure: name,
        estimate,
        lower: quantile_linear(&values, alpha / 2.0),
        upper: quantile_linear(&values, 1.0 - alpha / 2.0),
        replicates: options.replicates,
        level: options.level,
        seed: options.seed,
        stratified: options.stratified,
        values,
    })
}

/// Checks B ≥ 1 and a level in (0, 1).
pub(crate) fn validate(options: &BootstrapOptions) -> Result<(), MetricsError> {
    if options.replicates == 0 {
        return Err(MetricsError::InvalidParameter {
            name: "replicates".to_owned(),
            value: "0".to_owned(),
            expected: "at least 1".to_owned(),
        });
    }
    if !(options.level > 0.0 && options.level < 1.0) {
        return Err(MetricsError::InvalidParameter {
            name: "level".to_owned(),
            value: options.level.to_string(),
            expected: "a confidence level in (0, 1)".to_owned(),
        });
    }
    Ok(())
}

/// [`MetricsError::InvalidParameter`] named `bootstrap` (both settings in one message, for the
/// benchmarks' intervals) unless B ≥ 1 and the level is in (0, 1).
pub(crate) fn check_settings(options: &BootstrapOptions) -> Result<(), MetricsError> {
    if options.replicates == 0 || !(options.level > 0.0 && options.level < 1.0) {
        return Err(MetricsError::InvalidParameter {
            name: "bootstrap".into(),
            value: format!(
                "{} replicates at level {}",
                options.replicates, options.level
            ),
            expected: "at least 1 replicate and a level in (0, 1)".into(),
        });
    }
    Ok(())
}

/// `measure` on `table`, its error wrapped as [`MetricsError::Measure`] named by `what`.
fn run_measure<M: AnyMeasure + ?Sized>(
    measure: &M,
    table: &ScoreTable,
    what: impl Fn() -> String,
) -> Result<Measurement, MetricsError> {
    measure
        .measure_any(table)
        .map_err(|source| MetricsError::Measure {
            what: what(),
            source,
        })
}

/// `value` if finite, else [`MetricsError::InvalidParameter`] named `what`.
fn finite(value: f64, what: String) -> Result<f64, MetricsError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(MetricsError::InvalidParameter {
            name: what,
            value: value.to_string(),
            expected: "a finite measure value".to_owned(),
        })
    }
}

/// Draws the B replicates of `table` and hands each (with its index) to `visit`.
///
/// The row indices of each stratum (one per bias type, in sorted order, when `stratified`;
/// otherwise the whole table) are drawn with replacement from `ChaCha8Rng::seed_from_u64(seed)`
/// via `random_range`, stratum after stratum: the draws every bootstrap of this module shares,
/// so that the same seed resamples the same pairs whichever function asks.
fn for_each_replicate(
    table: &ScoreTable,
    options: &BootstrapOptions,
    mut visit: impl FnMut(usize, &ScoreTable) -> Result<(), MetricsError>,
) -> Result<(), MetricsError> {
    let rows = table.rows();
    for_each_resample(table, options, |b, indices| {
        let sample = indices.iter().map(|&i| rows[i].clone()).collect();
        visit(b, &ScoreTable::new(sample))
    })
}

/// The row indices of each of the B replicates of [`for_each_replicate`], handed to `visit`:
/// what a paired bootstrap applies to two tables of the same pairs, so that both models are
/// resampled on the same pairs.
pub(crate) fn for_each_resample(
    table: &ScoreTable,
    options: &BootstrapOptions,
    mut visit: impl FnMut(usize, &[usize]) -> Result<(), MetricsError>,
) -> Result<(), MetricsError> {
    let rows = table.rows();
    let strata: Vec<Vec<usize>> = if options.stratified {
        let mut by: BTreeMap<&BiasType, Vec<usize>> = BTreeMap::new();
        for (i, r) in rows.iter().enumerate() {
            by.entry(&r.bias_type).or_default().push(i);
        }
        by.into_values().collect()
    } else {
        vec![(0..rows.len()).collect()]
    };
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut indices: Vec<usize> = Vec::with_capacity(rows.len());
    for b in 0..options.replicates {
        indices.clear();
        for stratum in &strata {
            for _ in 0..stratum.len() {
                indices.push(stratum[rng.random_range(0..stratum.len())]);
            }
        }
        visit(b, &indices)?;
    }
    Ok(())
}

/// A percentile interval `[lower, upper]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The `(1 − level)/2` quantile of the replicate values.
    pub lower: f64,
    /// The `(1 + level)/2` quantile of the replicate values.
    pub upper: f64,
}

impl Interval {
    /// The percentile interval of `values` (sorted here) at `level`, with numpy's linear
    /// interpolation.
    pub fn of(mut values: Vec<f64>, level: f64) -> Self {
        values.sort_by(f64::total_cmp);
        let alpha = 1.0 - level;
        Interval {
            lower: quantile_linear(&values, alpha / 2.0),
            upper: quantile_linear(&values, 1.0 - alpha / 2.0),
        }
    }
}

/// What [`bootstrap_by_type`] gives for one measure: the measure on the full table and the
/// percentile intervals of its overall value and of every bias type's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeBootstrap {
    /// The measure on the full table (the point estimates, overall and per type).
    pub estimate: Measurement,
    /// The interval of the overall value.
    pub overall: Interval,
    /// The interval of each bias type's value.
    pub by_type: BTreeMap<BiasType, Interval>,
}

/// Stratified percentile bootstrap intervals of several measures at once, of their overall
/// value and of every bias type's value, from one set of replicates.
///
/// The replicates are those of [`bootstrap_ci`] with the same options (each bias type `k`
/// resampled with replacement to its own `n_k` pairs, from the same seeded draws), so the
/// overall interval of each measure equals [`bootstrap_ci`]'s; every measure is computed on
/// the same replicate tables, which are built once. Because resampling is within each type, a
/// type's replicate values are the plain (unstratified) bootstrap of that type's pairs, the
/// interval a per-type table reports beside its value.
///
/// # Errors
/// [`MetricsError::InvalidParameter`] for `replicates = 0`, a `level` outside (0, 1),
/// `stratified = false` (a type's pairs would vary in number between replicates), or a
/// non-finite value; [`MetricsError::Measure`] when a measure fails on the full table or on a
/// replicate (named by measure and index), e.g. a type whose resample repeats one score, which
/// KLS and JSS cannot fit.
pub fn bootstrap_by_type(
    measures: &[&dyn AnyMeasure],
    table: &ScoreTable,
    options: &BootstrapOptions,
) -> Result<Vec<TypeBootstrap>, MetricsError> {
    validate(options)?;
    if !options.stratified {
        return Err(MetricsError::InvalidParameter {
            name: "stratified".to_owned(),
            value: "false".to_owned(),
            expected: "true: per-type intervals resample within each bias type".to_owned(),
        });
    }
    let estimates: Vec<Measurement> = measures
        .iter()
        .map(|m| {
            run_measure(*m, table, || {
                format!("bootstrap of {}: full table", m.name())
            })
        })
        .collect::<Result<_, _>>()?;
    // values[measure][0] = overall, values[measure][1 + j] = the j-th type of the estimate.
    let mut values: Vec<Vec<Vec<f64>>> = estimates
        .iter()
        .map(|e| vec![Vec::with_capacity(options.replicates); 1 + e.by_type.len()])
        .collect();
    for_each_replicate(table, options, |b, sample| {
        for ((m, estimate), store) in measures.iter().zip(&estimates).zip(&mut values) {
            let what = || format!("bootstrap of {}: replicate {b}", m.name());
            let r = run_measure(*m, sample, what)?;
            store[0].push(finite(r.value, what())?);
            for (j, ty) in estimate.by_type.keys().enumerate() {
                let v = r.by_type.get(ty).map_or(f64::NAN, |t| t.value);
                store[1 + j].push(finite(v, format!("{} ({ty})", what()))?);
            }
        }
        Ok(())
    })?;
    Ok(estimates
        .into_iter()
        .zip(values)
        .map(|(estimate, mut store)| {
            let by_type = estimate
                .by_type
                .keys()
                .zip(store.drain(1..))
                .map(|(ty, v)| (ty.clone(), Interval::of(v, options.level)))
                .collect();
            let overall = Interval::of(std::mem::take(&mut store[0]), options.level);
            TypeBootstrap {
                estimate,
                overall,
                by_type,
            }
        })
        .collect())
}

/// Seeded percentile bootstrap interval of the mean of `values` (an accuracy, when they are 0s
/// and 1s): each of the B replicates draws `values.len()` of them with replacement from
/// `ChaCha8Rng::seed_from_u64(seed)`; numpy's linear quantiles. `options.stratified` is ignored
/// (there are no strata).
///
/// ```
/// use bias_metrics::{bootstrap_mean, BootstrapOptions};
///
/// let hits = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0];
/// let ci = bootstrap_mean(&hits, BootstrapOptions::default())?;
/// assert!(ci.lower < 0.625 && 0.625 < ci.upper);
/// # Ok::<(), bias_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::Empty`] for no values; [`MetricsError::InvalidParameter`] for
/// `replicates = 0`, a level outside (0, 1) or a non-finite value.
pub fn bootstrap_mean(values: &[f64], options: BootstrapOptions) -> Result<Interval, MetricsError> {
    if values.is_empty() {
        return Err(MetricsError::Empty {
            what: "bootstrap_mean".into(),
        });
    }
    if options.replicates == 0
        || !(options.level > 0.0 && options.level < 1.0)
        || values.iter().any(|v| !v.is_finite())
    {
        return Err(MetricsError::InvalidParameter {
            name: "bootstrap_mean".into(),
            value: format!(
                "{} replicates at level {} over {} values",
                options.replicates,
                options.level,
                values.len()
            ),
            expected: "at least 1 replicate, a level in (0, 1) and finite values".into(),
        });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let n = values.len();
    let means = (0..options.replicates)
        .map(|_| (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    Ok(Interval::of(means, options.level))
}
