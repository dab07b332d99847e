//! The error type of bias-metrics.

/// Errors raised by measures and statistics.
///
/// Degenerate but meaningful input (identical distributions, σ = 0) gets a documented value, not
/// an error; errors are for input on which no value is defined.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MetricsError {
    /// An error from the shared layer.
    #[error(transparent)]
    Core(#[from] bias_core::CoreError),
    /// The input has no elements where at least one is needed.
    #[error("{what}: empty input")]
    Empty {
        /// What was empty (`score table`, `x`, ...).
        what: String,
    },
    /// Too few observations for the statistic.
    #[error("{what}: needs at least {needed} observations, got {got}")]
    TooFew {
        /// The statistic or input concerned.
        what: String,
        /// The minimum.
        needed: usize,
        /// What was given.
        got: usize,
    },
    /// A distribution measure met a bias type with a single pair (its standard deviation, ddof
    /// 1, is undefined); `SmallTypePolicy::Skip` leaves such types out.
    #[error(
        "{measure}: bias type `{bias_type}` (standard deviation, ddof = 1; leave such types out \
         with SmallTypePolicy::Skip): needs at least 2 observations, got {got}"
    )]
    SmallBiasType {
        /// The measure (`kls`, `jss`, ...).
        measure: String,
        /// The bias type with too few pairs.
        bias_type: bias_core::BiasType,
        /// Its number of pairs.
        got: usize,
    },
    /// Two inputs that must have the same length do not.
    #[error("{what}: lengths differ ({left} vs {right})")]
    LengthMismatch {
        /// The inputs concerned.
        what: String,
        /// Length of the first.
        left: usize,
        /// Length of the second.
        right: usize,
    },
    /// A parameter or value is outside its domain (a NaN, a rate outside (0, 1], ...).
    #[error("{name} = {value}: {expected}")]
    InvalidParameter {
        /// The parameter.
        name: String,
        /// Its value, as text.
        value: String,
        /// What it must be.
        expected: String,
    },
    /// A bias measure called by a generic procedure (the bootstrap) failed; its error is the
    /// source.
    #[error("{what}: the measure failed")]
    Measure {
        /// Where it failed (the measure's name and, for a replicate, its index).
        what: String,
        /// The measure's own error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// Two score tables compared pair by pair ([`crate::paired`]) are not on the same pairs.
    #[error(
        "{what}: the tables are not on the same pairs: pair `{pair_id}` {detail}; score both \
         models on the same data set file (and the same --limit / subset)"
    )]
    NotPaired {
        /// The two tables (model names and data set).
        what: String,
        /// The first pair that differs.
        pair_id: String,
        /// How it differs.
        detail: String,
    },
}
