//! [`StudyModel`] for the masked and causal LMs of this crate.

use std::path::Path;

use bias_core::run::{run_scoring, RunSummary};
use bias_core::{BoxError, SentencePair, StudyModel, TokenQuery};

use crate::{Engine, Job, LanguageModel, PlmError, ScoringOptions, Target};

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
    /// The sentence embedder of [`StudyModel::embed`], loaded on first use.
    embedder: Option<crate::PlmEmbedder>,
}

impl StudiedLm {
    /// The default scorers of the model's family ([`LanguageModel::default_scorers`]: the
    /// masked scorers but PLL, or both causal ones), default options,
    /// 64 pairs per chunk.
    pub fn new(lm: LanguageModel) -> Self {
        let scorers = lm
            .default_scorers()
            .into_iter()
            .map(str::to_owned)
            .collect();
        StudiedLm {
            lm,
            scorers,
            options: ScoringOptions::default(),
            chunk_pairs: 64,
            progress: None,
            embedder: None,
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
    /// Masked LMs: [`crate::controlled::fine_tune_study_model`] (an [`crate::MlmTrainer`] run
    /// from this model's folder, scored with the same scorers). Causal LMs: `None`.
    fn fine_tune(
        &mut self,
        sentences: &[String],
        request: &bias_core::FineTuning,
    ) -> Result<Option<Box<dyn StudyModel>>, BoxError> {
        let LanguageModel::Masked(m) = &self.lm else {
            return Ok(None);
        };
        let tuned = crate::controlled::fine_tune_study_model(m, sentences, request)?;
        let lm = LanguageModel::Masked(tuned);
        Ok(Some(Box::new(
            StudiedLm::new(lm)
                .with_scorers(self.scorers.clone())
                .with_options(self.options),
        )))
    }

    /// Masked LMs: [`crate::controlled::gender_templates`]. Causal LMs: `None`.
    fn gender_templates(
        &mut self,
        targets: &[String],
    ) -> Result<Option<bias_core::GenderTemplates>, BoxError> {
        match &self.lm {
            LanguageModel::Masked(m) => Ok(Some(crate::controlled::gender_templates(m, targets)?)),
            LanguageModel::Causal(_) => Ok(None),
        }
    }

    /// Masked LMs: [`crate::controlled::mask_probabilities`]. Causal LMs: `None`.
    fn mask_probabilities(
        &mut self,
        sentence: &str,
        words: &[String],
    ) -> Result<Option<Vec<f64>>, BoxError> {
        match &self.lm {
            LanguageModel::Masked(m) => Ok(Some(crate::controlled::mask_probabilities(
                m, sentence, words,
            )?)),
            LanguageModel::Causal(_) => Ok(None),
        }
    }

    fn name(&self) -> &str {
        self.lm.name()
    }

    /// Masked LMs: the SSS average and CPS rounding of its [`ScoringOptions`]. Causal LMs (no
    /// SSS, no CPS): `None`.
    fn conventions(&self) -> Option<bias_core::ScoringConventions> {
        matches!(self.lm, LanguageModel::Masked(_)).then(|| self.options.conventions())
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

    /// Masked LMs: one unmasked forward pass per sentence, `true` at each non-special position
    /// (all but the first and last token, the positions AUL scores; Kaneko & Bollegala 2022,
    /// Eq. 4) where the arg-max token is the original. Causal LMs: `None`.
    fn token_outcomes(&mut self, sentences: &[&str]) -> Result<Option<Vec<Vec<bool>>>, BoxError> {
        let mut queries = Vec::with_capacity(sentences.len());
        for s in sentences {
            let Some(ids) = self.token_ids(s)? else {
                return Ok(None);
            };
            let targets = (1..ids.len().saturating_sub(1)).collect();
            queries.push(TokenQuery {
                ids,
                masked: Vec::new(),
                targets,
            });
        }
        self.predict_tokens(&queries)
    }

    /// Masked LMs: the tokenizer's ids (special tokens included). Causal LMs: `None`.
    fn token_ids(&mut self, sentence: &str) -> Result<Option<Vec<i64>>, BoxError> {
        match &self.lm {
            LanguageModel::Masked(m) => Ok(Some(m.tokenizer().encode(sentence)?)),
            LanguageModel::Causal(_) => Ok(None),
        }
    }

    /// Masked LMs: the queries go through the batched [`Engine`] (the forward passes the scorers
    /// use, with this model's batching options). Causal LMs: `None`.
    fn predict_tokens(
        &mut self,
        queries: &[TokenQuery],
    ) -> Result<Option<Vec<Vec<bool>>>, BoxError> {
        let LanguageModel::Masked(m) = &self.lm else {
            return Ok(None);
        };
        let special = m.special();
        let mut jobs = Vec::with_capacity(queries.len());
        for (i, q) in queries.iter().enumerate() {
            if q.ids.len() > special.max_tokens {
                return Err(PlmError::Shape(format!(
                    "token query {i}: {} tokens, more than the {} the model accepts",
                    q.ids.len(),
                    special.max_tokens
                ))
                .into());
            }
            if let Some(&bad) = q
                .masked
                .iter()
                .chain(&q.targets)
                .find(|&&p| p >= q.ids.len())
            {
                return Err(PlmError::Shape(format!(
                    "token query {i}: position {bad} lies outside its {} tokens",
                    q.ids.len()
                ))
                .into());
            }
            jobs.push(Job {
                ids: q.ids.clone(),
                masked: q.masked.clone(),
                targets: q
                    .targets
                    .iter()
                    .map(|&p| Target {
                        position: p,
                        tokens: vec![q.ids[p]],
                    })
                    .collect(),
                attention: false,
            });
        }
        let mut engine = Engine::new(
            m.model(),
            special.mask,
            special.pad,
            m.device(),
            self.options.batch,
        );
        let results = engine.run(&jobs)?;
        Ok(Some(results.into_iter().map(|r| r.correct).collect()))
    }

    /// Masked LMs: the mean of the last layer's hidden states over all tokens, special tokens
    /// included ([`crate::PlmEmbedder`] with [`crate::EmbedOptions::default`], the pooling of
    /// `bias embed --model` and of Schröder et al. 2024 §4.3.4), the encoder loaded once from the
    /// model's folder on its device. Causal LMs: `None`.
    fn embed(&mut self, texts: &[&str]) -> Result<Option<ndarray::Array2<f32>>, BoxError> {
        let LanguageModel::Masked(m) = &self.lm else {
            return Ok(None);
        };
        if self.embedder.is_none() {
            let device = match m.device() {
                tch::Device::Cuda(i) => crate::DeviceSpec::Cuda(i),
                _ => crate::DeviceSpec::Cpu,
            };
            let e = crate::PlmEmbedder::load(m.dir(), device, crate::EmbedOptions::default())?;
            self.embedder = Some(e);
        }
        let e = self.embedder.as_mut().expect("loaded above");
        Ok(Some(bias_core::Embedder::embed(e, texts)?))
    }

    /// Masked LMs: [`crate::mask_differing_tokens`] with the model's tokenizer. Causal LMs:
    /// `None`.
    fn mask_differing_tokens(
        &mut self,
        more: &str,
        less: &str,
    ) -> Result<Option<String>, BoxError> {
        match &self.lm {
            LanguageModel::Masked(m) => Ok(Some(crate::mask_differing_tokens(
                m.tokenizer(),
                more,
                less,
            )?)),
            LanguageModel::Causal(_) => Ok(None),
        }
    }
}
