//! `bias task bbq --generate`: BBQ judged on generated answers, as lm-evaluation-harness's
//! `bbq_generate` (resumable through `--out`'s `bbq_generate.jsonl`, which keeps every example's
//! generation).

use bias_data::bbq::{BbqCategory, BbqExample};
use bias_tasks::bbq_generate::{bbq_generation_options, run_bbq_generate};
use clap::Args;

use super::task::TaskArgs;
use super::task_tables as tables;
use crate::error::CliError;
use crate::progress::with_progress;

/// `bias task bbq`'s generative mode.
#[derive(Debug, Args)]
pub struct GenerateTaskArgs {
    /// Judge the generated answers instead of the choices' likelihoods (lm-evaluation-harness's
    /// `bbq_generate`: greedy until "\n\n", the answer read from the text).
    #[arg(long)]
    pub generate: bool,
    /// The most tokens generated per example (`max_gen_toks`).
    #[arg(long, default_value_t = 256, requires = "generate")]
    pub max_new_tokens: usize,
}

/// Runs `bbq_generate` on `examples` of `categories` as `t` says.
pub fn bbq(
    t: &TaskArgs,
    g: &GenerateTaskArgs,
    examples: &[BbqExample],
    categories: &[BbqCategory],
) -> Result<(), CliError> {
    if t.shard.is_some() {
        return Err(CliError::Usage(
            "--generate runs unsharded: drop --shard (a served model's requests are already \
             spread over its endpoints)"
                .into(),
        ));
    }
    let mut lm = t.open("bbq_generate")?;
    let name = lm.name().to_owned();
    let options = bbq_generation_options(g.max_new_tokens);
    let run = t.chat.with_generator(&mut lm, |generator, identity| {
        let log = t.log("bbq_generate", &name, &identity)?;
        let log = log.as_ref().map(|(p, r)| (p.as_path(), r.as_str()));
        Ok(with_progress(
            "BBQ (generated answers)",
            "examples",
            |progress| run_bbq_generate(generator, examples, log, &options, t.chunk, progress),
        )?)
    })?;
    let s = &run.generation;
    eprintln!(
        "BBQ: {} examples ({} read back from the log): {} generations stopped at the token \
         limit, {} at an end-of-sequence token, {} at \"\\n\\n\"",
        s.prompts, s.resumed, s.length, s.eos, s.stop
    );
    let report =
        bias_tasks::BbqGenerateReport::new(&name, examples, categories, g.max_new_tokens, &run)?;
    let value = serde_json::to_value(&report)?;
    t.write_json("bbq_generate", &value)?;
    t.print(&value, || tables::bbq(&name, &report.summary));
    Ok(())
}
