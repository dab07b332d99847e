//! The report's summary (`bias_robust::summary`) on hand-made slices: which measures each
//! scorer gets, in which order, with the intervals `bootstrap_ci` gives, and the heat map
//! drawn from it.

use bias_core::{BiasType, Direction, ScoreRow, ScoreSlice, ScoreTable};
use bias_metrics::{bootstrap_ci, BootstrapOptions, MeasureSpec};
use bias_report::report::{summary_heat, Shade};
use bias_robust::summary::{summarize, SummaryOptions};
use bias_robust::SyncMeasure;

/// `n` gender pairs and `n` age pairs; the first `k` of each type prefer the stereotype, by
/// `gap` plus a spread that keeps every score distinct.
fn slice(scorer: &str, model: &str, n: usize, k: usize, gap: f64) -> ScoreSlice {
    let mut rows = Vec::new();
    for (t, ty) in [BiasType::Gender, BiasType::Age].into_iter().enumerate() {
        for i in 0..n {
            let base = -2.0 - 0.037 * i as f64 - 0.011 * t as f64;
            let d = if i < k { gap } else { -gap } + 0.003 * i as f64;
            rows.push(ScoreRow {
                pair_id: format!("{t}-{i}"),
                dataset: "toy".into(),
                bias_type: ty.clone(),
                direction: Direction::Stereo,
                stereo: "s".into(),
                anti: "a".into(),
                score_stereo: base + d,
                score_anti: base,
                scorer: scorer.into(),
                model: model.into(),
                tokens_stereo: None,
                tokens_anti: None,
                group_id: None,
            });
        }
    }
    ScoreSlice {
        dataset: "toy".into(),
        scorer: scorer.into(),
        model: model.into(),
        table: ScoreTable::new(rows),
    }
}

fn boot() -> BootstrapOptions {
    BootstrapOptions {
        replicates: 300,
        seed: 3,
        ..BootstrapOptions::default()
    }
}

