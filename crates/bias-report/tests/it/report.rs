//! The report writes a self-contained `index.html` (escaped table cells, inline SVG) and a
//! Markdown copy linking the PNGs.
//!
//! Its sub-sampling sections (liu2024, Robustness Study, Fig. 5) are checked against values from
//! outside the code under test: `fixtures/robust/subsample_order.json` (numpy and scipy,
//! `scripts/fixtures/subsample_order.py`) and a score table built so that every draw of a rate
//! gives the same indicator, worked out by hand below.

use std::path::Path;

use bias_core::{BiasType, ScoreRow, ScoreSlice, ScoreTable};
use bias_metrics::stats::RocCurve;
use bias_metrics::{DistributionOptions, Indicator, Jss, JssVariant, Kls};
use bias_report::figures::{self, with_extension};
use bias_report::report::{
    escape_html, subsample_figure_stem, subsample_for_report, subsample_sections, Block, HeatCell,
    HeatRow, HeatTable, Report, Section, Shade, SubsampleRun, SUBSAMPLE_ORDER_HEADERS,
};
use bias_report::ReportError;
use bias_robust::{
    subsample_by_scorer, subsample_study_on_draws, ExplicitDraws, RobustError, RobustnessOptions,
    ScorerGrouping, ScorerStudy, SyncMeasure,
};
use bias_testkit::hand_scores;
use bias_testkit::json::{floats as f64s, strings as strs};
use serde_json::Value;

#[test]
fn report_writes_html_with_table_and_inline_svg_and_markdown() {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bias-robust-report");
    let _ = std::fs::remove_dir_all(&base);
    let stem = base.join("plots").join("roc");
    let curve = RocCurve {
        fpr: vec![0.0, 0.2, 0.5, 1.0],
        tpr: vec![0.0, 0.6, 0.8, 1.0],
        thresholds: vec![f64::INFINITY, 1.0, 0.0, -1.0],
    };
    figures::roc_curves(&[("AUL", &curve, 0.74)], &stem).unwrap();

    let report = Report::new("Bias <robustness> & agreement")
        .provenance(
            "bias robust --measure 'CPS' <in.csv>",
            &[
                ("bias-robust", env!("CARGO_PKG_VERSION")),
                ("plotters", "0.3.7"),
            ],
        )
        .section(
            Section::new("Human agreement")
                .text("AUC of each measure.\n\nSecond paragraph with <b>tags</b>.")
                .table(
                    &["measure", "AUC"],
                    vec![
                        vec!["AUL".into(), "0.740".into()],
                        vec!["a|b <c>".into(), "0.500".into()],
                    ],
                )
                .figure(&stem, "ROC of AUL"),
        );
    let dir = base.join("out");
    let files = report.write(&dir).unwrap();

    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert_eq!(files.html, dir.join("index.html"));
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<style>"), "inline CSS");
    assert!(html.contains("<td>AUL</td><td>0.740</td>"), "table cells");
    assert!(html.contains("<td>a|b &lt;c&gt;</td>"), "escaped cell");
    assert!(html.contains("Bias &lt;robustness&gt; &amp; agreement"));
    assert!(html.contains("&lt;b&gt;tags&lt;/b&gt;"));
    assert!(!html.contains("<b>tags"));
    assert!(html.contains("<svg"), "the figure is embedded as SVG");
    assert!(!html.contains("<?xml"));
    assert!(html.contains("ROC of AUL"));
    assert!(html.contains("bias robust --measure &#39;CPS&#39; &lt;in.csv&gt;"));
    assert!(html.contains("<td>plotters</td><td>0.3.7</td>"));

    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("| measure | AUC |"));
    assert!(md.contains("| AUL | 0.740 |"));
    assert!(md.contains("a\\|b"), "pipes escaped in Markdown cells");
    // The PNG lies outside the report folder: it is copied to figures/ and linked relatively.
    assert!(md.contains("](<figures/roc.png>)"), "{md}");
    assert!(dir.join("figures/roc.png").is_file());
    assert_eq!(
        files.copied_figures,
        vec![dir.join("figures/roc.png"), dir.join("figures/roc.svg")]
    );
    // Both files are offered for download under the figure.
    assert!(html.contains(
        "(download: <a href=\"figures/roc.png\" download>PNG</a>, \
         <a href=\"figures/roc.svg\" download>SVG</a>)"
    ));
    // The contents link to the section's anchor, derived from its title.
    assert!(html.contains("<nav id=\"contents\">"));
    assert!(html.contains("<li><a href=\"#human-agreement\">Human agreement</a></li>"));
    assert!(html.contains("<section id=\"human-agreement\">"));
    assert!(md.contains("- [Human agreement](#human-agreement)"));
    assert!(md.contains("<a id=\"human-agreement\"></a>"));
    assert!(md.contains("bias robust --measure 'CPS' <in.csv>"));
    assert!(md.contains("| bias-robust | "));
}

