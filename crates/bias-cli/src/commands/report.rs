//! `bias report`: one HTML page (and a Markdown copy) with the measures, score distributions,
//! robustness to sub-sampling, agreement with human annotations and correlations of the score
//! tables given. Every number and figure comes from `bias-metrics` and `bias-robust`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use bias_core::ScoreSlice;
use bias_metrics::MeasureSpec;
use bias_robust::figures;
use bias_robust::report::{file_part, subsample_for_report, subsample_sections, Report, Section};
use bias_robust::{
    correlate_measures, human_agreement, records_scored_in, CorrelateOptions, RobustError,
    RobustnessOptions, ScorerGrouping, SyncMeasure, DEFAULT_MIN_MATCHING,
    LIU2024_DISTRIBUTION_SCORER,
};
use clap::Args;

use crate::data_args::{CrowsArgs, Rates};
use crate::error::CliError;
use crate::output::fixed;
use crate::tables::read_slices;

/// Arguments of `bias report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Score tables; every (dataset, scorer, model) slice is reported.
    #[arg(long, required = true, num_args = 1..)]
    scores: Vec<PathBuf>,
    /// Output folder (index.html, report.md, figures).
    #[arg(long)]
    out: PathBuf,
    /// CrowS-Pairs with its annotations, for the human-agreement section.
    #[command(flatten)]
    crows: CrowsArgs,
    /// Sampling rates of the sub-sampling study, `start:stop:step` or comma-separated
    /// (liu2024's 30 % … 80 %).
    #[arg(long, default_value = "0.3:0.8:0.1")]
    rates: Rates,
    /// Repeats of the sub-sampling study.
    #[arg(long, default_value_t = 100)]
    repeats: usize,
    /// Seed of the sub-sampling study.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The scorer whose scores the sub-sampling study computes KLS and JSS on (liu2024 fits
    /// them to AUL scores); a data set without it gets the indicator only, with a note.
    #[arg(long, default_value = LIU2024_DISTRIBUTION_SCORER)]
    kls_jss_scorer: String,
    /// Rank every (model, scorer) slice of a data set against the others in one indicator
    /// study (liu2024 compares models within one scorer; without this flag, a set of tables that
    /// needs it is refused), as `bias robust subsample --mix-scorers`.
    #[arg(long)]
    mix_scorers: bool,
}

fn label(s: &ScoreSlice) -> String {
    format!("{} · {} · {}", s.model, s.scorer, s.dataset)
}

fn stem(s: &ScoreSlice) -> String {
    file_part(&format!("{}_{}_{}", s.model, s.scorer, s.dataset))
}

