//! The bias-controlled meta-evaluation of kaneko2023: orientation of gender pairs, the study on
//! synthetic tables whose values are known by construction, its errors, and its figure.
//!
//! The figure tests read the SVG back, as `tests/it/figures.rs` does, and check that each panel plots
//! the report's values (drawn with the font embedded in the crate).

use approx::abs_diff_eq;
use approx::assert_abs_diff_eq;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::svg::{marks, Axis, Mark};
use bias_core::{BiasType, Direction, ScoreRow, ScoreTable};
use bias_metrics::{DistributionOptions, JssVariant, MeasureSpec};
use bias_report::figures::{self, with_extension};
use bias_report::ReportError;
use bias_robust::controlled::{
    controlled_study, kaneko2023_word_lists, male_side, orient_by_gender, ControlledOptions,
    ControlledReport, MaleSide, MeasureTrend, Probe, RateEvaluation,
};
use bias_robust::RobustError;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|w| (*w).to_owned()).collect()
}

fn sentence_row(id: &str, stereo: &str, anti: &str) -> ScoreRow {
    ScoreRow::builder(id, BiasType::Gender, -2.5, -2.9)
        .dataset("crows-pairs")
        .direction(Direction::Antistereo)
        .sentences(stereo, anti)
        .scorer("aul")
        .model("bert")
        .tokens(Some(5), Some(6))
        .build()
}

/// An oriented score row (`stereo` = male sentence) with the given scores.
fn scored_row(id: usize, scorer: &str, male: f64, female: f64) -> ScoreRow {
    ScoreRow {
        pair_id: format!("p{id:02}"),
        score_stereo: male,
        score_anti: female,
        scorer: scorer.to_owned().into(),
        ..sentence_row("", "He cooks.", "She cooks.")
    }
}

/// `n` oriented pairs of which the male sentence wins exactly the first `wins` (nested across
/// rates: a pair that wins at one rate wins at every higher one). No ties; scores vary so that
/// the Gaussian fits of KLS and JSS have spread.
fn table(scorer: &str, n: usize, wins: usize) -> ScoreTable {
    (0..n)
        .map(|i| {
            let female = -2.0 - 0.013 * i as f64;
            let male = if i < wins { -1.0 } else { -3.0 } - 0.01 * i as f64;
            scored_row(i, scorer, male, female)
        })
        .collect()
}

fn evaluation(rate: f64, pairs: ScoreTable) -> RateEvaluation {
    RateEvaluation {
        rate,
        model: format!("bert-r{rate}"),
        pairs,
        templates: Vec::new(),
        probe: None,
    }
}

/// One evaluation per `(rate, wins)` on `n` pairs of the AUL scorer.
fn study_inputs(n: usize, design: &[(f64, usize)]) -> Vec<RateEvaluation> {
    design
        .iter()
        .map(|&(rate, wins)| evaluation(rate, table("aul", n, wins)))
        .collect()
}

fn indicator_only(bootstrap: usize) -> ControlledOptions {
    ControlledOptions {
        pair_measures: vec![MeasureSpec::INDICATOR],
        bootstrap,
        ..ControlledOptions::default()
    }
}

/// KLS of liu2024 Eq. 6 on one bias type, from first principles: Gaussians fitted with
/// ddof = 1 to the stereotypical and the anti-stereotypical scores, the closed-form KL of two
/// normals `ln(s2/s1) + (s1² + (m1 − m2)²)/(2 s2²) − 1/2` both ways, `100 · max / sum`.
fn kls_by_hand(table: &ScoreTable) -> f64 {
    let fit = |x: Vec<f64>| {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let s = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        (m, s)
    };
    let (m1, s1) = fit(table.rows().iter().map(|r| r.score_stereo).collect());
    let (m2, s2) = fit(table.rows().iter().map(|r| r.score_anti).collect());
    let kl = |m1: f64, s1: f64, m2: f64, s2: f64| {
        (s2 / s1).ln() + (s1 * s1 + (m1 - m2).powi(2)) / (2.0 * s2 * s2) - 0.5
    };
    let (a, b) = (kl(m1, s1, m2, s2), kl(m2, s2, m1, s1));
    100.0 * a.max(b) / (a + b)
}

// ---------------------------------------------------------------------------------------------
// Orientation
// ---------------------------------------------------------------------------------------------

#[test]
fn kaneko2023_lists_are_the_papers() {
    let (male, female) = kaneko2023_word_lists();
    assert_eq!(male.len(), 11);
    assert_eq!(female.len(), 10);
    assert!(male.contains(&"boyfriend".to_owned()) && female.contains(&"her".to_owned()));
}

#[test]
fn a_male_stereo_row_is_kept_as_it_is() {
    let (male, female) = kaneko2023_word_lists();
    let row = sentence_row("0", "He can't drive.", "She can't drive.");
    let (oriented, unoriented) =
        orient_by_gender(&ScoreTable::new(vec![row.clone()]), &male, &female);
    assert!(unoriented.is_empty());
    assert_eq!(oriented.rows(), &[row]);
}

#[test]
fn a_female_stereo_row_is_swapped_with_its_scores_and_token_counts() {
    let (male, female) = kaneko2023_word_lists();
    let row = sentence_row(
        "7",
        "She can't drive because of her eyes.",
        "He can't drive because of his eyes.",
    );
    let (oriented, unoriented) = orient_by_gender(&ScoreTable::new(vec![row]), &male, &female);
    assert!(unoriented.is_empty());
    let r = &oriented.rows()[0];
    assert_eq!(r.stereo, "He can't drive because of his eyes.");
    assert_eq!(r.anti, "She can't drive because of her eyes.");
    assert_eq!((r.score_stereo, r.score_anti), (-2.9, -2.5));
    assert_eq!((r.tokens_stereo, r.tokens_anti), (Some(6), Some(5)));
    // Documented choice: the original annotation is kept.
    assert_eq!(r.direction, Direction::Antistereo);
    assert!(!r.prefers_stereo(), "the male sentence (-2.9) scores lower");
}

