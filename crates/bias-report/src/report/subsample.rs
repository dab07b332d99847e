//! The sub-sampling sections of a report (liu2024, Robustness Study, Fig. 5).

use crate::ReportError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bias_core::ScoreSlice;

use super::{file_part, Section};
use crate::figures;
use crate::figures::CurvePanel;
use bias_robust::summary::scorer_rank;
use bias_robust::{
    subsample_by_scorer, RobustError, RobustnessOptions, ScorerGrouping, ScorerStudy, SyncMeasure,
};

/// The sub-sampling studies of a report (liu2024, Robustness Study): what
/// [`subsample_for_report`] ran, for [`subsample_sections`].
#[derive(Debug, Clone, PartialEq)]
pub struct SubsampleRun {
    /// One study per (data set, scorer), as [`subsample_by_scorer`] returns them (by data set,
    /// then scorer).
    pub studies: Vec<ScorerStudy>,
    /// One line per data set whose study left measures out, saying which and why (a data set
    /// without scores of the distribution scorer runs the pair measures only).
    pub notes: Vec<String>,
    /// How the slices were grouped.
    pub grouping: ScorerGrouping,
    /// The settings of every study.
    pub options: RobustnessOptions,
    /// The names of the distribution measures asked for (KLS, JSS).
    pub distribution_measures: Vec<String>,
}

