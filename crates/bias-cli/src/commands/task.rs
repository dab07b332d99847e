//! `bias task bbq|winogender`: a benchmark whose answers are continuations, scored with a causal
//! LM as lm-evaluation-harness does (resumable, with progress), printed with the direction of
//! each number and written as JSON.

use std::path::{Path, PathBuf};

use bias_core::run::Shard;
use bias_core::CoreError;
use bias_core::{Continuation, ContinuationScorer};
use bias_data::bbq::BbqCategory;
use bias_data::layout::StereoSetSplit;
use bias_plm::{CausalLm, CausalScorerKind, ChatScorer, ScoringOptions};
use bias_tasks::bbq::run_bbq;
use bias_tasks::stereoset::{Intersentence, IntersentenceChoice};
use bias_tasks::winogender as wg;

use crate::choice::choice;
use bias_tasks::{
    import_shard_logs, score_shard, shard_log_path, shard_logs_beside, ChoiceRunOptions,
};
use clap::{Args, Subcommand};

use super::task_tables as tables;
use crate::chat_args::ChatArgs;
use crate::error::CliError;
use crate::model_args::{BatchArgs, DeviceArgs};
use crate::progress::with_progress;

/// `bias task`'s benchmarks.
#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// BBQ (Parrish et al. 2022) as lm-evaluation-harness's `bbq` task, with the BBQ authors'
    /// bias scores beside lm-eval's.
    Bbq(BbqArgs),
    /// Winogender (Rudinger et al. 2018) as lm-evaluation-harness's `winogender_*` tasks.
    Winogender(TaskArgs),
    /// StereoSet's two tasks (Nadeem et al. 2021), intersentence by BERT's next-sentence head
    /// where the checkpoint has one, else as log P(sentence | context); aggregated as StereoSet's
    /// evaluation.py does; masked or causal LMs.
    Stereoset(StereoSetArgs),
}

/// `bias task stereoset`'s arguments.
#[derive(Debug, Args)]
pub struct StereoSetArgs {
    #[command(flatten)]
    pub task: TaskArgs,
    /// The split: `dev` (2,106 intrasentence and 2,123 intersentence items) or `test` (the
    /// StereoSet leaderboard's and bias-bench's).
    #[arg(long, default_value = "dev")]
    pub split: StereoSetSplit,
    /// Only the first N items of each task.
    #[arg(long)]
    pub limit: Option<usize>,
    /// How intersentence sentences are scored: `auto` reads BERT's next-sentence head when the
    /// checkpoint has one (StereoSet's evaluation of BERT) and the conditional log-likelihood
    /// otherwise.
    #[arg(long, value_parser = choice::<IntersentenceChoice>(), default_value = "auto")]
    pub intersentence: IntersentenceChoice,
}

/// What every task takes: a causal LM, the data and the engine settings.
#[derive(Debug, Args)]
pub struct TaskArgs {
    /// A model folder (config.json, model.safetensors, tokenizer.json), or a Hugging Face id
    /// `org/name[@revision]` in the local Hugging Face cache. A causal LM (gpt2, llama, mistral,
    /// qwen2); `stereoset` also takes a masked LM.
    #[arg(long)]
    pub model: PathBuf,
    /// Where the benchmark's files are (as scripts/setup.sh lays them out).
    #[arg(long, default_value = bias_data::layout::DEFAULT_DATA_DIR)]
    pub data_dir: PathBuf,
    /// Name shown for the model (default: the folder's name).
    #[arg(long)]
    pub model_name: Option<String>,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub chat: ChatArgs,
    /// Documents per call to the model (and per line group of the resumable log).
    #[arg(long, default_value_t = 64)]
    pub chunk: usize,
    /// Folder for `<task>.jsonl` (each document's scores, resumed if present) and
    /// `<task>.json` (the results).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the results as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Score only shard I of N (`I/N`, 1-based, whole chunks) into `--out`'s
    /// `<task>.shard-I-of-N.jsonl`, a resumable run of its own; a later run without `--shard`
    /// on the same `--out` gathers every shard's log and scores what is left.
    #[arg(long, value_name = "I/N", requires = "out")]
    pub shard: Option<Shard>,
}

/// `bias task bbq`'s arguments.
#[derive(Debug, Args)]
pub struct BbqArgs {
    #[command(flatten)]
    pub task: TaskArgs,
    /// Categories, comma-separated (default: all eleven).
    #[arg(long, value_delimiter = ',')]
    pub categories: Vec<String>,
    /// Only the first N examples of each category (in file order).
    #[arg(long)]
    pub per_category: Option<usize>,
    #[command(flatten)]
    pub generate: super::task_generate::GenerateTaskArgs,
}

impl TaskArgs {
    /// The causal LM of `--model`; any other (a masked LM) is a usage error naming its type, rather than
    /// the causal loader's list of every supported type.
    pub(crate) fn open(&self, task: &str) -> Result<CausalLm, CliError> {
        let work = "BBQ and Winogender score answers";
        let name = self.model_name.as_deref();
        let mut lm = self.device.open_causal(&self.model, name, work)?;
        self.log_requests(|p| lm.log_requests(p), task)?;
        Ok(lm)
    }

