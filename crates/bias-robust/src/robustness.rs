//! The sub-sampling robustness study of liu2024 ("Robustness Study", Figure 5, and "PLL Score
//! Analysis", Tables 4–5), with seeds, repeats and spreads.
//!
//! liu2024 draws stratified sub-samples of CrowS-Pairs at rates 30 % … 80 % (liu2024 and its authors' code), computes
//! every measure on each, and asks two questions:
//!
//! 1. does a measure still rank the models (BERT, RoBERTa, ALBERT) as it does on the full data
//!    (Figure 5: CPS and AUL flip, KLS and JSS do not)?
//! 2. how far does the score-group imbalance `|Δ_st| − |Δ_at|` of Table 4 move under sub-sampling
//!    (Table 5's `Δ_sp`)?
//!
//! The authors' script is unseeded and draws once per rate. [`subsample_study`] draws
//! `repeats` seeded sub-samples per rate and reports, per model, measure and rate, the mean,
//! standard deviation and 95 % quantile range of the measure; per measure and rate the paper's
//! question itself, whether the order of the models by the **mean over the draws** (liu2024:
//! "the average of the results of multiple sampling experiments") is the full-data order, with
//! Kendall's τ-b between the two, next to the share of single draws that keep the order; and the
//! spread of `|Δ_st| − |Δ_at|` and its shift.
//!
//! Models are compared within one scorer and one data set: [`subsample_by_scorer`] runs one
//! study per (data set, scorer) of a set of score slices, with KLS and JSS on the scorer the
//! paper fits them to (AUL, liu2024 "Proposed Evaluation Measure"), and refuses a request that
//! could only be answered by ranking one scorer's numbers against another's unless that is
//! asked for ([`ScorerGrouping::mix_scorers`]). [`subsample_study_on_draws`] runs the study on
//! sub-samples given row by row.

use bias_core::Scorer;
use std::collections::{BTreeMap, BTreeSet};

use bias_core::{AnyMeasure, ScoreSlice, ScoreTable};
use bias_metrics::stats::{kendall_tau_b_value, quantile_linear};
use bias_metrics::{score_group_analysis, MetricsError};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::{RobustError, StratifiedSampler};

/// Settings of [`subsample_study`] (liu2024, Robustness Study).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RobustnessOptions {
    /// Sampling rates, each in (0, 1]; liu2024 uses 0.3, 0.4, 0.5, 0.6, 0.7 and 0.8.
    pub rates: Vec<f64>,
    /// Sub-samples drawn per rate (at least 2, for a standard deviation with ddof = 1).
    /// liu2024 averages "multiple sampling experiments" without saying how many.
    pub repeats: usize,
    /// Base seed of the [`StratifiedSampler`]; repeat `r` uses stream `r` of this seed.
    pub seed: u64,
}

impl Default for RobustnessOptions {
    /// liu2024's rates 0.3 … 0.8, 100 repeats, seed 0.
    fn default() -> Self {
        RobustnessOptions {
            rates: vec![0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
            repeats: 100,
            seed: 0,
        }
    }
}

/// Mean, spread and 95 % range of one quantity over the repeats of one rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RepeatSummary {
    /// Mean over the repeats (liu2024's "average of the results of multiple sampling
    /// experiments").
    pub mean: f64,
    /// Standard deviation over the repeats, ddof = 1.
    pub sd: f64,
    /// 2.5 % quantile, numpy's default linear interpolation (`np.percentile(x, 2.5)`).
    pub q025: f64,
    /// 97.5 % quantile, numpy's default linear interpolation (`np.percentile(x, 97.5)`).
    pub q975: f64,
}

impl RepeatSummary {
    /// The summary of `values` (at least one; the standard deviation of a single value is 0).
    ///
    /// Quantiles follow numpy's `method="linear"` (Hyndman–Fan type 7): with the values sorted,
    /// `h = (n − 1)·q` and `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])`.
    ///
    /// # Panics
    /// If `values` is empty.
    pub fn of(values: &[f64]) -> RepeatSummary {
        assert!(
            !values.is_empty(),
            "RepeatSummary::of needs at least one value"
        );
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let sd = if values.len() < 2 {
            0.0
        } else {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        };
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        RepeatSummary {
            mean,
            sd,
            q025: quantile_linear(&sorted, 0.025),
            q975: quantile_linear(&sorted, 0.975),
        }
    }
}

