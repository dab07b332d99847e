//! Figures of the robustness analyses, written as PNG and SVG.
//!
//! Every function takes an output *stem* and writes `STEM.png` and `STEM.svg` (the extension is
//! appended, so `out/fig.v1` gives `out/fig.v1.png`, see [`with_extension`]); missing parent
//! folders are created.
//!
//! Text is drawn with DejaVu Sans, embedded in the crate ([`DEJAVU_SANS`]): no system font or
//! font file is needed at run time. [`use_font`] draws with another font, given as bytes.
//!
//! | function | figure |
//! |---|---|
//! | [`score_densities`] | Gaussian KDE of the stereotypical and anti-stereotypical scores, with the fitted normals dashed (liu2024 Fig. 2) |
//! | [`score_density_grid`] | the same for every (scorer, model) of one data set: one row per scorer, one column per model, axes shared within a row, one legend (liu2024 Fig. 2 as small multiples) |
//! | [`robustness_curves`] | per model, the mean of a measure across sampling rates with its 2.5–97.5 % band and the full-data value; red circles where the order by mean is not the full-data order (liu2024 Fig. 5) |
//! | [`robustness_panels`] | the same with one panel per [`CurvePanel`] (one per scorer, say): a model has one colour in every panel, shared axes, one legend (liu2024 Fig. 5 as small multiples) |
//! | [`roc_curves`] | ROC curves against human labels, with the chance diagonal |
//! | [`mdiff_histogram`] | histogram of the paraphrase MDIFFs with the ±τ near-tie band |
//! | [`agreement_counts`] | per model, originals whose paraphrases fully agree (MAGREEMENT = 1) or not (paraphrase study Figure 2) |
//! | [`agreement_by_type`] | the same per bias type, one panel each (paraphrase study Figure 3) |
//! | [`mdiff_by_sample`] | MDIFF of every pair, one colour per model, with the near-tie band (paraphrase study Figure 4) |
//! | [`correlation_heatmap`] | Pearson r between measures, values written in the cells |
//! | [`point_panels`] | panels of point series, joined or not (schroeder2024 Figures 1–3) |
//! | [`rate_lines`] | values against the rate of bias, one panel per base model and corpus, the base model dashed (kaneko2023 Figures 2–3) |
//! | [`controlled_trends`] | each measure of a bias-controlled study against the rate of bias, and the he/she probe (kaneko2023 Figure 2) |

mod agreement;
mod curve_panels;
mod curves;
mod densities;
mod density_grid;
mod heatmap;
mod legend_strip;
mod mdiff;
mod output;
mod points;
mod rates;
mod roc;
mod style;
mod trends;

pub use agreement::{agreement_by_type, agreement_counts, mdiff_by_sample};
pub use curve_panels::{robustness_panels, CurvePanel};
pub use curves::robustness_curves;
pub use densities::score_densities;
pub use density_grid::score_density_grid;
pub use heatmap::correlation_heatmap;
pub use mdiff::mdiff_histogram;
pub use output::with_extension;
pub use points::{point_panels, PointPanel, PointSeries};
pub use rates::{rate_lines, RatePanel, RateSeries};
pub use roc::roc_curves;
pub use style::{use_font, DEJAVU_SANS};
pub use trends::controlled_trends;
