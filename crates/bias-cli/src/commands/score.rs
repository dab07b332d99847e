//! `bias score`: a data set scored with a masked or causal LM into a score table (resumable).

use std::path::{Path, PathBuf};

use bias_core::run::{run_scoring, RunError, RunSummary, Shard};
use bias_core::SentencePair;
use bias_data::PairOrigin;
use bias_plm::{EngineStats, LanguageModel, PlmError, ScoringOptions};
use clap::Args;

use crate::error::CliError;
use crate::progress::with_progress;
use bias_core::Scorer;

use crate::choice::choice;
use crate::model_args::{scorer_names, ModelArgs};

/// Arguments of `bias score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Scorers, comma-separated [default: aul,aula,cps,sss,all-masked for a masked LM,
    /// ll-sum,ll-mean for a causal LM].
    #[arg(long, value_parser = choice::<Scorer>(), ignore_case = true, value_delimiter = ',')]
    pub scorers: Vec<Scorer>,
    /// The score table to write (resumed if it exists from the same run).
    #[arg(long)]
    pub out: PathBuf,
    /// Pairs per chunk written at once (a resumed run restarts at a chunk boundary).
    #[arg(long, default_value_t = 64)]
    pub chunk: usize,
    /// Score only shard I of N (`I/N`, 1-based): whole chunks, a resumable run of its own;
    /// `bias merge` joins the shards into the table one run writes.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
}

/// What a scoring run of the CLI produced.
pub struct Scored {
    pub summary: RunSummary,
    pub model: String,
    pub dataset: String,
}

/// Scores the data set of `args` into `args.out`.
pub fn score(args: &ScoreArgs) -> Result<Scored, CliError> {
    let mut lm = args.model.open()?;
    log_requests(&mut lm, &args.out)?;
    score_with(args, &lm)
}

/// A served model's request log beside the score table (`OUT.requests.jsonl`): its answers are
/// kept, and a rerun asks the server only for the prompts the log lacks.
pub fn log_requests(lm: &mut LanguageModel, out: &Path) -> Result<(), CliError> {
    let mut name = out.as_os_str().to_owned();
    name.push(".requests.jsonl");
    crate::model_args::keep_requests(|p| lm.log_requests(p), &std::path::PathBuf::from(name))
}

/// Scores the data set of `args` into `args.out` with the model `lm` (opened from `args`).
pub fn score_with(args: &ScoreArgs, lm: &LanguageModel) -> Result<Scored, CliError> {
    let data = args.model.dataset()?;
    let (dataset, pairs) = (data.name, data.pairs);
    // A new output folder is made, as `bias report --out` makes its own.
    if let Some(parent) = args.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| bias_core::CoreError::io(parent, e))?;
    }
    let run = ScoreRun {
        scorers: &scorer_names(&args.scorers, lm),
        options: args.model.options(),
        dataset: &dataset,
        origins: &data.origins,
        chunk: args.chunk,
        shard: args.shard,
    };
    let summary = run.write(lm, &pairs, &args.out)?;
    Ok(Scored {
        summary,
        model: lm.name().to_owned(),
        dataset,
    })
}

/// One resumable scoring run of the CLI: which scorers, with which options, on which data.
pub struct ScoreRun<'a> {
    /// Scorer names (`aul`, ... for a masked LM; `ll-sum`, `ll-mean` for a causal LM).
    pub scorers: &'a [&'a str],
    pub options: ScoringOptions,
    pub dataset: &'a str,
    /// Where each pair is in its files, for a refusal that names the line (empty: unknown).
    pub origins: &'a [PairOrigin],
    pub chunk: usize,
    pub shard: Option<Shard>,
}

impl ScoreRun<'_> {
    /// Scores `pairs` with `lm` into the score table `out` (resumable), with a progress bar, and
    /// reports the run on standard error.
    pub fn write(
        &self,
        lm: &LanguageModel,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, CliError> {
        let mut scorer = lm.scorer(self.scorers, self.options)?;
        let mut fingerprint = lm.fingerprint(&*scorer, self.dataset, pairs, self.chunk)?;
        let (pairs, offset) = match self.shard {
            Some(shard) => {
                let (subset, span) = shard.select(pairs, self.chunk);
                eprintln!("{span}");
                fingerprint = fingerprint.with_shard(span);
                (subset, span.start)
            }
            None => (pairs, 0),
        };
        let before = scorer.stats();
        let title = format!("{}: {}", lm.name(), self.dataset);
        let summary = with_progress(&title, "pairs", |progress| {
            run_scoring(&mut *scorer, pairs, fingerprint, out, progress)
        })
        .map_err(|e| self.locate(e, offset))?;
        report(&summary, scorer.stats().since(before), out);
        Ok(summary)
    }
}

impl ScoreRun<'_> {
    /// A pair refused before the run names its file and line where the reader recorded them
    /// (`offset`: the first pair of a shard).
    fn locate(&self, e: RunError, offset: usize) -> CliError {
        let RunError::Unscorable { number, source, .. } = &e else {
            return e.into();
        };
        let side = match source.downcast_ref::<PlmError>() {
            Some(PlmError::TooLong { side, .. }) => side.as_str(),
            _ => "stereo",
        };
        match self.origins.get(offset + number - 1) {
            Some(origin) => CliError::UnscorableLine {
                place: origin.side(side).to_string(),
                source: Box::new(e),
            },
            None => e.into(),
        }
    }
}

/// A short account of a run on standard error.
pub fn report(s: &RunSummary, stats: EngineStats, out: &Path) {
    let p = &s.progress;
    let skipped = &p.tally.skipped_identical;
    let scored = p.pairs_done - p.tally.skipped();
    eprintln!(
        "{}: {} pairs ({} resumed), {scored} scored; {} skipped because both sentences tokenise identically{}",
        out.display(),
        p.pairs_done,
        s.resumed_from,
        skipped.len(),
        if skipped.is_empty() {
            String::new()
        } else {
            format!(" (ids: {})", skipped.join(", "))
        }
    );
    for (id, why) in &p.tally.skipped_other {
        eprintln!("  pair {id} skipped: {why}");
    }
    for (scorer, ids) in &p.tally.unscorable {
        let why = p
            .tally
            .unscorable_reasons
            .get(scorer)
            .map_or("", String::as_str);
        eprintln!(
            "  {scorer}: {} pairs not scored ({why}): {}",
            ids.len(),
            ids.join(", ")
        );
    }
    for (scorer, acc) in &p.tally.accuracy {
        eprintln!(
            "  {scorer}: token-prediction accuracy {:.4} ({} of {} positions)",
            acc.rate(),
            acc.correct,
            acc.total
        );
    }
    if stats.forward_passes > 0 {
        eprintln!(
            "  {} forward passes, {} sequences, {:.1} s ({:.1} sentences/s)",
            stats.forward_passes,
            stats.sequences,
            s.seconds,
            2.0 * (p.pairs_done - s.resumed_from) as f64 / s.seconds.max(1e-9)
        );
    }
}

/// Runs `bias score`.
pub fn run(args: &ScoreArgs) -> Result<(), CliError> {
    score(args).map(|_| ())
}