/// Runs `bias report`.
pub fn run(a: &ReportArgs, out: &mut impl Write) -> Result<(), CliError> {
    let mut slices = Vec::new();
    for p in &a.scores {
        slices.extend(read_slices(p, None)?);
    }
    let fig_dir = a.out.join("figures");
    std::fs::create_dir_all(&fig_dir).map_err(|e| bias_core::CoreError::io(&fig_dir, e))?;
    let measures = MeasureSpec::liu2024();
    let cmdline: Vec<String> = std::env::args().collect();
    let mut report = Report::new("Bias measurement report").provenance(
        cmdline.join(" "),
        &[
            ("bias", env!("CARGO_PKG_VERSION")),
            ("bias-metrics", env!("CARGO_PKG_VERSION")),
            ("bias-robust", env!("CARGO_PKG_VERSION")),
        ],
    );

    // 1. The measures per slice and bias type.
    let mut rows = Vec::new();
    let mut per_model: Vec<(String, BTreeMap<String, f64>)> = Vec::new();
    for s in &slices {
        let mut values = BTreeMap::new();
        let ms: Vec<_> = measures
            .iter()
            .map(|m| m.measure(&s.table))
            .collect::<Result<_, _>>()?;
        for m in &ms {
            values.insert(m.measure.clone(), m.value);
        }
        per_model.push((label(s), values));
        let mut push = |ty: String, n: usize, v: [f64; 3]| {
            rows.push(vec![
                label(s),
                ty,
                n.to_string(),
                fixed(v[0], 2),
                fixed(v[1], 2),
                fixed(v[2], 2),
            ]);
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
    report.push(
        Section::new("Bias measures")
            .text("Indicator (liu2024 Eq. 2; no bias = 50), KLS (Eq. 6; no bias = 50) and JSS as the authors compute it (Eq. 9; no bias = 100), weighted by bias type (Eqs. 10–11).")
            .table(&["scores", "bias type", "n", "indicator", "KLS", "JSS"], rows),
    );

    // 2. Score distributions with the fitted Gaussians (liu2024 Fig. 2).
    let mut dist = Section::new("Score distributions").text(
        "Kernel densities of the stereotypical and anti-stereotypical scores, with the Gaussians KLS and JSS fit to them (dashed).",
    );
    for s in &slices {
        let path = fig_dir.join(format!("density_{}", stem(s)));
        figures::score_densities(&s.table, &label(s), &path)?;
        dist = dist.figure(path, label(s));
    }
    report.push(dist);

    // 3. Robustness to sub-sampling (liu2024, Robustness Study, Fig. 5): one study per (data
    //    set, scorer), as `bias robust subsample`; KLS and JSS on AUL scores only, a data set
    //    without them getting the indicator only (said in the report).
    // `measures` is [indicator, KLS, JSS]: the pair measure, then the distribution measures.
    let (pair, distribution) = measures.split_at(1);
    let pair: Vec<SyncMeasure<'_>> = pair.iter().map(|m| m as SyncMeasure<'_>).collect();
    let distribution: Vec<SyncMeasure<'_>> =
        distribution.iter().map(|m| m as SyncMeasure<'_>).collect();
    let grouping = ScorerGrouping {
        distribution_scorer: a.kls_jss_scorer.clone(),
        mix_scorers: a.mix_scorers,
    };
    let config = RobustnessOptions {
        rates: a.rates.0.clone(),
        repeats: a.repeats,
        seed: a.seed,
    };
    let run = subsample_for_report(&slices, &pair, &distribution, &grouping, &config).map_err(
        |e| match e {
            RobustError::MixedScorers { .. } => CliError::Usage(format!(
                "{e} (--mix-scorers ranks every (model, scorer) slice against the others; or give \
                 only tables of models scored with the same scorers)"
            )),
            e => e.into(),
        },
    )?;
    for section in subsample_sections(&run, Some(&fig_dir))? {
        report.push(section);
    }

    // 4. Agreement with human annotations (kaneko2022), for CrowS-Pairs tables.
    let crows_slices: Vec<&ScoreSlice> = slices
        .iter()
        .filter(|s| s.dataset == "crows-pairs")
        .collect();
    let crows_path = a.crows.path();
    if !crows_slices.is_empty() && crows_path.is_file() {
        let crows = bias_data::crows_pairs::read_crows_pairs_path(&crows_path)?;
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
        report.push(
            Section::new("Agreement with human annotations")
                .text("A pair counts as biased when at least 3 of its 5 validators name its bias type (kaneko2022); ROC of the score difference score(stereo) − score(anti).")
                .table(&["scores", "biased / not biased", "AUC"], rows)
                .figure(path, "ROC curves"),
        );
    }

    // 4b. StereoSet's own scores (Nadeem et al. 2021) for StereoSet tables that `bias evaluate`
    //     wrote with their comparisons with the unrelated sentence.
    if let Some(section) = stereoset_section(&a.scores, &a.crows.data_dir)? {
        report.push(section);
    }

    // 5. Correlation between measures across models (liu2024 Fig. 4): needs 4 or more models.
    if per_model.len() >= 4 {
        let corr = correlate_measures(&per_model, &CorrelateOptions::default())?;
        let path = fig_dir.join("measure_correlation");
        figures::correlation_heatmap(&corr, &path)?;
        report.push(
            Section::new("Correlation between measures")
                .text("Pearson correlation of the measures across the models.")
                .figure(path, "Pearson r"),
        );
    }

    // 6. Paraphrase agreement (the paraphrase-robustness study, Figures 2–4), for tables
    //    whose pairs are grouped with their paraphrases.
    let options = bias_robust::ParaphraseOptions::default();
    if let Some(section) = bias_robust::paraphrase::report_section(&slices, &fig_dir, &options)? {
        report.push(section);
    }

    let files = report.write(&a.out)?;
    writeln!(out, "report: {}", files.html.display())?;
    writeln!(out, "markdown: {}", files.markdown.display())?;
    Ok(())
}

/// SS, LMS and ICAT per scorer of every StereoSet score table given that has the table of
/// comparisons with the unrelated sentence next to it (`stereoset.unrelated.csv`, written by
/// `bias evaluate`), when the StereoSet file is under `data_dir`.
fn stereoset_section(
    scores: &[PathBuf],
    data_dir: &std::path::Path,
) -> Result<Option<Section>, CliError> {
    let data = bias_data::layout::stereoset_dev(data_dir);
    let mut rows = Vec::new();
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
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    Ok(Some(
        Section::new("StereoSet scores (SS, LMS, ICAT)")
            .text("StereoSet's own scores as its evaluation code aggregates them (Nadeem et al. 2021): per target term, then the mean over terms; ICAT = LMS · min(SS, 100 − SS) / 50 from the means. SS 50 = no preference, LMS 100 = meaningful sentences always above the unrelated one, ICAT 100 = both. Each comparison is scored as its own pair. The indicator of the measures table above is the per-pair share of stereotype over anti-stereotype (Kaneko & Bollegala 2022), a different number.")
            .table(&["scores", "domain", "items / targets", "SS", "LMS", "ICAT"], rows),
    ))
}