#[test]
fn matching_is_whole_word_and_case_insensitive() {
    let male = words(&["HIS"]);
    let female = words(&["her"]);
    // "shelter" contains "she" and "he" but is the same word on both sides.
    let row = sentence_row(
        "1",
        "The shelter lost HER keys.",
        "The shelter lost his keys.",
    );
    assert_eq!(male_side(&row, &male, &female), Ok(MaleSide::Anti));
    let row = sentence_row("2", "His hero", "her hero");
    assert_eq!(male_side(&row, &male, &female), Ok(MaleSide::Stereo));
}

#[test]
fn unorientable_rows_are_reported_with_their_reason() {
    let (male, female) = kaneko2023_word_lists();
    let cases = [
        (
            "same",
            "He cooks.",
            "he cooks",
            "the two sentences have the same words",
        ),
        (
            "none",
            "The old man's car.",
            "The young man's car.",
            "no gendered word among the differing words (old, young)",
        ),
        (
            "names",
            "John cooks.",
            "Mary cooks.",
            "no gendered word among the differing words (john, mary)",
        ),
        (
            "extra",
            "The man is a doctor.",
            "The woman is a nurse.",
            "the differing words include words on neither list (doctor, nurse)",
        ),
        (
            "male",
            "He saw his son.",
            "He saw his father.",
            "both sides have male words",
        ),
        (
            "female",
            "She saw her sister.",
            "She saw her mother.",
            "both sides have female words",
        ),
        (
            "both",
            "he and she",
            "her and her",
            "one side has both male and female words",
        ),
        (
            "one",
            "He said he cooks.",
            "He said cooks.",
            "only one side has differing words",
        ),
    ];
    let table: ScoreTable = cases.iter().map(|c| sentence_row(c.0, c.1, c.2)).collect();
    let (oriented, unoriented) = orient_by_gender(&table, &male, &female);
    assert!(oriented.is_empty());
    assert_eq!(unoriented.len(), cases.len());
    for (u, c) in unoriented.iter().zip(&cases) {
        assert_eq!(
            (u.pair_id.as_str(), u.scorer.as_str(), u.reason.as_str()),
            (c.0, "aul", c.3)
        );
    }
}

#[test]
fn a_mixed_table_is_split_into_kept_swapped_and_left_out_rows() {
    let (male, female) = kaneko2023_word_lists();
    let table = ScoreTable::new(vec![
        sentence_row("a", "He is a nurse.", "She is a nurse."),
        sentence_row("b", "Her husband cooks.", "His wife cooks."),
        sentence_row("c", "Mary cooks.", "John cooks."),
        sentence_row("d", "The girl cried.", "The boy cried."),
    ]);
    let sides: Vec<_> = table
        .rows()
        .iter()
        .map(|r| male_side(r, &male, &female))
        .collect();
    // "Her husband" vs "His wife": both sides hold a male and a female word.
    assert_eq!(sides[0], Ok(MaleSide::Stereo));
    assert!(sides[1].is_err() && sides[2].is_err());
    assert_eq!(sides[3], Ok(MaleSide::Anti));
    let (oriented, unoriented) = orient_by_gender(&table, &male, &female);
    let ids: Vec<&str> = oriented.rows().iter().map(|r| r.pair_id.as_str()).collect();
    assert_eq!(ids, ["a", "d"]);
    assert_eq!(oriented.rows()[1].stereo, "The boy cried.");
    assert_eq!(unoriented.len(), 2);
}

// ---------------------------------------------------------------------------------------------
// The study
// ---------------------------------------------------------------------------------------------

#[test]
fn indicator_values_are_the_hand_counts_and_a_perfect_trend_has_rho_one() {
    // Male wins in round(10·r) of 10 pairs: 0, 3 (2.5 rounds up), 5, 8, 10.
    let design: Vec<(f64, usize)> = [0.0, 0.25, 0.5, 0.75, 1.0]
        .iter()
        .map(|&r: &f64| (r, (10.0 * r).round() as usize))
        .collect();
    let report = controlled_study(&study_inputs(10, &design), &indicator_only(200)).unwrap();
    assert_eq!(report.rates, [0.0, 0.25, 0.5, 0.75, 1.0]);
    let t = report
        .trend("AUL indicator")
        .expect("the AUL indicator row");
    assert_eq!(t.values, [0.0, 30.0, 50.0, 80.0, 100.0]);
    assert_eq!(
        (t.scorer.as_deref(), t.signed, t.no_bias, t.items),
        (Some("aul"), true, 50.0, 10)
    );
    assert_eq!(t.rho, Some(1.0));
    // scipy: `.venv-fixtures/bin/python -c 'import scipy.stats as s;
    // print(s.spearmanr([0,.25,.5,.75,1],[1,2,3,4,5]))'` gives statistic 0.9999999999999999,
    // pvalue 1.4042654220543602e-24: the t-approximation at |ρ| = 1 is p = 0, scipy's tiny
    // p comes from ρ rounding just below 1. Both are far below 0.05.
    let p = t.p_value.unwrap();
    assert_eq!(p, 0.0, "t-approximation at |ρ| = 1");
    assert!(p <= 1.4042654220543602e-24, "p = {p} is at most scipy's");
}

