//! `bias generate`: greedy continuations of a prompt file with a causal LM (local or served),
//! one JSON line per prompt (`prompt`, `text`, `token_ids`, `finish`), resumable.

use std::path::PathBuf;

use bias_core::GenerationOptions;
use bias_tasks::generation::{generate_logged, GenerationRun};
use clap::Args;

use crate::chat_args::ChatArgs;
use crate::error::CliError;
use crate::model_args::DeviceArgs;
use crate::progress::with_progress;

/// Arguments of `bias generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// A causal LM: a model folder, a Hugging Face id, or a server's `http://HOST:PORT/v1`
    /// (with --tokenizer).
    #[arg(long)]
    pub model: PathBuf,
    /// Name shown for the model (default: the folder's name).
    #[arg(long)]
    pub model_name: Option<String>,
    /// The prompts: a `.jsonl` file of objects with a `prompt` string, or a text file with one
    /// prompt per line.
    #[arg(long)]
    pub prompts: PathBuf,
    /// The most tokens to generate per prompt (lm-evaluation-harness's `max_gen_toks`).
    #[arg(long, default_value_t = 256)]
    pub max_new_tokens: usize,
    /// A stop string (repeat for more): generation stops once the text contains it, and the
    /// text is cut before it (lm-evaluation-harness's `until`).
    #[arg(long = "stop", value_name = "TEXT")]
    pub stop: Vec<String>,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub chat: ChatArgs,
    /// Prompts per call to the model (and per write; a served model's are sent in parallel).
    #[arg(long, default_value_t = 16)]
    pub chunk: usize,
    /// The output, one JSON line per prompt (resumed if a previous run of the same model,
    /// options and prompts left it; its run record is `OUT.run.json`).
    #[arg(long)]
    pub out: PathBuf,
}

/// Generates for every prompt of `args.prompts` into `args.out`.
pub fn run(args: &GenerateArgs) -> Result<(), CliError> {
    let prompts = bias_data::prompts::load_prompts(&args.prompts)?;
    let mut lm = args.device.open_causal(
        &args.model,
        args.model_name.as_deref(),
        "bias generate generates",
    )?;
    let options = GenerationOptions {
        max_new_tokens: args.max_new_tokens,
        stop: args.stop.clone(),
    };
    if let Some(parent) = args.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| bias_core::CoreError::io(parent, e))?;
    }
    let name = lm.name().to_owned();
    let title = format!("{name}: generating");
    let summary = args.chat.with_generator(&mut lm, |generator, identity| {
        let run = GenerationRun {
            identity: format!("{name} ({identity})"),
            options: &options,
            chunk: args.chunk,
        };
        let (_, summary) = with_progress(&title, "prompts", |progress| {
            generate_logged(generator, &prompts, Some(&args.out), &run, progress)
        })?;
        Ok(summary)
    })?;
    eprintln!(
        "{}: {} prompts ({} resumed): {} stopped at the token limit, {} at an end-of-sequence \
         token, {} at a stop string",
        args.out.display(),
        summary.prompts,
        summary.resumed,
        summary.length,
        summary.eos,
        summary.stop
    );
    Ok(())
}
