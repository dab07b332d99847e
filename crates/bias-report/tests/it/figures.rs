//! The figure functions write a PNG and an SVG of plausible size on small synthetic inputs, and
//! the SVG draws the values handed to them: the tests read the SVG's marks (points, bands,
//! bars, cell and legend text), map them back to data through the axis tick labels, and compare
//! them with the inputs or with values computed here by hand.
//!
//! The font is the one embedded in the crate: no setup is needed.

use approx::abs_diff_eq;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::svg::{marks, Axis, Mark};
use bias_core::{BiasType, ScoreRow, ScoreTable};
use bias_metrics::stats::RocCurve;
use bias_metrics::MetricsError;
use bias_report::figures::{self, with_extension};
use bias_report::ReportError;
use bias_robust::{
    correlate_measures, paraphrase_agreement, CorrelateOptions, MeasureAtRate, ParaphraseOptions,
    RepeatSummary, RobustError, RobustnessOptions, RobustnessReport,
};
use bias_testkit::{mean_sd, normals};

fn out(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bias-robust-figures");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn row(pair_id: &str, group: Option<&str>, stereo: f64, anti: f64) -> ScoreRow {
    ScoreRow::builder(pair_id, BiasType::Gender, stereo, anti)
        .dataset("crows-pairs")
        .sentences("s", "a")
        .scorer("cps")
        .model("toy")
        .group(group.map(str::to_owned))
        .build()
}

fn assert_written(stem: &Path) {
    let png = std::fs::read(with_extension(stem, "png")).expect("PNG written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG magic bytes");
    assert!(
        png.len() > 5_000,
        "PNG of {} bytes is implausibly small",
        png.len()
    );
    let svg = std::fs::read_to_string(with_extension(stem, "svg")).expect("SVG written");
    assert!(svg.contains("<svg"), "SVG has an <svg> element");
    assert!(svg.contains("<text"), "SVG has text");
    assert!(svg.len() > 1_000);
}

// ---------------------------------------------------------------------------------------------
// Reading the SVG back
// ---------------------------------------------------------------------------------------------

fn svg_marks(stem: &Path) -> Vec<Mark> {
    marks(&std::fs::read_to_string(with_extension(stem, "svg")).unwrap())
}

/// The x axis (numeric labels centred under it) and y axis (numeric labels right-aligned) of a
/// chart, from the tick labels.
fn axes(marks: &[Mark]) -> (Axis, Axis) {
    let numeric = |anchor: &str| -> Vec<&Mark> {
        marks
            .iter()
            .filter(|m| m.tag == "text" && m.attr("text-anchor") == anchor && m.value().is_some())
            .collect()
    };
    let x: Vec<(f64, f64)> = numeric("middle")
        .iter()
        .map(|m| (m.value().unwrap(), m.num("x")))
        .collect();
    let y: Vec<(f64, f64)> = numeric("end")
        .iter()
        .map(|m| (m.value().unwrap(), m.num("y")))
        .collect();
    (Axis::fit(&x, "x"), Axis::fit(&y, "y"))
}

/// `#RRGGBB` of the tab10 colour `i` the figures draw series `i` with.
fn tab10(i: usize) -> &'static str {
    ["#1F77B4", "#FF7F0E", "#2CA02C", "#D62728"][i]
}

/// Asserts a drawn pixel is within `tol` pixels of where `value` belongs.
fn assert_px(got: f64, axis: Axis, value: f64, tol: f64, what: &str) {
    let want = axis.px(value);
    assert!(
        abs_diff_eq!(got, want, epsilon = tol),
        "{what}: drawn at {got} px, {value} belongs at {want:.1} px (≈ {:.4} drawn)",
        axis.value(got)
    );
}

fn legend_texts(marks: &[Mark]) -> Vec<&str> {
    marks
        .iter()
        .filter(|m| m.tag == "text" && m.attr("text-anchor") == "start")
        .map(|m| m.text.as_str())
        .collect()
}