#[test]
fn a_non_monotone_trend_matches_scipy() {
    // scipy: `.venv-fixtures/bin/python -c 'import scipy.stats as s;
    // print(s.spearmanr([0,.25,.5,.75,1],[40,60,50,70,90]))'` gives statistic
    // 0.8999999999999998, pvalue 0.03738607346849874.
    let design = [(0.0, 4), (0.25, 6), (0.5, 5), (0.75, 7), (1.0, 9)];
    let report = controlled_study(&study_inputs(10, &design), &indicator_only(0)).unwrap();
    let t = &report.rows[0];
    assert_eq!(t.values, [40.0, 60.0, 50.0, 70.0, 90.0]);
    assert_abs_diff_eq!(t.rho.unwrap(), 0.9, epsilon = 1e-12);
    assert_abs_diff_eq!(t.p_value.unwrap(), 0.03738607346849874, epsilon = 1e-12);
    assert_eq!(
        (t.ci, t.degenerate_resamples),
        (None, 0),
        "no resamples, no interval"
    );
}

#[test]
fn evaluations_are_sorted_by_rate() {
    let design = [(1.0, 9), (0.0, 1), (0.5, 5)];
    let report = controlled_study(&study_inputs(10, &design), &indicator_only(0)).unwrap();
    assert_eq!(report.rates, [0.0, 0.5, 1.0]);
    assert_eq!(report.models, ["bert-r0", "bert-r0.5", "bert-r1"]);
    assert_eq!(report.rows[0].values, [10.0, 50.0, 90.0]);
}

#[test]
fn nested_wins_give_a_bootstrap_interval_in_zero_one_that_contains_rho() {
    // With nested wins every resample's indicator is non-decreasing in r, so each defined ρ is
    // positive, a resample of the top band alone reaches 1, and the interval lies in (0, 1].
    let design: Vec<(f64, usize)> = (0..=10).map(|k| (k as f64 / 10.0, 3 * k)).collect();
    let report = controlled_study(&study_inputs(30, &design), &indicator_only(500)).unwrap();
    let t = &report.rows[0];
    assert_eq!(t.rho, Some(1.0));
    let (lo, hi) = t.ci.expect("an interval");
    assert!(0.0 < lo && lo <= hi && hi <= 1.0, "CI = ({lo}, {hi})");
    assert!(lo <= t.rho.unwrap() && t.rho.unwrap() <= hi);
}

#[test]
fn the_bootstrap_is_deterministic_for_a_seed() {
    let design = [(0.0, 4), (0.25, 6), (0.5, 5), (0.75, 7), (1.0, 9)];
    let evals = study_inputs(10, &design);
    let options = ControlledOptions {
        seed: 7,
        ..indicator_only(300)
    };
    let a = controlled_study(&evals, &options).unwrap();
    let b = controlled_study(&evals, &options).unwrap();
    assert_eq!(a, b);
    let (lo, hi) = a.rows[0].ci.unwrap();
    assert!(lo <= 0.9 && 0.9 <= hi, "CI = ({lo}, {hi}) contains ρ = 0.9");
    let other = controlled_study(&evals, &ControlledOptions { seed: 8, ..options }).unwrap();
    assert_ne!(a.rows[0].ci, other.rows[0].ci, "another seed, other draws");
}

#[test]
fn degenerate_resamples_are_counted_and_a_flat_measure_has_no_rho() {
    // Pair p00 wins at every rate, p01 only at r = 1: indicator 50, 50, 100. A resample of p00
    // twice is flat (100, 100, 100): ρ undefined; that happens in 1 draw of 4.
    let evals = study_inputs(2, &[(0.0, 1), (0.5, 1), (1.0, 2)]);
    let report = controlled_study(&evals, &indicator_only(400)).unwrap();
    let t = &report.rows[0];
    assert_eq!(t.values, [50.0, 50.0, 100.0]);
    assert!(t.rho.unwrap() > 0.0);
    assert!(
        (40..160).contains(&t.degenerate_resamples),
        "{}",
        t.degenerate_resamples
    );
    // Every model equally biased: ρ is undefined, not an error.
    let flat = controlled_study(
        &study_inputs(4, &[(0.0, 2), (0.5, 2), (1.0, 2)]),
        &indicator_only(50),
    )
    .unwrap();
    let t = &flat.rows[0];
    assert_eq!((t.rho, t.p_value, t.ci), (None, None, None));
    assert_eq!(t.degenerate_resamples, 50);
    assert!(flat
        .to_markdown()
        .contains("| AUL indicator | 50.000 | 50.000 | 50.000 | – | – | – |"));
}

#[test]
fn every_scorer_gets_every_measure_and_unsigned_ones_are_flagged() {
    let evals: Vec<RateEvaluation> = [(0.0, 2), (0.5, 5), (1.0, 8)]
        .iter()
        .map(|&(rate, wins)| {
            let mut rows = table("cps", 10, wins).into_rows();
            rows.extend(table("aul", 10, 10 - wins).into_rows());
            evaluation(rate, ScoreTable::new(rows))
        })
        .collect();
    let report = controlled_study(
        &evals,
        &ControlledOptions {
            bootstrap: 20,
            ..Default::default()
        },
    )
    .unwrap();
    let labels: Vec<&str> = report.rows.iter().map(|t| t.measure.as_str()).collect();
    assert_eq!(
        labels,
        [
            "AUL indicator",
            "AUL kls",
            "AUL jss",
            "CPS indicator",
            "CPS kls",
            "CPS jss"
        ]
    );
    assert_eq!(report.rows[0].values, [80.0, 50.0, 20.0]);
    assert_eq!(
        report.rows[0].rho,
        Some(-1.0),
        "AUL favours the female sentence more as r grows"
    );
    assert_eq!(report.rows[3].rho, Some(1.0));
    let flags: Vec<(bool, f64)> = report.rows.iter().map(|t| (t.signed, t.no_bias)).collect();
    assert_eq!(flags[..3], [(true, 50.0), (false, 50.0), (false, 100.0)]);
    // KLS computed here from the rows' scores, independently of bias-metrics: one bias type, so
    // the weighted KLS is the KLS of the two fits (about 99.198, 99.252, 99.215: the female
    // scores barely spread, σ ≈ 0.039, against σ ≈ 0.86–1.08 for the male ones).
    // The hand computation's value for CPS at r = 0, as numpy gives it:
    //   i = np.arange(10); f = -2 - 0.013*i; m = np.where(i < 2, -1.0, -3.0) - 0.01*i
    //   kl = lambda m1, s1, m2, s2: np.log(s2/s1) + (s1**2 + (m1-m2)**2)/(2*s2**2) - 0.5
    //   p = (m.mean(), m.std(ddof=1)); a = (f.mean(), f.std(ddof=1))
    //   100*max(kl(*p, *a), kl(*a, *p))/(kl(*p, *a) + kl(*a, *p))  # 99.19762310145583
    assert_abs_diff_eq!(
        kls_by_hand(&table("cps", 10, 2)),
        99.19762310145583,
        epsilon = 1e-9
    );
    for (label, wins) in [("CPS kls", [2, 5, 8]), ("AUL kls", [8, 5, 2])] {
        let scorer = label.split(' ').next().unwrap().to_lowercase();
        let want: Vec<f64> = wins
            .iter()
            .map(|&w| kls_by_hand(&table(&scorer, 10, w)))
            .collect();
        let got = &report.trend(label).unwrap().values;
        for (g, w) in got.iter().zip(&want) {
            assert_abs_diff_eq!(*g, *w, epsilon = 1e-9);
        }
    }
    assert!(report.to_markdown().contains("| CPS kls * |"));
}

