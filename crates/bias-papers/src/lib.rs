//! Every table and figure of the five papers that can be computed here, one call per paper:
//! Kaneko & Bollegala (2022), Liu (2024), Kwon & Mihindukulasooriya (2022), Kaneko, Bollegala &
//! Okazaki (2023) and Schröder, Schulz & Hammer (2024); what `bias reproduce PAPER` runs.
//!
//! The statistics are `bias-metrics`' and the studies `bias-robust`'s; the figures and tables are
//! drawn by `bias-report`. This crate holds each paper's pipeline, its tables and figures
//! numbered as in the paper, and the paper's printed numbers for comparison.
//!
//! A reproduction takes the models under study ([`Study`]), scores each (model, data set) once
//! and writes each of the paper's tables and figures that its inputs allow, numbered as in the
//! paper, into a folder ([`Reproduction`]): Markdown, CSV and JSON per table, PNG and SVG per
//! figure, and an index listing every table and figure of the paper with its status
//! ([`Status`]: reproduced, on substitute data, or out of reach and why).
//!
//! Each paper's function states what it asks of the models, as capabilities of
//! [`bias_core::capability`], so that a model without one does not compile:
//!
//! | paper | function | the models must be |
//! |---|---|---|
//! | kaneko2022 | [`reproduce_kaneko2022`] | [`DatasetScorer`] + [`MaybeTokenPredictor`] |
//! | liu2024 | [`reproduce_liu2024`] | [`DatasetScorer`] |
//! | paraphrase | [`reproduce_paraphrase`] | [`DatasetScorer`] |
//! | kaneko2023 | [`reproduce_kaneko2023`] | [`DatasetScorer`] + [`MaskFiller`] + [`FineTuner`] |
//! | schroeder2024 | [`reproduce_schroeder2024_with`] | [`DatasetScorer`] + [`Embedder`] + [`DifferenceMasker`] |
//!
//! Each paper is a folder `<paper>/`: `mod.rs` holds its options, its pipeline and
//! what it computes, `tables.rs` its tables and the notes they carry, `figures.rs` its figures
//! (kaneko2022 adds `tokens.rs`, the token-prediction accuracy of its Tables 1 and 4; the
//! papers' printed numbers are in `published.rs`).
//!
//! `bias_plm::StudiedMlm` (a masked LM) is all of them; `bias_plm::StudiedLm` (masked or causal)
//! is a [`DatasetScorer`] and a [`MaybeTokenPredictor`]; [`reproduce`] runs any paper on models
//! with every capability.
//!
//! ```no_run
//! use bias_papers::{reproduce_liu2024, Paper, Reproduction, Study};
//! # fn models() -> Vec<Box<dyn bias_core::DatasetScorer>> { Vec::new() }
//! let mut study = Study::new(models(), "data", "out/scores")?;
//! let mut out = Reproduction::create(Paper::Liu2024, "out/liu2024")?;
//! reproduce_liu2024(&mut study, &mut out, &Default::default())?;
//! for a in out.finish()? {
//!     println!("{}: {}", a.id, a.status.label());
//! }
//! # Ok::<(), bias_papers::PaperError>(())
//! ```

#![deny(missing_docs)]

mod error;
mod kaneko2022;
mod kaneko2023;
mod liu2024;
mod output;
mod paraphrase;
mod run;
mod schroeder2024;
mod study;

pub use error::PaperError;
/// The published numbers of Kaneko & Bollegala (2022) (`kaneko2022::published`).
pub use kaneko2022::published as published_kaneko2022;
pub use kaneko2022::tokens::{
    authors_accuracy, authors_table_1_accuracies, scorer_accuracy, shuffle_seeds,
    shuffled_accuracies, shuffled_accuracy, table_1_accuracies, table_4_rows, unrelated_accuracy,
    AccuracyDefinition, AccuracyOptions, AccuracySet, AulTokens, Changed, Outcomes, PairedTest,
    ScorerAccuracy, StereoSetAccuracy, Table4Row, MCNEMAR_ALPHA, SHUFFLE_SEED, TABLE_4_OPTIONS,
};
pub use kaneko2022::{reproduce_with as reproduce_kaneko2022, Kaneko2022Options, DEFAULT_SHUFFLES};
pub use kaneko2023::{
    reproduce_kaneko2023, CorpusSpec, Kaneko2023Options, PairReading, FIGURE3_SENTENCE,
    PAPER_DEV_PER_SIDE, PAPER_MAX_LENGTH, PAPER_SENTENCES,
};
/// The published numbers of Liu (2024) (`liu2024::published`).
pub use liu2024::published as liu2024_published;
pub use liu2024::{min_models_mi, reproduce_liu2024, Liu2024Options, MIN_MODELS_PEARSON};
pub use output::{Artifact, Cell, Reproduction, Scope, Status, Table};
pub use paraphrase::{reproduce_paraphrase, Paraphrase2022Options};
pub use run::{reproduce_paper, PaperOptions, Places, Reproduced};
pub use schroeder2024::{
    average_ranks, low_high, low_high_accuracy, pairwise_accuracy,
    reproduce_with as reproduce_schroeder2024_with, sd_selection, type_scores, Figure1Reading,
    SampleScores, SchroederOptions, StereoLabels, Table3Pairs, TypeScores, CPS_SCORER,
};
pub use study::{DataSet, Study};

use std::fmt;
use std::str::FromStr;

use bias_core::{
    DatasetScorer, DifferenceMasker, Embedder, FineTuner, MaskFiller, MaybeTokenPredictor,
    ScoringConventions,
};

use bias_robust::RobustError;

