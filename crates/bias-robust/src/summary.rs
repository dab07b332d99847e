//! The at-a-glance summary of score tables: per data set, every measure of every (model,
//! scorer) slice overall and per bias type, with stratified bootstrap 95 % intervals, and the
//! models ranked by each measure.
//!
//! The pair measures (the indicator, Kaneko & Bollegala 2022 Eq. 6 / liu2024 Eq. 2) run on
//! every scorer; the distribution measures (KLS and JSS, liu2024 Eqs. 6 and 9, weighted by bias
//! type, Eqs. 10–11) run on the scores of one scorer, AUL by default, as liu2024 fits them
//! ("Proposed Evaluation Measure"). `bias report` draws the result as its opening heat maps.
//!
//! ```
//! use bias_core::{BiasType, Direction, ScoreRow, ScoreSlice, ScoreTable};
//! use bias_metrics::{BootstrapOptions, MeasureSpec};
//! use bias_robust::summary::{summarize, SummaryOptions};
//!
//! let row = |i: usize, st: f64| ScoreRow {
//!     pair_id: i.to_string(), dataset: "toy".into(), bias_type: BiasType::Gender,
//!     direction: Direction::Stereo, stereo: "s".into(), anti: "a".into(),
//!     score_stereo: st, score_anti: -1.0, scorer: "cps".into(), model: "m".into(),
//!     tokens_stereo: None, tokens_anti: None, group_id: None,
//! };
//! let table = ScoreTable::new((0..8).map(|i| row(i, if i < 6 { -0.5 } else { -1.5 })).collect());
//! let slice = ScoreSlice { dataset: "toy".into(), scorer: "cps".into(), model: "m".into(), table };
//! let indicator = MeasureSpec::INDICATOR;
//! let options = SummaryOptions {
//!     bootstrap: Some(BootstrapOptions { replicates: 200, ..BootstrapOptions::default() }),
//!     ..SummaryOptions::default()
//! };
//! let summary = summarize(&[slice], &[&indicator], &[], &options)?;
//! let entry = &summary[0].entries[0];
//! assert_eq!(entry.measurement.value, 75.0); // 6 of 8 pairs prefer the stereotype
//! let interval = entry.overall.unwrap();
//! assert!(interval.lower < 75.0 && interval.upper > 75.0);
//! # Ok::<(), bias_robust::RobustError>(())
//! ```

use bias_core::Scorer;
use std::collections::BTreeMap;

use bias_core::{BiasType, Measurement, ScoreSlice};
use bias_metrics::stats::PermutationOptions;
use bias_metrics::{
    bootstrap_by_type, test_measure, BootstrapOptions, FamilyOptions, Interval, MeasureTest,
    NullTest, TestName, TieHandling, Verdict,
};
use serde::{Deserialize, Serialize};

use crate::{RobustError, SyncMeasure, LIU2024_DISTRIBUTION_SCORER};

/// The scorers of the papers, in the order their tables give them (Kaneko & Bollegala 2022
/// Table 3): a summary puts them first, any other scorer after them in the order met.
pub const SCORER_ORDER: [&str; 5] = [
    Scorer::Cps.name(),
    Scorer::Sss.name(),
    Scorer::Aul.name(),
    Scorer::Aula.name(),
    Scorer::AllMasked.name(),
];

/// The position of `scorer` in [`SCORER_ORDER`] (`SCORER_ORDER.len()` for any other), to sort
/// scorers as the papers list them (a stable sort keeps the others in the order met).
pub fn scorer_rank(scorer: &str) -> usize {
    SCORER_ORDER
        .iter()
        .position(|s| *s == scorer)
        .unwrap_or(SCORER_ORDER.len())
}

/// Settings of [`summarize`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryOptions {
    /// The bootstrap of every interval (stratified by bias type); `None`: no intervals.
    pub bootstrap: Option<BootstrapOptions>,
    /// The scorer whose scores the distribution measures are computed on.
    pub distribution_scorer: String,
    /// The flip sets of the sign-flip permutation test (KLS, JSS).
    pub permutation: PermutationOptions,
    /// The correction over each data set's family (every cell of its summary) and α.
    pub family: FamilyOptions,
}

