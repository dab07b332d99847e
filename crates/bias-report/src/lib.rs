//! The presentation of the studies of `bias-robust`: PNG/SVG figures, a self-contained HTML
//! report and the one table type. It opens no model and computes no statistic; the papers'
//! reproductions built on it are the `bias-papers` crate.
//!
//! - [`figures`]: every figure, drawn with `plotters` and an embedded DejaVu Sans (no system
//!   font needed), each as PNG and SVG;
//! - [`report`]: a report of sections (text, tables, heat maps, figures) written as one
//!   `index.html` and a Markdown copy, and the sections `bias report` opens with (the summary
//!   heat maps, the sub-sampling study);
//! - [`paraphrase`]: the paraphrase-robustness study's Figures 2–4 and report section;
//! - [`table`]: the one table type, written as Markdown, CSV, JSON and HTML.
//!
//! Errors are [`ReportError`]s: a figure that cannot be drawn, a file that cannot be written,
//! or a study's `bias_robust::RobustError` passed on. Papers are cited by key (`liu2024`, `kaneko2022`, `paraphrase2022`, `kaneko2023`,
//! `schroeder2024`); the full citations are in `bias_core::references`.
#![deny(missing_docs)]

mod error;
pub mod figures;
pub mod paraphrase;
pub mod report;
pub mod table;

pub use error::ReportError;
