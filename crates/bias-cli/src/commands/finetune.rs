//! `bias finetune`: masked-LM fine-tuning of one model on a corpus (kaneko2023 §2's training
//! step, and how the demo model is built).

use std::path::{Path, PathBuf};

use bias_core::{MaskedLmTrainer, TextLayout, TrainingOptions};
use bias_plm::{DeviceSpec, MlmTrainer, StepReport, TrainedModel};
use clap::Args;

use crate::choice::choice;
use crate::error::CliError;
use crate::output::{write_json, Format};
use crate::progress::Progress;

/// A named set of training settings; every setting can still be overridden by its flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    /// kaneko2023 §3.2: `transformers`' `run_mlm.py` and `Trainer` defaults (3 epochs, learning
    /// rate 5e-5 without warm-up, weight decay 0, batch 8, text in blocks of the model's
    /// maximum length).
    Kaneko2023,
    /// Faster settings for CPU runs: 1 epoch, batch 32, 10 % warm-up, weight decay 0.01, one
    /// sentence per sequence cut to 128 tokens.
    Fast,
}

impl Preset {
    /// The preset's name as the flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Kaneko2023 => "kaneko2023",
            Preset::Fast => "fast",
        }
    }

    fn config(self) -> TrainingOptions {
        match self {
            Preset::Kaneko2023 => TrainingOptions::kaneko2023(),
            Preset::Fast => TrainingOptions::fast(),
        }
    }
}

/// Optimiser and objective settings shared by `finetune` and `controlled`: a preset, and flags
/// that override its values.
#[derive(Debug, Clone, Args)]
pub struct TrainArgs {
    /// Named settings (default: `fast` for `finetune`, `kaneko2023` for `controlled`).
    #[arg(long, value_enum)]
    pub preset: Option<Preset>,
    /// Passes over the training sentences [preset: kaneko2023 3, fast 1].
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Stop after this many optimiser steps (whichever of this and --epochs ends first).
    #[arg(long)]
    pub max_steps: Option<usize>,
    /// Sequences per batch [kaneko2023 8, fast 32].
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Peak learning rate of AdamW, decaying linearly to 0 [both 5e-5].
    #[arg(long)]
    pub learning_rate: Option<f64>,
    /// Share of the steps spent warming up [kaneko2023 0, fast 0.1].
    #[arg(long)]
    pub warmup_ratio: Option<f64>,
    /// AdamW weight decay, not on biases and layer norms [kaneko2023 0, fast 0.01].
    #[arg(long)]
    pub weight_decay: Option<f64>,
    /// Share of tokens selected for the MLM objective (of which 80 % masked, 10 % random,
    /// 10 % kept) [both 0.15].
    #[arg(long)]
    pub mask_probability: Option<f64>,
    /// Gradient-norm clipping threshold [both 1.0].
    #[arg(long)]
    pub max_grad_norm: Option<f64>,
    /// Seed of shuffling, masking, dropout and head initialisation [both 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Sequence length in tokens [kaneko2023: the model's maximum, blocks; fast: 128].
    #[arg(long)]
    pub max_length: Option<usize>,
    /// How the text becomes sequences [kaneko2023 blocks, fast line-by-line].
    #[arg(long, value_parser = choice::<TextLayout>())]
    pub layout: Option<TextLayout>,
    /// Save a resumable checkpoint every N steps (0: only at the end).
    #[arg(long, default_value_t = 200)]
    pub checkpoint_every: usize,
    /// `auto`, `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "auto")]
    pub device: String,
    /// Intra-op threads of libtorch on the CPU (default: libtorch's choice).
    #[arg(long)]
    pub threads: Option<i32>,
    /// Train without dropout (a deterministic run, for comparing with another trainer step by
    /// step); by default the dropout rates of the model's config.json apply.
    #[arg(long)]
    pub no_dropout: bool,
}

impl TrainArgs {
    /// Where the fine-tuned models are scored: the training device, in float32.
    pub fn device_args(&self) -> crate::model_args::DeviceArgs {
        crate::model_args::DeviceArgs {
            device: self.device.clone(),
            threads: self.threads,
            dtype: bias_plm::Precision::F32,
            served: Default::default(),
        }
    }
}

/// The settings a run resolved to: the preset, its overrides, and the sequence length.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedTraining {
    /// The preset the settings started from.
    pub preset: &'static str,
    /// Optimiser and objective settings.
    pub config: TrainingOptions,
    /// Tokens per training sequence.
    pub max_length: usize,
}

impl ResolvedTraining {
    /// One line for logs and reports.
    pub fn describe(&self) -> String {
        let c = &self.config;
        format!(
            "preset {}: {} epoch(s){}, batch {}, learning rate {:e} (warm-up {}), weight decay \
             {}, clipping {}, {} % of tokens selected, {:?} of {} tokens, seed {}",
            self.preset,
            c.epochs,
            c.max_steps
                .map_or(String::new(), |m| format!(" (at most {m} steps)")),
            c.batch_size,
            c.learning_rate,
            c.warmup_ratio,
            c.weight_decay,
            c.max_grad_norm,
            c.mask_probability * 100.0,
            c.layout,
            self.max_length,
            c.seed
        )
    }
}

