//! The masked and causal LMs of this crate as models under study: each implements the
//! capabilities of [`bias_core::capability`] it has, so that a study asking for one a model
//! lacks does not compile.
//!
//! | type | capabilities |
//! |---|---|
//! | [`StudiedMlm`] | [`DatasetScorer`], [`TokenPredictor`], [`MaskFiller`], [`FineTuner`], [`DifferenceMasker`], [`Embedder`] |
//! | [`StudiedCausal`] | [`DatasetScorer`] |
//! | [`StudiedLm`] (either, for a list mixing them) | [`DatasetScorer`], [`MaybeTokenPredictor`] |

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use bias_core::run::{run_scoring, RunSummary};
use bias_core::{
    BoxError, DatasetScorer, DifferenceMasker, Embedder, FineTuner, FineTuning, GenderTemplates,
    IntoMaskedLm, MaskFiller, MaybeTokenPredictor, SentencePair, TokenPredictor, TokenQuery,
};

use crate::language_model::{causal_kinds, masked_kinds, LmScorer};
use crate::model::MaskedLanguageModel;
use crate::{
    CausalLm, CausalScorerKind, EngineStats, Job, LanguageModel, MaskedLm, PlmError,
    ScoringOptions, Target,
};

/// Called after every chunk of a model's long work (a data set's pairs scored, a fine-tuning's
/// optimiser steps).
pub type ProgressFn = Box<dyn FnMut(&WorkReport<'_>)>;

/// What a model under study reports to its [`ProgressFn`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkReport<'a> {
    /// The model doing it (a fine-tuned model under its own name).
    pub model: &'a str,
    /// The work: the data set being scored, or `fine-tuning <name>`.
    pub work: &'a str,
    /// What `done` and `total` count: `pairs` or `steps`.
    pub unit: &'static str,
    /// How many are done (a resumed run starts above 0).
    pub done: usize,
    /// How many the work has in all.
    pub total: usize,
}

/// One [`ProgressFn`] shared by a model and the models fine-tuned from it.
type SharedProgress = Rc<RefCell<ProgressFn>>;

/// How a model under study scores: which scorers, with which options, in chunks of how many
/// pairs, reporting progress where.
struct Scoring {
    scorers: Vec<String>,
    options: ScoringOptions,
    chunk_pairs: usize,
    progress: Option<SharedProgress>,
    /// The work of the last [`DatasetScorer::score_into`].
    last_stats: EngineStats,
}

impl Scoring {
    fn new(scorers: Vec<&'static str>) -> Self {
        Scoring {
            scorers: scorers.into_iter().map(str::to_owned).collect(),
            options: ScoringOptions::default(),
            chunk_pairs: 64,
            progress: None,
            last_stats: EngineStats::default(),
        }
    }

    /// `Debug` for the model `name` under study as `kind`.
    fn debug(&self, f: &mut std::fmt::Formatter<'_>, kind: &str, name: &str) -> std::fmt::Result {
        f.debug_struct(kind)
            .field("model", &name)
            .field("scorers", &self.scorers)
            .finish_non_exhaustive()
    }

    /// Runs `scorer` over `pairs` into `out`, resumably, reporting progress after every chunk
    /// and keeping the scorer's work counters.
    fn run<S: LmScorer>(
        &mut self,
        mut scorer: S,
        fingerprint: bias_core::run::RunFingerprint,
        dataset: &str,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, BoxError> {
        let progress = &self.progress;
        let model = fingerprint.model.clone();
        let mut on_chunk = |done: usize, total: usize| {
            if let Some(p) = progress {
                let (model, work) = (model.as_str(), dataset);
                (p.borrow_mut())(&WorkReport {
                    model,
                    work,
                    unit: "pairs",
                    done,
                    total,
                });
            }
        };
        let summary = run_scoring(&mut scorer, pairs, fingerprint, out, &mut on_chunk)?;
        self.last_stats = scorer.stats();
        Ok(summary)
    }
}

/// A masked LM under study: every capability of [`bias_core::capability`]. Scores with every
/// scorer of [`crate::ScorerKind`] but PLL (or those chosen), resumable runs of 64 pairs.
pub struct StudiedMlm {
    lm: MaskedLm,
    scoring: Scoring,
    /// The sentence embedder of [`Embedder::embed`], loaded on first use.
    embedder: Option<Box<crate::PlmEmbedder>>,
    /// Where [`MaskFiller::gender_templates`] keeps its results, keyed by the model's digest.
    template_cache: Option<PathBuf>,
}

/// A causal LM under study: [`DatasetScorer`] with the scorers of [`CausalScorerKind`].
pub struct StudiedCausal {
    lm: CausalLm,
    scoring: Scoring,
}

/// Either a masked or a causal LM under study, for a list that mixes them: a
/// [`DatasetScorer`], and a [`TokenPredictor`] where it is masked ([`MaybeTokenPredictor`]).
// One value per model under study: the size difference of the variants costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum StudiedLm {
    /// A masked LM.
    Masked(StudiedMlm),
    /// A causal LM.
    Causal(StudiedCausal),
}

