//! `bias measure`: indicator, KLS and JSS on a score table.

use std::io::Write;
use std::path::PathBuf;

use std::collections::BTreeMap;

use bias_core::{BiasType, Measurement, ScoreSlice};
use bias_metrics::stats::{Correction, PermutationOptions};
use bias_metrics::{
    bootstrap_by_type, test_measure, Aggregation, BootstrapOptions, DistributionOptions,
    FamilyOptions, Indicator, IndicatorOptions, IndicatorReport, Interval, JssVariant, MeasureSpec,
    MeasureTest, MetricsError, Rounding, SmallTypePolicy, TestName, TieHandling, TypeBootstrap,
};
use clap::{Args, ValueEnum};
use serde::Serialize;

use crate::error::CliError;
use crate::output::{fixed, write_json, Format, Grid};
use crate::tables::{in_slice, read_all_slices};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum JssArg {
    /// The authors' closed form (default; produced the published numbers).
    Authors,
    /// The paper's text: the true Jensen–Shannon divergence in bits.
    Paper,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TiesArg {
    /// A tie is not stereotypical (liu2024 Eq. 2); the sign test counts it so, in n.
    Strict,
    /// Nangia et al.: report ties as neutral, plus stereo / antistereo sub-scores; the sign
    /// test leaves ties out.
    Nangia,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AggregationArg {
    /// Per-type values weighted by n_k / N (liu2024 Eqs. 10–11).
    Weighted,
    /// One fit on all pairs pooled.
    Pooled,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SmallTypesArg {
    /// A bias type with a single pair is an error.
    Error,
    /// Leave such types out of KLS / JSS.
    Skip,
}

/// The measures and their settings, shared by `bias measure` and `bias compare`.
#[derive(Debug, Args)]
pub struct MeasureSettings {
    /// Measures to compute, comma-separated: indicator, kls, jss (the authors' code) or
    /// jss-paper (the paper's text).
    #[arg(long, value_delimiter = ',', default_value = "indicator,kls,jss")]
    pub measures: Vec<MeasureSpec>,
    /// JSS computation (`--measures jss-paper` is the same as `jss` with `--jss paper`).
    #[arg(long, value_enum, default_value_t = JssArg::Authors)]
    jss: JssArg,
    /// Tie reporting of the indicator.
    #[arg(long, value_enum, default_value_t = TiesArg::Strict)]
    ties: TiesArg,
    /// How KLS / JSS combine bias types.
    #[arg(long, value_enum, default_value_t = AggregationArg::Weighted)]
    aggregation: AggregationArg,
    /// What KLS / JSS do with a bias type that has a single pair.
    #[arg(long, value_enum, default_value_t = SmallTypesArg::Error)]
    small_types: SmallTypesArg,
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

/// One measure's result for one (scorer, model) slice of the table: the value overall and per
/// bias type, each with its test, its adjusted p within the data set's family and (for the sign
/// test) the smallest deviation its pairs can detect.
#[derive(Debug, Serialize)]
struct Result_ {
    dataset: String,
    scorer: String,
    model: String,
    measure: String,
    value: f64,
    no_bias: f64,
    n: usize,
    #[serde(flatten)]
    tested: Tested,
    /// The test of every value of this result.
    test: TestName,
    /// For a permutation test: its null values (`2ⁿ` when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    permutations: Option<usize>,
    correction: Correction,
    alpha: f64,
    family_size: usize,
    by_type: BTreeMap<BiasType, TypeResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    indicator: Option<IndicatorDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bootstrap: Option<BootstrapSummary>,
}

/// One bias type's value of a [`Result_`].
#[derive(Debug, Serialize)]
struct TypeResult {
    value: f64,
    n: usize,
    #[serde(flatten)]
    tested: Tested,
}

/// What the statistics say of one value.
#[derive(Debug, Default, Serialize)]
struct Tested {
    #[serde(skip_serializing_if = "Option::is_none")]
    ci_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ci_high: Option<f64>,
    p_value: f64,
    p_adjusted: f64,
    significant: bool,
    /// Sign test only: the smallest deviation from 50 % (points) detected with power 0.8 at the
    /// family's first-step level; `null` when the value's pairs can detect none.
    #[serde(skip_serializing_if = "Option::is_none")]
    detectable_deviation: Option<Option<f64>>,
}

#[derive(Debug, Serialize)]
struct IndicatorDetails {
    stereotypical: usize,
    ties: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    nangia: Option<bias_metrics::NangiaScores>,
}

#[derive(Debug, Serialize)]
struct BootstrapSummary {
    lower: f64,
    upper: f64,
    level: f64,
    replicates: usize,
    seed: u64,
}

impl MeasureSettings {
    fn distribution_options(&self, rounding: Rounding) -> DistributionOptions {
        DistributionOptions {
            aggregation: match self.aggregation {
                AggregationArg::Weighted => Aggregation::WeightedByType,
                AggregationArg::Pooled => Aggregation::Pooled,
            },
            rounding,
            small_types: match self.small_types {
                SmallTypesArg::Error => SmallTypePolicy::Error,
                SmallTypesArg::Skip => SmallTypePolicy::Skip,
            },
        }
    }

    fn indicator_options(&self, rounding: Rounding) -> IndicatorOptions {
        IndicatorOptions {
            ties: match self.ties {
                TiesArg::Strict => TieHandling::NotStereotypical,
                TiesArg::Nangia => TieHandling::Neutral,
            },
            rounding,
        }
    }

    /// `spec` with this command's settings (ties, aggregation, small types, `--jss`, rounding).
    pub fn configure(&self, spec: MeasureSpec, rounding: Rounding) -> MeasureSpec {
        let spec = match spec {
            MeasureSpec::Jss { variant, options } => MeasureSpec::Jss {
                variant: match self.jss {
                    JssArg::Authors => variant,
                    JssArg::Paper => JssVariant::PaperText,
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

    /// `spec` with this command's settings.
    fn configure(&self, spec: MeasureSpec, rounding: Rounding) -> MeasureSpec {
        self.settings.configure(spec, rounding)
    }
}

/// A measure's value on one slice before the family is known.
struct Computed {
    measurement: Measurement,
    indicator: Option<IndicatorDetails>,
    bootstrap: Option<TypeBootstrap>,
    test: MeasureTest,
}

fn compute(args: &MeasureArgs, slice: &ScoreSlice) -> Result<Vec<Computed>, MetricsError> {
    let table = &slice.table;
    let mut results = Vec::new();
    for &spec in &args.settings.measures {
        let measure = args.configure(spec, args.rounding());
        let (measurement, indicator) = if let MeasureSpec::Indicator { options } = measure {
            let IndicatorReport {
                measurement,
                stereotypical,
                ties,
                nangia,
            } = Indicator::new(options).report(table)?;
            let details = IndicatorDetails {
                stereotypical,
                ties,
                nangia,
            };
            (measurement, Some(details))
        } else {
            (measure.measure(table)?, None)
        };
        // Replicates and tests are never rounded: rounding would quantise them.
        let unrounded = args.configure(spec, Rounding::None);
        let bootstrap = args
            .bootstrap
            .map(|replicates| {
                let options = BootstrapOptions {
                    replicates,
                    level: args.level,
                    seed: args.seed,
                    stratified: true,
                };
                bootstrap_by_type(&[&unrounded], table, &options).map(|mut b| b.remove(0))
            })
            .transpose()?;
        let permutation = args.tests.permutation(args.seed);
        let test = test_measure(&unrounded, unrounded.null_test(), table, &permutation)?;
        results.push(Computed {
            measurement,
            indicator,
            bootstrap,
            test,
        });
    }
    Ok(results)
}

/// The results of every slice, adjusted within each data set's family (every value of the call
/// on that data set: every measure, scorer and model, overall and per bias type).
fn adjust(
    args: &MeasureArgs,
    computed: Vec<(ScoreSlice, Computed)>,
) -> Result<Vec<Result_>, MetricsError> {
    let family = args.tests.family();
    let mut keys = Vec::new();
    let mut p_values = Vec::new();
    for (slice, c) in &computed {
        keys.push(slice.dataset.clone());
        p_values.push(c.test.overall.p_value);
        for t in c.test.by_type.values() {
            keys.push(slice.dataset.clone());
            p_values.push(t.p_value);
        }
    }
    let mut verdicts = family.verdicts_by_family(&keys, &p_values)?.into_iter();
    let round = |x: f64| args.rounding().apply(x);
    let mut out = Vec::with_capacity(computed.len());
    for (slice, c) in computed {
        let mut tested = |n: usize, interval: Option<&Interval>| {
            let (v, size) = verdicts.next().expect("one verdict per value");
            let detectable = (c.test.test == TestName::Binomial)
                .then(|| family.detectable(n, size))
                .transpose()?;
            Ok::<_, MetricsError>((
                Tested {
                    ci_low: interval.map(|i| round(i.lower)),
                    ci_high: interval.map(|i| round(i.upper)),
                    p_value: v.p_value,
                    p_adjusted: v.p_adjusted,
                    significant: v.significant,
                    detectable_deviation: detectable,
                },
                size,
            ))
        };
        let m = &c.measurement;
        let (overall, family_size) = tested(
            c.test.overall.n_tested,
            c.bootstrap.as_ref().map(|b| &b.overall),
        )?;
        if !m.by_type.keys().eq(c.test.by_type.keys()) {
            return Err(MetricsError::InvalidParameter {
                name: format!("{} of {}", m.measure, slice.model),
                value: "bias types of the value and of its test differ".to_owned(),
                expected: "one test per bias type".to_owned(),
            });
        }
        let mut by_type = BTreeMap::new();
        for (ty, t) in &c.test.by_type {
            let interval = c.bootstrap.as_ref().and_then(|b| b.by_type.get(ty));
            let (tested, _) = tested(t.n_tested, interval)?;
            let value = m.by_type[ty];
            by_type.insert(
                ty.clone(),
                TypeResult {
                    value: value.value,
                    n: value.n,
                    tested,
                },
            );
        }
        out.push(Result_ {
            dataset: slice.dataset,
            scorer: slice.scorer,
            model: slice.model,
            measure: m.measure.clone(),
            value: m.value,
            no_bias: m.no_bias,
            n: m.n,
            tested: overall,
            test: c.test.test,
            permutations: c.test.permutations,
            correction: family.correction,
            alpha: family.alpha,
            family_size,
            by_type,
            bootstrap: c.bootstrap.as_ref().map(|b| BootstrapSummary {
                lower: round(b.overall.lower),
                upper: round(b.overall.upper),
                level: args.level,
                replicates: args.bootstrap.unwrap_or_default(),
                seed: args.seed,
            }),
            indicator: c.indicator,
        });
    }
    Ok(out)
}

/// Runs `bias measure`.
pub fn run(args: &MeasureArgs, out: &mut impl Write) -> Result<(), CliError> {
    let mut computed = Vec::new();
    for (path, slice) in read_all_slices(&args.scores, args.scorer.as_deref())? {
        let results = compute(args, &slice).map_err(in_slice(&path, &slice))?;
        computed.extend(results.into_iter().map(|c| (slice.clone(), c)));
    }
    let results = adjust(args, computed)?;
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
fn caption(args: &MeasureArgs, results: &[Result_], out: &mut impl Write) -> Result<(), CliError> {
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

fn grid(args: &MeasureArgs, results: &[Result_]) -> Grid {
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
