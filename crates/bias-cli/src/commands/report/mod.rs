//! `bias report`: one HTML page (and a Markdown copy) that opens with a summary (per data set, a
//! heat map of bias type × measure with bootstrap intervals, one column per model), then, with
//! several models, the models ranked by each measure and the robustness of that order; then
//! StereoSet's own scores, the measures in full, score distributions, robustness to
//! sub-sampling, agreement with human annotations, correlations and paraphrase agreement. Every
//! number and figure comes from `bias-metrics` and `bias-robust`.

mod sections;
mod tasks;

use std::io::Write;
use std::path::PathBuf;

use bias_metrics::{BootstrapOptions, MeasureSpec, PairedOptions};
use bias_report::report::{
    models_section, subsample_for_report, subsample_sections, summary_section, Report,
};
use bias_robust::compare::{compare_models, CompareOptions};
use bias_robust::summary::{summarize, SummaryOptions};
use bias_robust::{RobustError, SyncMeasure};
use clap::Args;

use crate::commands::measure::TestSettings;
use crate::commands::robust::subsample::SubsampleStudyArgs;
use crate::data_args::CrowsArgs;
use crate::error::CliError;
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
    #[command(flatten)]
    study: SubsampleStudyArgs,
    /// Stratified bootstrap replicates of the summary's 95 % intervals (0: no intervals).
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    #[command(flatten)]
    tests: TestSettings,
    /// Model A of the paired comparisons (its `model` column); default: the first model met.
    #[arg(long)]
    baseline: Option<String>,
    /// Folders written by `bias task ... --out` (bbq.json, winogender.json,
    /// `stereoset-<split>.json`): a section per benchmark.
    #[arg(long, num_args = 1..)]
    tasks: Vec<PathBuf>,
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
    // `measures` is [indicator, KLS, JSS]: the pair measure, then the distribution measures.
    let (pair, distribution) = measures.split_at(1);
    let pair: Vec<SyncMeasure<'_>> = pair.iter().map(|m| m as SyncMeasure<'_>).collect();
    let distribution: Vec<SyncMeasure<'_>> =
        distribution.iter().map(|m| m as SyncMeasure<'_>).collect();
    let cmdline: Vec<String> = std::env::args().collect();
    let mut report = Report::new("Bias measurement report").provenance(
        cmdline.join(" "),
        &[
            ("bias", env!("CARGO_PKG_VERSION")),
            ("bias-metrics", env!("CARGO_PKG_VERSION")),
            ("bias-robust", env!("CARGO_PKG_VERSION")),
        ],
    );

    // 1. The summary: per data set, every measure overall and per bias type, with bootstrap
    //    intervals, one column per model.
    let bootstrap = (a.bootstrap > 0).then(|| BootstrapOptions {
        replicates: a.bootstrap,
        seed: a.study.seed,
        ..BootstrapOptions::default()
    });
    let summary_options = SummaryOptions {
        bootstrap,
        distribution_scorer: a.study.kls_jss_scorer.clone(),
        permutation: a.tests.permutation(a.study.seed),
        family: a.tests.family(),
    };
    let summaries = summarize(&slices, &pair, &distribution, &summary_options)?;
    report.push(summary_section(&summaries, &interval_text(a)));

    // 2. Robustness to sub-sampling (liu2024, Robustness Study, Fig. 5): one study per (data
    //    set, scorer), as `bias robust subsample`; KLS and JSS on AUL scores only, a data set
    //    without them getting the indicator only (said in the report). With several models,
    //    the summary's comparison of the models uses its order agreement.
    let (grouping, config) = (a.study.grouping(), a.study.options());
    let run = subsample_for_report(&slices, &pair, &distribution, &grouping, &config).map_err(
        |e| match e {
            bias_report::ReportError::Robust(RobustError::MixedScorers { .. }) => {
                CliError::Usage(format!(
                "{e} (--mix-scorers ranks every (model, scorer) slice against the others; or give \
                 only tables of models scored with the same scorers)"
            ))
            }
            e => e.into(),
        },
    )?;
    let compared = compare_models(
        &slices,
        &measures,
        Some(&a.study.kls_jss_scorer),
        &CompareOptions {
            paired: PairedOptions {
                bootstrap: BootstrapOptions {
                    // The paired interval is the point of the comparison: drawn even when the
                    // summary has none.
                    replicates: if a.bootstrap == 0 { 1000 } else { a.bootstrap },
                    seed: a.study.seed,
                    ..BootstrapOptions::default()
                },
                permutation: a.tests.permutation(a.study.seed),
            },
            family: a.tests.family(),
            baseline: a.baseline.clone(),
        },
    );
    // Tables not on the same pairs leave the report without paired differences, saying why.
    let compared = compared.map_err(|e| e.to_string());
    let comparisons = compared.as_deref().map_err(String::as_str);
    if let Some(section) = models_section(&summaries, comparisons, Some(&run)) {
        report.push(section);
    }

    // 3. StereoSet's own scores (Nadeem et al. 2021) for StereoSet tables that `bias evaluate`
    //    wrote with their comparisons with the unrelated sentence.
    if let Some(section) = sections::stereoset(&a.scores, &a.crows.data_dir)? {
        report.push(section);
    }

    // 4. The measures per slice and bias type, in full; 5. score distributions (liu2024 Fig. 2).
    let (full_table, per_model) = sections::measures(&slices, &measures)?;
    report.push(full_table);
    report.push(sections::densities(&slices, &fig_dir)?);

    // 6. The sub-sampling study's own sections.
    for section in subsample_sections(&run, Some(&fig_dir))? {
        report.push(section);
    }

    // 7. Agreement with human annotations (kaneko2022), for CrowS-Pairs tables.
    if let Some(section) = sections::human(&slices, &a.crows.path(), &fig_dir)? {
        report.push(section);
    }

    // 8. Correlation between measures across models (liu2024 Fig. 4): needs 4 or more models.
    if let Some(section) = sections::correlation(&per_model, &fig_dir)? {
        report.push(section);
    }

    // 9. Paraphrase agreement (the paraphrase-robustness study, Figures 2–4), for tables
    //    whose pairs are grouped with their paraphrases.
    let options = bias_robust::ParaphraseOptions::default();
    if let Some(section) = bias_report::paraphrase::report_section(&slices, &fig_dir, &options)? {
        report.push(section);
    }

    // 10. The benchmarks of `bias task` (BBQ, Winogender, StereoSet in full).
    if let Some(section) = tasks::sections(&a.tasks)? {
        report.push(section);
    }

    let files = report.write(&a.out)?;
    writeln!(out, "report: {}", files.html.display())?;
    writeln!(out, "markdown: {}", files.markdown.display())?;
    Ok(())
}

/// How the summary's intervals were drawn, in one sentence.
fn interval_text(a: &ReportArgs) -> String {
    match a.bootstrap {
        0 => "No intervals (--bootstrap 0).".to_owned(),
        b => format!(
            "Under each value, its 95 % percentile bootstrap interval ({b} replicates resampling \
             the pairs within each bias type, seed {}). Hover over a cell for its numbers, p and \
             adjusted p in words.",
            a.study.seed
        ),
    }
}