impl StudiedMlm {
    /// The masked LM with the default scorers ([`LanguageModel::default_scorers`]: every masked
    /// scorer but PLL) and options.
    pub fn new(lm: MaskedLm) -> Self {
        let scorers = LanguageModel::default_masked_scorers();
        StudiedMlm {
            lm,
            scoring: Scoring::new(scorers),
            embedder: None,
            template_cache: None,
        }
    }

    /// Scores with these scorers instead (names as [`LanguageModel::scorer`] takes them).
    pub fn with_scorers(mut self, scorers: Vec<String>) -> Self {
        self.scoring.scorers = scorers;
        self
    }

    /// Scores with these options.
    pub fn with_options(mut self, options: ScoringOptions) -> Self {
        self.scoring.options = options;
        self
    }

    /// Reports progress after every chunk.
    pub fn with_progress(mut self, progress: ProgressFn) -> Self {
        self.scoring.progress = Some(Rc::new(RefCell::new(progress)));
        self
    }

    /// Keeps the results of [`MaskFiller::gender_templates`] in `path` (JSON, with the model's
    /// digest and the targets), and reuses them when both match.
    pub fn with_template_cache(mut self, path: impl Into<PathBuf>) -> Self {
        self.template_cache = Some(path.into());
        self
    }

    /// The model.
    pub fn model(&self) -> &MaskedLm {
        &self.lm
    }

    /// The work done by the scorers in the last [`DatasetScorer::score_into`].
    pub fn last_stats(&self) -> EngineStats {
        self.scoring.last_stats
    }
}

impl StudiedCausal {
    /// The causal LM with both causal scorers and the default options.
    pub fn new(lm: CausalLm) -> Self {
        let scorers = CausalScorerKind::ALL.iter().map(|k| k.name()).collect();
        StudiedCausal {
            lm,
            scoring: Scoring::new(scorers),
        }
    }

    /// The model.
    pub fn model(&self) -> &CausalLm {
        &self.lm
    }
}

impl StudiedLm {
    /// The model under study, masked or causal as `lm` is.
    pub fn new(lm: LanguageModel) -> Self {
        match lm {
            LanguageModel::Masked(m) => StudiedLm::Masked(StudiedMlm::new(m)),
            LanguageModel::Causal(m) => StudiedLm::Causal(StudiedCausal::new(m)),
        }
    }

    fn scoring(&mut self) -> &mut Scoring {
        match self {
            StudiedLm::Masked(m) => &mut m.scoring,
            StudiedLm::Causal(m) => &mut m.scoring,
        }
    }

    /// Scores with these scorers instead (names as [`LanguageModel::scorer`] takes them).
    pub fn with_scorers(mut self, scorers: Vec<String>) -> Self {
        self.scoring().scorers = scorers;
        self
    }

    /// Scores with these options.
    pub fn with_options(mut self, options: ScoringOptions) -> Self {
        self.scoring().options = options;
        self
    }

    /// Reports progress after every chunk.
    pub fn with_progress(mut self, progress: ProgressFn) -> Self {
        self.scoring().progress = Some(Rc::new(RefCell::new(progress)));
        self
    }
}

impl std::fmt::Debug for StudiedMlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.scoring.debug(f, "StudiedMlm", self.lm.name())
    }
}

impl std::fmt::Debug for StudiedCausal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.scoring.debug(f, "StudiedCausal", self.lm.name())
    }
}

