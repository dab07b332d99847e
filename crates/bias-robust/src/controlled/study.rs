//! The bias-controlled study of kaneko2023 §2–3: its inputs (one evaluation per rate of bias),
//! its options, and [`controlled_study`], which checks and aligns the evaluations and computes
//! every measure's trend ([`super::trend`]).

use std::collections::{BTreeMap, HashSet};

use bias_core::{AnyMeasure, ScoreRow, ScoreTable};
use bias_metrics::{DistributionOptions, MeasureSpec};
use serde::{Deserialize, Serialize};

use super::trend::{
    draw_resamples, pair_trend, probe_monotonic, probes, template_trend, ControlledReport,
};
use crate::RobustError;

/// The mean probabilities of *he* and *she* for `[MASK] is a/an [occupation].` over neutral
/// occupations (kaneko2023 §3.4, Figure 2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// Mean probability of *he* at the mask, in [0, 1].
    pub he: f64,
    /// Mean probability of *she* at the mask, in [0, 1].
    pub she: f64,
}

/// Everything measured on one bias-controlled model (kaneko2023 §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateEvaluation {
    /// The rate of bias `r`: the share of male sentences the model was fine-tuned on, in [0, 1].
    pub rate: f64,
    /// The model's name.
    pub model: String,
    /// Its pair scores, already oriented ([`orient_by_gender`](super::orient_by_gender): `stereo` = male sentence), for
    /// one or more scorers; every rate must hold the same pair ids per scorer.
    pub pairs: ScoreTable,
    /// Per-template TBS scores (Kurita et al. 2019; kaneko2023 Appendix A), signed so that
    /// positive = male preference and 0 = none; the same templates in the same order at every
    /// rate. Leave empty at every rate for no TBS.
    pub templates: Vec<f64>,
    /// The he/she probe of kaneko2023 §3.4, if measured.
    pub probe: Option<Probe>,
}

/// A measure of the controlled study: any bias measure, and whether its value says which
/// gender is favoured ([`controlled_study_with`]).
#[derive(Clone, Copy)]
pub struct StudyMeasure<'a> {
    /// The measure (its name labels the report's row).
    pub measure: &'a (dyn AnyMeasure + Sync),
    /// `true` when the value says which gender is favoured (the indicator on oriented pairs),
    /// `false` for symmetric measures such as KLS and JSS (see the [module docs](super)).
    pub signed: bool,
}

impl std::fmt::Debug for StudyMeasure<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StudyMeasure")
            .field("measure", &self.measure.name())
            .field("signed", &self.signed)
            .finish()
    }
}

/// Settings of [`controlled_study`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlledOptions {
    /// Measures computed on every scorer's pairs ([`controlled_study`]); KLS and JSS take
    /// [`ControlledOptions::distribution`]. On oriented pairs the indicator is kaneko2023's
    /// AUL, AULA, CPS or SSS score with those scorers, and is signed; KLS and JSS are not.
    pub pair_measures: Vec<MeasureSpec>,
    /// Bootstrap resamples of the evaluation items for the interval of ρ (0: no interval).
    pub bootstrap: usize,
    /// Confidence level of the interval, in (0, 1).
    pub confidence: f64,
    /// Seed of the `ChaCha8Rng` that draws the resamples.
    pub seed: u64,
    /// Aggregation and small-type policy of KLS and JSS.
    pub distribution: DistributionOptions,
}

impl Default for ControlledOptions {
    /// Indicator, KLS and JSS (authors' code); 1000 resamples; 95 %; seed 0; the paper's
    /// weighted KLS/JSS.
    fn default() -> Self {
        ControlledOptions {
            pair_measures: MeasureSpec::liu2024().to_vec(),
            bootstrap: 1000,
            confidence: 0.95,
            seed: 0,
            distribution: DistributionOptions::default(),
        }
    }
}

