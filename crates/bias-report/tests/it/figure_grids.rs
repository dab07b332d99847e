//! The figures of small multiples, `score_density_grid` (liu2024 Fig. 2 per scorer and model)
//! and `robustness_panels` (liu2024 Fig. 5 per scorer): both files written, the PNG as large as
//! the grid asks, every caption and legend entry drawn once, red rings where a report says the
//! order changed, one colour per model across panels, and errors that name what is wrong.
//!
//! Self-contained (synthetic tables, the embedded font).

use std::path::{Path, PathBuf};

use bias_core::{BiasType, Direction, ScoreRow, ScoreSlice, ScoreTable};
use bias_metrics::Indicator;
use bias_report::figures::{robustness_panels, score_density_grid, with_extension, CurvePanel};
use bias_report::ReportError;
use bias_robust::{
    subsample_by_scorer, MeasureAtRate, RankAgreement, RepeatSummary, RobustnessOptions,
    RobustnessReport, ScorerGrouping, SyncMeasure,
};

fn out(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bias-robust-figure-grids");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The PNG's `(width, height)` after checking its magic bytes, and the SVG's text.
fn written(stem: &Path) -> ((u32, u32), String) {
    let png = std::fs::read(with_extension(stem, "png")).expect("PNG written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG magic bytes");
    assert_eq!(&png[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes(b.try_into().unwrap());
    let svg = std::fs::read_to_string(with_extension(stem, "svg")).expect("SVG written");
    assert!(svg.starts_with("<svg") || svg.contains("<svg"));
    ((be(&png[16..20]), be(&png[20..24])), svg)
}

/// How many `<text>` elements of the SVG read exactly `text`.
fn texts(svg: &str, text: &str) -> usize {
    svg.matches(&format!(">\n{text}\n</text>")).count()
}

/// A deterministic spread of `n` values around `centre` (never all equal for n ≥ 2).
fn spread(seed: u64, n: usize, centre: f64, scale: f64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(6364136223846793005) | 1;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            centre + scale * (((state >> 11) as f64 / (1u64 << 53) as f64) - 0.5)
        })
        .collect()
}

fn rows(dataset: &str, scorer: &str, model: &str, stereo: &[f64], anti: &[f64]) -> Vec<ScoreRow> {
    stereo
        .iter()
        .zip(anti)
        .enumerate()
        .map(|(i, (&s, &a))| ScoreRow {
            pair_id: i.to_string(),
            dataset: dataset.to_owned().into(),
            bias_type: if i % 2 == 0 {
                BiasType::Gender
            } else {
                BiasType::Age
            },
            direction: Direction::Stereo,
            stereo: "s".to_owned(),
            anti: "a".to_owned(),
            score_stereo: s,
            score_anti: a,
            scorer: scorer.to_owned().into(),
            model: model.to_owned().into(),
            tokens_stereo: None,
            tokens_anti: None,
            group_id: None,
        })
        .collect()
}

fn slice(scorer: &str, model: &str, seed: u64, n: usize) -> ScoreSlice {
    // The two scorers on different scales: AUL around −3, CPS around −40.
    let (centre, scale) = if scorer == "aul" {
        (-3.0, 2.0)
    } else {
        (-40.0, 20.0)
    };
    let stereo = spread(seed, n, centre + 0.3, scale);
    let anti = spread(seed + 100, n, centre, scale);
    ScoreSlice {
        dataset: "crows-pairs".to_owned(),
        scorer: scorer.to_owned(),
        model: model.to_owned(),
        table: ScoreTable::new(rows("crows-pairs", scorer, model, &stereo, &anti)),
    }
}

fn figure_input(err: &ReportError) -> &str {
    match err {
        ReportError::FigureInput { problem, .. } => problem,
        other => panic!("expected FigureInput, got {other:?}"),
    }
}

#[test]
fn density_grid_draws_a_row_per_scorer_and_a_column_per_model() {
    // Order of first appearance: scorers cps, aul; models bert, roberta, albert. (aul, albert)
    // is missing.
    let s = [
        slice("cps", "bert", 1, 40),
        slice("cps", "roberta", 2, 35),
        slice("aul", "bert", 3, 30),
        slice("cps", "albert", 4, 25),
        slice("aul", "roberta", 5, 20),
    ];
    let refs: Vec<&ScoreSlice> = s.iter().collect();
    let stem = out("density-grid");
    score_density_grid(&refs, "CrowS-Pairs: score densities", &stem).unwrap();
    let (size, svg) = written(&stem);
    // 3 columns of 360 px; 2 rows of 260 px, the title (50 px) and a one-line legend (42 px).
    assert_eq!(size, (3 * 360, 2 * 260 + 50 + 42));
    for scorer in ["cps", "aul"] {
        for model in ["bert", "roberta", "albert"] {
            assert_eq!(
                texts(&svg, &format!("{model} · {scorer}")),
                1,
                "{model} · {scorer}"
            );
        }
    }
    assert_eq!(texts(&svg, "no scores"), 1);
    for n in [40, 35, 30, 25, 20] {
        assert_eq!(texts(&svg, &format!("n = {n}")), 1, "n = {n}");
    }
    for key in [
        "stereotypical, KDE",
        "anti-stereotypical, KDE",
        "normal fit (dashed)",
    ] {
        assert_eq!(texts(&svg, key), 1, "{key}");
    }
    assert_eq!(texts(&svg, "CrowS-Pairs: score densities"), 1);

    // One slice: the least width, one row.
    let stem = out("density-grid-one");
    score_density_grid(&refs[..1], "one", &stem).unwrap();
    assert_eq!(written(&stem).0, (800, 260 + 50 + 42));
}

#[test]
fn density_grid_errors_name_what_is_wrong() {
    let err = score_density_grid(&[], "t", out("never")).unwrap_err();
    assert!(figure_input(&err).contains("no score slices"), "{err}");

    let a = slice("cps", "bert", 1, 10);
    let mut b = slice("cps", "roberta", 2, 10);
    b.dataset = "stereoset".to_owned();
    let err = score_density_grid(&[&a, &b], "t", out("never")).unwrap_err();
    let problem = figure_input(&err);
    assert!(
        problem.contains("crows-pairs") && problem.contains("stereoset"),
        "{err}"
    );

    // All-equal anti-stereotypical scores: no bandwidth.
    let mut flat = slice("aul", "albert", 3, 10);
    let constant = rows(
        "crows-pairs",
        "aul",
        "albert",
        &spread(3, 10, -3.0, 2.0),
        &[-2.0; 10],
    );
    flat.table = ScoreTable::new(constant);
    let err = score_density_grid(&[&a, &flat], "t", out("never")).unwrap_err();
    assert!(figure_input(&err).contains("albert · aul"), "{err}");

    // One row: too few for a density.
    let single = slice("cps", "tiny", 4, 1);
    let err = score_density_grid(&[&a, &single], "t", out("never")).unwrap_err();
    assert!(figure_input(&err).contains("tiny · cps"), "{err}");

    let err = score_density_grid(&[&a, &a], "t", out("never")).unwrap_err();
    assert!(
        figure_input(&err).contains("two slices of bert · cps"),
        "{err}"
    );
}

/// A study of `models` (name, full value) at rates 0.3, 0.5, 0.8 by hand; the order by mean
/// changes at the rates in `changed`.
fn report(models: &[(&str, f64)], changed: &[f64]) -> RobustnessReport {
    let rates = vec![0.3, 0.5, 0.8];
    let mut stats = Vec::new();
    for (m, &(model, full)) in models.iter().enumerate() {
        for &rate in &rates {
            let mean = full + 0.5 * m as f64 * (1.0 - rate);
            let half = 5.0 * (1.0 - rate) + 0.5;
            stats.push(MeasureAtRate {
                model: model.to_owned(),
                measure: "indicator".to_owned(),
                rate,
                n: 100,
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
    let names: Vec<String> = models.iter().map(|m| m.0.to_owned()).collect();
    let rank_agreement = rates
        .iter()
        .map(|&rate| RankAgreement {
            measure: "indicator".to_owned(),
            rate,
            no_bias: 50.0,
            full_order: names.clone(),
            mean_order: names.clone(),
            mean_order_kept: !changed.contains(&rate),
            kendall_tau: Some(1.0),
            agreeing: 5,
            repeats: 5,
            agreement: 1.0,
        })
        .collect();
    RobustnessReport {
        options: RobustnessOptions {
            rates,
            repeats: 5,
            seed: 0,
        },
        models: names,
        measures: vec!["indicator".to_owned()],
        measure_stats: stats,
        rank_agreement,
        score_groups: Vec::new(),
    }
}

fn panel<'a>(title: &str, report: &'a RobustnessReport, models: &[&str]) -> CurvePanel<'a> {
    CurvePanel {
        title: title.to_owned(),
        report,
        models: models.iter().map(|m| (*m).to_owned()).collect(),
    }
}

#[test]
fn robustness_panels_share_colours_and_one_legend() {
    let cps = report(
        &[("bert", 60.0), ("roberta", 64.0), ("albert", 56.0)],
        &[0.3],
    );
    let aul = report(&[("bert", 52.0), ("gpt2", 58.0), ("albert", 55.0)], &[]);
    let panels = [
        panel("scorer CPS", &cps, &[]),
        panel("scorer AUL", &aul, &["gpt2", "bert"]),
    ];
    let stem = out("robustness-panels");
    robustness_panels(&panels, "indicator", "indicator by scorer", &stem).unwrap();
    let (size, svg) = written(&stem);
    // 2 columns of 480 px, 1 row of 360 px, the title (50 px) and a legend of two lines (the 4
    // models, full data, band and rings do not fit in one line of 960 px): 2 × 26 + 16 px.
    assert_eq!(size, (2 * 480, 360 + 50 + 68));
    for text in [
        "scorer CPS",
        "scorer AUL",
        "bert",
        "roberta",
        "albert",
        "gpt2",
    ] {
        assert_eq!(texts(&svg, text), 1, "{text}");
    }
    for key in [
        "full data (dashed)",
        "2.5–97.5 % band",
        "order by mean differs from the full data",
    ] {
        assert_eq!(texts(&svg, key), 1, "{key}");
    }
    // One band per model and panel, in the model's colour in every panel: bert (first seen,
    // tab10 blue) twice, gpt2 (fourth seen, tab10 red) once.
    let bands = |fill: &str| {
        svg.lines()
            .filter(|l| l.starts_with("<polygon") && l.contains(&format!("fill=\"{fill}\"")))
            .count()
    };
    assert_eq!(bands("#1F77B4"), 2, "bert");
    assert_eq!(bands("#FF7F0E"), 1, "roberta");
    assert_eq!(bands("#2CA02C"), 1, "albert");
    assert_eq!(bands("#D62728"), 1, "gpt2");
    // Red rings: the 3 models of the CPS panel at rate 0.3 (radius 9), and the legend's (7).
    let rings = |r: &str| {
        svg.lines()
            .filter(|l| {
                l.starts_with("<circle") && l.contains("stroke=\"#FF0000\"") && l.contains(r)
            })
            .count()
    };
    assert_eq!((rings("r=\"9\""), rings("r=\"7\"")), (3, 1));

    // No order change: no ring, no ring entry; 3 panels in one row.
    let stem = out("robustness-panels-kept");
    let kept = [
        panel("a", &aul, &[]),
        panel("b", &aul, &["bert"]),
        panel("c", &aul, &["albert"]),
    ];
    robustness_panels(&kept, "indicator", "kept", &stem).unwrap();
    let (size, svg) = written(&stem);
    assert_eq!(size, (3 * 480, 360 + 50 + 42));
    assert_eq!(texts(&svg, "order by mean differs from the full data"), 0);
    assert!(!svg.contains("stroke=\"#FF0000\""));
}

#[test]
fn robustness_panels_errors() {
    let r = report(&[("bert", 60.0), ("roberta", 64.0)], &[]);
    let err = robustness_panels(&[], "indicator", "t", out("never")).unwrap_err();
    assert!(figure_input(&err).contains("no panel"), "{err}");

    let err = robustness_panels(&[panel("p", &r, &[])], "KLS", "t", out("never")).unwrap_err();
    match &err {
        ReportError::InvalidParameter { value, .. } => assert_eq!(value, "KLS"),
        other => panic!("expected InvalidParameter, got {other:?}"),
    }

    let err = robustness_panels(&[panel("p", &r, &["gpt9"])], "indicator", "t", out("never"))
        .unwrap_err();
    assert!(figure_input(&err).contains("gpt9"), "{err}");

    let mut nan = r.clone();
    for s in &mut nan.measure_stats {
        s.full = f64::NAN;
        s.summary = RepeatSummary {
            mean: f64::NAN,
            sd: f64::NAN,
            q025: f64::NAN,
            q975: f64::NAN,
        };
    }
    let err =
        robustness_panels(&[panel("p", &nan, &[])], "indicator", "t", out("never")).unwrap_err();
    assert!(figure_input(&err).contains("no finite values"), "{err}");
}

/// End to end: a study per scorer by `subsample_by_scorer` (5 repeats), drawn as panels, and the
/// slices drawn as a density grid.
#[test]
fn both_figures_draw_a_real_study() {
    let slices: Vec<ScoreSlice> = ["cps", "aul"]
        .iter()
        .enumerate()
        .flat_map(|(k, scorer)| {
            ["bert", "roberta", "albert"]
                .iter()
                .enumerate()
                .map(move |(m, model)| slice(scorer, model, (10 * k + m) as u64, 40))
        })
        .collect();
    let indicator = Indicator::default();
    let pair: [SyncMeasure<'_>; 1] = [&indicator];
    let options = RobustnessOptions {
        rates: vec![0.3, 0.5, 0.8],
        repeats: 5,
        seed: 1,
    };
    let studies =
        subsample_by_scorer(&slices, &pair, &[], &ScorerGrouping::default(), &options).unwrap();
    assert_eq!(studies.len(), 2);
    let panels: Vec<CurvePanel<'_>> = studies
        .iter()
        .map(|s| panel(&s.scorers.join("+"), &s.report, &[]))
        .collect();
    let stem = out("robustness-panels-study");
    robustness_panels(&panels, "indicator", "CrowS-Pairs", &stem).unwrap();
    let (size, svg) = written(&stem);
    assert_eq!(size.0, 2 * 480);
    for model in ["bert", "roberta", "albert"] {
        assert_eq!(texts(&svg, model), 1, "{model}");
    }
    let refs: Vec<&ScoreSlice> = slices.iter().collect();
    let stem = out("density-grid-study");
    score_density_grid(&refs, "CrowS-Pairs", &stem).unwrap();
    assert_eq!(written(&stem).0, (3 * 360, 2 * 260 + 50 + 42));
}
