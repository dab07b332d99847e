//! `bias measure`: indicator, KLS and JSS on a score table.

use std::io::Write;
use std::path::PathBuf;

use std::collections::BTreeMap;

use bias_metrics::slices::{measure_slices, SliceMeasurement, SliceOptions, Tested};
use bias_metrics::stats::{Correction, PermutationOptions};
use bias_metrics::{
    Aggregation, BootstrapOptions, DistributionOptions, FamilyOptions, IndicatorOptions,
    JssVariant, MeasureSpec, MetricsError, Rounding, SmallTypePolicy, TestName, TieHandling,
};
use clap::Args;

use crate::choice::choice;
use crate::error::CliError;
use crate::output::{fixed, write_json, Format, Grid};
use crate::tables::{in_slice, read_all_slices};

/// The measures and their settings, shared by `bias measure` and `bias compare`.
#[derive(Debug, Args)]
pub struct MeasureSettings {
    /// Measures to compute, comma-separated: indicator, kls, jss (the authors' code) or
    /// jss-paper (the paper's text).
    #[arg(long, value_delimiter = ',', default_value = "indicator,kls,jss")]
    pub measures: Vec<MeasureSpec>,
    /// JSS computation (`--measures jss-paper` is the same as `jss` with `--jss paper`).
    #[arg(long, value_parser = choice::<JssVariant>(), default_value = "authors")]
    jss: JssVariant,
    /// Tie reporting of the indicator.
    #[arg(long, value_parser = choice::<TieHandling>(), default_value = "strict")]
    ties: TieHandling,
    /// How KLS / JSS combine bias types.
    #[arg(long, value_parser = choice::<Aggregation>(), default_value = "weighted")]
    aggregation: Aggregation,
    /// What KLS / JSS do with a bias type that has a single pair.
    #[arg(long, value_parser = choice::<SmallTypePolicy>(), default_value = "error")]
    small_types: SmallTypePolicy,
}

/// The tests' settings, shared by `bias measure` and `bias compare`.
#[derive(Debug, Args)]
pub struct TestSettings {
    /// Multiplicity correction over the family (every value this call reports for one data
    /// set: every measure, scorer and model, overall and per bias type): holm (family-wise
    /// error), bh (Benjamini–Hochberg false discovery rate) or none.
    #[arg(long, default_value = "holm", value_parser = parse_correction)]
    pub correction: Correction,
    /// Level α: a value is significant when its adjusted p is at most α.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Random flip sets of the sign-flip permutation tests (every flip set is enumerated
    /// instead when 2^n is not more); p = (1 + #extreme) / (1 + permutations).
    #[arg(long, default_value_t = 9_999)]
    pub permutations: usize,
}

impl TestSettings {
    /// The family's correction and level.
    pub fn family(&self) -> FamilyOptions {
        FamilyOptions {
            correction: self.correction,
            alpha: self.alpha,
            ..FamilyOptions::default()
        }
    }

    /// The permutation test's flip sets, drawn from `seed`.
    pub fn permutation(&self, seed: u64) -> PermutationOptions {
        PermutationOptions {
            permutations: self.permutations,
            seed,
        }
    }
}