/// The bias-controlled meta-evaluation of kaneko2023 §2–3 on evaluations of models fine-tuned
/// at different rates of bias.
///
/// Evaluations are sorted by rate. For each scorer present in the pair tables and each of
/// `options.pair_measures`, the measure is computed on that scorer's rows at every rate, and
/// Spearman's ρ between rates and values is taken with its p-value (kaneko2023 Table 1). When
/// template scores are given, their mean per rate is the TBS row. The he/she probe is passed
/// through and checked for monotonicity (§3.4).
///
/// The interval of ρ is a percentile bootstrap over evaluation items, not over models (the
/// models are the experiment's design): each resample draws pair ids with replacement (uniform
/// over the scorer's sorted ids, `ChaCha8Rng::seed_from_u64(seed)`), applies the same draw to
/// every rate's table, recomputes each rate's value and ρ; TBS resamples template indices the
/// same way. Every scorer and TBS restart from `seed`, so the same draws serve every measure of
/// a scorer, and a seed gives the same report on every run and platform. Resamples where ρ is
/// undefined or a measure fails are counted in [`MeasureTrend::degenerate_resamples`](super::MeasureTrend::degenerate_resamples) and left
/// out; the bounds are numpy's linear percentiles of the rest.
///
/// # Errors
/// - [`RobustError::TooFewRates`] for fewer than 3 evaluations;
/// - [`RobustError::DuplicateRate`] when two evaluations share a rate;
/// - [`RobustError::PairIdMismatch`] when a scorer's pair ids differ between rates, or repeat
///   within one rate;
/// - [`RobustError::TemplateLengthMismatch`] for template vectors of different lengths;
/// - [`RobustError::InvalidParameter`] for a rate or probe outside [0, 1], a non-finite pair or
///   template score, or a confidence outside (0, 1);
/// - [`RobustError::Measure`] when a measure fails on a full table (a bias type with one pair
///   under `SmallTypePolicy::Error`).
pub fn controlled_study(
    evals: &[RateEvaluation],
    options: &ControlledOptions,
) -> Result<ControlledReport, RobustError> {
    let specs: Vec<MeasureSpec> = options
        .pair_measures
        .iter()
        .map(|s| {
            if s.is_distributional() {
                s.with_distribution(options.distribution)
            } else {
                *s
            }
        })
        .collect();
    let measures: Vec<StudyMeasure<'_>> = specs
        .iter()
        .map(|s| StudyMeasure {
            measure: s,
            signed: !s.is_distributional(),
        })
        .collect();
    controlled_study_with(evals, &measures, options)
}