#[test]
fn template_scores_give_a_tbs_row_of_their_means() {
    // Templates at rate r: r − 0.5 + d, with d summing to 0, so the mean is r − 0.5.
    let d = [-0.2, 0.1, 0.3, -0.2];
    let evals: Vec<RateEvaluation> = [0.0, 0.25, 0.5, 0.75, 1.0]
        .iter()
        .map(|&r| RateEvaluation {
            templates: d.iter().map(|x| r - 0.5 + x).collect(),
            ..evaluation(r, ScoreTable::default())
        })
        .collect();
    let report = controlled_study(&evals, &indicator_only(100)).unwrap();
    assert_eq!(report.rows.len(), 1, "no pair rows without pairs");
    let t = report.trend("TBS").unwrap();
    for (v, want) in t.values.iter().zip([-0.5, -0.25, 0.0, 0.25, 0.5]) {
        assert_abs_diff_eq!(*v, want, epsilon = 1e-12);
    }
    assert_eq!(
        (t.scorer.clone(), t.signed, t.no_bias, t.items),
        (None, true, 0.0, 4)
    );
    assert_eq!(t.rho, Some(1.0));
    // The same templates shift by the same amount at every rate: every resample is perfect.
    assert_eq!((t.ci, t.degenerate_resamples), (Some((1.0, 1.0)), 0));
}

#[test]
fn the_probe_is_checked_for_monotonicity() {
    let run = |probes: [Option<(f64, f64)>; 3]| -> ControlledReport {
        let evals: Vec<RateEvaluation> = [(0.0, 2), (0.5, 5), (1.0, 8)]
            .iter()
            .zip(probes)
            .map(|(&(rate, wins), p)| RateEvaluation {
                probe: p.map(|(he, she)| Probe { he, she }),
                ..evaluation(rate, table("aul", 10, wins))
            })
            .collect();
        controlled_study(&evals, &indicator_only(0)).unwrap()
    };
    let up = run([Some((0.2, 0.7)), Some((0.5, 0.5)), Some((0.8, 0.1))]);
    assert_eq!(up.probe_he_monotonic, Some(true));
    assert_eq!(up.probe[1], Some(Probe { he: 0.5, she: 0.5 }));
    let md = up.to_markdown();
    assert!(md.contains("| 0.5 | bert-r0.5 | 0.5000 | 0.5000 |"), "{md}");
    assert!(md.contains("the bias control worked"));
    // Ties are allowed: non-decreasing P(he), non-increasing P(she).
    assert_eq!(
        run([Some((0.4, 0.5)), Some((0.4, 0.5)), Some((0.6, 0.3))]).probe_he_monotonic,
        Some(true)
    );
    assert_eq!(
        run([Some((0.2, 0.7)), Some((0.6, 0.5)), Some((0.5, 0.1))]).probe_he_monotonic,
        Some(false)
    );
    assert_eq!(
        run([Some((0.2, 0.7)), Some((0.5, 0.4)), Some((0.8, 0.6))]).probe_he_monotonic,
        Some(false)
    );
    assert_eq!(
        run([Some((0.2, 0.7)), None, Some((0.8, 0.1))]).probe_he_monotonic,
        None
    );
}

#[test]
fn markdown_and_csv_hold_every_value() {
    let design = [(0.0, 4), (0.25, 6), (0.5, 5), (0.75, 7), (1.0, 9)];
    let report = controlled_study(&study_inputs(10, &design), &indicator_only(50)).unwrap();
    let md = report.to_markdown();
    assert!(md.contains("| measure | r = 0 | r = 0.25 | r = 0.5 | r = 0.75 | r = 1 | ρ | p | 95 % CI of ρ | items | degenerate |"), "{md}");
    assert!(
        md.contains(
            "| AUL indicator | 40.000 | 60.000 | 50.000 | 70.000 | 90.000 | 0.900 | 0.0374 |"
        ),
        "{md}"
    );
    let csv = report.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 5);
    assert!(lines[0].starts_with("measure,scorer,signed,rate,model,value,rho,p_value,ci_lower"));
    assert!(
        lines[2].starts_with("AUL indicator,aul,true,0.25,bert-r0.25,60,0.9,0.03738607346849"),
        "{}",
        lines[2]
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["rows"][0]["values"][4], 90.0);
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