impl Default for SummaryOptions {
    /// 1000 stratified replicates, 95 %, seed 0; distribution measures on AUL (liu2024).
    fn default() -> Self {
        SummaryOptions {
            bootstrap: Some(BootstrapOptions::default()),
            distribution_scorer: LIU2024_DISTRIBUTION_SCORER.to_owned(),
            permutation: PermutationOptions::default(),
            family: FamilyOptions::default(),
        }
    }
}

/// One measure of one (model, scorer) slice, with its intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryEntry {
    /// The scorer of the slice.
    pub scorer: String,
    /// The model of the slice.
    pub model: String,
    /// The measure on the full slice: overall value, per-type values, and `no_bias`.
    pub measurement: Measurement,
    /// The bootstrap interval of the overall value (`None`: no bootstrap, or it failed, said
    /// in [`DatasetSummary::notes`]).
    pub overall: Option<Interval>,
    /// The bootstrap interval of each bias type's value.
    pub by_type: BTreeMap<BiasType, Interval>,
    /// The test of every value and its verdict within the data set's family.
    pub tests: EntryTests,
}

/// The tests of one [`SummaryEntry`]: which test, and each value's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryTests {
    /// The test (the sign test for a measure named `indicator`, the sign-flip permutation
    /// test for any other).
    pub test: TestName,
    /// The overall value's verdict.
    pub overall: Verdict,
    /// Each bias type's verdict.
    pub by_type: BTreeMap<BiasType, Verdict>,
}

/// The multiplicity control of one data set's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryFamily {
    /// The correction and α.
    pub options: FamilyOptions,
    /// The number of tests: every value of every entry, overall and per bias type.
    pub size: usize,
    /// How many are significant after the correction.
    pub significant: usize,
}

impl SummaryFamily {
    /// One sentence: `"7 of 140 cells remain significant (Holm-adjusted p ≤ 0.05 …)."`.
    pub fn describe(&self) -> String {
        format!(
            "{} of {} cells significant ({}).",
            self.significant,
            self.size,
            self.options.describe(self.size)
        )
    }
}

/// The null test of a summary measure: the sign test for the indicator (a tie is not
/// stereotypical, liu2024 Eq. 2), the sign-flip permutation test for any other measure (valid
/// for every measure of a score table).
pub fn null_test_of(measure: &str) -> NullTest {
    if measure == "indicator" {
        NullTest::Sign {
            ties: TieHandling::NotStereotypical,
        }
    } else {
        NullTest::SignFlip
    }
}

/// Every measure of every slice of one data set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetSummary {
    /// The data set.
    pub dataset: String,
    /// The models, in the order of the slices given.
    pub models: Vec<String>,
    /// Per measure (in the order given, pair measures first), per scorer ([`SCORER_ORDER`]
    /// first), per model: one entry.
    pub entries: Vec<SummaryEntry>,
    /// What was left out and why (a missing distribution scorer, a failed bootstrap).
    pub notes: Vec<String>,
    /// The family every entry's tests were corrected in.
    pub family: SummaryFamily,
}

/// How one measure (on one scorer) orders the models of a data set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRanking {
    /// The measure's name.
    pub measure: String,
    /// The scorer.
    pub scorer: String,
    /// `(model, value)`, most biased first: by `|value − no_bias|`, descending (ties keep the
    /// models' order).
    pub order: Vec<(String, f64)>,
}

impl DatasetSummary {
    /// The entry of `measure` on (`scorer`, `model`).
    pub fn entry(&self, measure: &str, scorer: &str, model: &str) -> Option<&SummaryEntry> {
        self.entries
            .iter()
            .find(|e| e.measurement.measure == measure && e.scorer == scorer && e.model == model)
    }

    /// The `(measure, scorer)` columns of the summary, in entry order.
    pub fn columns(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for e in &self.entries {
            let key = (e.measurement.measure.clone(), e.scorer.clone());
            if !out.contains(&key) {
                out.push(key);
            }
        }
        out
    }

    /// Every bias type of any entry, sorted.
    pub fn bias_types(&self) -> Vec<BiasType> {
        let mut types: Vec<BiasType> = self
            .entries
            .iter()
            .flat_map(|e| e.measurement.by_type.keys().cloned())
            .collect();
        types.sort();
        types.dedup();
        types
    }