#[test]
fn a_figure_inside_the_report_folder_is_linked_in_place() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bias-robust-report-inside");
    let _ = std::fs::remove_dir_all(&dir);
    let curve = RocCurve {
        fpr: vec![0.0, 1.0],
        tpr: vec![0.0, 1.0],
        thresholds: vec![f64::INFINITY, 0.0],
    };
    figures::roc_curves(&[("x", &curve, 0.5)], dir.join("img/roc")).unwrap();
    let files = Report::new("r")
        .section(Section::new("s").figure(dir.join("img/roc"), "c"))
        .write(&dir)
        .unwrap();
    assert!(files.copied_figures.is_empty());
    let md = std::fs::read_to_string(files.markdown).unwrap();
    assert!(md.contains("](<img/roc.png>)"), "{md}");
    let html = std::fs::read_to_string(files.html).unwrap();
    assert!(html.contains("href=\"img/roc.png\""));
}

/// Anchors: given ones kept, others slugged from the title, repeats numbered; tables behind
/// a collapsible line; heat maps as shaded tables (Markdown: a plain table).
#[test]
fn anchors_details_and_heat_maps() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bias-robust-report-anchors");
    let _ = std::fs::remove_dir_all(&dir);
    let heat = HeatTable {
        corner: "bias type".into(),
        columns: vec!["CPS".into()],
        rows: vec![HeatRow {
            label: "overall".into(),
            cells: vec![Some(HeatCell {
                value: "60.00".into(),
                detail: Some("55.0–65.0".into()),
                tooltip: None,
                shade: Shade::Diverging(0.4),
            })],
            emphasis: true,
        }],
        ..HeatTable::default()
    };
    let report = Report::new("r")
        .section(Section::new("Summary").anchor("summary").heat(heat))
        .section(Section::new("Sub-sampling: AUL on crows-pairs").details(
            "Orders (1 row)",
            Section::default().table(&["a"], vec![vec!["x".into()]]),
        ))
        .section(Section::new("Sub-sampling: AUL on crows-pairs"));
    assert_eq!(
        report.anchors(),
        [
            "summary",
            "sub-sampling-aul-on-crows-pairs",
            "sub-sampling-aul-on-crows-pairs-2"
        ]
    );
    let files = report.write(&dir).unwrap();
    let html = std::fs::read_to_string(files.html).unwrap();
    for id in [
        "summary",
        "sub-sampling-aul-on-crows-pairs",
        "sub-sampling-aul-on-crows-pairs-2",
    ] {
        assert!(html.contains(&format!("<a href=\"#{id}\">")), "{id}");
        assert!(html.contains(&format!("<section id=\"{id}\">")), "{id}");
    }
    assert!(html
        .contains("<details>\n<summary>Orders (1 row)</summary>\n<table>\n<thead><tr><th>a</th>"));
    // 255 + (178 − 255)·0.4 = 224.2 → e0; 255 + (24 − 255)·0.4 = 162.6 → a3; 43 → 170.2 → aa.
    assert!(
        html.contains("<td style=\"background:#e0a3aa;color:#222\"><span class=\"v\">60.00</span>")
    );
    assert!(!html.contains("<script"), "no script");
    let md = std::fs::read_to_string(files.markdown).unwrap();
    assert!(md.contains("| **overall** | 60.00 (55.0–65.0) |"), "{md}");
    assert!(md.contains("**Orders (1 row)**\n\n| a |"), "{md}");
}