    fn scoring(&self) -> ScoringOptions {
        ScoringOptions {
            batch: self.batch.options(),
            ..ScoringOptions::default()
        }
    }

    /// The log file and the run it records, when `--out` is given.
    /// A served model's request log in `--out` (`TASK.requests.jsonl`, a shard's
    /// `TASK.requests.shard-I-of-N.jsonl`): its answers are kept and a rerun asks only for
    /// the rest.
    fn log_requests(
        &self,
        log_requests: impl FnOnce(&Path) -> Result<Option<usize>, bias_plm::PlmError>,
        task: &str,
    ) -> Result<(), CliError> {
        let Some(dir) = &self.out else {
            return Ok(());
        };
        let name = match self.shard {
            Some(s) => format!("{task}.requests.shard-{}-of-{}.jsonl", s.index(), s.count()),
            None => format!("{task}.requests.jsonl"),
        };
        crate::model_args::keep_requests(log_requests, &dir.join(name))
    }

    pub(crate) fn log(
        &self,
        task: &str,
        name: &str,
        digest: &str,
    ) -> Result<Option<(PathBuf, String)>, CliError> {
        let Some(dir) = &self.out else {
            return Ok(None);
        };
        std::fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
        let run = format!("{task} on {name} ({digest})");
        Ok(Some((dir.join(format!("{task}.jsonl")), run)))
    }

    /// With `--shard`: scores that shard of `docs` into its own log and returns `true` (the
    /// command stops there). Without: copies every shard log found beside the run's log into it
    /// (nothing when there is none) and returns `false`.
    fn shard_or_gather(
        &self,
        log: Option<&(PathBuf, String)>,
        docs: &[Vec<Continuation>],
        scorer: &mut dyn ContinuationScorer,
    ) -> Result<bool, CliError> {
        let Some((path, run)) = log else {
            return Ok(false);
        };
        if let Some(shard) = self.shard {
            let shard_path = shard_log_path(path, shard);
            let range = with_progress(&format!("shard {shard}"), "documents", |progress| {
                score_shard(
                    scorer,
                    docs,
                    shard,
                    (&shard_path, run),
                    self.run_options(),
                    progress,
                )
            })?;
            eprintln!(
                "shard {shard}: documents {}..{} of {} scored into {}; run again without --shard \
                 and the same --out once every shard is done",
                range.start,
                range.end,
                docs.len(),
                shard_path.display()
            );
            return Ok(true);
        }
        let shards = shard_logs_beside(path)?;
        if !shards.is_empty() {
            let copied = import_shard_logs((path, run), docs, &shards)?;
            eprintln!(
                "gathered {copied} documents from {} shard logs into {}",
                shards.len(),
                path.display()
            );
        }
        Ok(false)
    }

    /// Documents per chunk of the runners and their logs.
    fn run_options(&self) -> ChoiceRunOptions {
        ChoiceRunOptions {
            chunk_docs: self.chunk.max(1),
        }
    }

    /// Prints the results: `value` as JSON with `--json`, else the tables `tables` gives.
    pub(crate) fn print(
        &self,
        value: &serde_json::Value,
        tables: impl FnOnce() -> Vec<tables::TaskTable>,
    ) {
        if self.json {
            println!(
                "{}",
                serde_json::to_string_pretty(value).expect("results serialise")
            );
        } else {
            print!("{}", tables::text(&tables()));
        }
    }

    pub(crate) fn write_json(&self, task: &str, value: &serde_json::Value) -> Result<(), CliError> {
        if let Some(dir) = &self.out {
            let path = dir.join(format!("{task}.json"));
            let text = serde_json::to_string_pretty(value).expect("results serialise");
            std::fs::write(&path, text + "\n").map_err(|e| CoreError::io(&path, e))?;
            eprintln!("wrote {}", path.display());
        }
        Ok(())
    }
}

/// The log file and run of [`TaskArgs::log`] as the runners take them.
fn log_path(log: &Option<(PathBuf, String)>) -> Option<(&Path, &str)> {
    log.as_ref().map(|(p, r)| (p.as_path(), r.as_str()))
}

/// Runs `bias task`.
pub fn run(command: &TaskCommand) -> Result<(), CliError> {
    match command {
        TaskCommand::Bbq(args) => bbq(args),
        TaskCommand::Winogender(args) => winogender(args),
        TaskCommand::Stereoset(args) => stereoset(args),
    }
}