#[test]
fn fewer_than_three_rates_is_an_error() {
    let err =
        controlled_study(&study_inputs(10, &[(0.0, 2), (1.0, 8)]), &indicator_only(0)).unwrap_err();
    assert!(matches!(err, RobustError::TooFewRates { got: 2 }), "{err}");
    assert!(err.to_string().contains("at least 3 rates"));
}

#[test]
fn a_repeated_rate_is_an_error() {
    let err = controlled_study(
        &study_inputs(10, &[(0.0, 2), (0.5, 5), (0.5, 6)]),
        &indicator_only(0),
    )
    .unwrap_err();
    assert!(
        matches!(err, RobustError::DuplicateRate { rate, .. } if rate == 0.5),
        "{err}"
    );
}

#[test]
fn pair_tables_with_different_ids_are_an_error() {
    let mut evals = study_inputs(10, &[(0.0, 2), (0.5, 5), (1.0, 8)]);
    // One pair fewer at r = 1.
    evals[2].pairs = table("aul", 9, 8);
    let err = controlled_study(&evals, &indicator_only(0)).unwrap_err();
    match &err {
        RobustError::PairIdMismatch {
            scorer,
            rate,
            reference_rate,
            detail,
        } => {
            assert_eq!((scorer.as_str(), *rate, *reference_rate), ("aul", 1.0, 0.0));
            assert!(detail.contains("1 missing (first \"p09\")"), "{detail}");
        }
        other => panic!("expected PairIdMismatch, got {other}"),
    }
    // A scorer present at one rate only is a mismatch too.
    let mut evals = study_inputs(10, &[(0.0, 2), (0.5, 5), (1.0, 8)]);
    let mut rows = evals[1].pairs.clone().into_rows();
    rows.extend(table("cps", 10, 5).into_rows());
    evals[1].pairs = ScoreTable::new(rows);
    let err = controlled_study(&evals, &indicator_only(0)).unwrap_err();
    assert!(
        matches!(&err, RobustError::PairIdMismatch { scorer, .. } if scorer == "cps"),
        "{err}"
    );
}

#[test]
fn a_repeated_pair_id_is_an_error() {
    let mut evals = study_inputs(3, &[(0.0, 1), (0.5, 2), (1.0, 3)]);
    let mut rows = evals[0].pairs.clone().into_rows();
    rows.push(rows[0].clone());
    evals[0].pairs = ScoreTable::new(rows);
    let err = controlled_study(&evals, &indicator_only(0)).unwrap_err();
    assert!(
        matches!(&err, RobustError::PairIdMismatch { detail, .. } if detail.contains("\"p00\" appears twice")),
        "{err}"
    );
}

#[test]
fn template_vectors_of_different_lengths_are_an_error() {
    let mut evals = study_inputs(10, &[(0.0, 2), (0.5, 5), (1.0, 8)]);
    evals[0].templates = vec![0.1, 0.2];
    evals[1].templates = vec![0.1, 0.2];
    evals[2].templates = vec![0.1];
    let err = controlled_study(&evals, &indicator_only(0)).unwrap_err();
    assert!(
        matches!(err, RobustError::TemplateLengthMismatch { rate, len: 1, expected: 2, reference_rate } if rate == 1.0 && reference_rate == 0.0),
        "{err}"
    );
}

#[test]
fn out_of_range_rates_probes_and_levels_are_errors() {
    let evals = study_inputs(10, &[(0.0, 2), (0.5, 5), (1.5, 8)]);
    let err = controlled_study(&evals, &indicator_only(0)).unwrap_err();
    assert!(matches!(err, RobustError::InvalidParameter { .. }), "{err}");
    let mut evals = study_inputs(10, &[(0.0, 2), (0.5, 5), (1.0, 8)]);
    evals[1].probe = Some(Probe { he: 1.2, she: 0.1 });
    let err = controlled_study(&evals, &indicator_only(0)).unwrap_err();
    assert!(err.to_string().contains("P(he)"), "{err}");
    evals[1].probe = None;
    let mut rows = evals[2].pairs.clone().into_rows();
    rows[3].score_stereo = f64::NAN;
    let mut bad = evals.clone();
    bad[2].pairs = ScoreTable::new(rows);
    let err = controlled_study(&bad, &indicator_only(0)).unwrap_err();
    assert!(
        err.to_string()
            .contains("score_stereo of pair \"p03\" (aul, r = 1)"),
        "{err}"
    );
    let options = ControlledOptions {
        confidence: 1.0,
        ..indicator_only(10)
    };
    assert!(matches!(
        controlled_study(&evals, &options),
        Err(RobustError::InvalidParameter { .. })
    ));
}

#[test]
fn a_measure_failing_on_a_full_table_is_an_error() {
    // KLS needs two pairs per bias type (standard deviation with ddof = 1).
    let evals = study_inputs(1, &[(0.0, 0), (0.5, 1), (1.0, 1)]);
    let options = ControlledOptions {
        pair_measures: vec!["kls".parse().unwrap()],
        ..indicator_only(0)
    };
    let err = controlled_study(&evals, &options).unwrap_err();
    assert!(matches!(err, RobustError::Measure { .. }), "{err}");
    assert!(err.to_string().contains("AUL kls at r = 0"), "{err}");
}

#[test]
fn jss_variants_are_named_apart() {
    let jss = |variant| MeasureSpec::Jss {
        variant,
        options: DistributionOptions::default(),
    };
    assert_eq!(jss(JssVariant::AuthorsCode).name(), "jss");
    assert_eq!(jss(JssVariant::PaperText).name(), "jss-paper");
}

// ---------------------------------------------------------------------------------------------
// Figure
// ---------------------------------------------------------------------------------------------

