//! The error type of bias-papers: a reproduction fails where a study (`bias-robust`) or a figure
//! or file of its output (`bias-report`) fails.

use bias_report::ReportError;
use bias_robust::RobustError;

/// Errors raised by a reproduction.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PaperError {
    /// A study, a data set, a model or a setting of the reproduction failed or was refused.
    #[error(transparent)]
    Robust(#[from] RobustError),
    /// A table, figure or file of the reproduction could not be drawn or written.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A paper that studies masked LMs only (kaneko2023 fine-tunes them and reads their mask
    /// predictions, schroeder2024 embeds with their encoders) was given another model.
    #[error(
        "{paper} studies masked LMs (it fine-tunes them, reads their mask predictions or embeds \
         with their encoders); {model} is a causal LM: leave it out of the models"
    )]
    MaskedOnly {
        /// The paper.
        paper: crate::Paper,
        /// The first model that is not a masked LM.
        model: String,
    },
}

/// The layers below the studies reach a reproduction through [`RobustError`], as they do a study.
macro_rules! through_robust {
    ($($t:ty),*) => {$(
        impl From<$t> for PaperError {
            fn from(e: $t) -> Self {
                PaperError::Robust(e.into())
            }
        }
    )*};
}
through_robust!(
    bias_core::CoreError,
    bias_data::DataError,
    bias_metrics::MetricsError,
    bias_embed::EmbedError
);