impl std::fmt::Debug for StudiedLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StudiedLm::Masked(m) => m.fmt(f),
            StudiedLm::Causal(m) => m.fmt(f),
        }
    }
}

impl DatasetScorer for StudiedMlm {
    fn name(&self) -> &str {
        self.lm.name()
    }

    /// The SSS average and CPS rounding of its [`ScoringOptions`].
    fn conventions(&self) -> Option<bias_core::ScoringConventions> {
        Some(self.scoring.options.conventions())
    }

    fn score_into(
        &mut self,
        dataset: &str,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, BoxError> {
        let model_type = &self.lm.model().config().model_type_name;
        let kinds = masked_kinds(model_type, &self.scoring.scorers)?;
        let scorer = self.lm.scorer(&kinds, self.scoring.options)?;
        let chunk_pairs = self.scoring.chunk_pairs;
        let fingerprint = self.lm.fingerprint(&scorer, dataset, pairs, chunk_pairs)?;
        self.scoring.run(scorer, fingerprint, dataset, pairs, out)
    }
}

impl DatasetScorer for StudiedCausal {
    fn name(&self) -> &str {
        self.lm.name()
    }

    /// `None`: a causal LM has neither SSS nor CPS.
    fn conventions(&self) -> Option<bias_core::ScoringConventions> {
        None
    }

    fn score_into(
        &mut self,
        dataset: &str,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, BoxError> {
        let model_type = self.lm.model_type();
        let kinds = causal_kinds(model_type, &self.scoring.scorers)?;
        let scorer = self.lm.scorer(&kinds, self.scoring.options)?;
        let chunk_pairs = self.scoring.chunk_pairs;
        let fingerprint = self.lm.fingerprint(&scorer, dataset, pairs, chunk_pairs)?;
        self.scoring.run(scorer, fingerprint, dataset, pairs, out)
    }
}

impl DatasetScorer for StudiedLm {
    fn name(&self) -> &str {
        match self {
            StudiedLm::Masked(m) => m.name(),
            StudiedLm::Causal(m) => m.name(),
        }
    }

    fn conventions(&self) -> Option<bias_core::ScoringConventions> {
        match self {
            StudiedLm::Masked(m) => m.conventions(),
            StudiedLm::Causal(m) => m.conventions(),
        }
    }

    fn score_into(
        &mut self,
        dataset: &str,
        pairs: &[SentencePair],
        out: &Path,
    ) -> Result<RunSummary, BoxError> {
        match self {
            StudiedLm::Masked(m) => m.score_into(dataset, pairs, out),
            StudiedLm::Causal(m) => m.score_into(dataset, pairs, out),
        }
    }
}

impl IntoMaskedLm for StudiedLm {
    type Masked = StudiedMlm;

    /// The masked LM; the causal one back.
    fn into_masked(self) -> Result<StudiedMlm, Self> {
        match self {
            StudiedLm::Masked(m) => Ok(m),
            causal @ StudiedLm::Causal(_) => Err(causal),
        }
    }
}

impl MaybeTokenPredictor for StudiedLm {
    /// The masked LM; `None` for a causal one.
    fn as_token_predictor(&mut self) -> Option<&mut dyn TokenPredictor> {
        match self {
            StudiedLm::Masked(m) => Some(m),
            StudiedLm::Causal(_) => None,
        }
    }
}

impl TokenPredictor for StudiedMlm {
    /// The tokenizer's ids (special tokens included).
    fn token_ids(&mut self, sentence: &str) -> Result<Vec<i64>, BoxError> {
        Ok(self.lm.tokenizer().encode(sentence)?)
    }

