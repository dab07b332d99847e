//! The sections of `bias report` after its summary: the measures in full, the score
//! distributions, agreement with human annotations, correlations and StereoSet's own scores.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bias_core::ScoreSlice;
use bias_metrics::MeasureSpec;
use bias_report::figures;
use bias_report::report::{file_part, stereoset_heat, Section, StereoSetColumn};
use bias_robust::summary::scorer_rank;
use bias_robust::{
    correlate_measures, human_agreement, records_scored_in, CorrelateOptions, DEFAULT_MIN_MATCHING,
};

use crate::error::CliError;
use crate::output::fixed;

/// Per slice, `(label, measure → overall value)`: what the correlation section takes.
pub(super) type PerModel = Vec<(String, BTreeMap<String, f64>)>;

fn label(s: &ScoreSlice) -> String {
    format!("{} · {} · {}", s.model, s.scorer, s.dataset)
}

/// Every measure of `measures` on every slice, overall and per bias type, as one long table
/// behind a collapsible line; and the overall values per slice.
pub(super) fn measures(
    slices: &[ScoreSlice],
    measures: &[MeasureSpec; 3],
) -> Result<(Section, PerModel), CliError> {
    let mut rows = Vec::new();
    let mut per_model = Vec::new();
    for s in slices {
        let ms: Vec<_> = measures
            .iter()
            .map(|m| m.measure(&s.table))
            .collect::<Result<_, _>>()?;
        per_model.push((
            label(s),
            ms.iter().map(|m| (m.measure.clone(), m.value)).collect(),
        ));
        let mut push = |ty: String, n: usize, v: [f64; 3]| {
            let mut row = vec![label(s), ty, n.to_string()];
            row.extend(v.iter().map(|&x| fixed(x, 2)));
            rows.push(row);
        };
        push(
            "all".into(),
            ms[0].n,
            [ms[0].value, ms[1].value, ms[2].value],
        );
        for (ty, tv) in &ms[0].by_type {
            push(
                ty.to_string(),
                tv.n,
                [tv.value, ms[1].by_type[ty].value, ms[2].by_type[ty].value],
            );
        }
    }
    let section = Section::new("Bias measures")
        .text(
            "Indicator (liu2024 Eq. 2; no bias = 50), KLS (Eq. 6; no bias = 50) and JSS as the \
             authors compute it (Eq. 9; no bias = 100), weighted by bias type (Eqs. 10–11), on \
             every scorer's scores (the summary shows KLS and JSS on the scorer liu2024 fits \
             them to).",
        )
        .details(
            format!("Every slice and bias type ({} rows)", rows.len()),
            Section::default().table(
                &["scores", "bias type", "n", "indicator", "KLS", "JSS"],
                rows,
            ),
        );
    Ok((section, per_model))
}

/// One small-multiples figure per data set: rows = scorers, columns = models (liu2024 Fig. 2).
pub(super) fn densities(slices: &[ScoreSlice], fig_dir: &Path) -> Result<Section, CliError> {
    let mut section = Section::new("Score distributions").text(
        "Kernel densities of the stereotypical and anti-stereotypical scores, with the Gaussians \
         KLS and JSS fit to them (dashed): one row per scorer (each row on its own axes, shared \
         by its models), one column per model.",
    );
    let mut by_dataset: BTreeMap<&str, Vec<&ScoreSlice>> = BTreeMap::new();
    for s in slices {
        by_dataset.entry(&s.dataset).or_default().push(s);
    }
    for (dataset, mut group) in by_dataset {
        // Rows in the papers' order of the scorers, as in the summary (a stable sort).
        group.sort_by_key(|s| scorer_rank(&s.scorer));
        let stem = fig_dir.join(format!("densities_{}", file_part(dataset)));
        figures::score_density_grid(&group, &format!("Score distributions: {dataset}"), &stem)?;
        section = section.figure(stem, format!("Score distributions on {dataset}"));
    }
    Ok(section)
}

/// Agreement with human annotations (kaneko2022) of the CrowS-Pairs slices, when the data set
/// file with its annotations is at `crows_path`.
pub(super) fn human(
    slices: &[ScoreSlice],
    crows_path: &Path,
    fig_dir: &Path,
) -> Result<Option<Section>, CliError> {
    let crows_slices: Vec<&ScoreSlice> = slices
        .iter()
        .filter(|s| s.dataset == "crows-pairs")
        .collect();
    if crows_slices.is_empty() || !crows_path.is_file() {
        return Ok(None);
    }
    let crows = bias_data::crows_pairs::read_crows_pairs_path(crows_path)?;
    let mut results = Vec::new();
    for s in &crows_slices {
        let records = records_scored_in(&crows, &s.table);
        results.push((
            label(s),
            human_agreement(&records, &s.table, DEFAULT_MIN_MATCHING)?,
        ));
    }
    let path = fig_dir.join("roc_human_agreement");
    let curves: Vec<(&str, &bias_metrics::stats::RocCurve, f64)> = results
        .iter()
        .map(|(l, h)| (l.as_str(), &h.roc, h.auc))
        .collect();
    figures::roc_curves(&curves, &path)?;
    let rows = results
        .iter()
        .map(|(l, h)| {
            vec![
                l.clone(),
                format!("{} / {}", h.biased, h.not_biased),
                fixed(h.auc, 4),
            ]
        })
        .collect();
    Ok(Some(
        Section::new("Agreement with human annotations")
            .text(
                "A pair counts as biased when at least 3 of its 5 validators name its bias type \
                 (kaneko2022); ROC of the score difference score(stereo) − score(anti). AUC 0.5 \
                 = no agreement with the annotators; 1 = the scores separate the pairs they \
                 call biased perfectly.",
            )
            .table(&["scores", "biased / not biased", "AUC"], rows)
            .figure(path, "ROC curves"),
    ))
}

