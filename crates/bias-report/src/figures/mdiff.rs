//! Histogram of the paraphrase MDIFFs with the near-tie band.

use crate::ReportError;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::output::{input_error, render, Backend, DrawResult, Figure};
use super::style::{box_swatch, finite_range, legend, padded, Frame, GREY, PALETTE};
use bias_robust::ParaphraseReport;

struct HistData {
    tau: f64,
    edges: Vec<f64>,
    originals: Vec<usize>,
    paraphrases: Vec<usize>,
    near_tie: usize,
    total: usize,
}

/// Histogram of the MDIFF (`score_stereo − score_anti`) of every pair of a paraphrase study,
/// originals and paraphrases stacked, with the near-tie band `|MDIFF| < tau` shaded and its
/// edges dashed. Writes `OUT_STEM.png` and `OUT_STEM.svg`.
///
/// # Errors
/// [`ReportError::InvalidParameter`] for a `tau` that is negative or not finite;
/// [`ReportError::FigureInput`] with no finite MDIFF; [`ReportError::Io`] if the output folder
/// cannot be created; [`ReportError::Draw`] if a file cannot be drawn or written.
pub fn mdiff_histogram(
    report: &ParaphraseReport,
    tau: f64,
    out_stem: impl AsRef<Path>,
) -> Result<(), ReportError> {
    if !(tau.is_finite() && tau >= 0.0) {
        return Err(ReportError::InvalidParameter {
            name: "tau".into(),
            value: tau.to_string(),
            expected: "a finite number ≥ 0".into(),
        });
    }
    let pairs: Vec<_> = report
        .pairs
        .iter()
        .filter(|p| p.mdiff.is_finite())
        .collect();
    let (lo, hi) = finite_range(pairs.iter().map(|p| p.mdiff).chain([-tau, tau]))
        .filter(|_| !pairs.is_empty())
        .ok_or_else(|| {
            input_error(
                "MDIFF histogram",
                "the paraphrase report has no finite MDIFF",
            )
        })?;
    let (lo, hi) = padded((lo, hi), 0.03);
    let bins = ((pairs.len() as f64).sqrt().ceil() as usize).clamp(10, 60);
    let width = (hi - lo) / bins as f64;
    let edges: Vec<f64> = (0..=bins).map(|i| lo + width * i as f64).collect();
    let mut originals = vec![0; bins];
    let mut paraphrases = vec![0; bins];
    for p in &pairs {
        let b = (((p.mdiff - lo) / width).floor() as usize).min(bins - 1);
        if p.is_original {
            originals[b] += 1;
        } else {
            paraphrases[b] += 1;
        }
    }
    let data = HistData {
        tau,
        edges,
        originals,
        paraphrases,
        near_tie: pairs.iter().filter(|p| p.mdiff.abs() < tau).count(),
        total: pairs.len(),
    };
    render(out_stem.as_ref(), &data)
}

impl Figure for HistData {
    fn size(&self) -> (u32, u32) {
        (1000, 640)
    }

    fn draw<DB: Backend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let d = self;
        let (x0, x1) = (d.edges[0], d.edges[d.edges.len() - 1]);
        let top = d
            .originals
            .iter()
            .zip(&d.paraphrases)
            .map(|(a, b)| a + b)
            .max()
            .unwrap_or(0)
            .max(1) as f64
            * 1.15;
        let frame = Frame::figure((56, 70));
        let mut chart =
            frame.chart(root, "MDIFF of originals and paraphrases", x0..x1, 0.0..top)?;
        frame
            .mesh(&mut chart)
            .x_desc("MDIFF = score(stereotypical) − score(anti-stereotypical)")
            .y_desc("pairs")
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()?;
        let band = RGBColor(200, 200, 200).mix(0.5).filled();
        let share = 100.0 * d.near_tie as f64 / d.total.max(1) as f64;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(-d.tau, 0.0), (d.tau, top)],
                band,
            )))?
            .label(format!(
                "near tie |MDIFF| < τ = {}: {} of {} pairs ({share:.1} %)",
                d.tau, d.near_tie, d.total
            ))
            .legend(box_swatch(band));
        let zeros = vec![0; d.originals.len()];
        for (counts, base, c, label) in [
            (&d.originals, &zeros, PALETTE[0], "originals"),
            (&d.paraphrases, &d.originals, PALETTE[1], "paraphrases"),
        ] {
            let fill = c.mix(0.85).filled();
            let spans: Vec<(f64, f64, f64, f64)> = (0..counts.len())
                .filter(|&i| counts[i] > 0)
                .map(|i| {
                    let (b, t) = (base[i] as f64, (base[i] + counts[i]) as f64);
                    (d.edges[i], b, d.edges[i + 1], t)
                })
                .collect();
            chart
                .draw_series(
                    spans
                        .iter()
                        .map(|&(l, b, r, t)| Rectangle::new([(l, b), (r, t)], fill)),
                )?
                .label(label)
                .legend(box_swatch(fill));
            chart.draw_series(
                spans
                    .iter()
                    .map(|&(l, b, r, t)| Rectangle::new([(l, b), (r, t)], WHITE.stroke_width(1))),
            )?;
        }
        for x in [-d.tau, d.tau] {
            chart.draw_series(DashedLineSeries::new(
                [(x, 0.0), (x, top)],
                8,
                6,
                GREY.stroke_width(2),
            ))?;
        }
        chart.draw_series(LineSeries::new(
            [(0.0, 0.0), (0.0, top)],
            BLACK.stroke_width(1),
        ))?;
        legend(&mut chart, SeriesLabelPosition::UpperRight)
    }
}
