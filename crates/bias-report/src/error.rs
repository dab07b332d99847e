//! The error type of bias-report: what can fail while drawing a figure or writing a report, and
//! the studies' errors it passes on.

use std::path::PathBuf;

use bias_robust::RobustError;

/// Errors raised while drawing figures and writing reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A study the report lays out failed, or its input was refused.
    #[error(transparent)]
    Robust(#[from] RobustError),
    /// plotters could not draw a figure or write its file (a backend, layout or font error).
    #[error("cannot draw the figure {}", path.display())]
    Draw {
        /// The PNG or SVG being drawn.
        path: PathBuf,
        /// plotters' error (its type depends on the backend, hence boxed).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// Bytes given as the figures' font are not a TrueType/OpenType font.
    #[error("the {len} bytes given as the figure font are not a TrueType/OpenType font")]
    InvalidFont {
        /// How many bytes were given.
        len: usize,
    },
    /// A figure's input has nothing to draw or does not fit the figure (no curve, no finite
    /// value, a correlation matrix of the wrong shape, ...).
    #[error("{figure}: {problem}")]
    FigureInput {
        /// The figure (`ROC curves`, `MDIFF histogram`, ...).
        figure: &'static str,
        /// What is wrong with its input.
        problem: String,
    },
    /// A file or folder of a figure or report could not be created, read, copied or written.
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
    /// A report's setting or input is outside its domain.
    #[error("{name} = {value}: {expected}")]
    InvalidParameter {
        /// The setting or input.
        name: String,
        /// Its value, as text.
        value: String,
        /// What it must be.
        expected: String,
    },
}

impl From<bias_metrics::MetricsError> for ReportError {
    fn from(e: bias_metrics::MetricsError) -> Self {
        ReportError::Robust(e.into())
    }
}