fn bbq(args: &BbqArgs) -> Result<(), CliError> {
    let categories: Vec<BbqCategory> = if args.categories.is_empty() {
        BbqCategory::ALL.to_vec()
    } else {
        args.categories
            .iter()
            .map(|c| c.parse::<BbqCategory>())
            .collect::<Result<_, _>>()?
    };
    let t = &args.task;
    let examples = bias_data::bbq::read_bbq_sample(&t.data_dir, &categories, args.per_category)?;
    if args.generate.generate {
        return super::task_generate::bbq(t, &args.generate, &examples, &categories);
    }
    let lm = t.open("bbq")?;
    let docs = examples
        .iter()
        .map(|e| Ok(bias_tasks::BbqDoc::new(e)?.multiple_choice().requests()))
        .collect::<Result<Vec<_>, bias_tasks::TaskError>>()?;
    let result = t.with_scorer(&lm, "bbq", |scorer, log| {
        if t.shard_or_gather(log.as_ref(), &docs, scorer)? {
            return Ok(None);
        }
        let run = with_progress("BBQ", "examples", |progress| {
            run_bbq(scorer, &examples, log_path(&log), t.run_options(), progress)
        })?;
        Ok(Some(run))
    })?;
    let Some(result) = result else {
        return Ok(());
    };
    let report = bias_tasks::BbqReport::new(lm.name(), examples.len(), &categories, &result);
    let value = serde_json::to_value(&report)?;
    t.write_json("bbq", &value)?;
    t.print(&value, || tables::bbq(lm.name(), &report.summary));
    Ok(())
}

fn winogender(t: &TaskArgs) -> Result<(), CliError> {
    let set =
        bias_data::winogender::read_winogender_dir(bias_data::layout::winogender_dir(&t.data_dir))?;
    let lm = t.open("winogender")?;
    let acc = t.with_scorer(&lm, "winogender", |scorer, log| {
        if t.shard_or_gather(log.as_ref(), &wg::requests(&set), scorer)? {
            return Ok(None);
        }
        let acc = with_progress("Winogender", "sentences", |progress| {
            wg::run_winogender(scorer, &set, log_path(&log), t.run_options(), progress)
        })?;
        Ok(Some(acc))
    })?;
    let Some(acc) = acc else {
        return Ok(());
    };
    let report = bias_tasks::WinogenderReport::new(lm.name(), acc);
    let value = serde_json::to_value(&report)?;
    t.write_json("winogender", &value)?;
    t.print(&value, || tables::winogender(lm.name(), &report.accuracies));
    Ok(())
}

impl TaskArgs {
    /// Runs `f` with `lm`'s scorer of continuations — through the chat format when one is asked
    /// for (`--apply-chat-template`) — and the run's log, tied to the model's digest and the
    /// chat format.
    fn with_scorer<T>(
        &self,
        lm: &CausalLm,
        task: &str,
        f: impl FnOnce(&mut dyn ContinuationScorer, Option<(PathBuf, String)>) -> Result<T, CliError>,
    ) -> Result<T, CliError> {
        let chat = self.chat.prompt(lm)?;
        let mut plain = lm.scorer(&[CausalScorerKind::LlSum], self.scoring())?;
        let digest = lm.digest()?;
        let identity = match &chat {
            Some(p) => format!("{digest}, {}", p.identity()),
            None => digest.to_owned(),
        };
        let log = self.log(task, lm.name(), &identity)?;
        match &chat {
            Some(p) => f(&mut ChatScorer::new(&mut plain, p), log),
            None => f(&mut plain, log),
        }
    }
}

fn stereoset(args: &StereoSetArgs) -> Result<(), CliError> {
    let t = &args.task;
    t.chat
        .refuse("StereoSet scores sentences, not answers to a prompt")?;
    let set = bias_data::stereoset::read_stereoset_path(args.split.path(&t.data_dir))?;
    let mut lm = t.device.open_any(&t.model, t.model_name.as_deref())?;
    let task = bias_tasks::StereoSetReport::log_task(args.split);
    t.log_requests(|p| lm.log_requests(p), &task)?;
    let intersentence = args.intersentence.resolve(|| -> Result<bool, CliError> {
        Ok(bias_plm::has_next_sentence_head(lm.dir())?)
    })?;
    let head = match intersentence {
        Intersentence::NextSentenceHead => Some(t.device.open_next_sentence(&t.model)?),
        Intersentence::Conditional => None,
    };
    let mut scorer = lm.stereoset_scorer(head.as_ref(), t.scoring())?;
    let scorer = &mut *scorer;
    let log = t.log(
        &task,
        &format!("{} (intersentence: {})", lm.name(), intersentence.as_str()),
        lm.digest()?,
    )?;
    let docs = bias_tasks::stereoset::stereoset_documents(&set, args.limit, intersentence)?;
    if t.shard_or_gather(log.as_ref(), &docs, scorer)? {
        return Ok(());
    }
    let run = with_progress("StereoSet", "items", |progress| {
        bias_tasks::stereoset::run_stereoset(
            scorer,
            &set,
            args.limit,
            intersentence,
            log_path(&log),
            t.run_options(),
            progress,
        )
    })?;
    let value = serde_json::to_value(bias_tasks::StereoSetReport::new(
        args.split,
        lm.name(),
        lm.family(),
        &run,
    ))?;
    t.write_json(&task, &value)?;
    t.print(&value, || {
        tables::stereoset(
            lm.name(),
            args.split.name(),
            intersentence,
            &run.scores,
            &run.intervals,
            Some(&run.statistics),
        )
    });
    Ok(())
}