/// One measure on one model's sub-samples at one rate (a point of liu2024 Figure 5, with its
/// spread).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureAtRate {
    /// The model's name, as given to [`subsample_study`].
    pub model: String,
    /// The measure's name ([`bias_core::BiasMeasure::name`]).
    pub measure: String,
    /// The sampling rate.
    pub rate: f64,
    /// Pairs in each sub-sample: `Σ_k ceil(n_k · rate)` (liu2024 and its authors' code; CrowS-Pairs 456 … 1,210).
    pub n: usize,
    /// The measure on the model's full table.
    pub full: f64,
    /// The measure's overall value over the repeats.
    pub summary: RepeatSummary,
}

/// Whether one measure keeps the full-data order of the models at one rate (liu2024 Figure 5,
/// whose red circles mark a rate at which the order changes).
///
/// liu2024 averages the measure over the draws of a rate and compares the order of the models
/// by that average with their order on the full data ("Robustness Study"): that is
/// [`RankAgreement::mean_order`], [`RankAgreement::mean_order_kept`] and
/// [`RankAgreement::kendall_tau`]. How often a **single** draw keeps the order (what one unseeded
/// run of the authors' script shows) is [`RankAgreement::agreement`].
///
/// Models are ranked by their deviation `|value − no_bias|` (the larger, the more biased), so the
/// indicator and KLS (no bias = 50) and JSS (no bias = 100, higher = less biased) are read the
/// same way; the order by mean uses `|mean − no_bias|`, the deviation of the average value. Two
/// orders are **the same** when every pair of models `(i, j)` compares the same way:
/// `dev_i > dev_j`, `dev_i < dev_j` or `dev_i == dev_j` (exact `f64` equality). So a full-data
/// tie must stay a tie, and a new tie counts as a change of order. With a single model every
/// order is the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankAgreement {
    /// The measure's name.
    pub measure: String,
    /// The sampling rate.
    pub rate: f64,
    /// The measure's no-bias value (50 for the indicator and KLS, 100 for JSS).
    pub no_bias: f64,
    /// Model names on the full data, most biased first (ties in input order).
    pub full_order: Vec<String>,
    /// Model names by `|mean over the draws − no_bias|`, most biased first (ties in input
    /// order): the order liu2024 Figure 5 reports at this rate.
    pub mean_order: Vec<String>,
    /// Whether the order by mean is the full-data order (every pair of models compares the same
    /// way, ties included).
    pub mean_order_kept: bool,
    /// Kendall's τ-b between the models' full-data deviations and the deviations of their means
    /// (1: same order; as `scipy.stats.kendalltau`); `None` where it is undefined: fewer than 2
    /// models, or every model tied on one side.
    pub kendall_tau: Option<f64>,
    /// Single draws (repeats) that keep the full-data order.
    pub agreeing: usize,
    /// Repeats drawn.
    pub repeats: usize,
    /// `agreeing / repeats`: the share of single draws that keep the order.
    pub agreement: f64,
}

/// liu2024 Table 5 for one model at one rate, over the repeats: the score-group imbalance
/// `|Δ_st| − |Δ_at|` ([`bias_metrics::score_group_analysis`]) and its shift `Δ_sp` from the full
/// data ([`bias_metrics::ScoreGroupAnalysis::shift_from`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreGroupsAtRate {
    /// The model's name.
    pub model: String,
    /// The sampling rate.
    pub rate: f64,
    /// Pairs in each sub-sample.
    pub n: usize,
    /// `|Δ_st| − |Δ_at|` on the full table (liu2024 Table 4's last column).
    pub full: f64,
    /// `|Δ_st| − |Δ_at|` over the repeats (Table 5's value, with its spread).
    pub delta_difference: RepeatSummary,
    /// Mean signed `Δ_sp` = `delta_difference.mean − full` (Table 5 prints its magnitude, with
    /// ↑ for a positive sign).
    pub shift: f64,
    /// Mean of `|Δ_sp|` over the repeats: how far a single draw (what the paper reports) moves
    /// on average.
    pub mean_abs_shift: f64,
}