impl TrainArgs {
    /// The settings of `self.preset` (or `default` when none is given) with every flag given
    /// applied over them. The kaneko2023 preset's sequence length is the model's maximum (the
    /// position embeddings of `base`'s config.json, less RoBERTa's padding offset).
    pub fn resolve(&self, default: Preset, base: &Path) -> Result<ResolvedTraining, CliError> {
        let preset = self.preset.unwrap_or(default);
        let mut c = preset.config();
        c.epochs = self.epochs.unwrap_or(c.epochs);
        c.max_steps = self.max_steps.or(c.max_steps);
        c.batch_size = self.batch_size.unwrap_or(c.batch_size);
        c.learning_rate = self.learning_rate.unwrap_or(c.learning_rate);
        c.warmup_ratio = self.warmup_ratio.unwrap_or(c.warmup_ratio);
        c.weight_decay = self.weight_decay.unwrap_or(c.weight_decay);
        c.mask_probability = self.mask_probability.unwrap_or(c.mask_probability);
        c.max_grad_norm = self.max_grad_norm.unwrap_or(c.max_grad_norm);
        c.seed = self.seed.unwrap_or(c.seed);
        if let Some(layout) = self.layout {
            c.layout = layout;
        }
        let max_length = match (self.max_length, preset) {
            (Some(n), _) => n,
            (None, Preset::Fast) => 128,
            (None, Preset::Kaneko2023) => {
                bias_plm::ModelConfig::from_dir(base)?.max_tokens() as usize
            }
        };
        Ok(ResolvedTraining {
            preset: preset.name(),
            config: c,
            max_length,
        })
    }

    /// A trainer from `base` to `out` with these settings and a progress bar titled `title`.
    pub fn trainer(
        &self,
        base: PathBuf,
        out: PathBuf,
        new_head: bool,
        resolved: &ResolvedTraining,
        title: &str,
    ) -> Result<MlmTrainer, CliError> {
        if let Some(n) = self.threads {
            tch::set_num_threads(n);
        }
        let device: DeviceSpec = self.device.parse()?;
        let mut progress = Progress::new(title, "steps");
        Ok(MlmTrainer::new(base, out, device)
            .new_mlm_head(new_head)
            .max_length(resolved.max_length)
            .dropout(!self.no_dropout)
            .checkpoint_every(self.checkpoint_every)
            .on_step(move |r: &StepReport| {
                progress.set_detail(format!("loss {:.3}  lr {:.1e}", r.loss, r.learning_rate));
                progress.update(r.step, r.total);
                if r.step == r.total {
                    progress.finish();
                }
            }))
    }
}

/// `bias finetune` arguments.
#[derive(Debug, Args)]
pub struct FinetuneArgs {
    /// The model to start from: a masked-LM folder or Hugging Face id `org/name[@revision]` (as
    /// --model elsewhere), or a bare BERT encoder with --new-mlm-head.
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
    /// Write the batches the run would train on (one JSON object per optimiser step: the
    /// corrupted ids, attention mask, selected positions and their labels) to this file and
    /// train nothing. For checking the trainer against another implementation.
    #[arg(long, value_name = "FILE")]
    export_batches: Option<PathBuf>,
    /// Output format of the run's summary (`json`: the folder, steps, losses and timing).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    #[command(flatten)]
    train: TrainArgs,
}

/// Runs `bias finetune`.
pub fn run(args: &FinetuneArgs, out: &mut impl std::io::Write) -> Result<(), CliError> {
    let mut sentences = bias_data::corpus::read_sentences(&args.corpus, None)?;
    if let Some(n) = args.sentences {
        sentences.truncate(n);
    }
    let (base, _) = crate::model_args::resolve_model(&args.base)?;
    let resolved = args.train.resolve(Preset::Fast, &base)?;
    eprintln!("training: {}", resolved.describe());
    let mut trainer = args.train.trainer(
        base,
        args.out.clone(),
        args.new_mlm_head,
        &resolved,
        "fine-tuning",
    )?;
    if let Some(file) = &args.export_batches {
        let batches = trainer.batches(&sentences, &resolved.config)?;
        let text = serde_json::to_string(&batches)?;
        std::fs::write(file, text).map_err(|e| bias_core::CoreError::io(file, e))?;
        writeln!(
            out,
            "{}: the {} batches of the run",
            file.display(),
            batches.len()
        )?;
        return Ok(());
    }
    let trained = trainer.train(&sentences, &resolved.config)?;
    match args.format {
        Format::Table => summary(&trained, out),
        Format::Json => write_json(&trained, out),
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.serialize(&trained)?;
            w.flush()?;
            Ok(())
        }
    }
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
