//! `bias reproduce PAPER --models DIR... --out DIR`: every table and figure of a paper that can
//! be computed here, numbered as in the paper, with an index of their status
//! ([`bias_papers`] does the work).

use std::io::Write;
use std::path::PathBuf;

use bias_core::{ScoringConventions, SssAverage};
use bias_metrics::JssVariant;
use bias_papers::{reproduce_paper, Liu2024Options, Paper, PaperOptions, Places};
use bias_plm::{ScoringOptions, StudiedLm};
use bias_robust::RobustnessOptions;
use clap::Args;

use crate::choice::choice;
use crate::error::CliError;
use crate::progress::model_progress;

mod kaneko2023;
mod paraphrase;
mod schroeder2024;
use crate::model_args::DeviceArgs;

/// Arguments of `bias reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// The paper: kaneko2022, liu2024, paraphrase, kaneko2023 or schroeder2024.
    pub paper: Paper,
    /// Hugging Face model folders to study (masked or causal LMs; schroeder2024 embeds with the
    /// masked LMs' encoders and compares with their CPS, so a bare sentence encoder such as
    /// all-MiniLM-L6-v2 goes through `bias embed --model` instead), one name each (the folder's
    /// name).
    #[arg(long, num_args = 1.., required = true)]
    pub models: Vec<PathBuf>,
    /// The folder to write to: one file per table and figure, `index.html`, `index.md`,
    /// `index.json`; score tables under `scores/` (reused by a rerun and by the other papers'
    /// reproductions into the same folder's parent, see `--scores`).
    #[arg(long)]
    pub out: PathBuf,
    /// Where score tables are kept (default: `<out>/../scores`, shared by the reproductions of
    /// several papers written side by side).
    #[arg(long)]
    pub scores: Option<PathBuf>,
    /// Where `crows-pairs`, `stereoset` and the other data sets are found.
    #[arg(long, default_value = bias_data::layout::DEFAULT_DATA_DIR)]
    pub data_dir: PathBuf,
    /// Only the first N pairs of each data set (a quick check: the numbers are not the paper's).
    #[arg(long)]
    pub max_pairs: Option<usize>,
    /// How SSS averages over the modified tokens: `matrix` (the authors' calculate_sss, which
    /// produced the published SSS numbers of kaneko2022 and liu2024) or `diagonal` (kaneko2022
    /// Eq. 2). Default: the form of the paper's own code (matrix for kaneko2022 and liu2024,
    /// diagonal for the others). Every table with SSS says which form it shows.
    #[arg(long, value_parser = choice::<SssAverage>())]
    pub sss: Option<SssAverage>,
    /// Whether CPS rounds each sentence score before comparing: `3` (3 decimals, kaneko2022's
    /// evaluate.py) or `none` (liu2024's evaluation.py and the definition). Default: the paper's
    /// own code.
    #[arg(long, value_parser = choice::<bias_core::CpsRounding>())]
    pub cps_round: Option<bias_core::CpsRounding>,
    /// liu2024: the JSS of Eq. 9, the authors' code (default; it produced the paper's numbers)
    /// or the paper's text (the true Jensen–Shannon divergence in bits).
    #[arg(long = "liu2024-jss", value_parser = choice::<JssVariant>(), default_value = "authors")]
    pub jss: JssVariant,
    /// liu2024 Figure 5 and Table 5: seeded sub-samples of CrowS-Pairs per sampling rate (the
    /// paper averages "multiple sampling experiments" without saying how many).
    #[arg(long = "liu2024-repeats", default_value_t = 100)]
    pub subsample_repeats: usize,
    /// liu2024 Figure 5 and Table 5: the seed of the sub-samples.
    #[arg(long = "liu2024-seed", default_value_t = 0)]
    pub subsample_seed: u64,
    /// liu2024 Figure 4: neighbours k of the nearest-neighbour (KSG) mutual information. 1, the
    /// default, gives the paper's 0.50 and 0.17 (scikit-learn's mutual_info_regression with
    /// n_neighbors=1 on its Table 2); the estimator needs k + 1 models, so scikit-learn's
    /// default 3 needs 4.
    #[arg(
        long = "liu2024-mi-neighbors",
        default_value_t = bias_papers::liu2024_published::FIGURE_4_MI_NEIGHBORS,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
    )]
    pub mi_neighbors: usize,
    #[command(flatten)]
    pub kaneko2022: crate::commands::robust::human::Kaneko2022Args,
    #[command(flatten)]
    pub kaneko2023: kaneko2023::Kaneko2023Args,
    #[command(flatten)]
    pub schroeder2024: schroeder2024::Schroeder2024Args,
    #[command(flatten)]
    pub paraphrase: paraphrase::ParaphraseArgs,
    #[command(flatten)]
    pub device: DeviceArgs,
}