/// Mean and standard deviation (ddof = 1).
fn score_table() -> ScoreTable {
    let (a, b) = (normals(1, 300), normals(2, 300));
    ScoreTable::new(
        a.iter()
            .zip(&b)
            .enumerate()
            .map(|(i, (x, y))| row(&i.to_string(), None, -40.0 + 8.0 * x, -43.0 + 10.0 * y))
            .collect(),
    )
}

#[test]
fn score_densities_writes_png_and_svg() {
    let stem = out("densities");
    let table = score_table();
    figures::score_densities(&table, "toy model, CPS scores", &stem).unwrap();
    assert_written(&stem);

    let marks = svg_marks(&stem);
    let (x, y) = axes(&marks);
    let stereo: Vec<f64> = table.rows().iter().map(|r| r.score_stereo).collect();
    let anti: Vec<f64> = table.rows().iter().map(|r| r.score_anti).collect();
    // The legend gives the normal fits, mean and sd (ddof = 1) computed here.
    let legend = legend_texts(&marks);
    for (side, scores) in [("stereotypical", &stereo), ("anti-stereotypical", &anti)] {
        let (m, sd) = mean_sd(scores);
        let want = format!("{side}, normal fit (μ = {m:.2}, σ = {sd:.2})");
        assert!(legend.contains(&want.as_str()), "{want} not in {legend:?}");
        assert!(legend.contains(&format!("{side}, KDE (n = 300)").as_str()));
    }
    // The solid curves are Gaussian KDEs with Scott's bandwidth sd · n^(−1/5), computed here at
    // each drawn point (within the half pixel the point's x was rounded to).
    for (colour, scores) in [("#D62728", &stereo), ("#1F77B4", &anti)] {
        let h = mean_sd(scores).1 * (scores.len() as f64).powf(-0.2);
        let kde = |at: f64| {
            scores
                .iter()
                .map(|v| (-0.5 * ((at - v) / h).powi(2)).exp())
                .sum::<f64>()
                / (scores.len() as f64 * h * (2.0 * std::f64::consts::PI).sqrt())
        };
        let curve = marks
            .iter()
            .find(|m| {
                m.tag == "polyline"
                    && m.attr("stroke") == colour
                    && m.attr("stroke-width") == "3"
                    && m.points().len() > 2
            })
            .expect("the KDE curve");
        let points = curve.points();
        assert!(points.len() > 100, "{} points", points.len());
        for &(px, py) in &points {
            let lo = kde(x.value(px - 0.5));
            let hi = kde(x.value(px + 0.5));
            let (a, b) = (y.px(lo), y.px(hi));
            assert!(
                py >= a.min(b) - 1.5 && py <= a.max(b) + 1.5,
                "{colour} at x = {:.2}: drawn {py}, KDE between {a:.1} and {b:.1} px",
                x.value(px)
            );
        }
    }
}

#[test]
fn score_densities_rejects_a_single_row() {
    let table = ScoreTable::new(vec![row("1", None, -1.0, -2.0)]);
    let err = figures::score_densities(&table, "t", out("single")).unwrap_err();
    assert!(
        matches!(
            err,
            ReportError::Robust(RobustError::Metrics(MetricsError::TooFew {
                needed: 2,
                got: 1,
                ..
            }))
        ),
        "{err}"
    );
}