#[test]
fn html_escaping() {
    assert_eq!(
        escape_html(r#"<a href="x">'&'</a>"#),
        "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
    );
}

// ------------------------------------------------------------------ sub-sampling sections

fn fixture() -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/robust/subsample_order.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[allow(clippy::too_many_arguments)]
fn row(
    id: String,
    dataset: &str,
    ty: BiasType,
    stereo: f64,
    anti: f64,
    scorer: &str,
    model: &str,
) -> ScoreRow {
    ScoreRow::builder(id, ty, stereo, anti)
        .dataset(dataset)
        .sentences("s", "a")
        .scorer(scorer)
        .model(model)
        .build()
}

/// The fixture's models (scorer `aul`, data set `fixture`) and draws.
fn fixture_inputs(fx: &Value) -> (Vec<(String, ScoreTable)>, ExplicitDraws) {
    let types: Vec<BiasType> = strs(&fx["bias_types"])
        .iter()
        .map(|t| t.parse().unwrap())
        .collect();
    let models = strs(&fx["models"])
        .into_iter()
        .map(|m| {
            let stereo = f64s(&fx["scores"][&m]["stereo"]);
            let anti = f64s(&fx["scores"][&m]["anti"]);
            let rows = (0..types.len())
                .map(|i| {
                    let ty = types[i].clone();
                    row(i.to_string(), "fixture", ty, stereo[i], anti[i], "aul", &m)
                })
                .collect();
            (m, ScoreTable::new(rows))
        })
        .collect();
    let rows = serde_json::from_value(fx["draws"].clone()).unwrap();
    let draws = ExplicitDraws {
        rates: f64s(&fx["rates"]),
        rows,
    };
    (models, draws)
}

fn measures() -> (Indicator, Kls, Jss) {
    let options = DistributionOptions::default();
    (
        Indicator::default(),
        Kls::new(options),
        Jss::new(JssVariant::AuthorsCode, options),
    )
}

/// The tables of a section, in order: (headers, rows).
/// The tables of a section, in order, those behind a collapsible line included.
fn tables(section: &Section) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    fn walk(blocks: &[Block], out: &mut Vec<(Vec<String>, Vec<Vec<String>>)>) {
        for b in blocks {
            match b {
                Block::Table(t) => out.push((t.columns.clone(), t.text_rows())),
                Block::Details { blocks, .. } => walk(blocks, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&section.blocks, &mut out);
    out
}

fn texts(section: &Section) -> Vec<&str> {
    section
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// `(cx, r)` of the red rings of an SVG written by plotters (`stroke="#FF0000"`).
fn red_rings(stem: &Path) -> Vec<(f64, u32)> {
    let svg = std::fs::read_to_string(with_extension(stem, "svg")).unwrap();
    svg.split("<circle")
        .skip(1)
        .filter(|c| c.contains("stroke=\"#FF0000\"") && c.contains("fill=\"none\""))
        .map(|c| {
            let attr = |name: &str| -> String {
                let start = c.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                c[start..start + c[start..].find('"').unwrap()].to_owned()
            };
            (attr("cx").parse().unwrap(), attr("r").parse().unwrap())
        })
        .collect()
}

/// The order table, the means table and the figures of the section of a study on the
/// fixture's draws show numpy's and scipy's values: per measure and rate the full-data order,
/// the order by mean, whether it is kept, Kendall's τ-b and the single draws keeping it; the
/// means by model; and red rings at exactly the rates where the order by mean changes.
#[test]
fn subsample_sections_show_the_fixture_orders() {
    let fx = fixture();
    let (models, draws) = fixture_inputs(&fx);
    let (ind, kls, jss) = measures();
    let all: [SyncMeasure<'_>; 3] = [&ind, &kls, &jss];
    let report = subsample_study_on_draws(&models, &all, &draws).unwrap();
    let run = SubsampleRun {
        studies: vec![ScorerStudy {
            dataset: "fixture".into(),
            scorers: vec!["aul".into()],
            report: report.clone(),
        }],
        notes: Vec::new(),
        grouping: ScorerGrouping::default(),
        options: report.options.clone(),
        distribution_measures: vec!["kls".into(), "jss".into()],
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bias-robust-report-subsample");
    let _ = std::fs::remove_dir_all(&dir);
    let fig_dir = dir.join("figures");
    let sections = subsample_sections(&run, Some(&fig_dir)).unwrap();
    assert_eq!(sections.len(), 2);
    assert_eq!(sections[0].title, "Robustness to sub-sampling");
    assert_eq!(sections[1].title, "Sub-sampling on fixture");

    let repeats = fx["repeats"].as_u64().unwrap();
    let tabs = tables(&sections[1]);
    assert_eq!(tabs.len(), 2);
    let (headers, rows) = (tabs[0].0.as_slice(), tabs[0].1.as_slice());
    assert_eq!(headers, SUBSAMPLE_ORDER_HEADERS.map(String::from));
    let measures = strs(&fx["measures"]);
    let want: Vec<Vec<String>> = measures
        .iter()
        .flat_map(|m| {
            fx["rank_agreement"]
                .as_array()
                .unwrap()
                .iter()
                .filter(move |r| r["measure"] == m.as_str())
        })
        .map(|r| {
            let agreeing = r["agreeing"].as_u64().unwrap();
            vec![
                r["measure"].as_str().unwrap().to_owned(),
                format!("{:.2}", r["rate"].as_f64().unwrap()),
                strs(&r["full_order"]).join(" > "),
                strs(&r["mean_order"]).join(" > "),
                if r["mean_order_kept"].as_bool().unwrap() {
                    "yes"
                } else {
                    "no"
                }
                .to_owned(),
                r["kendall_tau"]
                    .as_f64()
                    .map_or_else(|| "n/a".to_owned(), |t| format!("{t:.3}")),
                format!(
                    "{agreeing}/{repeats} ({:.0} %)",
                    100.0 * agreeing as f64 / repeats as f64
                ),
            ]
        })
        .collect();
    // By measure, then rate.
    assert_eq!(rows, want.as_slice());
    assert!(
        rows.iter().any(|r| r[4] == "no") && rows.iter().any(|r| r[4] == "yes"),
        "the fixture covers both outcomes"
    );

    // Means: one row per measure and model, one column per rate.
    let (headers, rows) = (tabs[1].0.as_slice(), tabs[1].1.as_slice());
    assert_eq!(
        headers,
        [
            "measure",
            "model",
            "full data",
            "mean at 0.40",
            "mean at 0.70"
        ]
        .map(String::from)
    );
    for s in fx["measure_stats"].as_array().unwrap() {
        let (model, measure) = (s["model"].as_str().unwrap(), s["measure"].as_str().unwrap());
        let rate = s["rate"].as_f64().unwrap();
        let col = if rate == 0.4 { 3 } else { 4 };
        let row = rows
            .iter()
            .find(|r| r[0] == measure && r[1] == model)
            .unwrap_or_else(|| panic!("no row for {measure} on {model}"));
        assert_eq!(row[2], format!("{:.2}", s["full"].as_f64().unwrap()));
        assert_eq!(
            row[col],
            format!("{:.2}", s["mean"].as_f64().unwrap()),
            "{measure} {model}"
        );
    }

    // Figures: one per measure, with a red ring (r = 9) around each model's mean at each rate
    // where the fixture's order by mean changes, and one ring in the legend (r = 6) if any.
    for measure in measures {
        let stem = subsample_figure_stem(&fig_dir, "fixture", &measure);
        assert!(with_extension(&stem, "png").is_file());
        let changed = fx["rank_agreement"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["measure"] == measure.as_str() && r["mean_order_kept"] == false)
            .count();
        let rings = red_rings(&stem);
        let data: Vec<f64> = rings.iter().filter(|r| r.1 == 9).map(|r| r.0).collect();
        assert_eq!(data.len(), 3 * changed, "{measure}: {rings:?}");
        let mut xs = data.clone();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        assert_eq!(xs.len(), changed, "{measure}: one x per changed rate");
        // The legend, outside the panels, rings its entry with r = 7.
        assert_eq!(
            rings.iter().filter(|r| r.1 == 7).count(),
            usize::from(changed > 0),
            "{measure}: legend"
        );
    }
    // The figures sit in the data set's section, the tables of the study behind collapsible
    // lines.
    let figures = |s: &Section| {
        s.blocks
            .iter()
            .filter(|b| matches!(b, Block::Figure { .. }))
            .count()
    };
    assert_eq!((figures(&sections[0]), figures(&sections[1])), (0, 3));
    assert!(sections[1]
        .blocks
        .iter()
        .all(|b| !matches!(b, Block::Table(_))));

    // The report writes the tables, with the figures inline.
    let files = Report::new("r")
        .section(sections[0].clone())
        .section(sections[1].clone())
        .write(&dir)
        .unwrap();
    let md = std::fs::read_to_string(files.markdown).unwrap();
    assert!(md.contains(&format!("| {} |", want[0].join(" | "))), "{md}");
    let html = std::fs::read_to_string(files.html).unwrap();
    assert!(html.contains("<th>order by mean</th><th>same order</th>"));
    assert_eq!(html.matches("<svg").count(), 3);
    assert_eq!(html.matches("<details>").count(), 2);
    assert!(html.contains("<summary>aul: orders by measure and rate ("));
}

/// A slice of the 11 pairs of [`hand_scores`] (types 0 and 1, `age` and `disability`, mark
/// model `P`'s stereotypical preferences, type 3, `race-color`, model `Q`'s).
fn hand_slice(dataset: &str, scorer: &str, model: &str, stereo_types: &[usize]) -> ScoreSlice {
    let rows = hand_scores(stereo_types).into_iter().enumerate();
    let rows = rows
        .map(|(i, (ty, s, a))| {
            row(
                i.to_string(),
                dataset,
                ty.parse().unwrap(),
                s,
                a,
                scorer,
                model,
            )
        })
        .collect();
    ScoreSlice {
        dataset: dataset.into(),
        scorer: scorer.into(),
        model: model.into(),
        table: ScoreTable::new(rows),
    }
}

/// A data set without AUL scores is not refused: its study runs the indicator only and the
/// report says so, while a data set with AUL scores gets KLS and JSS as `subsample_by_scorer`
/// gives them.
///
/// The `toy` data set (`cps` scores) has 2, 2, 2 and 5 pairs of four types; `P` prefers the
/// stereotype on the 4 pairs of the first two types, `Q` on the 5 of the last. By hand, with
/// `c_k = ceil(n_k · rate)`:
///
/// | rate | c_k | pairs | P | Q | order (most biased first) |
/// |---|---|---|---|---|---|
/// | full | 2, 2, 2, 5 | 11 | 400/11 = 36.36 (dev 13.64) | 500/11 = 45.45 (dev 4.55) | P > Q |
/// | 0.5 | 1, 1, 1, 3 | 6 | 200/6 = 33.33 (dev 16.67) | 300/6 = 50 (dev 0) | P > Q: kept, τ = 1 |
/// | 0.6 | 2, 2, 2, 3 | 9 | 400/9 = 44.44 (dev 5.56) | 300/9 = 33.33 (dev 16.67) | Q > P: changed, τ = −1 |
/// | 0.8 | 2, 2, 2, 4 | 10 | 400/10 = 40 (dev 10) | 400/10 = 40 (dev 10) | a new tie: changed, τ undefined |
///
/// Every draw of a rate gives these values, so the mean is the value and either every single
/// draw keeps the order or none does.
#[test]
fn a_data_set_without_aul_scores_gets_the_indicator_only_with_a_note() {
    let toy = [
        hand_slice("toy", "cps", "P", &[0, 1]),
        hand_slice("toy", "cps", "Q", &[3]),
    ];
    let fx = fixture();
    let (models, _) = fixture_inputs(&fx);
    let with_aul: Vec<ScoreSlice> = models
        .into_iter()
        .map(|(model, table)| ScoreSlice {
            dataset: "fixture".into(),
            scorer: "aul".into(),
            model,
            table,
        })
        .collect();
    let slices: Vec<ScoreSlice> = toy.iter().chain(&with_aul).cloned().collect();
    let (ind, kls, jss) = measures();
    let pair: [SyncMeasure<'_>; 1] = [&ind];
    let dist: [SyncMeasure<'_>; 2] = [&kls, &jss];
    let options = RobustnessOptions {
        rates: vec![0.5, 0.6, 0.8],
        repeats: 4,
        seed: 7,
    };
    let grouping = ScorerGrouping::default();
    let run = subsample_for_report(&slices, &pair, &dist, &grouping, &options).unwrap();

    // `subsample_by_scorer` itself refuses the set: `toy` has no AUL scores.
    assert!(matches!(
        subsample_by_scorer(&slices, &pair, &dist, &grouping, &options),
        Err(RobustError::MissingScorer { .. })
    ));
    assert_eq!(
        run.notes,
        vec![
            "Data set `toy` has no `aul` scores (its scorers: cps): KLS and JSS, computed on \
             `aul` scores only (liu2024 fits them to AUL scores, Proposed Evaluation Measure), \
             are left out, so its sub-sampling study runs the indicator only."
                .to_owned()
        ]
    );
    let shape: Vec<(&str, Vec<String>, Vec<String>)> = run
        .studies
        .iter()
        .map(|s| {
            (
                s.dataset.as_str(),
                s.scorers.clone(),
                s.report.measures.clone(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (
                "fixture",
                vec!["aul".to_owned()],
                vec!["indicator".to_owned(), "kls".to_owned(), "jss".to_owned()]
            ),
            ("toy", vec!["cps".to_owned()], vec!["indicator".to_owned()]),
        ]
    );
    // The data set with AUL scores is studied as `subsample_by_scorer` studies it alone.
    assert_eq!(
        run.studies[0],
        subsample_by_scorer(&with_aul, &pair, &dist, &grouping, &options).unwrap()[0]
    );

    let sections = subsample_sections(&run, None).unwrap();
    assert_eq!(sections.len(), 3);
    assert!(texts(&sections[0]).contains(&run.notes[0].as_str()));
    assert_eq!(sections[2].title, "Sub-sampling on toy");
    let tabs = tables(&sections[2]);
    let row = |rate: &str, mean: &str, kept: &str, tau: &str, draws: &str| {
        ["indicator", rate, "P > Q", mean, kept, tau, draws]
            .map(String::from)
            .to_vec()
    };
    assert_eq!(
        tabs[0].1,
        [
            row("0.50", "P > Q", "yes", "1.000", "4/4 (100 %)"),
            row("0.60", "Q > P", "no", "-1.000", "0/4 (0 %)"),
            row("0.80", "P > Q", "no", "n/a", "0/4 (0 %)"),
        ]
    );
    assert_eq!(
        tabs[1].1,
        [
            ["indicator", "P", "36.36", "33.33", "44.44", "40.00"].map(String::from),
            ["indicator", "Q", "45.45", "50.00", "33.33", "40.00"].map(String::from),
        ]
    );
    // No figures without a folder.
    assert!(sections
        .iter()
        .all(|s| s.blocks.iter().all(|b| !matches!(b, Block::Figure { .. }))));
}

/// Ranking one scorer's numbers against another's is still refused (liu2024 compares models
/// within one scorer), and allowed when asked for.
#[test]
fn the_report_study_refuses_mixed_scorers_unless_asked() {
    let slices = [
        hand_slice("toy", "cps", "P", &[0, 1]),
        hand_slice("toy", "cps", "Q", &[3]),
        hand_slice("toy", "aul", "P", &[0]),
    ];
    let (ind, kls, jss) = measures();
    let pair: [SyncMeasure<'_>; 1] = [&ind];
    let dist: [SyncMeasure<'_>; 2] = [&kls, &jss];
    let options = RobustnessOptions {
        rates: vec![0.8],
        repeats: 2,
        seed: 0,
    };
    let err = subsample_for_report(&slices, &pair, &dist, &ScorerGrouping::default(), &options)
        .unwrap_err();
    assert!(
        matches!(err, ReportError::Robust(RobustError::MixedScorers { .. })),
        "{err}"
    );
    let grouping = ScorerGrouping {
        mix_scorers: true,
        ..ScorerGrouping::default()
    };
    let run = subsample_for_report(&slices, &pair, &[], &grouping, &options).unwrap();
    assert!(run.notes.is_empty());
    assert_eq!(
        run.studies[0].report.models,
        ["P (aul)", "P (cps)", "Q (cps)"].map(String::from)
    );
    let sections = subsample_sections(&run, None).unwrap();
    assert_eq!(sections[1].title, "Sub-sampling on toy");
}