impl ReproduceArgs {
    /// The liu2024 options of `--liu2024-jss`, `--liu2024-repeats`, `--liu2024-seed`,
    /// `--liu2024-mi-neighbors`.
    fn liu2024_options(&self) -> Liu2024Options {
        Liu2024Options {
            jss: self.jss,
            robustness: RobustnessOptions {
                repeats: self.subsample_repeats,
                seed: self.subsample_seed,
                ..RobustnessOptions::default()
            },
            mi_neighbors: self.mi_neighbors,
        }
    }

    /// The scorer conventions of the models: the paper's own code's
    /// ([`Paper::scoring_conventions`]), with `--sss` and `--cps-round` in place of its choices.
    fn conventions(&self) -> ScoringConventions {
        let mut c = self.paper.scoring_conventions();
        if let Some(sss) = self.sss {
            c.sss = sss;
        }
        if let Some(round) = self.cps_round {
            c.cps_round_3 = round.rounds_to_3();
        }
        c
    }

    fn scores_dir(&self) -> PathBuf {
        self.scores
            .clone()
            .unwrap_or_else(|| Places::beside(&self.data_dir, &self.out).scores_dir)
    }

    /// The options of every paper, from their flags.
    fn paper_options(&self) -> Result<PaperOptions, CliError> {
        Ok(PaperOptions {
            max_pairs: self.max_pairs,
            kaneko2022: self.kaneko2022.options(),
            liu2024: self.liu2024_options(),
            paraphrase: self.paraphrase.options(),
            kaneko2023: self.kaneko2023.options_for(&self.models),
            schroeder2024: self.schroeder2024.options()?,
        })
    }
}

/// Runs `bias reproduce`.
pub fn run(args: &ReproduceArgs, out: &mut impl Write) -> Result<(), CliError> {
    let scoring = ScoringOptions::default().with_conventions(args.conventions());
    let mut models = Vec::new();
    for dir in &args.models {
        let lm = args.device.open_any(dir, None)?;
        let progress = model_progress();
        models.push(
            StudiedLm::new(lm)
                .with_options(scoring)
                .with_progress(progress),
        );
    }
    let places = Places {
        data_dir: args.data_dir.clone(),
        scores_dir: args.scores_dir(),
        out: args.out.clone(),
    };
    let done = reproduce_paper(args.paper, models, &places, &args.paper_options()?)?;
    print_index(args, done.models, &done.artifacts, out)
}

fn print_index(
    args: &ReproduceArgs,
    n_models: usize,
    artifacts: &[bias_papers::Artifact],
    out: &mut impl Write,
) -> Result<(), CliError> {
    writeln!(out, "{} — {n_models} models", args.paper.citation())?;
    for a in artifacts {
        let detail = a.status.detail();
        writeln!(
            out,
            "  {:<14} {:<12} {}{}",
            a.id,
            a.status.label(),
            a.title,
            if detail.is_empty() {
                String::new()
            } else {
                format!(" ({detail})")
            }
        )?;
    }
    writeln!(out, "index: {}", args.out.join("index.html").display())?;
    Ok(())
}