fn robustness_report() -> RobustnessReport {
    let rates: Vec<f64> = vec![0.1, 0.2, 0.3, 0.5, 0.7, 0.9];
    let mut stats = Vec::new();
    for (m, (model, full)) in [
        ("bert-base", 60.5),
        ("roberta-base", 64.2),
        ("albert", 56.0),
    ]
    .into_iter()
    .enumerate()
    {
        for &rate in &rates {
            let half = 6.0 * (1.0 - rate).sqrt() + 0.3;
            let mean = full + 0.4 * (m as f64 - 1.0) * (1.0 - rate);
            stats.push(MeasureAtRate {
                model: model.to_owned(),
                measure: "CPS".to_owned(),
                rate,
                n: (1508.0 * rate) as usize,
                full,
                summary: RepeatSummary {
                    mean,
                    sd: half / 2.0,
                    q025: mean - half,
                    q975: mean + half,
                },
            });
        }
    }
    RobustnessReport {
        options: RobustnessOptions {
            rates,
            repeats: 100,
            seed: 0,
        },
        models: vec!["bert-base".into(), "roberta-base".into(), "albert".into()],
        measures: vec!["CPS".into()],
        measure_stats: stats,
        rank_agreement: Vec::new(),
        score_groups: Vec::new(),
    }
}

#[test]
fn robustness_curves_writes_png_and_svg() {
    let stem = out("robustness");
    let report = robustness_report();
    figures::robustness_curves(&report, "CPS", &stem).unwrap();
    assert_written(&stem);

    // Each model's points, band and full-data line are where the report's values belong.
    let marks = svg_marks(&stem);
    let (x, y) = axes(&marks);
    let legend = legend_texts(&marks);
    for (i, model) in report.models.iter().enumerate() {
        let colour = tab10(i);
        let mut stats: Vec<_> = report
            .measure_stats
            .iter()
            .filter(|s| &s.model == model)
            .collect();
        stats.sort_by(|a, b| a.rate.total_cmp(&b.rate));
        // Means: one dot per rate.
        let dots: Vec<(f64, f64)> = marks
            .iter()
            .filter(|m| m.tag == "circle" && m.attr("fill") == colour)
            .map(|m| (m.num("cx"), m.num("cy")))
            .collect();
        assert_eq!(dots.len(), stats.len(), "{model}");
        for (&(cx, cy), s) in dots.iter().zip(&stats) {
            assert_px(cx, x, s.rate, 1.5, model);
            assert_px(cy, y, s.summary.mean, 1.5, model);
        }
        // Band: 97.5 % quantiles left to right, then 2.5 % quantiles right to left.
        let band = marks
            .iter()
            .find(|m| m.tag == "polygon" && m.attr("fill") == colour)
            .expect("band")
            .points();
        assert_eq!(band.len(), 2 * stats.len());
        for (k, s) in stats.iter().enumerate() {
            let (top, bottom) = (band[k], band[band.len() - 1 - k]);
            assert_px(top.1, y, s.summary.q975, 1.5, model);
            assert_px(bottom.1, y, s.summary.q025, 1.5, model);
            assert_px(top.0, x, s.rate, 1.5, model);
        }
        // Full data: dashes at one height, and the value in the legend.
        let full = stats[0].full;
        let dashes: Vec<f64> = marks
            .iter()
            .filter(|m| {
                m.tag == "polyline" && m.attr("stroke") == colour && m.attr("stroke-width") == "2"
            })
            .flat_map(|m| m.points().into_iter().map(|p| p.1))
            .collect();
        // 122 dash ends (this figure's deterministic outcome): the first 118 on the full-data line, the
        // last 4 the legend swatch's, in the model's legend row (rows 40 px apart from y = 87).
        assert_eq!(dashes.len(), 122, "{model}: {dashes:?}");
        for &py in &dashes[..118] {
            assert_px(py, y, full, 1.5, model);
        }
        assert_eq!(dashes[118..], [87.0 + 40.0 * i as f64; 4], "{model}");
        assert!(legend.contains(&format!("{model}: full data ({full:.3})").as_str()));
        assert!(legend.contains(&format!("{model}: mean, 2.5–97.5 % band").as_str()));
    }
}

#[test]
fn robustness_curves_rejects_an_unknown_measure() {
    let err = figures::robustness_curves(&robustness_report(), "KLS", out("unknown")).unwrap_err();
    assert!(err.to_string().contains("KLS"), "{err}");
}

