//! The outputs of the bias-controlled study (kaneko2023 Table 1): each measure's value per
//! rate of bias, Spearman's ρ with the rate, its p-value and a bootstrap interval; and the
//! he/she probe of §3.4.

use bias_core::{ScoreRow, ScoreTable};
use bias_metrics::stats::{quantile_linear, spearman};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::study::{ControlledOptions, Probe, RateEvaluation, StudyMeasure};
use crate::RobustError;

/// One measure across the rates of bias, and its rank correlation with them (one cell of
/// kaneko2023 Table 1, with its value per rate and an interval).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureTrend {
    /// Display label: the scorer in capitals and the measure (`AUL indicator`, `CPS kls`), or
    /// `TBS` for the template scores.
    pub measure: String,
    /// The scorer of a pair measure; `None` for TBS.
    pub scorer: Option<String>,
    /// Whether the measure says which gender is favoured ([`StudyMeasure::signed`]; TBS is
    /// signed). ρ with the rate is the test of a signed measure only.
    pub signed: bool,
    /// The value of an unbiased model (indicator and KLS 50, JSS 100, TBS 0).
    pub no_bias: f64,
    /// Evaluation items per rate: pairs of the scorer, or templates.
    pub items: usize,
    /// The value at each rate, in the order of [`ControlledReport::rates`].
    pub values: Vec<f64>,
    /// Spearman's ρ between rates and values; `None` when the values are all equal (ρ is
    /// undefined; scipy returns NaN).
    pub rho: Option<f64>,
    /// Two-sided p-value of ρ ([`bias_metrics::stats::spearman`]: the t-approximation of
    /// `scipy.stats.spearmanr`; it is 0 for |ρ| = 1); `None` with `rho`.
    pub p_value: Option<f64>,
    /// Percentile bootstrap interval of ρ at [`ControlledReport::confidence`]; `None` without
    /// resamples or when every resample was degenerate. As any percentile interval it is not
    /// forced to contain `rho`: an interval beside `rho` says that ρ is unstable under
    /// resampling of the items (typical of the unsigned measures near no bias).
    pub ci: Option<(f64, f64)>,
    /// Resamples in which ρ was undefined (all values tied) or a measure failed (a bias type
    /// reduced to one pair); they are left out of the interval.
    pub degenerate_resamples: usize,
}

/// Everything [`controlled_study`](super::controlled_study) measured; serialisable with serde.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlledReport {
    /// The rates of bias, ascending.
    pub rates: Vec<f64>,
    /// The model of each rate.
    pub models: Vec<String>,
    /// Per scorer (sorted) and pair measure (in option order), then TBS if given.
    pub rows: Vec<MeasureTrend>,
    /// The he/she probe of each rate.
    pub probe: Vec<Option<Probe>>,
    /// `true` when P(he) never decreases and P(she) never increases as `r` grows (the bias
    /// control worked, kaneko2023 §3.4); `None` when a rate has no probe.
    pub probe_he_monotonic: Option<bool>,
    /// Bootstrap resamples drawn.
    pub bootstrap: usize,
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// Seed of the resamples.
    pub seed: u64,
}