fn out(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bias-robust-controlled");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

// Reading the SVG back (as tests/it/figures.rs does): plotters writes one flat list of elements,
// panel after panel, each panel starting with its caption; the points are mapped back to data
// through the panel's tick labels.

/// Plotters rounds every coordinate to a whole pixel: a mark is at most half a pixel from its
/// exact place, and the axis fitted to rounded tick positions adds at most as much again.
const PX_TOL: f64 = 1.0;

fn assert_px(got: f64, axis: Axis, value: f64, what: &str) {
    let want = axis.px(value);
    assert!(
        abs_diff_eq!(got, want, epsilon = PX_TOL),
        "{what}: drawn at {got} px, {value} belongs at {want:.1} px (≈ {:.4} drawn; {PX_TOL} px \
         is ± {:.4})",
        axis.value(got),
        PX_TOL / axis.scale.abs()
    );
}

/// A drawn point, `(x, y)` in pixels.
type Px = (f64, f64);

/// The marks of one panel of the trend figure.
struct Panel<'a> {
    title: String,
    marks: &'a [Mark],
    x: Axis,
    y: Axis,
}

impl<'a> Panel<'a> {
    fn new(title: &str, marks: &'a [Mark]) -> Panel<'a> {
        // Tick labels: numbers, centred under the x axis, right-aligned left of the y axis.
        let ticks = |anchor: &str, coord: &str| -> Vec<(f64, f64)> {
            marks
                .iter()
                .filter(|m| m.is_text() && m.attr("text-anchor") == anchor)
                .filter_map(|m| Some((m.value()?, m.num(coord))))
                .collect()
        };
        Panel {
            title: title.to_owned(),
            marks,
            x: Axis::fit(&ticks("middle", "x"), &format!("{title}, x")),
            y: Axis::fit(&ticks("end", "y"), &format!("{title}, y")),
        }
    }

    /// The axis descriptions: the rotated one names the y axis.
    fn descriptions(&self) -> (Vec<&str>, Vec<&str>) {
        let texts = |rotated: bool| {
            // The first mark is the caption.
            self.marks[1..]
                .iter()
                .filter(|m| m.is_text() && m.value().is_none())
                .filter(|m| m.attr("text-anchor") == "middle")
                .filter(|m| m.attrs.contains_key("transform") == rotated)
                .map(|m| m.text.as_str())
                .collect()
        };
        (texts(false), texts(true))
    }

    /// The legend's labels with the colour of the swatch beside each (same height ± 8 px).
    fn legend(&self) -> Vec<(&str, &str)> {
        let labels: Vec<&Mark> = self
            .marks
            .iter()
            .filter(|m| m.is_text() && m.attr("text-anchor") == "start")
            .collect();
        let Some(first) = self
            .marks
            .iter()
            .position(|m| m.is_text() && m.attr("text-anchor") == "start")
        else {
            return Vec::new();
        };
        let swatches: Vec<&Mark> = self.marks[first..]
            .iter()
            .filter(|m| m.tag == "polyline" && m.points().len() == 2)
            .collect();
        labels
            .iter()
            .map(|label| {
                // The label's top is at y (dy = 0.76em); its middle is about 6 px lower.
                let middle = label.num("y") + 6.0;
                let near: Vec<&&Mark> = swatches
                    .iter()
                    .filter(|s| (s.points()[0].1 - middle).abs() <= 8.0)
                    .collect();
                assert_eq!(near.len(), 1, "{}: swatch of {:?}", self.title, label.text);
                (label.text.as_str(), near[0].attr("stroke"))
            })
            .collect()
    }

    /// The points of the series drawn in `colour`: its filled circles, and the vertices of its
    /// line (the first polyline of that colour, 3 px wide; the legend's swatch comes later).
    fn series(&self, colour: &str) -> (Vec<Px>, Vec<Px>) {
        let circles = self
            .marks
            .iter()
            .filter(|m| m.tag == "circle" && m.attr("fill") == colour)
            .map(|m| (m.num("cx"), m.num("cy")))
            .collect();
        let line = self
            .marks
            .iter()
            .find(|m| {
                m.tag == "polyline" && m.attr("stroke") == colour && m.attr("stroke-width") == "3"
            })
            .map_or_else(Vec::new, Mark::points);
        (circles, line)
    }

    /// Asserts that the series in `colour`, its circles and its line, plots `points` (r, value).
    fn assert_series(&self, colour: &str, points: &[(f64, f64)], what: &str) {
        let (circles, line) = self.series(colour);
        let what = format!("{}: {what}", self.title);
        assert_eq!(circles.len(), points.len(), "{what}: circles");
        assert_eq!(line.len(), points.len(), "{what}: line vertices");
        for (drawn, &(r, v)) in [&circles, &line]
            .into_iter()
            .flat_map(|marks| marks.iter().zip(points))
        {
            assert_px(drawn.0, self.x, r, &format!("{what}, r = {r}"));
            assert_px(drawn.1, self.y, v, &format!("{what}, value at r = {r}"));
        }
    }

    /// The heights of the dashed no-bias line (the grey 2 px dashes).
    fn dashes(&self) -> Vec<f64> {
        self.marks
            .iter()
            .filter(|m| {
                m.tag == "polyline"
                    && m.attr("stroke") == "#6E6E6E"
                    && m.attr("stroke-width") == "2"
            })
            .flat_map(|m| m.points().into_iter().map(|p| p.1))
            .collect()
    }
}

/// The panel titles the figure must have, worked out here from the report: each row's measure
/// with ρ to two decimals ("undefined" without ρ) and ", unsigned" for an unsigned measure,
/// then the probe panel with the report's monotonicity verdict if any rate has a probe.
fn expected_titles(report: &ControlledReport) -> Vec<String> {
    let mut titles: Vec<String> = report
        .rows
        .iter()
        .map(|t| {
            let rho = t.rho.map_or("undefined".to_owned(), |r| format!("{r:.2}"));
            let unsigned = if t.signed { "" } else { ", unsigned" };
            format!("{} (ρ = {rho}{unsigned})", t.measure)
        })
        .collect();
    if report.probe.iter().any(Option::is_some) {
        let verdict = match report.probe_he_monotonic {
            Some(true) => "monotone",
            Some(false) => "not monotone",
            None => "incomplete",
        };
        titles.push(format!("he/she probe ({verdict})"));
    }
    titles
}

/// Renders `report` and asserts that the SVG plots it: one panel per row, titled with the
/// measure and its ρ, its points (circles and line vertices) at the row's value at each rate, the
/// no-bias value dashed; then the probe panel, its legend naming P(he) and P(she) and each
/// series at the report's probe at each rate that has one. Returns the SVG's marks.
/// [`assert_trend_figure`], and each of `titles` among the figure's texts.
#[track_caller]
fn assert_panel_titles(report: &ControlledReport, stem: &Path, titles: &[&str]) {
    let marks = assert_trend_figure(report, stem);
    let texts: Vec<&str> = marks
        .iter()
        .filter(|m| m.is_text())
        .map(|m| m.text.as_str())
        .collect();
    for title in titles {
        assert!(texts.contains(title), "{title} not in {texts:?}");
    }
}

fn assert_trend_figure(report: &ControlledReport, stem: &Path) -> Vec<Mark> {
    figures::controlled_trends(report, stem).unwrap();
    let png = std::fs::read(with_extension(stem, "png")).expect("PNG written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.len() > 5_000, "PNG of {} bytes", png.len());
    let svg = std::fs::read_to_string(with_extension(stem, "svg")).expect("SVG written");
    let marks = marks(&svg);

    // Panels, in order, each from its caption to the next one.
    let titles = expected_titles(report);
    let starts: Vec<usize> = titles
        .iter()
        .map(|t| {
            let found: Vec<usize> = (0..marks.len())
                .filter(|&i| marks[i].is_text() && marks[i].text == *t)
                .collect();
            assert_eq!(found.len(), 1, "caption {t:?} once in the SVG");
            found[0]
        })
        .collect();
    assert!(
        starts.windows(2).all(|w| w[0] < w[1]),
        "{titles:?} in order"
    );
    let caption_size = marks[starts[0]].attr("font-size");
    let captions: Vec<&str> = marks
        .iter()
        .filter(|m| m.is_text() && m.attr("font-size") == caption_size)
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(captions, titles, "no other panel");
    let panel = |k: usize| {
        let end = starts.get(k + 1).copied().unwrap_or(marks.len());
        Panel::new(&titles[k], &marks[starts[k]..end])
    };

    for (i, t) in report.rows.iter().enumerate() {
        let p = panel(i);
        // The ρ of the title is the report's, to the two decimals shown.
        if let Some(rho) = t.rho {
            let after = p.title.split("ρ = ").nth(1).unwrap();
            let shown: f64 = after.split([',', ')']).next().unwrap().parse().unwrap();
            assert!(
                abs_diff_eq!(shown, rho, epsilon = 0.005 + 1e-12),
                "{}: ρ = {rho}",
                p.title
            );
        }
        let (x_desc, y_desc) = p.descriptions();
        assert_eq!(x_desc, ["rate of bias r"], "{}", p.title);
        assert_eq!(y_desc, [t.measure.as_str()], "{}", p.title);
        // One series, no legend: every circle of the panel is one of its points.
        let colours: BTreeSet<&str> = p
            .marks
            .iter()
            .filter(|m| m.tag == "circle")
            .map(|m| m.attr("fill"))
            .collect();
        assert_eq!(colours.len(), 1, "{}: {colours:?}", p.title);
        assert!(p.legend().is_empty(), "{}", p.title);
        let points: Vec<(f64, f64)> = report.rates.iter().copied().zip(t.values.clone()).collect();
        p.assert_series(colours.first().unwrap(), &points, &t.measure);
        // The no-bias value, dashed across the panel.
        let dashes = p.dashes();
        assert!(dashes.len() > 10, "{}: {} dash ends", p.title, dashes.len());
        for py in dashes {
            assert_px(py, p.y, t.no_bias, &format!("{}: no-bias line", p.title));
        }
    }

    if report.probe.iter().any(Option::is_some) {
        let p = panel(report.rows.len());
        let (x_desc, y_desc) = p.descriptions();
        assert_eq!(
            (x_desc, y_desc),
            (vec!["rate of bias r"], vec!["mean probability"])
        );
        assert!(p.dashes().is_empty(), "the probe panel has no no-bias line");
        let legend = p.legend();
        let labels: Vec<&str> = legend.iter().map(|l| l.0).collect();
        assert_eq!(labels, ["P(he)", "P(she)"]);
        assert_ne!(legend[0].1, legend[1].1, "two colours");
        for (k, (label, colour)) in legend.iter().enumerate() {
            let points: Vec<(f64, f64)> = report
                .rates
                .iter()
                .zip(&report.probe)
                .filter_map(|(&r, probe)| probe.map(|q| (r, if k == 0 { q.he } else { q.she })))
                .collect();
            p.assert_series(colour, &points, label);
        }
        let circles = p.marks.iter().filter(|m| m.tag == "circle").count();
        let measured = report.probe.iter().filter(|q| q.is_some()).count();
        assert_eq!(circles, 2 * measured, "only P(he) and P(she) are drawn");
    }
    marks
}

#[test]
fn controlled_trends_plots_the_studys_values() {
    // 20 pairs, of which the male sentence wins 2k at r = k/10: the indicator is 10k. The
    // templates' mean is r − 0.5; the probe moves linearly from (0.1, 0.9) to (0.9, 0.1).
    let evals: Vec<RateEvaluation> = (0..=10)
        .map(|k| {
            let r = k as f64 / 10.0;
            RateEvaluation {
                templates: vec![r - 0.6, r - 0.4, r - 0.5],
                probe: Some(Probe {
                    he: 0.1 + 0.8 * r,
                    she: 0.9 - 0.8 * r,
                }),
                ..evaluation(r, table("aul", 20, 2 * k))
            }
        })
        .collect();
    let options = ControlledOptions {
        bootstrap: 20,
        ..Default::default()
    };
    let report = controlled_study(&evals, &options).unwrap();
    // The values the figure must show, worked out here.
    let labels: Vec<&str> = report.rows.iter().map(|t| t.measure.as_str()).collect();
    assert_eq!(labels, ["AUL indicator", "AUL kls", "AUL jss", "TBS"]);
    for (k, &r) in report.rates.iter().enumerate() {
        assert_eq!(r, k as f64 / 10.0);
        assert_abs_diff_eq!(report.rows[0].values[k], 10.0 * k as f64, epsilon = 1e-12);
        assert_abs_diff_eq!(
            report.rows[1].values[k],
            kls_by_hand(&table("aul", 20, 2 * k)),
            epsilon = 1e-9
        );
        assert_abs_diff_eq!(report.rows[3].values[k], r - 0.5, epsilon = 1e-12);
        let probe = report.probe[k].unwrap();
        assert_abs_diff_eq!(probe.he, 0.1 + 0.8 * r, epsilon = 1e-12);
        assert_abs_diff_eq!(probe.she, 0.9 - 0.8 * r, epsilon = 1e-12);
    }
    assert_eq!(
        (report.rows[0].rho, report.rows[3].rho),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(report.probe_he_monotonic, Some(true));

    let kls = format!("AUL kls (ρ = {:.2}, unsigned)", report.rows[1].rho.unwrap());
    assert_panel_titles(
        &report,
        &out("trends"),
        &[
            "AUL indicator (ρ = 1.00)",
            "TBS (ρ = 1.00)",
            "he/she probe (monotone)",
            &kls,
        ],
    );
}

/// A row of a hand-built report (only what the figure reads is set meaningfully).
fn trend(
    measure: &str,
    signed: bool,
    no_bias: f64,
    values: &[f64],
    rho: Option<f64>,
) -> MeasureTrend {
    MeasureTrend {
        measure: measure.to_owned(),
        scorer: None,
        signed,
        no_bias,
        items: 10,
        values: values.to_vec(),
        rho,
        p_value: None,
        ci: None,
        degenerate_resamples: 0,
    }
}

#[test]
fn controlled_trends_plots_a_hand_built_report() {
    // Uneven rates, a falling signed measure, an unsigned one, a flat one (ρ undefined), values
    // below zero, and no probe at r = 0.5 (the probe lines skip that rate).
    let report = ControlledReport {
        rates: vec![0.0, 0.2, 0.5, 0.9],
        models: vec!["m0".into(), "m1".into(), "m2".into(), "m3".into()],
        rows: vec![
            trend(
                "CPS indicator",
                true,
                50.0,
                &[72.5, 61.0, 48.0, 30.5],
                Some(-1.0),
            ),
            trend(
                "CPS kls",
                false,
                50.0,
                &[55.0, 51.5, 53.0, 58.25],
                Some(0.4),
            ),
            trend("CPS jss", false, 100.0, &[93.0, 93.0, 93.0, 93.0], None),
            trend("TBS", true, 0.0, &[-0.8, -0.35, 0.1, 0.6], Some(1.0)),
        ],
        probe: vec![
            Some(Probe { he: 0.3, she: 0.6 }),
            Some(Probe {
                he: 0.35,
                she: 0.55,
            }),
            None,
            Some(Probe { he: 0.7, she: 0.2 }),
        ],
        probe_he_monotonic: None,
        bootstrap: 0,
        confidence: 0.95,
        seed: 0,
    };
    assert_panel_titles(
        &report,
        &out("hand-built"),
        &[
            "CPS indicator (ρ = -1.00)",
            "CPS kls (ρ = 0.40, unsigned)",
            "CPS jss (ρ = undefined, unsigned)",
            "TBS (ρ = 1.00)",
            "he/she probe (incomplete)",
        ],
    );
}

#[test]
fn controlled_trends_labels_close_rates_with_the_decimals_they_need() {
    // Close rates: the rate axis has ticks 0.02 apart, labelled as such (one decimal would print
    // 0.42 as 0.4, and the axis fitted to the labels would miss its ticks).
    let report = ControlledReport {
        rates: vec![0.4, 0.45, 0.5, 0.52],
        models: vec!["m0".into(), "m1".into(), "m2".into(), "m3".into()],
        rows: vec![trend(
            "AUL indicator",
            true,
            50.0,
            &[44.0, 51.0, 57.5, 60.0],
            Some(1.0),
        )],
        probe: vec![Some(Probe { he: 0.45, she: 0.5 }); 4],
        probe_he_monotonic: Some(true),
        bootstrap: 0,
        confidence: 0.95,
        seed: 0,
    };
    let marks = assert_trend_figure(&report, &out("close-rates"));
    let ticks: Vec<&str> = marks
        .iter()
        .filter(|m| m.is_text() && m.attr("text-anchor") == "middle" && m.value().is_some())
        .map(|m| m.text.as_str())
        .collect();
    assert!(ticks.contains(&"0.42"), "{ticks:?}");
}

#[test]
fn controlled_trends_rejects_an_empty_report() {
    let report = ControlledReport {
        rates: vec![0.0, 0.5, 1.0],
        models: vec!["a".into(), "b".into(), "c".into()],
        rows: Vec::new(),
        probe: vec![None; 3],
        probe_he_monotonic: None,
        bootstrap: 0,
        confidence: 0.95,
        seed: 0,
    };
    let err = figures::controlled_trends(&report, out("empty")).unwrap_err();
    assert!(
        matches!(
            err,
            ReportError::FigureInput {
                figure: "controlled trends",
                ..
            }
        ),
        "{err}"
    );
}