#[test]
fn roc_curves_writes_png_and_svg() {
    let good = RocCurve {
        fpr: vec![0.0, 0.0, 0.1, 0.2, 0.4, 0.7, 1.0],
        tpr: vec![0.0, 0.3, 0.55, 0.7, 0.85, 0.95, 1.0],
        thresholds: vec![f64::INFINITY, 3.0, 2.0, 1.0, 0.0, -1.0, -2.0],
    };
    let weak = RocCurve {
        fpr: vec![0.0, 0.2, 0.5, 0.8, 1.0],
        tpr: vec![0.0, 0.3, 0.6, 0.85, 1.0],
        thresholds: vec![f64::INFINITY, 2.0, 1.0, 0.0, -1.0],
    };
    let stem = out("roc");
    figures::roc_curves(&[("AUL", &good, 0.82), ("CPS", &weak, 0.58)], &stem).unwrap();
    assert_written(&stem);
    // Each curve's vertices are its (FPR, TPR) points; the legend gives the AUCs.
    let marks = svg_marks(&stem);
    let (x, y) = axes(&marks);
    for (i, curve) in [&good, &weak].into_iter().enumerate() {
        let line = marks
            .iter()
            .find(|m| {
                m.tag == "polyline"
                    && m.attr("stroke") == tab10(i)
                    && m.attr("stroke-width") == "3"
                    && m.points().len() > 2
            })
            .expect("the ROC curve")
            .points();
        assert_eq!(line.len(), curve.fpr.len());
        for (&(px, py), (&f, &t)) in line.iter().zip(curve.fpr.iter().zip(&curve.tpr)) {
            assert_px(px, x, f, 1.0, "FPR");
            assert_px(py, y, t, 1.0, "TPR");
        }
    }
    let legend = legend_texts(&marks);
    for want in [
        "AUL (AUC = 0.820)",
        "CPS (AUC = 0.580)",
        "chance (AUC = 0.5)",
    ] {
        assert!(legend.contains(&want), "{want} not in {legend:?}");
    }
    assert!(figures::roc_curves(&[], out("none")).is_err());
}

#[test]
fn mdiff_histogram_writes_png_and_svg() {
    let noise = normals(3, 400);
    let mut rows = Vec::new();
    for g in 0..80 {
        let id = format!("g{g}");
        let base = 0.6 * noise[g * 5];
        rows.push(row(&id, Some(&id), base, 0.0));
        for k in 1..5 {
            let p = format!("g{g}-p{k}");
            rows.push(row(&p, Some(&id), base + 0.3 * noise[g * 5 + k], 0.0));
        }
    }
    let report =
        paraphrase_agreement(&ScoreTable::new(rows), &ParaphraseOptions::default()).unwrap();
    let stem = out("mdiff");
    figures::mdiff_histogram(&report, 0.25, &stem).unwrap();
    assert_written(&stem);
    // The near-tie count of the legend, counted here from the inputs (MDIFF = the stereotypical
    // score, the anti-stereotypical one being 0).
    let mut near_tie = 0;
    for g in 0..80 {
        let base = 0.6 * noise[g * 5];
        near_tie += usize::from(base.abs() < 0.25);
        for k in 1..5 {
            near_tie += usize::from((base + 0.3 * noise[g * 5 + k]).abs() < 0.25);
        }
    }
    let marks = svg_marks(&stem);
    let legend = legend_texts(&marks);
    let want = format!(
        "near tie |MDIFF| < τ = 0.25: {near_tie} of 400 pairs ({:.1} %)",
        100.0 * near_tie as f64 / 400.0
    );
    assert!(legend.contains(&want.as_str()), "{want} not in {legend:?}");
    // Bars: each one a whole number of pairs tall; 80 originals and 320 paraphrases in all.
    let (_, y) = axes(&marks);
    for (colour, total) in [(tab10(0), 80), (tab10(1), 320)] {
        let mut pairs = 0;
        for bar in marks
            .iter()
            .filter(|m| m.tag == "rect" && m.attr("fill") == colour && m.attr("width") != "22")
        {
            let count = bar.num("height") / -y.scale;
            assert!(
                abs_diff_eq!(count, count.round(), epsilon = 0.25),
                "a bar {count} pairs tall"
            );
            pairs += count.round() as usize;
        }
        assert_eq!(pairs, total, "{colour}");
    }
    assert!(figures::mdiff_histogram(&report, f64::NAN, out("nan")).is_err());
}