/// Arguments of `bias measure`.
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Score tables (CSV columns: pair_id,dataset,bias_type,direction,stereo,anti,
    /// score_stereo,score_anti,scorer,model); each (dataset, scorer, model) slice is measured.
    #[arg(long, required = true, num_args = 1..)]
    scores: Vec<PathBuf>,
    #[command(flatten)]
    settings: MeasureSettings,
    /// Also report each measure within each bias type.
    #[arg(long)]
    by_type: bool,
    /// Only the rows of this scorer (default: every scorer, each measured separately).
    #[arg(long)]
    scorer: Option<String>,
    /// Round overall values to this many decimals, as the authors do (2); default: no rounding.
    #[arg(long)]
    round: Option<u32>,
    /// Add a percentile bootstrap interval with this many replicates (stratified by bias type).
    #[arg(long)]
    bootstrap: Option<usize>,
    /// Confidence level of the bootstrap interval.
    #[arg(long, default_value_t = 0.95)]
    level: f64,
    /// Seed of the bootstrap and of the permutation test.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    tests: TestSettings,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

impl MeasureSettings {
    fn distribution_options(&self, rounding: Rounding) -> DistributionOptions {
        DistributionOptions {
            aggregation: self.aggregation,
            rounding,
            small_types: self.small_types,
        }
    }

    fn indicator_options(&self, rounding: Rounding) -> IndicatorOptions {
        IndicatorOptions {
            ties: self.ties,
            rounding,
        }
    }

    /// `spec` with this command's settings (ties, aggregation, small types, `--jss`, rounding).
    pub fn configure(&self, spec: MeasureSpec, rounding: Rounding) -> MeasureSpec {
        let spec = match spec {
            MeasureSpec::Jss { variant, options } => MeasureSpec::Jss {
                variant: match self.jss {
                    JssVariant::AuthorsCode => variant,
                    JssVariant::PaperText => JssVariant::PaperText,
                },
                options,
            },
            other => other,
        };
        match spec {
            MeasureSpec::Indicator { .. } => spec.with_indicator(self.indicator_options(rounding)),
            _ => spec.with_distribution(self.distribution_options(rounding)),
        }
    }
}

impl MeasureArgs {
    fn rounding(&self) -> Rounding {
        self.round.map_or(Rounding::None, Rounding::Decimals)
    }

    /// What `bias_metrics::slices::measure_slices` needs: the measures with this command's
    /// settings, the rounding, the bootstrap, the tests and the family.
    fn slice_options(&self) -> SliceOptions {
        SliceOptions {
            measures: self
                .settings
                .measures
                .iter()
                .map(|&spec| self.settings.configure(spec, Rounding::None))
                .collect(),
            rounding: self.rounding(),
            bootstrap: self.bootstrap.map(|replicates| BootstrapOptions {
                replicates,
                level: self.level,
                seed: self.seed,
                stratified: true,
            }),
            permutation: self.tests.permutation(self.seed),
            family: self.tests.family(),
        }
    }
}

/// Runs `bias measure`.
pub fn run(args: &MeasureArgs, out: &mut impl Write) -> Result<(), CliError> {
    let (paths, slices): (Vec<_>, Vec<_>) = read_all_slices(&args.scores, args.scorer.as_deref())?
        .into_iter()
        .unzip();
    let results = measure_slices(&slices, &args.slice_options()).map_err(|(i, e)| match i {
        Some(i) => in_slice(&paths[i], &slices[i])(e),
        None => e.into(),
    })?;
    match args.format {
        Format::Json => write_json(&results, out),
        Format::Table => {
            grid(args, &results).write_table(out)?;
            caption(args, &results, out)
        }
        Format::Csv => grid(args, &results).write_csv(out),
    }
}

/// The lines under the Markdown table: what a star means, the family and the tests.
fn caption(
    args: &MeasureArgs,
    results: &[SliceMeasurement],
    out: &mut impl Write,
) -> Result<(), CliError> {
    let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut tests: Vec<TestName> = Vec::new();
    for r in results {
        sizes.insert(&r.dataset, r.family_size);
        if !tests.contains(&r.test) {
            tests.push(r.test);
        }
    }
    for (dataset, size) in sizes {
        writeln!(
            out,
            "`{dataset}`: * = {}.",
            args.tests.family().describe(size)
        )?;
    }
    for t in tests {
        writeln!(out, "{}: {}.", t.name(), t.describe())?;
    }
    if results.iter().any(|r| r.test == TestName::Binomial) {
        writeln!(
            out,
            "mde: the smallest deviation from 50 (points) the row's pairs detect with power 0.8 \
             at the family's first-step level; `none`: no deviation can reach it."
        )?;
    }
    Ok(())
}

fn grid(args: &MeasureArgs, results: &[SliceMeasurement]) -> Grid {
    let csv = matches!(args.format, Format::Csv);
    let mut header = vec![
        "dataset",
        "scorer",
        "model",
        "measure",
        "bias_type",
        "n",
        "value",
        "no_bias",
    ];
    if args.bootstrap.is_some() {
        header.extend(["ci_lower", "ci_upper"]);
    }
    header.extend(["p_value", "p_adjusted", "significant", "mde"]);
    if csv {
        header.extend(["test", "correction", "alpha", "family_size"]);
    }
    let width = header.len();
    let mut g = Grid::new(header);
    let p = |x: f64| if csv { x.to_string() } else { p_cell(x) };
    for r in results {
        let lead = |label: &str, n: usize, value: String| {
            vec![
                r.dataset.clone(),
                r.scorer.clone(),
                r.model.clone(),
                r.measure.clone(),
                label.to_owned(),
                n.to_string(),
                value,
                fixed(r.no_bias, 0),
            ]
        };
        let stats = |t: &Tested| {
            let mut cells = Vec::new();
            if args.bootstrap.is_some() {
                let ci = |x: Option<f64>| x.map_or_else(String::new, |v| fixed(v, 2));
                cells.extend([ci(t.ci_low), ci(t.ci_high)]);
            }
            cells.extend([
                p(t.p_value),
                p(t.p_adjusted),
                if csv {
                    t.significant.to_string()
                } else if t.significant {
                    "*".to_owned()
                } else {
                    String::new()
                },
                match t.detectable_deviation {
                    Some(Some(d)) => fixed(d, 1),
                    Some(None) => "none".to_owned(),
                    None => String::new(),
                },
            ]);
            if csv {
                cells.extend([
                    r.test.name().to_owned(),
                    r.correction.name().to_owned(),
                    r.alpha.to_string(),
                    r.family_size.to_string(),
                ]);
            }
            cells
        };
        let mut row = lead("all", r.n, fixed(r.value, 2));
        row.extend(stats(&r.tested));
        g.push(row);
        if args.by_type {
            for (ty, v) in &r.by_type {
                let mut row = lead(ty.as_str(), v.n, fixed(v.value, 2));
                row.extend(stats(&v.tested));
                g.push(row);
            }
        }
        if let Some(n) = r.indicator.as_ref().and_then(|i| i.nangia.as_ref()) {
            let opt = |v: Option<f64>| v.map_or("n/a".to_owned(), |x| fixed(x, 2));
            for (label, count, value) in [
                ("neutral", n.neutral, Some(n.neutral_percent)),
                ("stereo (no ties)", n.n_stereo, n.stereo_score),
                ("antistereo (no ties)", n.n_antistereo, n.antistereo_score),
            ] {
                let mut row = lead(label, count, opt(value));
                row.resize(width, String::new());
                g.push(row);
            }
        }
    }
    g
}

/// `holm`, `bh` or `none`.
pub fn parse_correction(s: &str) -> Result<Correction, String> {
    s.parse().map_err(|e: MetricsError| e.to_string())
}

/// A p-value for a Markdown cell: four decimals, or two significant digits below 0.001.
pub fn p_cell(p: f64) -> String {
    if p >= 1e-3 {
        format!("{p:.4}")
    } else {
        format!("{p:.1e}")
    }
}