/// Everything [`subsample_study`] measured; serialisable with serde.
///
/// Entries are ordered by rate (the order of `options.rates`), then model (input order), then measure (input
/// order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RobustnessReport {
    /// The settings used (serialised as `config`, its name before 0.2.0).
    #[serde(rename = "config")]
    pub options: RobustnessOptions,
    /// Model names, in input order.
    pub models: Vec<String>,
    /// Measure names, in input order.
    pub measures: Vec<String>,
    /// Per (model, measure, rate): the measure's spread (liu2024 Figure 5).
    pub measure_stats: Vec<MeasureAtRate>,
    /// Per (measure, rate): agreement with the full-data ranking of the models (Figure 5).
    pub rank_agreement: Vec<RankAgreement>,
    /// Per (model, rate): the score-group analysis of Table 5.
    pub score_groups: Vec<ScoreGroupsAtRate>,
}

impl RobustnessReport {
    /// The entry of `measure` on `model` at `rate` (rates compared exactly).
    pub fn measure_at(&self, model: &str, measure: &str, rate: f64) -> Option<&MeasureAtRate> {
        self.measure_stats
            .iter()
            .find(|m| m.model == model && m.measure == measure && m.rate == rate)
    }

    /// The rank agreement of `measure` at `rate`.
    pub fn agreement_at(&self, measure: &str, rate: f64) -> Option<&RankAgreement> {
        self.rank_agreement
            .iter()
            .find(|a| a.measure == measure && a.rate == rate)
    }

    /// The Table 5 entry of `model` at `rate`.
    pub fn score_groups_at(&self, model: &str, rate: f64) -> Option<&ScoreGroupsAtRate> {
        self.score_groups
            .iter()
            .find(|g| g.model == model && g.rate == rate)
    }
}

/// A bias measure the study can run on several threads: any [`bias_core::BiasMeasure`] (through
/// [`AnyMeasure`], which boxes its error), for instance one built by
/// `bias_metrics::MeasureSpec::build`.
pub type SyncMeasure<'a> = &'a (dyn AnyMeasure + Sync);

/// What one (rate, repeat) cell produced: per model, the sub-sample size, the value of every
/// measure and its deviation, and `|Δ_st| − |Δ_at|`.
struct Cell {
    n: Vec<usize>,
    values: Vec<Vec<f64>>,
    deviations: Vec<Vec<f64>>,
    delta_difference: Vec<f64>,
}

/// The measure on `table`: value, deviation `|value − no_bias|` and `no_bias`.
fn run_measure(
    measure: SyncMeasure<'_>,
    table: &ScoreTable,
    what: impl FnOnce() -> String,
) -> Result<(f64, f64, f64), RobustError> {
    match measure.measure_any(table) {
        Ok(m) if m.value.is_finite() => Ok((m.value, m.deviation(), m.no_bias)),
        Ok(m) => Err(RobustError::Measure {
            what: what(),
            source: Box::new(MetricsError::InvalidParameter {
                name: measure.name().to_owned(),
                value: m.value.to_string(),
                expected: "a finite measure value".to_owned(),
            }),
        }),
        Err(source) => Err(RobustError::Measure {
            what: what(),
            source,
        }),
    }
}

/// Pairwise order of `dev` as signs (`Ordering`), the rank signature compared across repeats.
fn order_signature(dev: &[f64]) -> Vec<Option<std::cmp::Ordering>> {
    let mut s = Vec::with_capacity(dev.len() * dev.len().saturating_sub(1) / 2);
    for i in 0..dev.len() {
        for j in i + 1..dev.len() {
            s.push(dev[i].partial_cmp(&dev[j]));
        }
    }
    s
}

/// Indices of `dev` from the largest to the smallest, ties in index order.
fn order_by_deviation(dev: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..dev.len()).collect();
    order.sort_by(|&a, &b| dev[b].total_cmp(&dev[a]));
    order
}