#[test]
fn correlation_heatmap_writes_png_and_svg() {
    let noise = normals(4, 60);
    let table: Vec<(String, BTreeMap<String, f64>)> = (0..12)
        .map(|m| {
            let x = noise[m];
            let mut scores = BTreeMap::new();
            scores.insert("AUL".to_owned(), 55.0 + 5.0 * x);
            scores.insert("CPS".to_owned(), 57.0 + 4.0 * x + 2.0 * noise[12 + m]);
            scores.insert("SSS".to_owned(), 60.0 - 3.0 * x + 4.0 * noise[24 + m]);
            scores.insert("KLS".to_owned(), noise[36 + m]);
            scores.insert("JSS".to_owned(), 0.5 * noise[36 + m] + 0.5 * noise[48 + m]);
            (format!("model-{m}"), scores)
        })
        .collect();
    let corr = correlate_measures(&table, &CorrelateOptions::default()).unwrap();
    let stem = out("correlation");
    figures::correlation_heatmap(&corr, &stem).unwrap();
    assert_written(&stem);
    // Every cell holds Pearson's r of its row and column measure, computed here.
    let pearson = |a: &str, b: &str| {
        let xs: Vec<f64> = table.iter().map(|(_, s)| s[a]).collect();
        let ys: Vec<f64> = table.iter().map(|(_, s)| s[b]).collect();
        let ((mx, sx), (my, sy)) = (mean_sd(&xs), mean_sd(&ys));
        let cov = xs
            .iter()
            .zip(&ys)
            .map(|(x, y)| (x - mx) * (y - my))
            .sum::<f64>()
            / (xs.len() - 1) as f64;
        cov / (sx * sy)
    };
    let marks = svg_marks(&stem);
    let names = ["AUL", "CPS", "JSS", "KLS", "SSS"];
    let label = |name: &str, row: bool| -> f64 {
        // Row labels sit left of the grid (right-aligned), column labels under it (centred).
        let found: Vec<&Mark> = marks
            .iter()
            .filter(|m| m.tag == "text" && m.text == name)
            .collect();
        assert_eq!(found.len(), 2, "{name}");
        let row_label = found
            .iter()
            .min_by(|a, b| a.num("x").total_cmp(&b.num("x")));
        let col_label = found
            .iter()
            .max_by(|a, b| a.num("y").total_cmp(&b.num("y")));
        if row {
            row_label.unwrap().num("y")
        } else {
            col_label.unwrap().num("x")
        }
    };
    let mut cells = 0;
    for a in names {
        for b in names {
            let (cy, cx) = (label(a, true), label(b, false));
            let cell = marks
                .iter()
                .find(|m| m.tag == "text" && m.num("x") == cx && m.num("y") == cy)
                .unwrap_or_else(|| panic!("no cell for {a}, {b}"));
            let r = pearson(a, b);
            assert!(
                abs_diff_eq!(cell.value().unwrap(), r, epsilon = 0.005 + 1e-12),
                "{a}, {b}: cell {}, r = {r}",
                cell.text
            );
            cells += 1;
        }
    }
    assert_eq!(cells, 25);
}

#[test]
fn the_embedded_font_registers_and_bytes_that_are_not_a_font_are_refused() {
    figures::use_font(figures::DEJAVU_SANS).expect("the embedded font registers");
    let err = figures::use_font(b"not a font").unwrap_err();
    assert!(matches!(err, ReportError::InvalidFont { len: 10 }), "{err}");
}