/// A paper whose tables and figures this workspace reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Paper {
    /// Kaneko & Bollegala (2022), "Unmasking the mask — evaluating social biases in masked
    /// language models", AAAI: AUL, AULA.
    Kaneko2022,
    /// Liu et al. (2024), "Robust evaluation measures for evaluating social biases in masked
    /// language models", AAAI: KLS, JSS.
    Liu2024,
    /// Kwon & Mihindukulasooriya (2022), "An empirical study on pseudo-log-likelihood bias
    /// measures for masked language models using paraphrased sentences", TrustNLP: MDIFF, MBIAS,
    /// MAGREEMENT, MPER_AGREE.
    Paraphrase,
    /// Kaneko, Bollegala & Okazaki (2023), "Comparing intrinsic gender bias evaluation measures
    /// without using human annotated examples", EACL: bias-controlled meta-evaluation.
    Kaneko2023,
    /// Schröder, Schulz & Hammer (2024), "The SAME score: improved cosine based bias score for
    /// word embeddings": SAME, WEAT, gWEAT, DirectBias.
    Schroeder2024,
}

impl Paper {
    /// Every paper, in the order the project documents them.
    pub const ALL: [Paper; 5] = [
        Paper::Kaneko2022,
        Paper::Liu2024,
        Paper::Paraphrase,
        Paper::Kaneko2023,
        Paper::Schroeder2024,
    ];

    /// The name the CLI takes: `kaneko2022`, `liu2024`, `paraphrase`, `kaneko2023`,
    /// `schroeder2024`.
    pub fn name(self) -> &'static str {
        match self {
            Paper::Kaneko2022 => "kaneko2022",
            Paper::Liu2024 => "liu2024",
            Paper::Paraphrase => "paraphrase",
            Paper::Kaneko2023 => "kaneko2023",
            Paper::Schroeder2024 => "schroeder2024",
        }
    }

    /// The paper's checkpoints (Hugging Face ids): a reproduction on other models says so
    /// ([`Scope`]). Kaneko & Bollegala (2022) and Liu et al. (2024): the three of the authors'
    /// `evaluate.py` (`bert-base-cased`, `roberta-large`, `albert-large-v2`; Liu et al.'s README
    /// also downloads `albert-base-v2`); Kwon & Mihindukulasooriya (2022, §2.2): BERT-base
    /// (cased or uncased unstated), RoBERTa-large, ALBERT-xxlarge-v2, DistilBERT-base, MPNet-base;
    /// Kaneko, Bollegala & Okazaki (2023, §4): `bert-base-uncased`, `albert-base-v2` (the
    /// starting points of the bias-controlled models). Schröder et al. (2024) study 26 models
    /// without listing their ids in the text: empty, no check.
    pub fn published_models(self) -> &'static [&'static str] {
        match self {
            Paper::Kaneko2022 => &["bert-base-cased", "roberta-large", "albert-large-v2"],
            Paper::Liu2024 => &[
                "bert-base-cased",
                "roberta-large",
                "albert-large-v2",
                "albert-base-v2",
            ],
            Paper::Paraphrase => &[
                "bert-base-uncased",
                "bert-base-cased",
                "roberta-large",
                "albert-xxlarge-v2",
                "distilbert-base-uncased",
                "distilbert-base-cased",
                "mpnet-base",
            ],
            Paper::Kaneko2023 => &["bert-base-uncased", "albert-base-v2"],
            Paper::Schroeder2024 => &[],
        }
    }

    /// The scorer conventions of a reproduction of this paper by default: those of the code that
    /// produced its published numbers. Kaneko & Bollegala (2022): their `evaluate.py` (commit
    /// 6b10239), the matrix SSS and CPS rounded to 3 decimals; Liu et al. (2024): their
    /// `evaluation.py` (commit a29a457), the matrix SSS, CPS unrounded. The other papers publish
    /// no PLL scoring code: the definitions ([`ScoringConventions::PAPER`]).
    pub fn scoring_conventions(self) -> ScoringConventions {
        match self {
            Paper::Kaneko2022 => ScoringConventions::KANEKO_CODE,
            Paper::Liu2024 => ScoringConventions::LIU_CODE,
            Paper::Paraphrase | Paper::Kaneko2023 | Paper::Schroeder2024 => {
                ScoringConventions::PAPER
            }
        }
    }

    /// A short citation.
    pub fn citation(self) -> &'static str {
        match self {
            Paper::Kaneko2022 => "Kaneko & Bollegala (2022)",
            Paper::Liu2024 => "Liu et al. (2024)",
            Paper::Paraphrase => "Kwon & Mihindukulasooriya (2022)",
            Paper::Kaneko2023 => "Kaneko, Bollegala & Okazaki (2023)",
            Paper::Schroeder2024 => "Schröder, Schulz & Hammer (2024)",
        }
    }
}

impl fmt::Display for Paper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Paper {
    type Err = RobustError;
    fn from_str(s: &str) -> Result<Self, RobustError> {
        parse_choice(&Paper::ALL, Paper::name, s, "paper")
    }
}

pub(crate) use bias_robust::text::parse_choice;

/// Writes every table and figure of `paper` that `study` allows into `out`, and lists the others
/// with the reason.
///
/// # Errors
/// The first error of a data set, a model or a file; tables written before it stay on disk.
pub fn reproduce<
    M: DatasetScorer + MaybeTokenPredictor + MaskFiller + FineTuner + Embedder + DifferenceMasker,
>(
    paper: Paper,
    study: &mut Study<M>,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    out.set_study(study);
    match paper {
        Paper::Kaneko2022 => kaneko2022::reproduce(study, out),
        Paper::Liu2024 => liu2024::reproduce(study, out),
        Paper::Paraphrase => paraphrase::reproduce(study, out),
        Paper::Kaneko2023 => kaneko2023::reproduce(study, out),
        Paper::Schroeder2024 => schroeder2024::reproduce(study, out),
    }
}