/// Pearson correlation of the measures across slices (liu2024 Fig. 4), with 4 or more.
pub(super) fn correlation(
    per_model: &PerModel,
    fig_dir: &Path,
) -> Result<Option<Section>, CliError> {
    if per_model.len() < 4 {
        return Ok(None);
    }
    let corr = correlate_measures(per_model, &CorrelateOptions::default())?;
    let path = fig_dir.join("measure_correlation");
    figures::correlation_heatmap(&corr, &path)?;
    Ok(Some(
        Section::new("Correlation between measures")
            .text("Pearson correlation of the measures across the models.")
            .figure(path, "Pearson r"),
    ))
}

/// SS, LMS and ICAT per scorer of every StereoSet score table given that has the table of
/// comparisons with the unrelated sentence next to it (`stereoset.unrelated.csv`, written by
/// `bias evaluate`), when the StereoSet file is under `data_dir`.
pub(super) fn stereoset(
    scores: &[PathBuf],
    data_dir: &std::path::Path,
) -> Result<Option<Section>, CliError> {
    let data = bias_data::layout::stereoset_dev(data_dir);
    let mut rows = Vec::new();
    // (model, scorer, scores) of every table, for the heat map.
    let mut all: Vec<(String, String, bias_metrics::StereoSetScores)> = Vec::new();
    for path in scores {
        let unrelated_path = crate::commands::evaluate::stereoset_out(path);
        if !unrelated_path.is_file() || !data.is_file() {
            continue;
        }
        let table = bias_core::ScoreTable::read_csv_path(path)?;
        if !table.rows().iter().any(|r| r.dataset == "stereoset") {
            continue;
        }
        let unrelated = bias_core::ScoreTable::read_csv_path(&unrelated_path)?;
        // Only the items this run scored (a `--limit` run scores the first ones).
        let scored: std::collections::HashSet<&str> =
            table.rows().iter().map(|r| r.pair_id.as_str()).collect();
        let triples: Vec<_> = bias_data::stereoset::read_stereoset_triples(
            &data,
            bias_data::stereoset::Section::Intrasentence,
        )?
        .into_iter()
        .filter(|t| scored.contains(t.id.as_str()))
        .collect();
        let model = table
            .models()
            .into_iter()
            .next()
            .unwrap_or_default()
            .to_owned();
        for (scorer, s) in bias_robust::stereoset_by_scorer(&triples, &table, &unrelated) {
            let domains = std::iter::once(("overall", &s.scores.overall))
                .chain(s.scores.by_domain.iter().map(|(d, v)| (d.as_str(), v)));
            for (domain, v) in domains {
                rows.push(vec![
                    format!("{model} · {scorer}"),
                    domain.to_owned(),
                    format!("{} / {}", v.n_items, v.n_targets),
                    fixed(v.ss, 2),
                    fixed(v.lms, 2),
                    fixed(v.icat, 2),
                ]);
            }
            all.push((model.clone(), scorer, s.scores));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let columns: Vec<StereoSetColumn<'_>> = all
        .iter()
        .map(|(model, scorer, scores)| StereoSetColumn {
            model,
            scorer,
            scores,
        })
        .collect();
    Ok(Some(
        Section::new("StereoSet scores (SS, LMS, ICAT)")
            .text("StereoSet's own scores as its evaluation code aggregates them (Nadeem et al. 2021): per target term, then the mean over terms; ICAT = LMS · min(SS, 100 − SS) / 50 from the means. SS 50 = no preference, LMS 100 = meaningful sentences always above the unrelated one, ICAT 100 = both. Each comparison is scored as its own pair. The indicator of the summary is the per-pair share of stereotype over anti-stereotype (Kaneko & Bollegala 2022), a different number.")
            .heat(stereoset_heat(&columns))
            .details(
                format!("Every model, scorer and domain ({} rows)", rows.len()),
                Section::default()
                    .table(&["scores", "domain", "items / targets", "SS", "LMS", "ICAT"], rows),
            ),
    ))
}
