//! The presentation of the studies of `bias-robust`: PNG/SVG figures, a self-contained HTML
//! report, and the reproduction of the tables and figures of five papers on bias measures for
//! language models.
//!
//! - [`figures`]: every figure, drawn with `plotters` and an embedded DejaVu Sans (no system
//!   font needed), each as PNG and SVG;
//! - [`report`]: a report of sections (text, tables, heat maps, figures) written as one
//!   `index.html` and a Markdown copy, and the sections `bias report` opens with (the summary
//!   heat maps, the sub-sampling study);
//! - [`paraphrase`]: the paraphrase-robustness study's Figures 2–4 and report section;
//! - [`table`]: the one table type, written as Markdown, CSV, JSON and HTML;
//! - [`reproduce`]: every table and figure of Kaneko & Bollegala (2022), Liu (2024), Kwon &
//!   Mihindukulasooriya (2022), Kaneko, Bollegala & Okazaki (2023) and Schröder, Schulz &
//!   Hammer (2024) that can be computed here, one call per paper, each stating the model
//!   capabilities it needs (`bias_core::capability`); what `bias reproduce PAPER` runs.
//!
//! The computations are the studies' (`bias_robust`); this crate lays them out. Errors are
//! `bias_robust::RobustError`'s, whose `Draw` and `FigureInput` variants are this crate's.
//! Papers are cited by key (`liu2024`, `kaneko2022`, `paraphrase2022`, `kaneko2023`,
//! `schroeder2024`); the full citations are in `bias_core::references`.
#![deny(missing_docs)]

pub mod figures;
pub mod paraphrase;
pub mod report;
pub mod reproduce;
pub mod table;