/// Checks the settings shared by the seeded and the explicit study.
fn check_inputs(
    models: &[(String, ScoreTable)],
    measures: &[SyncMeasure<'_>],
    rates: &[f64],
    repeats: usize,
) -> Result<(), RobustError> {
    if models.is_empty() {
        return Err(RobustError::InvalidConfig(
            "no models to compare".to_owned(),
        ));
    }
    if measures.is_empty() {
        return Err(RobustError::InvalidConfig("no measures to run".to_owned()));
    }
    if rates.is_empty() {
        return Err(RobustError::InvalidConfig("no sampling rates".to_owned()));
    }
    if repeats < 2 {
        return Err(RobustError::InvalidConfig(format!(
            "repeats = {repeats}: at least 2 are needed for a standard deviation (ddof = 1)"
        )));
    }
    for &rate in rates {
        if !(rate > 0.0 && rate <= 1.0) {
            return Err(RobustError::InvalidRate(rate));
        }
    }
    Ok(())
}

/// liu2024's sub-sampling robustness study, seeded and repeated.
///
/// For every rate in `options.rates` and repeat `r` in `0..options.repeats`, each model's table is
/// sub-sampled once with `StratifiedSampler::new(rate, options.seed)?.draw(table, r)` (stratified
/// by bias type, `ceil(n_k · rate)` pairs per type without replacement), and every measure and
/// the score-group analysis are computed on that sub-sample. The draw depends only on the seed,
/// the repeat and the table's bias-type column, so models scored on the same pairs in the same
/// order get the same pairs in every repeat (a paired comparison); tables with different rows
/// are each sampled on their own.
///
/// The (rate, repeat) cells run in parallel with rayon and are collected in order, so the report
/// is identical for the same inputs and seed on any number of threads. Each `models` entry is a
/// name and the table of one model; the caller decides what a model is: liu2024 compares models
/// scored with one scorer on one data set, which [`subsample_by_scorer`] arranges.
///
/// # Errors
/// [`RobustError::InvalidConfig`] for no models, no measures, no rates or fewer than 2 repeats;
/// [`RobustError::InvalidRate`] for a rate outside (0, 1]; [`RobustError::Measure`] when a
/// measure or the score-group analysis fails (or gives a non-finite value) on a full table or
/// a sub-sample, naming the model, rate and repeat (the first failure in rate, repeat, model
/// order).
pub fn subsample_study(
    models: &[(String, ScoreTable)],
    measures: &[SyncMeasure<'_>],
    options: &RobustnessOptions,
) -> Result<RobustnessReport, RobustError> {
    check_inputs(models, measures, &options.rates, options.repeats)?;
    let samplers = options
        .rates
        .iter()
        .map(|&rate| StratifiedSampler::new(rate, options.seed))
        .collect::<Result<Vec<_>, _>>()?;
    run_study(models, measures, options, &|ri, r, table| {
        samplers[ri].draw_indices(table, r as u64)
    })
}

/// Sub-samples given row by row, for [`subsample_study_on_draws`]: draws made elsewhere (by
/// another program, or [`StratifiedSampler::draw_indices`] with other settings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplicitDraws {
    /// The sampling rates, each in (0, 1].
    pub rates: Vec<f64>,
    /// `rows[i][r]`: the row indices (into every model's table) of repeat `r` at `rates[i]`;
    /// every rate has the same number of repeats (at least 2), and the draws of one rate have
    /// the same size.
    pub rows: Vec<Vec<Vec<usize>>>,
}

/// liu2024's sub-sampling study on given sub-samples: the same report as [`subsample_study`],
/// with repeat `r` at rate `draws.rates[i]` made of the rows `draws.rows[i][r]` of every model's
/// table (so the models must be tables of the same pairs in the same order, a paired design).
/// The report's `options.seed` is 0 (no seed is used).
///
/// # Errors
/// As [`subsample_study`]; [`RobustError::InvalidConfig`] also when `draws` does not have one
/// list of repeats per rate, the rates have different numbers of repeats, the draws of a rate
/// differ in size, a draw is empty, repeats a row or names a row a table does not have, or the
/// models' tables differ in length.
pub fn subsample_study_on_draws(
    models: &[(String, ScoreTable)],
    measures: &[SyncMeasure<'_>],
    draws: &ExplicitDraws,
) -> Result<RobustnessReport, RobustError> {
    let invalid = |m: String| Err(RobustError::InvalidConfig(m));
    if draws.rows.len() != draws.rates.len() {
        return invalid(format!(
            "{} rates but {} lists of draws",
            draws.rates.len(),
            draws.rows.len()
        ));
    }
    let repeats = draws.rows.first().map_or(0, Vec::len);
    check_inputs(models, measures, &draws.rates, repeats)?;
    let len = models[0].1.len();
    if let Some((name, t)) = models.iter().find(|(_, t)| t.len() != len) {
        return invalid(format!(
            "model `{name}` has {} rows, model `{}` {len}: explicit draws index the same pairs \
             of every model",
            t.len(),
            models[0].0
        ));
    }
    for (i, per_rate) in draws.rows.iter().enumerate() {
        let rate = draws.rates[i];
        if per_rate.len() != repeats {
            return invalid(format!(
                "rate {rate} has {} draws, rate {} has {repeats}: give every rate the same \
                 number of repeats",
                per_rate.len(),
                draws.rates[0]
            ));
        }
        for (r, rows) in per_rate.iter().enumerate() {
            let mut seen = vec![false; len];
            if rows.is_empty() || rows.len() != per_rate[0].len() {
                return invalid(format!(
                    "rate {rate}, repeat {r}: {} rows, repeat 0 has {}: the draws of one rate \
                     have one non-zero size",
                    rows.len(),
                    per_rate[0].len()
                ));
            }
            for &row in rows {
                if row >= len || std::mem::replace(&mut seen[row], true) {
                    return invalid(format!(
                        "rate {rate}, repeat {r}: row {row} is {} (the tables have {len} rows; \
                         a draw is without replacement)",
                        if row >= len {
                            "out of range"
                        } else {
                            "drawn twice"
                        }
                    ));
                }
            }
        }
    }
    let options = RobustnessOptions {
        rates: draws.rates.clone(),
        repeats,
        seed: 0,
    };
    run_study(models, measures, &options, &|ri, r, _| {
        draws.rows[ri][r].clone()
    })
}

/// Row indices of one draw: `(rate index, repeat, table)`.
type DrawFn<'a> = dyn Fn(usize, usize, &ScoreTable) -> Vec<usize> + Sync + 'a;

/// The study on checked inputs, with the rows of each (rate, repeat, model) given by `draw`.
fn run_study(
    models: &[(String, ScoreTable)],
    measures: &[SyncMeasure<'_>],
    options: &RobustnessOptions,
    draw: &DrawFn<'_>,
) -> Result<RobustnessReport, RobustError> {
    // Full-data values.
    let mut full_values = vec![vec![0.0; measures.len()]; models.len()];
    let mut full_dev = vec![vec![0.0; models.len()]; measures.len()];
    let mut no_bias = vec![0.0; measures.len()];
    let mut full_groups = Vec::with_capacity(models.len());
    for (mi, (name, table)) in models.iter().enumerate() {
        for (k, m) in measures.iter().enumerate() {
            let (v, d, nb) = run_measure(*m, table, || {
                format!("{} on model `{name}`, full data", m.name())
            })?;
            full_values[mi][k] = v;
            full_dev[k][mi] = d;
            no_bias[k] = nb;
        }
        let g = score_group_analysis(table).map_err(|source| RobustError::Measure {
            what: format!("score-group analysis on model `{name}`, full data"),
            source: Box::new(source),
        })?;
        full_groups.push(g);
    }

    // Sub-samples: one independent cell per (rate, repeat), collected in order.
    let cells_idx: Vec<(usize, usize)> = (0..options.rates.len())
        .flat_map(|ri| (0..options.repeats).map(move |r| (ri, r)))
        .collect();
    let results: Vec<Result<Cell, RobustError>> = cells_idx
        .par_iter()
        .map(|&(ri, r)| {
            let rate = options.rates[ri];
            let mut cell = Cell {
                n: Vec::with_capacity(models.len()),
                values: Vec::with_capacity(models.len()),
                deviations: vec![Vec::with_capacity(models.len()); measures.len()],
                delta_difference: Vec::with_capacity(models.len()),
            };
            for (name, table) in models {
                let rows = table.rows();
                let sub: ScoreTable = draw(ri, r, table)
                    .into_iter()
                    .map(|i| rows[i].clone())
                    .collect();
                let where_ = || format!("on model `{name}`, rate {rate}, repeat {r}");
                let mut vals = Vec::with_capacity(measures.len());
                for (k, m) in measures.iter().enumerate() {
                    let (v, d, _) = run_measure(*m, &sub, || format!("{} {}", m.name(), where_()))?;
                    vals.push(v);
                    cell.deviations[k].push(d);
                }
                let g = score_group_analysis(&sub).map_err(|source| RobustError::Measure {
                    what: format!("score-group analysis {}", where_()),
                    source: Box::new(source),
                })?;
                cell.n.push(sub.len());
                cell.values.push(vals);
                cell.delta_difference.push(g.delta_difference);
            }
            Ok(cell)
        })
        .collect();
    let cells = results.into_iter().collect::<Result<Vec<Cell>, _>>()?;

    let model_names: Vec<String> = models.iter().map(|(n, _)| n.clone()).collect();
    let measure_names: Vec<String> = measures.iter().map(|m| m.name().to_owned()).collect();
    let full_signatures: Vec<_> = full_dev.iter().map(|d| order_signature(d)).collect();
    let names = |order: Vec<usize>| -> Vec<String> {
        order.into_iter().map(|i| model_names[i].clone()).collect()
    };
    let mut measure_stats = Vec::new();
    let mut rank_agreement = Vec::new();
    let mut score_groups = Vec::new();
    for (ri, &rate) in options.rates.iter().enumerate() {
        let cells = &cells[ri * options.repeats..(ri + 1) * options.repeats];
        // mean_dev[k][mi] = |mean of measure k on model mi − no_bias|.
        let mut mean_dev = vec![vec![0.0; models.len()]; measures.len()];
        for (mi, model) in model_names.iter().enumerate() {
            let n = cells[0].n[mi];
            for (k, measure) in measure_names.iter().enumerate() {
                let values: Vec<f64> = cells.iter().map(|c| c.values[mi][k]).collect();
                let summary = RepeatSummary::of(&values);
                mean_dev[k][mi] = (summary.mean - no_bias[k]).abs();
                measure_stats.push(MeasureAtRate {
                    model: model.clone(),
                    measure: measure.clone(),
                    rate,
                    n,
                    full: full_values[mi][k],
                    summary,
                });
            }
            let full = full_groups[mi].delta_difference;
            let dd: Vec<f64> = cells.iter().map(|c| c.delta_difference[mi]).collect();
            let summary = RepeatSummary::of(&dd);
            score_groups.push(ScoreGroupsAtRate {
                model: model.clone(),
                rate,
                n,
                full,
                delta_difference: summary,
                shift: summary.mean - full,
                mean_abs_shift: dd.iter().map(|v| (v - full).abs()).sum::<f64>() / dd.len() as f64,
            });
        }
        for (k, measure) in measure_names.iter().enumerate() {
            let agreeing = cells
                .iter()
                .filter(|c| order_signature(&c.deviations[k]) == full_signatures[k])
                .count();
            rank_agreement.push(RankAgreement {
                measure: measure.clone(),
                rate,
                no_bias: no_bias[k],
                full_order: names(order_by_deviation(&full_dev[k])),
                mean_order: names(order_by_deviation(&mean_dev[k])),
                mean_order_kept: order_signature(&mean_dev[k]) == full_signatures[k],
                kendall_tau: kendall_tau_b_value(&full_dev[k], &mean_dev[k]),
                agreeing,
                repeats: options.repeats,
                agreement: agreeing as f64 / options.repeats as f64,
            });
        }
    }

    Ok(RobustnessReport {
        options: options.clone(),
        models: model_names,
        measures: measure_names,
        measure_stats,
        rank_agreement,
        score_groups,
    })
}

/// The scorer liu2024 fits KLS and JSS to: AUL (kaneko2022), as its "Proposed Evaluation
/// Measure" section states ("Our work adopts All Unmasked Likelihood (AUL) as the PLL score").
pub const LIU2024_DISTRIBUTION_SCORER: &str = Scorer::Aul.name();

/// How [`subsample_by_scorer`] groups score slices into studies (liu2024, Robustness Study).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScorerGrouping {
    /// The scorer whose scores the distribution measures (KLS, JSS) are computed on; liu2024
    /// uses AUL ([`LIU2024_DISTRIBUTION_SCORER`], the default).
    pub distribution_scorer: String,
    /// Rank every (model, scorer) slice of a data set against the others in one study of the
    /// pair measures (the indicator), each named `model (scorer)`. liu2024 compares models within
    /// one scorer, so this is off by default and must be asked for.
    pub mix_scorers: bool,
}

impl Default for ScorerGrouping {
    /// KLS and JSS on AUL; models compared within one scorer.
    fn default() -> Self {
        ScorerGrouping {
            distribution_scorer: LIU2024_DISTRIBUTION_SCORER.to_owned(),
            mix_scorers: false,
        }
    }
}

/// One study of [`subsample_by_scorer`]: the models of one data set scored with one scorer
/// (or, with [`ScorerGrouping::mix_scorers`], with several).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScorerStudy {
    /// The data set.
    pub dataset: String,
    /// The scorer of every model in the study; several only in a study that mixes scorers.
    pub scorers: Vec<String>,
    /// The study; its models are the slices' model names (`model (scorer)` when mixed).
    pub report: RobustnessReport,
}

/// liu2024's sub-sampling study on score slices, one study per (data set, scorer): models are
/// ranked only against models of the same data set scored with the same scorer (Figure 5 has
/// one panel per measure, CPS and AUL each ranking BERT, RoBERTa and ALBERT).
///
/// - `pair_measures` (the indicator of Eq. 2, which Figure 5 shows as CPS and AUL) run in the
///   study of every scorer;
/// - `distribution_measures` (KLS and JSS, which fit Gaussians to PLL scores) run only in the
///   study of `grouping.distribution_scorer`, AUL by default as in the paper.
///
/// With `grouping.mix_scorers`, the pair measures run instead in one study per data set over
/// every (model, scorer) slice, named `model (scorer)`, followed by the distribution measures in
/// the study of the distribution scorer. Studies come by data set, then scorer (sorted).
///
/// # Errors
/// - [`RobustError::MixedScorers`] when, without `mix_scorers`, a study would hold a single
///   model while the data set has others scored only with other scorers (they could be compared
///   only across scorers);
/// - [`RobustError::MissingScorer`] when distribution measures are asked for and a data set has
///   no slice of the distribution scorer;
/// - [`RobustError::InvalidConfig`] for no slices, no measures, or a (data set, scorer, model)
///   given twice;
/// - as [`subsample_study`] for each study.
pub fn subsample_by_scorer(
    slices: &[ScoreSlice],
    pair_measures: &[SyncMeasure<'_>],
    distribution_measures: &[SyncMeasure<'_>],
    grouping: &ScorerGrouping,
    options: &RobustnessOptions,
) -> Result<Vec<ScorerStudy>, RobustError> {
    if slices.is_empty() {
        return Err(RobustError::InvalidConfig("no score slices".to_owned()));
    }
    if pair_measures.is_empty() && distribution_measures.is_empty() {
        return Err(RobustError::InvalidConfig("no measures to run".to_owned()));
    }
    // dataset → scorer → slices, in input order within a scorer.
    let mut by_dataset: BTreeMap<&str, BTreeMap<&str, Vec<&ScoreSlice>>> = BTreeMap::new();
    for s in slices {
        let group = by_dataset
            .entry(&s.dataset)
            .or_default()
            .entry(&s.scorer)
            .or_default();
        if group.iter().any(|g| g.model == s.model) {
            return Err(RobustError::InvalidConfig(format!(
                "model `{}` is given twice for data set `{}`, scorer `{}`: give each model's \
                 scores once",
                s.model, s.dataset, s.scorer
            )));
        }
        group.push(s);
    }
    let dist = grouping.distribution_scorer.as_str();
    let measures_of = |scorer: &str| -> Vec<SyncMeasure<'_>> {
        let mut m = pair_measures.to_vec();
        if scorer == dist {
            m.extend_from_slice(distribution_measures);
        }
        m
    };
    let named = |group: &[&ScoreSlice], with_scorer: bool| -> Vec<(String, ScoreTable)> {
        group
            .iter()
            .map(|s| {
                let name = if with_scorer {
                    format!("{} ({})", s.model, s.scorer)
                } else {
                    s.model.clone()
                };
                (name, s.table.clone())
            })
            .collect()
    };

    // Check every data set before running anything.
    for (&dataset, scorers) in &by_dataset {
        if !distribution_measures.is_empty() && !scorers.contains_key(dist) {
            return Err(RobustError::MissingScorer {
                dataset: dataset.to_owned(),
                scorer: dist.to_owned(),
                measures: distribution_measures
                    .iter()
                    .map(|m| m.name().to_owned())
                    .collect(),
                available: scorers.keys().map(|s| (*s).to_owned()).collect(),
            });
        }
        if grouping.mix_scorers {
            continue;
        }
        let all_models: BTreeSet<&str> = scorers
            .values()
            .flatten()
            .map(|s| s.model.as_str())
            .collect();
        for (&scorer, group) in scorers {
            if group.len() == 1 && all_models.len() > 1 && !measures_of(scorer).is_empty() {
                let by_model = all_models
                    .iter()
                    .map(|m| {
                        let used: Vec<&str> = scorers
                            .iter()
                            .filter(|(_, g)| g.iter().any(|s| s.model == *m))
                            .map(|(sc, _)| *sc)
                            .collect();
                        format!("`{m}`: {}", used.join(", "))
                    })
                    .collect::<Vec<_>>()
                    .join("; ");
                return Err(RobustError::MixedScorers {
                    dataset: dataset.to_owned(),
                    detail: format!(
                        "scorer `{scorer}` has only model `{}`, and the other models have no \
                         `{scorer}` scores (scorers by model: {by_model})",
                        group[0].model
                    ),
                });
            }
        }
    }

    let mut studies = Vec::new();
    for (&dataset, scorers) in &by_dataset {
        if grouping.mix_scorers && !pair_measures.is_empty() {
            let all: Vec<&ScoreSlice> = scorers.values().flatten().copied().collect();
            studies.push(ScorerStudy {
                dataset: dataset.to_owned(),
                scorers: scorers.keys().map(|s| (*s).to_owned()).collect(),
                report: subsample_study(&named(&all, true), pair_measures, options)?,
            });
        }
        for (&scorer, group) in scorers {
            let measures: Vec<SyncMeasure<'_>> = if grouping.mix_scorers {
                if scorer == dist {
                    distribution_measures.to_vec()
                } else {
                    Vec::new()
                }
            } else {
                measures_of(scorer)
            };
            if measures.is_empty() {
                continue;
            }
            studies.push(ScorerStudy {
                dataset: dataset.to_owned(),
                scorers: vec![scorer.to_owned()],
                report: subsample_study(&named(group, false), &measures, options)?,
            });
        }
    }
    Ok(studies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn summary_matches_numpy() {
        // np.mean / np.std(ddof=1) / np.percentile([3, 1, 4, 2], [2.5, 97.5]).
        let s = RepeatSummary::of(&[3.0, 1.0, 4.0, 2.0]);
        assert_abs_diff_eq!(s.mean, 2.5, epsilon = 1e-15);
        assert_abs_diff_eq!(s.sd, (5.0f64 / 3.0).sqrt(), epsilon = 1e-15);
        assert_abs_diff_eq!(s.q025, 1.075, epsilon = 1e-12);
        assert_abs_diff_eq!(s.q975, 3.925, epsilon = 1e-12);
    }

    #[test]
    fn kendall_tau_b_by_hand() {
        // Same order: 3 concordant pairs of 3.
        assert_eq!(
            kendall_tau_b_value(&[3.0, 2.0, 1.0], &[30.0, 20.0, 10.0]),
            Some(1.0)
        );
        // One swap of 3 models: C = 2, D = 1, τ = 1/3.
        let t = kendall_tau_b_value(&[3.0, 2.0, 1.0], &[3.0, 1.0, 2.0]).unwrap();
        assert_abs_diff_eq!(t, 1.0 / 3.0, epsilon = 1e-15);
        // A tie in y: n0 = 3, n2 = 1, C = 2, D = 0: 2 / sqrt(3 · 2).
        let t = kendall_tau_b_value(&[3.0, 2.0, 1.0], &[2.0, 1.0, 1.0]).unwrap();
        assert_abs_diff_eq!(t, 2.0 / 6f64.sqrt(), epsilon = 1e-15);
        // Undefined: one model, or one side all tied.
        assert_eq!(kendall_tau_b_value(&[1.0], &[1.0]), None);
        assert_eq!(kendall_tau_b_value(&[1.0, 2.0], &[5.0, 5.0]), None);
        assert_eq!(kendall_tau_b_value(&[1.0, 2.0], &[6.0, 5.0]), Some(-1.0));
    }

    #[test]
    fn order_by_deviation_keeps_input_order_for_ties() {
        assert_eq!(order_by_deviation(&[1.0, 3.0, 1.0, 2.0]), vec![1, 3, 0, 2]);
    }

    #[test]
    fn order_signature_keeps_ties() {
        assert_eq!(
            order_signature(&[1.0, 1.0, 0.5]),
            vec![
                Some(std::cmp::Ordering::Equal),
                Some(std::cmp::Ordering::Greater),
                Some(std::cmp::Ordering::Greater)
            ]
        );
        assert!(order_signature(&[2.0]).is_empty());
    }
}
