//! `bias robust subsample`: stratified sub-sampling by bias type (liu2024, Robustness Study).

use std::io::Write;
use std::path::PathBuf;

use bias_metrics::MeasureSpec;
use bias_robust::{
    subsample_by_scorer, RobustError, RobustnessOptions, ScorerGrouping, SyncMeasure,
    LIU2024_DISTRIBUTION_SCORER,
};
use clap::Args;

use crate::data_args::Rates;
use crate::error::CliError;
use crate::output::{fixed, write_json, Format, Grid};
use crate::tables::read_slices;

/// Arguments of `bias robust subsample`.
#[derive(Debug, Args)]
pub struct SubsampleArgs {
    /// Score tables. Models are compared within one data set and one scorer: each (data set,
    /// scorer) is its own study, its models the slices' models.
    #[arg(long, required = true, num_args = 1..)]
    scores: Vec<PathBuf>,
    /// Only the rows of this scorer.
    #[arg(long)]
    scorer: Option<String>,
    /// Measures, comma-separated (indicator, kls, jss, jss-paper). The indicator runs on every
    /// scorer; KLS and JSS on the scorer of --kls-jss-scorer only.
    #[arg(long, value_delimiter = ',', default_value = "indicator,kls,jss")]
    measures: Vec<MeasureSpec>,
    #[command(flatten)]
    study: SubsampleStudyArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// The sub-sampling study's settings, as `bias robust subsample` and `bias report` take them.
#[derive(Debug, Args)]
pub struct SubsampleStudyArgs {
    /// The scorer whose scores KLS and JSS are computed on (liu2024 fits them to AUL scores); a
    /// data set without it gets the indicator only.
    #[arg(long, default_value = LIU2024_DISTRIBUTION_SCORER)]
    pub(crate) kls_jss_scorer: String,
    /// Rank every (model, scorer) slice of a data set against the others in one indicator study
    /// (liu2024 compares models within one scorer; without this flag, a request that needs it is
    /// refused).
    #[arg(long)]
    mix_scorers: bool,
    /// Sampling rates, `start:stop:step` or comma-separated (liu2024's 30 % … 80 %).
    #[arg(long, default_value = "0.3:0.8:0.1")]
    rates: Rates,
    /// Repeats per rate.
    #[arg(long, default_value_t = 100)]
    repeats: usize,
    /// Seed of the draws.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
}

impl SubsampleStudyArgs {
    /// Which scorer KLS and JSS read, and whether scorers mix in one study.
    pub(crate) fn grouping(&self) -> ScorerGrouping {
        ScorerGrouping {
            distribution_scorer: self.kls_jss_scorer.clone(),
            mix_scorers: self.mix_scorers,
        }
    }

    /// The rates, repeats and seed.
    pub(crate) fn options(&self) -> RobustnessOptions {
        RobustnessOptions {
            rates: self.rates.0.clone(),
            repeats: self.repeats,
            seed: self.seed,
        }
    }
}

/// The library's refusals of `subsample_by_scorer`, with the flags that answer them.
fn scorer_hint(e: RobustError) -> CliError {
    match e {
        RobustError::MixedScorers { .. } => CliError::Usage(format!(
            "{e} (--scorer NAME keeps one scorer; --mix-scorers ranks every (model, scorer) \
             slice against the others)"
        )),
        RobustError::MissingScorer { .. } => CliError::Usage(format!(
            "{e} (--kls-jss-scorer NAME computes KLS and JSS on another scorer; --measures \
             indicator leaves them out)"
        )),
        e => e.into(),
    }
}

/// Runs `bias robust subsample`.
pub fn run(a: &SubsampleArgs, out: &mut impl Write) -> Result<(), CliError> {
    let mut slices = Vec::new();
    for p in &a.scores {
        slices.extend(read_slices(p, a.scorer.as_deref())?);
    }
    let of_kind = |distributional: bool| -> Vec<SyncMeasure<'_>> {
        a.measures
            .iter()
            .filter(|m| m.is_distributional() == distributional)
            .map(|m| m as SyncMeasure<'_>)
            .collect()
    };
    let (pair, distribution) = (of_kind(false), of_kind(true));
    let (grouping, config) = (a.study.grouping(), a.study.options());
    let studies = subsample_by_scorer(&slices, &pair, &distribution, &grouping, &config)
        .map_err(scorer_hint)?;
    if a.format == Format::Json {
        return write_json(&studies, out);
    }
    let mut stats = Grid::new([
        "dataset", "scorer", "model", "measure", "rate", "n", "full", "mean", "sd", "2.5 %",
        "97.5 %",
    ]);
    let mut agree = Grid::new([
        "dataset",
        "scorer",
        "measure",
        "rate",
        "full-data order",
        "order by mean",
        "same order",
        "Kendall τ",
        "single draws keeping it",
    ]);
    let mut groups = Grid::new([
        "dataset",
        "scorer",
        "model",
        "rate",
        "full abs Δst − abs Δat",
        "mean",
        "sd",
        "mean Δsp",
    ]);
    for study in &studies {
        let scorer = study.scorers.join("+");
        let head = || vec![study.dataset.clone(), scorer.clone()];
        let report = &study.report;
        for m in &report.measure_stats {
            let mut row = head();
            row.extend([
                m.model.clone(),
                m.measure.clone(),
                fixed(m.rate, 2),
                m.n.to_string(),
                fixed(m.full, 2),
                fixed(m.summary.mean, 2),
                fixed(m.summary.sd, 3),
                fixed(m.summary.q025, 2),
                fixed(m.summary.q975, 2),
            ]);
            stats.push(row);
        }
        for r in &report.rank_agreement {
            let mut row = head();
            row.extend([
                r.measure.clone(),
                fixed(r.rate, 2),
                r.full_order.join(" > "),
                r.mean_order.join(" > "),
                if r.mean_order_kept { "yes" } else { "no" }.to_owned(),
                r.kendall_tau.map_or("n/a".into(), |t| fixed(t, 3)),
                format!(
                    "{}/{} ({:.0} %)",
                    r.agreeing,
                    r.repeats,
                    100.0 * r.agreement
                ),
            ]);
            agree.push(row);
        }
        for s in &report.score_groups {
            let mut row = head();
            row.extend([
                s.model.clone(),
                fixed(s.rate, 2),
                fixed(s.full, 4),
                fixed(s.delta_difference.mean, 4),
                fixed(s.delta_difference.sd, 4),
                fixed(s.shift, 4),
            ]);
            groups.push(row);
        }
    }
    if a.format == Format::Csv {
        return stats.write_csv(out);
    }
    stats.write_table(out)?;
    writeln!(out)?;
    agree.write_table(out)?;
    writeln!(out)?;
    groups.write_table(out)
}