/// liu2024's sub-sampling study (Robustness Study, Fig. 5) for a report: [`subsample_by_scorer`]
/// on each data set of `slices`, with its defaults, except that a data set with no slice of
/// `grouping.distribution_scorer` (AUL by default: liu2024 "Proposed Evaluation Measure" fits
/// KLS and JSS to AUL scores) is not refused: its studies run `pair_measures` only (the
/// indicator of Eq. 2) and [`SubsampleRun::notes`] says so. A data set left with no measure at
/// all gets a note and no study.
///
/// # Errors
/// [`RobustError::InvalidConfig`](bias_robust::RobustError::InvalidConfig) for no slices or no measures; otherwise as
/// [`subsample_by_scorer`] ([`RobustError::MixedScorers`](bias_robust::RobustError::MixedScorers) when, without
/// `grouping.mix_scorers`, a scorer has a single model while the data set has others).
pub fn subsample_for_report(
    slices: &[ScoreSlice],
    pair_measures: &[SyncMeasure<'_>],
    distribution_measures: &[SyncMeasure<'_>],
    grouping: &ScorerGrouping,
    options: &RobustnessOptions,
) -> Result<SubsampleRun, ReportError> {
    if slices.is_empty() {
        return Err(ReportError::from(RobustError::InvalidConfig(
            "no score slices".to_owned(),
        )));
    }
    if pair_measures.is_empty() && distribution_measures.is_empty() {
        return Err(ReportError::from(RobustError::InvalidConfig(
            "no measures to run".to_owned(),
        )));
    }
    let dist_names: Vec<String> = distribution_measures
        .iter()
        .map(|m| m.name().to_owned())
        .collect();
    let pair_names: Vec<String> = pair_measures
        .iter()
        .map(|m| match m.name() {
            "indicator" => "the indicator".to_owned(),
            name => name.to_owned(),
        })
        .collect();
    let mut by_dataset: BTreeMap<&str, Vec<ScoreSlice>> = BTreeMap::new();
    for s in slices {
        by_dataset.entry(&s.dataset).or_default().push(s.clone());
    }
    let dist = grouping.distribution_scorer.as_str();
    let mut studies = Vec::new();
    let mut notes = Vec::new();
    for (dataset, group) in &by_dataset {
        let has_dist = group.iter().any(|s| s.scorer == dist);
        let distribution: &[SyncMeasure<'_>] = if has_dist { distribution_measures } else { &[] };
        if !has_dist && !distribution_measures.is_empty() {
            let mut scorers: Vec<&str> = group.iter().map(|s| s.scorer.as_str()).collect();
            scorers.sort_unstable();
            scorers.dedup();
            let ran = if pair_measures.is_empty() {
                "so it has no sub-sampling study".to_owned()
            } else {
                format!(
                    "so its sub-sampling study runs {} only",
                    pair_names.join(", ")
                )
            };
            notes.push(format!(
                "Data set `{dataset}` has no `{dist}` scores (its scorers: {}): {}, computed on \
                 `{dist}` scores only (liu2024 fits them to AUL scores, Proposed Evaluation \
                 Measure), {} left out, {ran}.",
                scorers.join(", "),
                measure_list(&dist_names),
                if dist_names.len() == 1 { "is" } else { "are" },
            ));
        }
        if pair_measures.is_empty() && distribution.is_empty() {
            continue;
        }
        studies.extend(subsample_by_scorer(
            group,
            pair_measures,
            distribution,
            grouping,
            options,
        )?);
    }
    Ok(SubsampleRun {
        studies,
        notes,
        grouping: grouping.clone(),
        options: options.clone(),
        distribution_measures: dist_names,
    })
}

/// The stem [`subsample_sections`] draws the figure of `measure` on `dataset` to, under
/// `fig_dir`: `robustness_DATASET_MEASURE` (characters outside `[A-Za-z0-9-]` as `_`).
pub fn subsample_figure_stem(fig_dir: &Path, dataset: &str, measure: &str) -> PathBuf {
    fig_dir.join(format!(
        "robustness_{}_{}",
        file_part(dataset),
        file_part(measure)
    ))
}

/// The panels of a study: one per scorer (a study that mixes scorers is split by the
/// `(scorer)` its model names end with).
fn panels_of(study: &ScorerStudy) -> Vec<CurvePanel<'_>> {
    if study.scorers.len() == 1 {
        return vec![CurvePanel {
            title: study.scorers[0].to_uppercase(),
            report: &study.report,
            models: Vec::new(),
        }];
    }
    study
        .scorers
        .iter()
        .map(|scorer| {
            let suffix = format!(" ({scorer})");
            CurvePanel {
                title: scorer.to_uppercase(),
                report: &study.report,
                models: study
                    .report
                    .models
                    .iter()
                    .filter(|m| m.ends_with(&suffix))
                    .cloned()
                    .collect(),
            }
        })
        .filter(|p| !p.models.is_empty())
        .collect()
}

/// The data sets of `run`'s studies, in the order met.
fn datasets(run: &SubsampleRun) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for study in &run.studies {
        if !out.contains(&study.dataset.as_str()) {
            out.push(&study.dataset);
        }
    }
    out
}

/// Per measure of the studies of one data set, one figure with a panel per scorer
/// ([`figures::robustness_panels`]), added to `section`.
fn panel_figures(
    studies: &[&ScorerStudy],
    dataset: &str,
    dir: &Path,
    mut section: Section,
) -> Result<Section, ReportError> {
    let mut measures: Vec<&str> = Vec::new();
    for m in studies.iter().flat_map(|s| &s.report.measures) {
        if !measures.contains(&m.as_str()) {
            measures.push(m);
        }
    }
    for measure in measures {
        let mut panels: Vec<CurvePanel<'_>> = studies
            .iter()
            .filter(|s| s.report.measures.iter().any(|m| m == measure))
            .flat_map(|s| panels_of(s))
            .collect();
        // The papers' order of the scorers, as in the summary.
        panels.sort_by_key(|p| scorer_rank(&p.title.to_lowercase()));
        let stem = subsample_figure_stem(dir, dataset, measure);
        figures::robustness_panels(
            &panels,
            measure,
            &format!("{measure} under sub-sampling: {dataset}"),
            &stem,
        )?;
        section = section.figure(
            stem,
            format!(
                "{measure} under sub-sampling on {dataset}, one panel per scorer: per model the \
                 mean over the draws with its 2.5–97.5 % band, the full-data value dashed; red \
                 circles: rates at which the order by mean is not the full-data order"
            ),
        );
    }
    Ok(section)
}

/// The headers of the order table of [`subsample_sections`].
pub const SUBSAMPLE_ORDER_HEADERS: [&str; 7] = [
    "measure",
    "rate",
    "full-data order",
    "order by mean",
    "same order",
    "Kendall τ-b",
    "single draws keeping it",
];

/// The sections of a report on liu2024's sub-sampling study (Robustness Study, Fig. 5): an
/// overview (the sampling, the grouping, and [`SubsampleRun::notes`]) titled "Robustness to
/// sub-sampling", then one section per data set, "Sub-sampling on DATASET", with
///
/// - with `fig_dir`, one figure per measure with a panel per scorer
///   ([`figures::robustness_panels`], at [`subsample_figure_stem`]), red circles marking the
///   rates where a study's order by mean changes;
/// - per study (scorers in the papers' order), a line naming its scorers, models and measures,
///   and behind two collapsible lines:
///   - a table, per measure and rate (by measure, then rate), of the models' full-data order
///     (most biased first, by `|value − no bias|`), their order by the mean over the draws
///     (liu2024: "the average of the results of multiple sampling experiments"), whether it is
///     the full-data order (`yes` / `no`; a new tie is a change), Kendall's τ-b between the two
///     (`n/a` where undefined), and the single draws keeping the full-data order
///     (`k/R (p %)`): columns [`SUBSAMPLE_ORDER_HEADERS`], values as [`bias_robust::RankAgreement`];
///   - a table of each model's full-data value and mean at each rate (two decimals).
///
/// # Errors
/// The errors of [`figures::robustness_panels`] if a figure cannot be drawn.
pub fn subsample_sections(
    run: &SubsampleRun,
    fig_dir: Option<&Path>,
) -> Result<Vec<Section>, ReportError> {
    let c = &run.options;
    let rates: Vec<String> = c.rates.iter().map(|r| format!("{r:.2}")).collect();
    let dist = &run.grouping.distribution_scorer;
    let grouping = if run.grouping.mix_scorers {
        let dist_text = if run.distribution_measures.is_empty() {
            String::new()
        } else {
            format!(
                "; {} run in a study of the `{dist}` scores",
                measure_list(&run.distribution_measures)
            )
        };
        format!(
            "Every (model, scorer) slice of a data set is ranked against the others in one study \
             of the pair measures, as asked (liu2024 compares models within one scorer){dist_text}."
        )
    } else {
        let dist_text = if run.distribution_measures.is_empty() {
            String::new()
        } else {
            format!(
                "; {} on `{dist}` scores only (liu2024 fits them to AUL scores, Proposed \
                 Evaluation Measure)",
                measure_list(&run.distribution_measures)
            )
        };
        format!(
            "Models are compared within one data set and one scorer, as in liu2024 Fig. 5 (one \
             study per data set and scorer). The pair measures (the indicator, Eq. 2) run on \
             every scorer{dist_text}."
        )
    };
    let mut overview = Section::new("Robustness to sub-sampling")
        .text(format!(
            "liu2024, Robustness Study (Fig. 5): each data set is sub-sampled stratified by bias \
             type, ceil(n_k · rate) pairs of each type, at rates {}, with {} seeded draws per \
             rate (seed {}); the models of a study are drawn the same way.",
            rates.join(", "),
            c.repeats,
            c.seed
        ))
        .text(grouping)
        .text(
            "Per measure and rate, the tables give the models' order on the full data (most \
             biased first, by |value − no-bias value|), their order by the mean over the draws \
             (liu2024 averages \"multiple sampling experiments\") and whether it is the full-data \
             order (a new tie counts as a change; Fig. 5's red circles), Kendall's τ-b between \
             the two orders, and how many single draws keep the full-data order.",
        );
    for note in &run.notes {
        overview = overview.text(note.clone());
    }
    let mut sections = vec![overview];
    for dataset in datasets(run) {
        let mut studies: Vec<&ScorerStudy> = run
            .studies
            .iter()
            .filter(|s| s.dataset == dataset)
            .collect();
        studies.sort_by_key(|s| scorer_rank(&s.scorers.join(" + ")));
        let mut section = Section::new(format!("Sub-sampling on {dataset}"));
        if let Some(dir) = fig_dir {
            section = panel_figures(&studies, dataset, dir, section)?;
        }
        for study in studies {
            section = study_blocks(study, c, &rates, section);
        }
        sections.push(section);
    }
    Ok(sections)
}

/// The text and the two collapsible tables of one study, appended to `section`.
fn study_blocks(
    study: &ScorerStudy,
    c: &RobustnessOptions,
    rates: &[String],
    mut section: Section,
) -> Section {
    let report = &study.report;
    let scorers = study.scorers.join(" + ");
    section = section.text(format!(
        "Data set `{}`, scorer{} {}; models: {}; measures: {}.",
        study.dataset,
        if study.scorers.len() > 1 { "s" } else { "" },
        study
            .scorers
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", "),
        report.models.join(", "),
        report.measures.join(", ")
    ));
    if report.models.len() < 2 {
        section = section.text(
            "A single model: there is no order to keep, so every order is the full-data \
                 order. Score more models with this scorer to compare them.",
        );
    }
    // By measure (the study's order), then rate (the order of `options.rates`).
    let order_rows: Vec<Vec<String>> = report
        .measures
        .iter()
        .flat_map(|m| {
            report
                .rank_agreement
                .iter()
                .filter(move |r| &r.measure == m)
        })
        .map(|r| {
            vec![
                r.measure.clone(),
                format!("{:.2}", r.rate),
                r.full_order.join(" > "),
                r.mean_order.join(" > "),
                if r.mean_order_kept { "yes" } else { "no" }.to_owned(),
                r.kendall_tau
                    .map_or_else(|| "n/a".to_owned(), |t| format!("{t:.3}")),
                format!(
                    "{}/{} ({:.0} %)",
                    r.agreeing,
                    r.repeats,
                    100.0 * r.agreement
                ),
            ]
        })
        .collect();
    section = section.details(
        format!(
            "{scorers}: orders by measure and rate ({} rows)",
            order_rows.len()
        ),
        Section::default().table(&SUBSAMPLE_ORDER_HEADERS, order_rows),
    );
    let mut mean_headers = vec![
        "measure".to_owned(),
        "model".to_owned(),
        "full data".to_owned(),
    ];
    mean_headers.extend(rates.iter().map(|r| format!("mean at {r}")));
    let mut mean_rows = Vec::new();
    for measure in &report.measures {
        for model in &report.models {
            let mut row = vec![measure.clone(), model.clone()];
            let full = report
                .measure_stats
                .iter()
                .find(|m| &m.model == model && &m.measure == measure)
                .map_or(f64::NAN, |m| m.full);
            row.push(format!("{full:.2}"));
            for &rate in &c.rates {
                row.push(
                    report
                        .measure_at(model, measure, rate)
                        .map_or_else(String::new, |m| format!("{:.2}", m.summary.mean)),
                );
            }
            mean_rows.push(row);
        }
    }
    section = section.details(
        format!(
            "{scorers}: means by model and rate ({} rows)",
            mean_rows.len()
        ),
        Section::default().table(&mean_headers, mean_rows),
    );
    section
}

/// "KLS and JSS" from `["kls", "jss"]`; "no distribution measure" when empty.
fn measure_list(names: &[String]) -> String {
    let upper: Vec<String> = names.iter().map(|n| n.to_uppercase()).collect();
    match upper.as_slice() {
        [] => "no distribution measure".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