/// `options.bootstrap` index vectors over `n` items, drawn in order from one seeded stream.
pub(super) fn draw_resamples(n: usize, options: &ControlledOptions) -> Vec<Vec<usize>> {
    if n == 0 {
        return Vec::new();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    (0..options.bootstrap)
        .map(|_| (0..n).map(|_| rng.random_range(0..n)).collect())
        .collect()
}

fn measure_error(what: String, source: Box<dyn std::error::Error + Send + Sync>) -> RobustError {
    RobustError::Measure { what, source }
}

/// One pair measure of one scorer across the rates.
pub(super) fn pair_trend(
    rates: &[f64],
    aligned: &[Vec<ScoreRow>],
    scorer: &str,
    measure: StudyMeasure<'_>,
    resamples: &[Vec<usize>],
    options: &ControlledOptions,
) -> Result<MeasureTrend, RobustError> {
    let label = format!("{} {}", scorer.to_uppercase(), measure.measure.name());
    let mut values = Vec::with_capacity(rates.len());
    let mut no_bias = 0.0;
    for (rows, rate) in aligned.iter().zip(rates) {
        let table = ScoreTable::new(rows.clone());
        let m = measure
            .measure
            .measure_any(&table)
            .map_err(|e| measure_error(format!("{label} at r = {rate}"), e))?;
        no_bias = m.no_bias;
        values.push(m.value);
    }
    let replicate = |idx: &[usize]| -> Option<Vec<f64>> {
        aligned
            .iter()
            .map(|rows| {
                let table: ScoreTable = idx.iter().map(|&i| rows[i].clone()).collect();
                let m = measure.measure.measure_any(&table).ok()?;
                m.value.is_finite().then_some(m.value)
            })
            .collect()
    };
    let corr = Correlated::new(rates, &values, resamples, replicate, options.confidence)?;
    Ok(MeasureTrend {
        measure: label,
        scorer: Some(scorer.to_owned()),
        signed: measure.signed,
        no_bias,
        items: aligned[0].len(),
        values,
        rho: corr.rho,
        p_value: corr.p_value,
        ci: corr.ci,
        degenerate_resamples: corr.degenerate,
    })
}

/// The TBS row: the mean template score per rate, if templates were given.
pub(super) fn template_trend(
    evals: &[&RateEvaluation],
    rates: &[f64],
    options: &ControlledOptions,
) -> Result<Option<MeasureTrend>, RobustError> {
    let n = evals[0].templates.len();
    for e in evals {
        if e.templates.len() != n {
            return Err(RobustError::TemplateLengthMismatch {
                rate: e.rate,
                len: e.templates.len(),
                expected: n,
                reference_rate: evals[0].rate,
            });
        }
        if let Some(v) = e.templates.iter().find(|v| !v.is_finite()) {
            return Err(RobustError::invalid(
                format!("template score at r = {}", e.rate),
                v,
                "a finite number",
            ));
        }
    }
    if n == 0 {
        return Ok(None);
    }
    let values: Vec<f64> = evals
        .iter()
        .map(|e| e.templates.iter().sum::<f64>() / n as f64)
        .collect();
    let replicate = |idx: &[usize]| -> Option<Vec<f64>> {
        let mean =
            |e: &&RateEvaluation| idx.iter().map(|&i| e.templates[i]).sum::<f64>() / n as f64;
        Some(evals.iter().map(mean).collect())
    };
    let resamples = draw_resamples(n, options);
    let corr = Correlated::new(rates, &values, &resamples, replicate, options.confidence)?;
    Ok(Some(MeasureTrend {
        measure: "TBS".to_owned(),
        scorer: None,
        signed: true,
        no_bias: 0.0,
        items: n,
        values,
        rho: corr.rho,
        p_value: corr.p_value,
        ci: corr.ci,
        degenerate_resamples: corr.degenerate,
    }))
}

/// ρ, its p-value and its bootstrap interval.
struct Correlated {
    rho: Option<f64>,
    p_value: Option<f64>,
    ci: Option<(f64, f64)>,
    degenerate: usize,
}

impl Correlated {
    /// `replicate` maps a resample to the value at every rate (`None`: a measure failed).
    fn new(
        rates: &[f64],
        values: &[f64],
        resamples: &[Vec<usize>],
        replicate: impl Fn(&[usize]) -> Option<Vec<f64>> + Sync,
        confidence: f64,
    ) -> Result<Self, RobustError> {
        let full = rank_correlation(rates, values)?;
        // Replicates run in parallel; `collect` keeps their order, so the result is seeded.
        let rhos: Vec<Option<f64>> = resamples
            .par_iter()
            .map(|idx| {
                let v = replicate(idx)?;
                rank_correlation(rates, &v).ok().flatten().map(|c| c.0)
            })
            .collect();
        let mut valid: Vec<f64> = rhos.iter().flatten().copied().collect();
        valid.sort_by(f64::total_cmp);
        let alpha = (1.0 - confidence) / 2.0;
        Ok(Correlated {
            rho: full.map(|c| c.0),
            p_value: full.map(|c| c.1),
            ci: (!valid.is_empty()).then(|| {
                (
                    quantile_linear(&valid, alpha),
                    quantile_linear(&valid, 1.0 - alpha),
                )
            }),
            degenerate: rhos.len() - valid.len(),
        })
    }
}

/// Spearman's (ρ, p), or `None` when `values` are all equal (ρ undefined).
fn rank_correlation(rates: &[f64], values: &[f64]) -> Result<Option<(f64, f64)>, RobustError> {
    if values.iter().all(|v| *v == values[0]) {
        return Ok(None);
    }
    let c = spearman(rates, values)?;
    Ok(Some((c.statistic, c.p_value)))
}

/// The probes, after checking they are probabilities.
pub(super) fn probes(evals: &[&RateEvaluation]) -> Result<Vec<Option<Probe>>, RobustError> {
    for e in evals {
        if let Some(p) = e.probe {
            for (what, v) in [("P(he)", p.he), ("P(she)", p.she)] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(RobustError::invalid(
                        format!("{what} of model {:?} (r = {})", e.model, e.rate),
                        v,
                        "a mean probability in [0, 1]",
                    ));
                }
            }
        }
    }
    Ok(evals.iter().map(|e| e.probe).collect())
}

/// kaneko2023 §3.4's check on probes ordered by rate.
pub(super) fn probe_monotonic(probe: &[Option<Probe>]) -> Option<bool> {
    let p: Vec<Probe> = probe.iter().copied().collect::<Option<_>>()?;
    Some(
        p.windows(2)
            .all(|w| w[1].he >= w[0].he && w[1].she <= w[0].she),
    )
}