/// [`controlled_study`] with any bias measures instead of `options.pair_measures` (which is
/// ignored; `options.distribution` is not applied to `measures`).
///
/// # Errors
/// As [`controlled_study`].
pub fn controlled_study_with(
    evals: &[RateEvaluation],
    measures: &[StudyMeasure<'_>],
    options: &ControlledOptions,
) -> Result<ControlledReport, RobustError> {
    check_options(options)?;
    let evals = sorted_evaluations(evals)?;
    let rates: Vec<f64> = evals.iter().map(|e| e.rate).collect();
    let mut rows = Vec::new();
    for scorer in scorers(&evals) {
        let aligned = align_scorer(&evals, &scorer)?;
        let resamples = draw_resamples(aligned[0].len(), options);
        for measure in measures {
            rows.push(pair_trend(
                &rates, &aligned, &scorer, *measure, &resamples, options,
            )?);
        }
    }
    if let Some(trend) = template_trend(&evals, &rates, options)? {
        rows.push(trend);
    }
    let probe = probes(&evals)?;
    Ok(ControlledReport {
        probe_he_monotonic: probe_monotonic(&probe),
        models: evals.iter().map(|e| e.model.clone()).collect(),
        rates,
        rows,
        probe,
        bootstrap: options.bootstrap,
        confidence: options.confidence,
        seed: options.seed,
    })
}

fn check_options(options: &ControlledOptions) -> Result<(), RobustError> {
    if !(options.confidence > 0.0 && options.confidence < 1.0) {
        return Err(RobustError::invalid(
            "confidence",
            options.confidence,
            "a level in (0, 1), such as 0.95",
        ));
    }
    Ok(())
}

/// The evaluations sorted by rate, after checking the rates.
fn sorted_evaluations(evals: &[RateEvaluation]) -> Result<Vec<&RateEvaluation>, RobustError> {
    if evals.len() < 3 {
        return Err(RobustError::TooFewRates { got: evals.len() });
    }
    for e in evals {
        if !(0.0..=1.0).contains(&e.rate) {
            return Err(RobustError::invalid(
                format!("rate of bias of model {:?}", e.model),
                e.rate,
                "a share of male sentences in [0, 1]",
            ));
        }
    }
    let mut sorted: Vec<&RateEvaluation> = evals.iter().collect();
    sorted.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    for w in sorted.windows(2) {
        if w[0].rate == w[1].rate {
            return Err(RobustError::DuplicateRate {
                rate: w[0].rate,
                first: w[0].model.clone(),
                second: w[1].model.clone(),
            });
        }
    }
    Ok(sorted)
}

/// Every scorer present in any rate's table, sorted.
fn scorers(evals: &[&RateEvaluation]) -> Vec<String> {
    let mut all: Vec<String> = evals
        .iter()
        .flat_map(|e| e.pairs.scorers())
        .map(str::to_owned)
        .collect();
    all.sort();
    all.dedup();
    all
}

/// Per rate, the scorer's rows ordered by pair id (the same ids at every rate), with every
/// text field dropped: the measures read scores and bias types only, and the bootstrap clones
/// rows millions of times (a clone of an empty `String` allocates nothing). Non-finite scores
/// are rejected here, while the pair id is still known.
fn align_scorer(
    evals: &[&RateEvaluation],
    scorer: &str,
) -> Result<Vec<Vec<ScoreRow>>, RobustError> {
    let mut reference: Option<Vec<String>> = None;
    let mut aligned = Vec::with_capacity(evals.len());
    for e in evals {
        let mismatch = |detail: String| RobustError::PairIdMismatch {
            scorer: scorer.to_owned(),
            rate: e.rate,
            reference_rate: evals[0].rate,
            detail,
        };
        let mut by_id: BTreeMap<&str, &ScoreRow> = BTreeMap::new();
        for row in e.pairs.rows().iter().filter(|r| r.scorer == scorer) {
            check_scores(row, e.rate)?;
            if by_id.insert(&row.pair_id, row).is_some() {
                return Err(mismatch(format!("pair id {:?} appears twice", row.pair_id)));
            }
        }
        let ids: Vec<String> = by_id.keys().map(|k| (*k).to_owned()).collect();
        match &reference {
            None => reference = Some(ids),
            Some(r) if *r != ids => return Err(mismatch(id_difference(r, &ids))),
            Some(_) => {}
        }
        aligned.push(by_id.values().map(|r| lean(r)).collect());
    }
    Ok(aligned)
}

fn lean(row: &ScoreRow) -> ScoreRow {
    ScoreRow {
        pair_id: String::new(),
        dataset: String::new().into(),
        bias_type: row.bias_type.clone(),
        direction: row.direction,
        stereo: String::new(),
        anti: String::new(),
        score_stereo: row.score_stereo,
        score_anti: row.score_anti,
        scorer: String::new().into(),
        model: String::new().into(),
        tokens_stereo: None,
        tokens_anti: None,
        group_id: None,
    }
}

fn check_scores(row: &ScoreRow, rate: f64) -> Result<(), RobustError> {
    for (column, v) in [
        ("score_stereo", row.score_stereo),
        ("score_anti", row.score_anti),
    ] {
        if !v.is_finite() {
            return Err(RobustError::invalid(
                format!(
                    "{column} of pair {:?} ({}, r = {rate})",
                    row.pair_id, row.scorer
                ),
                v,
                "a finite score",
            ));
        }
    }
    Ok(())
}

/// What differs between two sorted id lists, for an error message.
fn id_difference(reference: &[String], ids: &[String]) -> String {
    let r: HashSet<&String> = reference.iter().collect();
    let s: HashSet<&String> = ids.iter().collect();
    let first = |v: Vec<&&String>| v.iter().map(|s| s.as_str()).min().unwrap_or("").to_owned();
    let missing: Vec<&&String> = r.difference(&s).collect();
    let extra: Vec<&&String> = s.difference(&r).collect();
    format!(
        "{} pairs against {}; {} missing (first {:?}), {} extra (first {:?})",
        ids.len(),
        reference.len(),
        missing.len(),
        first(missing.clone()),
        extra.len(),
        first(extra.clone()),
    )
}