    /// The queries go through the batched [`crate::Engine`] (the forward passes the scorers use,
    /// with this model's batching options).
    fn predict_tokens(&mut self, queries: &[TokenQuery]) -> Result<Vec<Vec<bool>>, BoxError> {
        let special = self.lm.special();
        let mut jobs = Vec::with_capacity(queries.len());
        for (i, q) in queries.iter().enumerate() {
            jobs.push(query_job(i, q, special.max_tokens)?);
        }
        let mut engine = crate::Engine::new(
            self.lm.model(),
            special.mask,
            special.pad,
            self.lm.device(),
            self.scoring.options.batch,
        );
        let results = engine.run(&jobs)?;
        Ok(results.into_iter().map(|r| r.correct).collect())
    }
}

/// The engine job of token query `i`: its masked positions masked, its targets read.
fn query_job(i: usize, q: &TokenQuery, max_tokens: usize) -> Result<Job, PlmError> {
    if q.ids.len() > max_tokens {
        return Err(PlmError::Shape(format!(
            "token query {i}: {} tokens, more than the {max_tokens} the model accepts",
            q.ids.len(),
        )));
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
        )));
    }
    Ok(Job {
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
    })
}

impl MaskFiller for StudiedMlm {
    /// [`crate::controlled::gender_templates`], reused from the template cache when it holds
    /// the same model and targets ([`StudiedMlm::with_template_cache`]).
    fn gender_templates(&mut self, targets: &[String]) -> Result<GenderTemplates, BoxError> {
        let Some(path) = &self.template_cache else {
            return Ok(crate::controlled::gender_templates(&self.lm, targets)?);
        };
        Ok(crate::controlled::cached_gender_templates(
            &self.lm, targets, path,
        )?)
    }

    /// [`crate::controlled::mask_probabilities`].
    fn mask_probabilities(
        &mut self,
        sentence: &str,
        words: &[String],
    ) -> Result<Vec<f64>, BoxError> {
        Ok(crate::controlled::mask_probabilities(
            &self.lm, sentence, words,
        )?)
    }
}

impl FineTuner for StudiedMlm {
    type Tuned = StudiedMlm;

    /// [`crate::controlled::fine_tune_study_model`] (an [`crate::MlmTrainer`] run from this
    /// model's folder), reporting its steps to this model's progress, scored with the same
    /// scorers, options and progress.
    fn fine_tune(
        &mut self,
        sentences: &[String],
        request: &FineTuning,
    ) -> Result<StudiedMlm, BoxError> {
        let progress = self.scoring.progress.clone();
        let model = self.lm.name().to_owned();
        let work = format!("fine-tuning {}", request.name);
        let on_step = move |r: &crate::StepReport| {
            if let Some(p) = &progress {
                let (done, total) = (r.step, r.total);
                let (model, work) = (model.as_str(), work.as_str());
                (p.borrow_mut())(&WorkReport {
                    model,
                    work,
                    unit: "steps",
                    done,
                    total,
                });
            }
        };
        let tuned =
            crate::controlled::fine_tune_study_model(&self.lm, sentences, request, on_step)?;
        let mut studied = StudiedMlm::new(tuned)
            .with_scorers(self.scoring.scorers.clone())
            .with_options(self.scoring.options);
        studied.scoring.progress = self.scoring.progress.clone();
        Ok(studied)
    }
}

impl DifferenceMasker for StudiedMlm {
    /// [`crate::mask_differing_tokens`] with the model's tokenizer.
    fn mask_differing_tokens(&mut self, more: &str, less: &str) -> Result<String, BoxError> {
        Ok(crate::mask_differing_tokens(
            self.lm.tokenizer(),
            more,
            less,
        )?)
    }
}

impl Embedder for StudiedMlm {
    type Error = PlmError;

    fn dim(&self) -> usize {
        self.lm.model().config().hidden_size as usize
    }

    /// The mean of the last layer's hidden states over all tokens, special tokens included
    /// ([`crate::PlmEmbedder`] with [`crate::EmbedOptions::default`], the pooling of `bias embed
    /// --model` and of Schröder et al. 2024 §4.3.4), the encoder loaded once from the model's
    /// folder on its device.
    fn embed(&mut self, texts: &[&str]) -> Result<ndarray::Array2<f32>, PlmError> {
        if self.embedder.is_none() {
            let device = match self.lm.device() {
                tch::Device::Cuda(i) => crate::DeviceSpec::Cuda(i),
                _ => crate::DeviceSpec::Cpu,
            };
            let e =
                crate::PlmEmbedder::load(self.lm.dir(), device, crate::EmbedOptions::default())?;
            self.embedder = Some(Box::new(e));
        }
        let e = self.embedder.as_mut().expect("loaded above");
        Embedder::embed(&mut **e, texts)
    }
}
