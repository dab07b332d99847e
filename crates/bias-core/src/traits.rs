//! The traits through which the layers compose.

use ndarray::Array2;

use crate::{Measurement, ScoreTable};

/// Turns a score table into a bias measurement (indicator percentage, KLS, JSS, ...).
pub trait BiasMeasure {
    /// The measure's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Short name (`indicator`, `kls`, `jss`).
    fn name(&self) -> &str;

    /// Computes the measure on every row of `table`.
    ///
    /// # Errors
    /// Implementation-defined; typically an empty table.
    fn measure(&self, table: &ScoreTable) -> Result<Measurement, Self::Error>;
}

/// A [`BiasMeasure`] whose error is boxed, so that measures with different error types sit in
/// one list (`&[&dyn AnyMeasure]`) — what the robustness studies take. Every [`BiasMeasure`] is
/// one.
pub trait AnyMeasure {
    /// Short name (`indicator`, `kls`, `jss`).
    fn name(&self) -> &str;

    /// Computes the measure on every row of `table`.
    ///
    /// # Errors
    /// The measure's own error, boxed.
    fn measure_any(
        &self,
        table: &ScoreTable,
    ) -> Result<Measurement, Box<dyn std::error::Error + Send + Sync>>;
}

impl<M: BiasMeasure + ?Sized> AnyMeasure for M {
    fn name(&self) -> &str {
        BiasMeasure::name(self)
    }

    fn measure_any(
        &self,
        table: &ScoreTable,
    ) -> Result<Measurement, Box<dyn std::error::Error + Send + Sync>> {
        self.measure(table).map_err(Into::into)
    }
}

/// Embeds texts as vectors (sentence embeddings from a model, or static word vectors).
pub trait Embedder {
    /// The embedder's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Embedding dimension.
    fn dim(&self) -> usize;

    /// Embeds a batch of texts: one row per text, in order.
    ///
    /// # Errors
    /// Implementation-defined (an unknown word, a text too long for the model, ...).
    fn embed(&mut self, texts: &[&str]) -> Result<Array2<f32>, Self::Error>;
}

/// Settings for masked-language-model fine-tuning (the bias-controlled experiments of
/// kaneko2023). [`Default`] gives the usual BERT fine-tuning values.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingOptions {
    /// Passes over the training sentences.
    pub epochs: usize,
    /// Stop after this many optimiser steps, if set (whichever of this and `epochs` ends first).
    pub max_steps: Option<usize>,
    /// Sentences per batch.
    pub batch_size: usize,
    /// Peak learning rate of AdamW.
    pub learning_rate: f64,
    /// Share of steps spent in linear warm-up.
    pub warmup_ratio: f64,
    /// AdamW weight decay.
    pub weight_decay: f64,
    /// Share of tokens selected for the MLM objective (BERT: 0.15).
    pub mask_probability: f64,
    /// Gradient-norm clipping threshold.
    pub max_grad_norm: f64,
    /// Seed for shuffling, masking and initialisation.
    pub seed: u64,
    /// How the sentences become training sequences.
    pub layout: TextLayout,
}

crate::choice! {
    /// How training text becomes sequences (`transformers`' `run_mlm.py` offers both).
    #[derive(Default, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    #[non_exhaustive]
    pub enum TextLayout: "text layout" {
        /// One sequence per sentence, cut to the maximum length (`run_mlm.py --line_by_line`).
        #[default]
        LineByLine = "line-by-line" => "One sequence per sentence",
        /// Every sentence tokenised with its special tokens, all concatenated, and cut into blocks
        /// of the maximum length; the last, shorter block is dropped (`run_mlm.py`'s default,
        /// `group_texts`).
        Blocks = "blocks" => "Sentences concatenated and cut into blocks of the maximum length",
    }
}

impl TrainingOptions {
    /// kaneko2023 §3.2: "all hyperparameters set to the defaults of transformers v4.22.2",
    /// i.e. `run_mlm.py` with the `Trainer`'s defaults: 3 epochs, learning rate 5e-5 decaying
    /// linearly with no warm-up, no weight decay, batch size 8, AdamW β = (0.9, 0.999) and
    /// ε = 1e-8, gradient clipping at 1.0, 15 % of tokens selected, and text grouped into
    /// blocks of the model's maximum length ([`TextLayout::Blocks`]). Seed 42, the `Trainer`'s.
    pub fn kaneko2023() -> Self {
        TrainingOptions {
            epochs: 3,
            max_steps: None,
            batch_size: 8,
            learning_rate: 5e-5,
            warmup_ratio: 0.0,
            weight_decay: 0.0,
            mask_probability: 0.15,
            max_grad_norm: 1.0,
            seed: 42,
            layout: TextLayout::Blocks,
        }
    }

    /// Faster settings for small CPU runs (the [`Default`]): one epoch of line-by-line batches
    /// of 32, learning rate 5e-5 with 10 % warm-up, weight decay 0.01.
    pub fn fast() -> Self {
        TrainingOptions::default()
    }
}

impl Default for TrainingOptions {
    fn default() -> Self {
        TrainingOptions {
            epochs: 1,
            max_steps: None,
            batch_size: 32,
            learning_rate: 5e-5,
            warmup_ratio: 0.1,
            weight_decay: 0.01,
            mask_probability: 0.15,
            max_grad_norm: 1.0,
            seed: 42,
            layout: TextLayout::LineByLine,
        }
    }
}

/// Fine-tunes a masked language model on sentences (kaneko2023 §3).
pub trait MaskedLmTrainer {
    /// What training produces (a model handle or the folder it was saved to).
    type Model;
    /// The trainer's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Trains on `sentences` with `options`.
    ///
    /// # Errors
    /// Implementation-defined (no sentences, a device error, a write failure, ...).
    fn train(
        &mut self,
        sentences: &[String],
        options: &TrainingOptions,
    ) -> Result<Self::Model, Self::Error>;
}
