//! [`StudyModel`] for the masked and causal LMs of this crate.

use std::path::Path;

use bias_core::run::{run_scoring, RunSummary};
use bias_core::{BoxError, SentencePair, StudyModel};

use crate::{LanguageModel, ScoringOptions};

/// Called after every chunk of a scoring run: data set, pairs done, pairs in all.
pub type ProgressFn = Box<dyn FnMut(&str, usize, usize)>;

/// A [`LanguageModel`] as a model under study: every scorer of its family (or those chosen),
/// resumable runs of `chunk_pairs` pairs.
pub struct StudiedLm {
    lm: LanguageModel,
    scorers: Vec<String>,
    options: ScoringOptions,
    chunk_pairs: usize,
    progress: Option<ProgressFn>,
}

impl StudiedLm {
    /// Every scorer of the model's family ([`LanguageModel::scorer_names`]), default options,
    /// 64 pairs per chunk.
    pub fn new(lm: LanguageModel) -> Self {
        let scorers = lm.scorer_names().into_iter().map(str::to_owned).collect();
        StudiedLm {
            lm,
            scorers,
            options: ScoringOptions::default(),
            chunk_pairs: 64,
            progress: None,
        }
    }

    /// Scores with these scorers instead (names as [`LanguageModel::scorer`] takes them).
    pub fn with_scorers(mut self, scorers: Vec<String>) -> Self {
        self.scorers = scorers;
        self
    }

    /// Scores with these options.
    pub fn with_options(mut self, options: ScoringOptions) -> Self {
        self.options = options;
        self
    }

    /// Reports progress after every chunk.
    pub fn with_progress(mut self, progress: ProgressFn) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The model.
    pub fn model(&self) -> &LanguageModel {
        &self.lm
    }
}

impl std::fmt::Debug for StudiedLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StudiedLm")
            .field("model", &self.lm.name())
            .field("scorers", &self.scorers)
            .finish_non_exhaustive()
    }
}

impl StudyModel for StudiedLm {
    fn name(&self) -> &str {
        self.lm.name()
    }

    fn score_into(
        &mut self,
        dataset: &str,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, BoxError> {
        let mut scorer = self.lm.scorer(&self.scorers, self.options)?;
        let fingerprint = self
            .lm
            .fingerprint(&*scorer, dataset, pairs, self.chunk_pairs)?;
        let progress = &mut self.progress;
        let mut on_chunk = |done: usize, total: usize| {
            if let Some(p) = progress.as_mut() {
                p(dataset, done, total);
            }
        };
        Ok(run_scoring(
            &mut *scorer,
            pairs,
            fingerprint,
            out,
            &mut on_chunk,
        )?)
    }
}