    /// For each column with two or more models, the models ordered by that measure, most
    /// biased first (liu2024 Table 2 ranks models this way).
    pub fn rankings(&self) -> Vec<ModelRanking> {
        self.columns()
            .into_iter()
            .filter_map(|(measure, scorer)| {
                let mut order: Vec<(String, f64, f64)> = self
                    .models
                    .iter()
                    .filter_map(|m| self.entry(&measure, &scorer, m))
                    .map(|e| {
                        (
                            e.model.clone(),
                            e.measurement.value,
                            e.measurement.deviation(),
                        )
                    })
                    .collect();
                if order.len() < 2 {
                    return None;
                }
                order.sort_by(|a, b| b.2.total_cmp(&a.2));
                Some(ModelRanking {
                    measure,
                    scorer,
                    order: order.into_iter().map(|(m, v, _)| (m, v)).collect(),
                })
            })
            .collect()
    }
}

/// The summary of `slices`, one [`DatasetSummary`] per data set (sorted by name): every
/// `pair_measures` on every slice, every `distribution_measures` on the slices of
/// `options.distribution_scorer`, each with the stratified percentile bootstrap interval of
/// its overall value and of every bias type's value ([`bias_metrics::bootstrap_by_type`]: all
/// measures of a slice on one set of replicates, so the same seed gives the intervals
/// `bias measure --bootstrap` gives).
///
/// A bootstrap that fails on a replicate (a resample of a small bias type whose scores all
/// repeat one pair, which KLS and JSS cannot fit) leaves that slice without intervals and adds
/// a note naming it; the values stand.
///
/// # Errors
/// [`RobustError::InvalidConfig`] for no slices or no measures; [`RobustError::Measure`] when
/// a measure fails on a full slice (named by measure, model, scorer and data set).
pub fn summarize(
    slices: &[ScoreSlice],
    pair_measures: &[SyncMeasure<'_>],
    distribution_measures: &[SyncMeasure<'_>],
    options: &SummaryOptions,
) -> Result<Vec<DatasetSummary>, RobustError> {
    if slices.is_empty() {
        return Err(RobustError::InvalidConfig("no score slices".to_owned()));
    }
    if pair_measures.is_empty() && distribution_measures.is_empty() {
        return Err(RobustError::InvalidConfig("no measures to run".to_owned()));
    }
    let mut by_dataset: BTreeMap<&str, Vec<&ScoreSlice>> = BTreeMap::new();
    for s in slices {
        by_dataset.entry(&s.dataset).or_default().push(s);
    }
    by_dataset
        .into_iter()
        .map(|(dataset, group)| {
            summarize_dataset(
                dataset,
                &group,
                pair_measures,
                distribution_measures,
                options,
            )
        })
        .collect()
}

fn summarize_dataset(
    dataset: &str,
    slices: &[&ScoreSlice],
    pair_measures: &[SyncMeasure<'_>],
    distribution_measures: &[SyncMeasure<'_>],
    options: &SummaryOptions,
) -> Result<DatasetSummary, RobustError> {
    let mut models: Vec<String> = Vec::new();
    for s in slices {
        if !models.contains(&s.model) {
            models.push(s.model.clone());
        }
    }
    let dist = options.distribution_scorer.as_str();
    let mut notes = Vec::new();
    if !distribution_measures.is_empty() && !slices.iter().any(|s| s.scorer == dist) {
        notes.push(format!(
            "No `{dist}` scores for `{dataset}`: {} left out (liu2024 fits them to AUL scores).",
            distribution_measures
                .iter()
                .map(|m| m.name().to_uppercase())
                .collect::<Vec<_>>()
                .join(" and ")
        ));
    }
    // (measure index, slice entry) so the entries can be ordered by measure, scorer, model.
    let mut keyed: Vec<(usize, SummaryEntry)> = Vec::new();
    for s in slices {
        let measures: Vec<(usize, SyncMeasure<'_>)> = pair_measures
            .iter()
            .copied()
            .enumerate()
            .chain(if s.scorer == dist {
                distribution_measures
                    .iter()
                    .copied()
                    .enumerate()
                    .map(|(i, m)| (pair_measures.len() + i, m))
                    .collect()
            } else {
                Vec::new()
            })
            .collect();
        let entries = slice_entries(s, &measures, options, &mut notes)?;
        keyed.extend(entries);
    }
    let first_seen: Vec<&str> = slices.iter().map(|s| s.scorer.as_str()).collect();
    let seen = |scorer: &str| first_seen.iter().position(|s| *s == scorer);
    let model_rank = |model: &str| models.iter().position(|m| m == model);
    keyed.sort_by_key(|(i, e)| {
        (
            *i,
            scorer_rank(&e.scorer),
            seen(&e.scorer),
            model_rank(&e.model),
        )
    });
    let mut entries: Vec<SummaryEntry> = keyed.into_iter().map(|(_, e)| e).collect();
    let family = adjust_family(&mut entries, &options.family)?;
    Ok(DatasetSummary {
        dataset: dataset.to_owned(),
        models,
        entries,
        notes,
        family,
    })
}

/// Replaces each entry's raw p-values (in [`EntryTests`], unadjusted) by their verdicts within
/// the family of all entries.
fn adjust_family(
    entries: &mut [SummaryEntry],
    options: &FamilyOptions,
) -> Result<SummaryFamily, RobustError> {
    let p: Vec<f64> = entries
        .iter()
        .flat_map(|e| {
            std::iter::once(e.tests.overall.p_value)
                .chain(e.tests.by_type.values().map(|v| v.p_value))
        })
        .collect();
    let mut verdicts = options.verdicts(&p)?.into_iter();
    for e in entries.iter_mut() {
        e.tests.overall = verdicts.next().expect("one verdict per value");
        for v in e.tests.by_type.values_mut() {
            *v = verdicts.next().expect("one verdict per value");
        }
    }
    let significant = entries
        .iter()
        .map(|e| {
            usize::from(e.tests.overall.significant)
                + e.tests.by_type.values().filter(|v| v.significant).count()
        })
        .sum();
    Ok(SummaryFamily {
        options: *options,
        size: p.len(),
        significant,
    })
}

/// Unadjusted verdicts (p_adjusted = p) from a test, to be adjusted over the family.
fn raw_tests(test: &MeasureTest) -> EntryTests {
    let raw = |p: f64| Verdict {
        p_value: p,
        p_adjusted: p,
        significant: false,
    };
    EntryTests {
        test: test.test,
        overall: raw(test.overall.p_value),
        by_type: test
            .by_type
            .iter()
            .map(|(t, v)| (t.clone(), raw(v.p_value)))
            .collect(),
    }
}

/// The entries of one slice: every measure, with intervals from one bootstrap.
fn slice_entries(
    s: &ScoreSlice,
    measures: &[(usize, SyncMeasure<'_>)],
    options: &SummaryOptions,
    notes: &mut Vec<String>,
) -> Result<Vec<(usize, SummaryEntry)>, RobustError> {
    let name = || format!("{} · {} on {}", s.model, s.scorer, s.dataset);
    let mut entries = Vec::new();
    for (i, m) in measures {
        let measurement = m
            .measure_any(&s.table)
            .map_err(|source| RobustError::Measure {
                what: format!("{} of {}", m.name(), name()),
                source,
            })?;
        let test = test_measure(*m, null_test_of(m.name()), &s.table, &options.permutation)
            .map_err(|source| RobustError::Measure {
                what: format!("the test of {} of {}", m.name(), name()),
                source: Box::new(source),
            })?;
        entries.push((
            *i,
            SummaryEntry {
                scorer: s.scorer.clone(),
                model: s.model.clone(),
                measurement,
                overall: None,
                by_type: BTreeMap::new(),
                tests: raw_tests(&test),
            },
        ));
    }
    let Some(bootstrap) = &options.bootstrap else {
        return Ok(entries);
    };
    let any: Vec<&dyn bias_core::AnyMeasure> = measures
        .iter()
        .map(|(_, m)| *m as &dyn bias_core::AnyMeasure)
        .collect();
    match bootstrap_by_type(&any, &s.table, bootstrap) {
        Ok(intervals) => {
            for ((_, entry), b) in entries.iter_mut().zip(intervals) {
                entry.overall = Some(b.overall);
                entry.by_type = b.by_type;
            }
        }
        Err(e) => notes.push(format!(
            "No bootstrap intervals for {}: {e}{}",
            name(),
            std::error::Error::source(&e).map_or_else(String::new, |s| format!(" ({s})"))
        )),
    }
    Ok(entries)
}