#[test]
fn measures_scorers_models_and_intervals() {
    // Given AUL before CPS and model `b` before `a`: scorers come in the papers' order, models
    // in the order given.
    let slices = [
        slice("aul", "b", 20, 10, 0.2),
        slice("cps", "b", 20, 16, 0.2),
        slice("aul", "a", 20, 12, 0.3),
        slice("cps", "a", 20, 11, 0.1),
    ];
    let [ind, kls, jss] = MeasureSpec::liu2024();
    let pair: [SyncMeasure<'_>; 1] = [&ind];
    let dist: [SyncMeasure<'_>; 2] = [&kls, &jss];
    let options = SummaryOptions {
        bootstrap: Some(boot()),
        ..SummaryOptions::default()
    };
    let out = summarize(&slices, &pair, &dist, &options).unwrap();
    assert_eq!(out.len(), 1);
    let s = &out[0];
    assert_eq!(s.models, ["b", "a"]);
    let keys: Vec<(String, String, String)> = s
        .entries
        .iter()
        .map(|e| {
            (
                e.measurement.measure.clone(),
                e.scorer.clone(),
                e.model.clone(),
            )
        })
        .collect();
    let key = |m: &str, sc: &str, mo: &str| (m.to_owned(), sc.to_owned(), mo.to_owned());
    assert_eq!(
        keys,
        [
            key("indicator", "cps", "b"),
            key("indicator", "cps", "a"),
            key("indicator", "aul", "b"),
            key("indicator", "aul", "a"),
            key("kls", "aul", "b"),
            key("kls", "aul", "a"),
            key("jss", "aul", "b"),
            key("jss", "aul", "a"),
        ]
    );
    assert!(s.notes.is_empty(), "{:?}", s.notes);
    // Every value and overall interval is the measure's own and bootstrap_ci's on the slice.
    for e in &s.entries {
        let sl = slices
            .iter()
            .find(|x| x.scorer == e.scorer && x.model == e.model)
            .unwrap();
        let spec = [ind, kls, jss]
            .into_iter()
            .find(|m| m.measure(&sl.table).unwrap().measure == e.measurement.measure)
            .unwrap();
        assert_eq!(e.measurement, spec.measure(&sl.table).unwrap());
        let ci = bootstrap_ci(&spec, &sl.table, &boot()).unwrap();
        let overall = e.overall.unwrap();
        assert_eq!((overall.lower, overall.upper), (ci.lower, ci.upper));
        assert_eq!(e.by_type.len(), 2);
    }
    // CPS: b prefers the stereotype in 32 of 40 pairs (80), a in 22 (55): b is ranked first.
    let rankings = s.rankings();
    let cps = rankings
        .iter()
        .find(|r| r.measure == "indicator" && r.scorer == "cps")
        .unwrap();
    assert_eq!(cps.order, [("b".to_owned(), 80.0), ("a".to_owned(), 55.0)]);

    // The heat map: one group per (measure, scorer), a column per model under it; the overall
    // row first; b's CPS 80 is beyond noise (starred, red), a's 55 is not.
    let heat = summary_heat(s);
    let groups: Vec<&str> = heat.groups.iter().map(|g| g.0.as_str()).collect();
    assert_eq!(groups, ["CPS", "AUL", "KLS (AUL)", "JSS (AUL)"]);
    assert!(heat.groups.iter().all(|g| g.1 == 2));
    assert_eq!(heat.columns, ["b", "a", "b", "a", "b", "a", "b", "a"]);
    let labels: Vec<&str> = heat.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        ["overall (n = 40)", "gender (n = 20)", "age (n = 20)"]
    );
    let b_cps = heat.rows[0].cells[0].as_ref().unwrap();
    assert_eq!(b_cps.value, "80.00 *");
    assert_eq!(b_cps.shade, Shade::Diverging((80.0 - 50.0) / 25.0));
    let a_cps = heat.rows[0].cells[1].as_ref().unwrap();
    assert_eq!(a_cps.value, "55.00");
    // KLS has no direction: its shade is a distance.
    let kls_cell = heat.rows[0].cells[4].as_ref().unwrap();
    let kls_b = s.entry("kls", "aul", "b").unwrap().measurement.value;
    assert!(kls_b > 50.0, "{kls_b}");
    // Starred when its sign-flip test survives Holm over the family (any measure can be).
    let kls_entry = s.entry("kls", "aul", "b").unwrap();
    let star = if kls_entry.tests.overall.significant {
        " *"
    } else {
        ""
    };
    assert_eq!(kls_cell.value, format!("{kls_b:.2}{star}"));
    assert_eq!(kls_cell.shade, Shade::Sequential((kls_b - 50.0) / 25.0));
    // JSS's distance runs down from 100.
    let jss_a = s.entry("jss", "aul", "a").unwrap().measurement.value;
    assert_eq!(
        heat.rows[0].cells[7].as_ref().unwrap().shade,
        Shade::Sequential((100.0 - jss_a) / 25.0)
    );
}

/// A measure that fails on any table holding a pair twice: every bootstrap replicate of more
/// than one pair does, almost surely.
struct FailsOnRepeats;

impl bias_core::BiasMeasure for FailsOnRepeats {
    type Error = std::io::Error;
    fn name(&self) -> &str {
        "fussy"
    }
    fn measure(&self, table: &ScoreTable) -> Result<bias_core::Measurement, std::io::Error> {
        let mut ids: Vec<&str> = table.rows().iter().map(|r| r.pair_id.as_str()).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        if ids.len() < n {
            return Err(std::io::Error::other("a pair appears twice"));
        }
        Ok(bias_core::Measurement {
            measure: "fussy".into(),
            value: 1.0,
            no_bias: 0.0,
            n,
            by_type: Default::default(),
        })
    }
}

/// Without the distribution scorer, KLS and JSS are left out with a note; a bootstrap that
/// fails on a replicate leaves the slice's intervals out with a note naming it and the cause,
/// and keeps the values.
#[test]
fn notes_for_a_missing_scorer_and_a_failed_bootstrap() {
    let [ind, kls, jss] = MeasureSpec::liu2024();
    let pair: [SyncMeasure<'_>; 1] = [&ind];
    let dist: [SyncMeasure<'_>; 2] = [&kls, &jss];
    let options = SummaryOptions {
        bootstrap: Some(boot()),
        ..SummaryOptions::default()
    };
    let out = summarize(&[slice("cps", "m", 10, 6, 0.2)], &pair, &dist, &options).unwrap();
    assert_eq!(out[0].entries.len(), 1);
    assert!(out[0].notes[0].contains("No `aul` scores for `toy`: KLS and JSS left out"));

    let fussy = FailsOnRepeats;
    let pair: [SyncMeasure<'_>; 2] = [&ind, &fussy];
    let out = summarize(&[slice("cps", "m", 10, 6, 0.2)], &pair, &[], &options).unwrap();
    assert_eq!(out[0].entries.len(), 2);
    assert_eq!(out[0].entries[1].measurement.value, 1.0);
    assert!(out[0].entries.iter().all(|e| e.overall.is_none()));
    let note = &out[0].notes[0];
    assert!(
        note.starts_with("No bootstrap intervals for m · cps on toy"),
        "{note}"
    );
    assert!(note.contains("a pair appears twice"), "{note}");
}

/// StereoSet's heat map: scorers in the papers' order whatever the input order, a column per
/// model under each, overall first then the domains by name, SS in the cell coloured by its
/// distance from 50 and LMS / ICAT under it; a domain one model lacks is an empty cell.
#[test]
fn stereoset_heat_lays_out_scorers_models_and_domains() {
    use bias_metrics::{Scores, StereoSetScores};
    use bias_report::report::{stereoset_heat, StereoSetColumn};
    let scores = |ss: f64, domains: &[(&str, f64)]| StereoSetScores {
        overall: Scores {
            ss,
            lms: 80.0,
            icat: 80.0 * ss.min(100.0 - ss) / 50.0,
            n_items: 10,
            n_targets: 2,
        },
        by_domain: domains
            .iter()
            .map(|(d, v)| {
                let s = Scores {
                    ss: *v,
                    lms: 70.0,
                    icat: 70.0 * v.min(100.0 - v) / 50.0,
                    n_items: 5,
                    n_targets: 1,
                };
                ((*d).to_owned(), s)
            })
            .collect(),
    };
    let (a_aul, a_cps, b_aul) = (
        scores(60.0, &[("race", 70.0), ("gender", 50.0)]),
        scores(55.0, &[("race", 52.0), ("gender", 58.0)]),
        scores(40.0, &[("race", 45.0)]),
    );
    let columns = [
        StereoSetColumn {
            model: "a",
            scorer: "aul",
            scores: &a_aul,
        },
        StereoSetColumn {
            model: "a",
            scorer: "cps",
            scores: &a_cps,
        },
        StereoSetColumn {
            model: "b",
            scorer: "aul",
            scores: &b_aul,
        },
    ];
    let heat = stereoset_heat(&columns);
    assert_eq!(heat.groups, [("CPS".to_owned(), 2), ("AUL".to_owned(), 2)]);
    assert_eq!(heat.columns, ["a", "b", "a", "b"]);
    let labels: Vec<&str> = heat.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["overall", "gender", "race"]);
    // b has no CPS scores and no gender domain.
    assert!(heat.rows[0].cells[1].is_none());
    assert!(heat.rows[1].cells[3].is_none());
    let a_aul_overall = heat.rows[0].cells[2].as_ref().unwrap();
    // ICAT = 80 · min(60, 40) / 50 = 64.
    assert_eq!(a_aul_overall.value, "60.00");
    assert_eq!(
        a_aul_overall.detail.as_deref(),
        Some("LMS 80.0 · ICAT 64.0")
    );
    assert_eq!(a_aul_overall.shade, Shade::Diverging(10.0 / 25.0));
    let b_race = heat.rows[2].cells[3].as_ref().unwrap();
    assert_eq!(b_race.shade, Shade::Diverging(-5.0 / 25.0));
}

/// Stars come from Holm-adjusted p over the data set's family, not from an interval: by hand,
/// model `strong` prefers the stereotype in 40 of 40 pairs (20 per type: sign test p = 2·2⁻⁴⁰
/// overall, 2·2⁻²⁰ per type) and `weak` in 24 of 40 (12 of 20 per type: p > 0.2). The family is
/// the 2 models × (overall + 2 types) = 6 indicator cells; Holm multiplies the smallest by 6.
#[test]
fn stars_are_holm_adjusted_over_the_family() {
    let slices = [
        slice("cps", "strong", 20, 20, 0.2),
        slice("cps", "weak", 20, 12, 0.2),
    ];
    let ind = MeasureSpec::INDICATOR;
    let pair: [SyncMeasure<'_>; 1] = [&ind];
    let options = SummaryOptions {
        bootstrap: Some(boot()),
        ..SummaryOptions::default()
    };
    let out = summarize(&slices, &pair, &[], &options).unwrap();
    let s = &out[0];
    assert_eq!((s.family.size, s.family.significant), (6, 3));
    let strong = s.entry("indicator", "cps", "strong").unwrap();
    let p = 2.0 * 0.5f64.powi(40);
    assert!((strong.tests.overall.p_value - p).abs() < 1e-20);
    assert!((strong.tests.overall.p_adjusted - 6.0 * p).abs() < 1e-20);
    let weak = s.entry("indicator", "cps", "weak").unwrap();
    // 24 of 40: p = 0.268, fourth smallest of six: Holm gives 3 · 0.268.
    assert!(!weak.tests.overall.significant);
    let p_weak = weak.tests.overall.p_value;
    assert!((weak.tests.overall.p_adjusted - 3.0 * p_weak).abs() < 1e-12);
    let heat = summary_heat(s);
    let overall = &heat.rows[0].cells;
    assert!(overall[0].as_ref().unwrap().value.ends_with(" *"));
    assert!(!overall[1].as_ref().unwrap().value.contains('*'));
    let caption = heat.caption.unwrap();
    assert!(
        caption.contains("Holm-adjusted p ≤ 0.05 over a family of 6 tests"),
        "{caption}"
    );
    assert!(caption.contains("3 of 6 cells significant"), "{caption}");
}
