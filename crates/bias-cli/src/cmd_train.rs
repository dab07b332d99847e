//! `bias finetune`: masked-LM fine-tuning of one model on a corpus (kaneko2023 §2's training
//! step, and how the demo model is built).

use std::path::PathBuf;

use bias_core::{MaskedLmTrainer, TrainingConfig};
use bias_plm::{DeviceSpec, MlmTrainer, StepReport, TrainedModel};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::error::CliError;

/// Optimiser and objective settings shared by `finetune` and `controlled`.
#[derive(Debug, Clone, Args)]
pub struct TrainArgs {
    /// Passes over the training sentences.
    #[arg(long, default_value_t = 1)]
    pub epochs: usize,
    /// Stop after this many optimiser steps (whichever of this and --epochs ends first).
    #[arg(long)]
    pub max_steps: Option<usize>,
    /// Sentences per batch.
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    /// Peak learning rate of AdamW (linear warm-up, then linear decay to 0).
    #[arg(long, default_value_t = 5e-5)]
    pub learning_rate: f64,
    /// Share of the steps spent warming up.
    #[arg(long, default_value_t = 0.1)]
    pub warmup_ratio: f64,
    /// AdamW weight decay (not on biases and layer norms).
    #[arg(long, default_value_t = 0.01)]
    pub weight_decay: f64,
    /// Share of tokens selected for the MLM objective (of which 80 % masked, 10 % random,
    /// 10 % kept).
    #[arg(long, default_value_t = 0.15)]
    pub mask_probability: f64,
    /// Gradient-norm clipping threshold.
    #[arg(long, default_value_t = 1.0)]
    pub max_grad_norm: f64,
    /// Seed of shuffling, masking, dropout and head initialisation.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Sentences are cut to this many tokens.
    #[arg(long, default_value_t = 128)]
    pub max_length: usize,
    /// Save a resumable checkpoint every N steps (0: only at the end).
    #[arg(long, default_value_t = 200)]
    pub checkpoint_every: usize,
    /// `auto`, `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "auto")]
    pub device: String,
    /// Intra-op threads of libtorch on the CPU (default: libtorch's choice).
    #[arg(long)]
    pub threads: Option<i32>,
}

impl TrainArgs {
    /// The core training configuration.
    pub fn config(&self) -> TrainingConfig {
        TrainingConfig {
            epochs: self.epochs,
            max_steps: self.max_steps,
            batch_size: self.batch_size,
            learning_rate: self.learning_rate,
            warmup_ratio: self.warmup_ratio,
            weight_decay: self.weight_decay,
            mask_probability: self.mask_probability,
            max_grad_norm: self.max_grad_norm,
            seed: self.seed,
        }
    }

    /// A trainer from `base` to `out` with these settings and a progress bar titled `title`.
    pub fn trainer(
        &self,
        base: PathBuf,
        out: PathBuf,
        new_head: bool,
        title: &str,
    ) -> Result<MlmTrainer, CliError> {
        if let Some(n) = self.threads {
            tch::set_num_threads(n);
        }
        let device: DeviceSpec = self.device.parse()?;
        let bar = progress_bar(title);
        let title = title.to_string();
        Ok(MlmTrainer::new(base, out, device)
            .new_mlm_head(new_head)
            .max_length(self.max_length)
            .checkpoint_every(self.checkpoint_every)
            .on_step(move |r: &StepReport| {
                bar.set_length(r.total as u64);
                bar.set_position(r.step as u64);
                bar.set_message(format!("loss {:.3}  lr {:.1e}", r.loss, r.learning_rate));
                // Without a terminal the bar is hidden: log about twenty lines instead.
                let every = (r.total / 20).max(1);
                if bar.is_hidden() && (r.step % every == 0 || r.step == r.total) {
                    eprintln!(
                        "{title}: step {}/{} loss {:.3} lr {:.1e} ({:.0} s)",
                        r.step, r.total, r.loss, r.learning_rate, r.seconds
                    );
                }
                if r.step == r.total {
                    bar.finish();
                }
            }))
    }
}

fn progress_bar(title: &str) -> ProgressBar {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} steps ({per_sec}, ETA {eta}) {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(title.to_string());
    bar
}

/// `bias finetune` arguments.
#[derive(Debug, Args)]
pub struct FinetuneArgs {
    /// The model to start from: a masked-LM folder, or a bare BERT encoder with
    /// --new-mlm-head.
    #[arg(long)]
    base: PathBuf,
    /// Training text: one sentence per line, or the BUG corpus CSV (`sentence_text` column).
    #[arg(long)]
    corpus: PathBuf,
    /// Where the fine-tuned model is saved (a Hugging Face folder); a rerun resumes or reuses it.
    #[arg(long)]
    out: PathBuf,
    /// Add a new masked-LM head to a bare BERT encoder (e.g. all-MiniLM-L6-v2).
    #[arg(long)]
    new_mlm_head: bool,
    /// Train on the first N sentences of the corpus only.
    #[arg(long)]
    sentences: Option<usize>,
    #[command(flatten)]
    train: TrainArgs,
}

/// Runs `bias finetune`.
pub fn run(args: &FinetuneArgs, out: &mut impl std::io::Write) -> Result<(), CliError> {
    let mut sentences = bias_data::corpus::read_sentences(&args.corpus, None)?;
    if let Some(n) = args.sentences {
        sentences.truncate(n);
    }
    let mut trainer = args.train.trainer(
        args.base.clone(),
        args.out.clone(),
        args.new_mlm_head,
        "fine-tuning",
    )?;
    let trained = trainer.train(&sentences, &args.train.config())?;
    summary(&trained, out)
}

/// One line on what a run did.
pub fn summary(t: &TrainedModel, out: &mut impl std::io::Write) -> Result<(), CliError> {
    if t.reused {
        writeln!(
            out,
            "{}: already trained ({} steps on {} sentences); reused",
            t.dir.display(),
            t.steps,
            t.sentences
        )?;
    } else {
        let loss = match (t.loss_first, t.loss_last) {
            (Some(a), Some(b)) => format!("; loss {a:.3} (first tenth) -> {b:.3} (last tenth)"),
            _ => String::new(),
        };
        let resumed = if t.resumed_from > 0 {
            format!(", resumed at step {}", t.resumed_from)
        } else {
            String::new()
        };
        writeln!(
            out,
            "{}: {} steps on {} sentences in {:.0} s{resumed}{loss}",
            t.dir.display(),
            t.steps,
            t.sentences,
            t.seconds,
        )?;
    }
    Ok(())
}
