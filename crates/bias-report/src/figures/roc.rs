//! ROC curves against human labels.

use std::path::Path;

use bias_metrics::stats::RocCurve;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{colour, dashed_swatch, legend, swatch, Frame, GREY};

use crate::ReportError;

/// The curves to draw: `(label, curve, auc)`.
struct RocData<'a>(&'a [(&'a str, &'a RocCurve, f64)]);

/// ROC curves, one per `(label, curve, auc)`, with the chance diagonal; the legend gives each
/// AUC. Writes `OUT_STEM.png` and `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::FigureInput`] with no curves or a curve whose `fpr` and `tpr` differ in
/// length or are empty; [`ReportError::Io`] if the output folder cannot be created;
/// [`ReportError::Draw`] if a file cannot be drawn or written.
pub fn roc_curves(
    curves: &[(&str, &RocCurve, f64)],
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    if curves.is_empty() {
        return Err(input_error("ROC curves", "no curve to draw"));
    }
    for (label, curve, _) in curves {
        if curve.fpr.len() != curve.tpr.len() || curve.fpr.is_empty() {
            return Err(input_error(
                "ROC curves",
                format!(
                    "curve {label:?} has {} false-positive and {} true-positive rates",
                    curve.fpr.len(),
                    curve.tpr.len()
                ),
            ));
        }
    }
    render(out_stem.as_ref(), &RocData(curves))
}

impl Figure for RocData<'_> {
    fn size(&self) -> (u32, u32) {
        (760, 720)
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let frame = Frame::figure((56, 70));
        let mut chart = frame.chart(root, "ROC against human labels", -0.01..1.01, -0.01..1.01)?;
        frame
            .mesh(&mut chart)
            .x_desc("false-positive rate")
            .y_desc("true-positive rate")
            .x_label_formatter(&|v| format!("{v:.1}"))
            .y_label_formatter(&|v| format!("{v:.1}"))
            .draw()?;
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, 0.0), (1.0, 1.0)],
                9,
                6,
                GREY.stroke_width(2),
            ))?
            .label("chance (AUC = 0.5)")
            .legend(dashed_swatch(GREY));
        for (i, (label, curve, auc)) in self.0.iter().enumerate() {
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(
                    curve.fpr.iter().copied().zip(curve.tpr.iter().copied()),
                    c.stroke_width(3),
                ))?
                .label(format!("{label} (AUC = {auc:.3})"))
                .legend(swatch(c));
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)
    }
}
