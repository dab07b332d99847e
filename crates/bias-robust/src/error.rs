//! The error type of bias-robust.

use std::path::PathBuf;

/// Errors raised by the robustness analyses.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RobustError {
    /// An error from the shared layer.
    #[error(transparent)]
    Core(#[from] bias_core::CoreError),
    /// A sampling rate outside (0, 1].
    #[error("sampling rate {0} is outside (0, 1]: use a share such as 0.3")]
    InvalidRate(f64),
    /// A parameter or input is outside its domain (a share outside (0, 1], too few models, a
    /// missing measure, ...).
    #[error("{name} = {value}: {expected}")]
    InvalidParameter {
        /// The parameter or input.
        name: String,
        /// Its value, as text.
        value: String,
        /// What it must be.
        expected: String,
    },
    /// An error from the statistics of bias-metrics (Pearson, mutual information).
    #[error(transparent)]
    Metrics(#[from] bias_metrics::MetricsError),
    /// An error from an embedding measure of bias-embed (SAME, WEAT, DirectBias).
    #[error(transparent)]
    Embed(#[from] bias_embed::EmbedError),
    /// A paraphrase group (rows sharing a `group_id`) has no original row: no row whose
    /// `pair_id` equals the `group_id`.
    #[error("paraphrase group {group:?} has no original row (a row whose pair_id is {group:?})")]
    MissingOriginal {
        /// The group id.
        group: String,
    },
    /// A CrowS-Pairs record has no score row with its id in the score table.
    #[error("pair {pair_id:?} has no row in the score table: score every CrowS-Pairs record")]
    MissingScore {
        /// The record's id.
        pair_id: String,
    },
    /// Settings on which the robustness study cannot run (no models, fewer than 2 repeats, ...).
    #[error("invalid robustness settings: {0}")]
    InvalidConfig(String),
    /// A sub-sampling study would have to rank one scorer's numbers against another's: models
    /// are compared within one scorer and data set (liu2024, Robustness Study).
    #[error(
        "data set `{dataset}`: {detail}. Models are ranked only against models scored with the \
         same scorer (liu2024 Fig. 5): score every model with the scorer, keep one scorer, or \
         ask for a study that mixes scorers explicitly"
    )]
    MixedScorers {
        /// The data set.
        dataset: String,
        /// Which scorer lacks which models.
        detail: String,
    },
    /// Distribution measures (KLS, JSS) were asked for, but a data set has no scores of the
    /// scorer they are computed on (liu2024 fits them to AUL scores).
    #[error(
        "data set `{dataset}` has no `{scorer}` scores, which {} are computed on (liu2024 fits \
         KLS and JSS to AUL scores); its scorers: {}. Score the models with `{scorer}`, or name \
         the scorer these measures should use",
        measures.join(", "),
        available.join(", ")
    )]
    MissingScorer {
        /// The data set.
        dataset: String,
        /// The scorer the distribution measures need.
        scorer: String,
        /// The distribution measures asked for.
        measures: Vec<String>,
        /// The scorers the data set has.
        available: Vec<String>,
    },
    /// A bias measure or the score-group analysis failed inside a robustness study; its error
    /// is the source.
    #[error("{what} failed")]
    Measure {
        /// Which measure, model, rate and repeat.
        what: String,
        /// The measure's error (any measure's, boxed).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The bias-controlled study of kaneko2023 §2 got fewer than 3 rates of bias: a rank
    /// correlation with the rate needs at least 3 models.
    #[error(
        "the controlled study needs at least 3 rates of bias, got {got}: evaluate more \
         bias-controlled models (kaneko2023 §3.1 trains 11, r = 0, 0.1, …, 1)"
    )]
    TooFewRates {
        /// How many rates were given.
        got: usize,
    },
    /// Two evaluations of the controlled study share a rate of bias.
    #[error(
        "rate of bias {rate} is given twice (models {first:?} and {second:?}): give each \
         bias-controlled model its own rate, or average repeated runs before the study"
    )]
    DuplicateRate {
        /// The repeated rate.
        rate: f64,
        /// The model of the first evaluation with that rate.
        first: String,
        /// The model of the second.
        second: String,
    },
    /// The pair tables of two rates of the controlled study do not hold the same pair ids for a
    /// scorer, so their measures would be computed on different pairs.
    #[error(
        "scorer {scorer:?}: the pairs at r = {rate} differ from those at r = {reference_rate} \
         ({detail}): score and orient the same pairs with every scorer for every rate"
    )]
    PairIdMismatch {
        /// The scorer.
        scorer: String,
        /// The rate whose table differs.
        rate: f64,
        /// The rate it is compared with (the smallest).
        reference_rate: f64,
        /// What differs (a missing, extra or repeated pair id, with counts).
        detail: String,
    },
    /// The template-score vectors of two rates of the controlled study differ in length.
    #[error(
        "{len} template scores at r = {rate} but {expected} at r = {reference_rate}: score the \
         same templates, in the same order, for every rate (or leave every vector empty)"
    )]
    TemplateLengthMismatch {
        /// The rate whose vector differs.
        rate: f64,
        /// Its length.
        len: usize,
        /// The length at the reference rate.
        expected: usize,
        /// The reference rate (the smallest).
        reference_rate: f64,
    },
    /// A pair of the bias-controlled study cannot be oriented male-vs-female (kaneko2023 §1),
    /// for callers that need every pair oriented: lift the error of
    /// [`crate::controlled::male_side`] with its pair id.
    #[error("pair {pair_id:?} cannot be oriented male-vs-female")]
    Orientation {
        /// The pair's id.
        pair_id: String,
        /// Why it cannot be oriented.
        #[source]
        source: crate::controlled::OrientationError,
    },
    /// The targets of a WEAT test–retest study (all of them, the titles, or a drawn subset) have
    /// every class sorted to one side, so target set X or Y is empty and the effect size is
    /// undefined.
    #[error("{}", empty_weat_side(*side, *targets, *subset))]
    EmptyWeatSide {
        /// The empty side: `X` or `Y`.
        side: char,
        /// How many targets were sorted.
        targets: usize,
        /// `true` for a drawn subset (which other draws may avoid), `false` for all the targets
        /// or all the titles.
        subset: bool,
    },
    /// A file or folder could not be created, read, copied or written.
    #[error("cannot {action} {}", path.display())]
    Io {
        /// What was being done: `create`, `read`, `copy` or `write`.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A data set of a study could not be read.
    #[error(transparent)]
    Data(#[from] bias_data::DataError),
    /// A model under study failed to score a data set.
    #[error("model {model:?} could not score {dataset}")]
    Model {
        /// The model's name.
        model: String,
        /// The data set.
        dataset: &'static str,
        /// The model's error.
        #[source]
        source: bias_core::BoxError,
    },
}

impl RobustError {
    /// [`RobustError::InvalidParameter`]: `name` is `value`, and must be `expected`.
    pub fn invalid(
        name: impl Into<String>,
        value: impl ToString,
        expected: impl Into<String>,
    ) -> Self {
        RobustError::InvalidParameter {
            name: name.into(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }

    /// [`RobustError::Model`]: `model` failed on `dataset`.
    pub fn model(
        model: impl Into<String>,
        dataset: &'static str,
        source: bias_core::BoxError,
    ) -> Self {
        RobustError::Model {
            model: model.into(),
            dataset,
            source,
        }
    }
}

/// The message of [`RobustError::EmptyWeatSide`].
fn empty_weat_side(side: char, targets: usize, subset: bool) -> String {
    if subset {
        format!(
            "WEAT target set {side} is empty on a subset of {targets} targets (every class \
             sorted to the other side): use larger shares, or set RetestOptions::skip_failures \
             to count such subsets"
        )
    } else {
        format!(
            "WEAT target set {side} is empty on all {targets} targets: every class is sorted to \
             the other side (X takes the classes with at least as many targets of group 0 as of \
             group 1, Y the others)"
        )
    }
}
