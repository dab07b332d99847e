//! The sub-sampling robustness study of liu2024 (Robustness Study, Figure 5, Tables 4–5).
//!
//! Expected values come from outside the code under test: `fixtures/robust/subsample_order.json`
//! (numpy and scipy, `scripts/fixtures/subsample_order.py`: measures on given draws, the order
//! of the models by the mean over the draws, Kendall's τ-b), liu2024's sample sizes, and
//! counts recomputed in the tests from the drawn row indices.

use approx::abs_diff_eq;
use approx::assert_abs_diff_eq;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use bias_core::{BiasMeasure, BiasType, Direction, ScoreRow, ScoreSlice, ScoreTable};
use bias_metrics::{DistributionOptions, Indicator, Jss, JssVariant, Kls};
use bias_robust::{
    stratum_sizes, subsample_by_scorer, subsample_study, subsample_study_on_draws, ExplicitDraws,
    RobustError, RobustnessOptions, RobustnessReport, ScorerGrouping, StratifiedSampler,
    SyncMeasure,
};
use bias_testkit::json::{floats as f64s, strings as strs};
use serde_json::Value;

fn crows() -> ScoreTable {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scores/crows_pairs_unigram.csv"
    );
    let table = ScoreTable::read_csv_path(path).unwrap();
    assert_eq!(table.slices().len(), 1, "the demo table is one slice");
    table
}

/// The demo table with every anti-stereotypical score lowered by `by`, under another model name.
fn shifted(table: &ScoreTable, model: &str, by: f64) -> ScoreTable {
    table
        .rows()
        .iter()
        .map(|r| ScoreRow {
            score_anti: r.score_anti - by,
            model: model.to_owned().into(),
            ..r.clone()
        })
        .collect()
}

struct Measures {
    indicator: Indicator,
    kls: Kls,
    jss: Jss,
}

impl Measures {
    fn new() -> Self {
        let options = DistributionOptions::default();
        Measures {
            indicator: Indicator::default(),
            kls: Kls::new(options),
            jss: Jss::new(JssVariant::AuthorsCode, options),
        }
    }

    fn all(&self) -> [SyncMeasure<'_>; 3] {
        [&self.indicator, &self.kls, &self.jss]
    }
}

fn study(
    models: &[(String, ScoreTable)],
    options: &RobustnessOptions,
) -> Result<RobustnessReport, RobustError> {
    let m = Measures::new();
    subsample_study(models, &m.all(), options)
}

// ---------------------------------------------------------------- the sampler

#[test]
fn sample_sizes_equal_the_reference_on_crows_pairs() {
    let table = crows();
    assert_eq!(table.len(), 1508);
    let options = RobustnessOptions {
        repeats: 2,
        ..RobustnessOptions::default()
    };
    let report = study(&[("unigram".to_owned(), table)], &options).unwrap();
    // liu2024 and its authors' code.
    let expected = [456, 606, 756, 909, 1060, 1210];
    for (&rate, &n) in options.rates.iter().zip(&expected) {
        for measure in ["indicator", "kls", "jss"] {
            let m = report.measure_at("unigram", measure, rate).unwrap();
            assert_eq!(m.n, n, "{measure} at rate {rate}");
        }
        assert_eq!(report.score_groups_at("unigram", rate).unwrap().n, n);
    }
    assert_eq!(report.measure_stats.len(), 6 * 3);
    assert_eq!(report.rank_agreement.len(), 6 * 3);
    assert_eq!(report.score_groups.len(), 6);
}

/// Row indices of each bias type of `table`.
fn strata(table: &ScoreTable) -> BTreeMap<BiasType, Vec<usize>> {
    let mut s: BTreeMap<BiasType, Vec<usize>> = BTreeMap::new();
    for (i, r) in table.rows().iter().enumerate() {
        s.entry(r.bias_type.clone()).or_default().push(i);
    }
    s
}

#[test]
fn draws_are_stratified_without_replacement_and_depend_on_seed_and_repeat() {
    let table = crows();
    let strata = strata(&table);
    let totals = [456, 606, 756, 909, 1060, 1210]; // liu2024 and its authors' code
    for (&rate, &total) in RobustnessOptions::default().rates.iter().zip(&totals) {
        let sampler = StratifiedSampler::new(rate, 3).unwrap();
        for repeat in 0..4 {
            let rows = sampler.draw_indices(&table, repeat);
            assert_eq!(rows.len(), total, "rate {rate}");
            // Ascending and so distinct: without replacement.
            assert!(rows.windows(2).all(|w| w[0] < w[1]), "rate {rate}");
            assert!(rows.iter().all(|&i| i < table.len()));
            let drawn: BTreeSet<usize> = rows.iter().copied().collect();
            for (ty, members) in &strata {
                let k = members.iter().filter(|i| drawn.contains(i)).count();
                // ceil(n_k · rate), as the authors' `math.ceil(n * rate)`.
                let want = (members.len() as f64 * rate).ceil() as usize;
                assert_eq!(k, want, "{ty} at rate {rate}");
            }
            // `draw` is the table of those rows.
            let sub = sampler.draw(&table, repeat);
            let ids: Vec<&str> = rows
                .iter()
                .map(|&i| table.rows()[i].pair_id.as_str())
                .collect();
            let sub_ids: Vec<&str> = sub.rows().iter().map(|r| r.pair_id.as_str()).collect();
            assert_eq!(ids, sub_ids);
            // Reproducible; another repeat or seed draws other rows.
            assert_eq!(sampler.draw_indices(&table, repeat), rows);
            assert_ne!(sampler.draw_indices(&table, repeat + 100), rows);
            let other_seed = StratifiedSampler::new(rate, 4).unwrap();
            assert_ne!(other_seed.draw_indices(&table, repeat), rows);
        }
    }
    // Rate 1 draws every row.
    let all = StratifiedSampler::new(1.0, 0)
        .unwrap()
        .draw_indices(&table, 0);
    assert_eq!(all, (0..table.len()).collect::<Vec<_>>());
}

#[test]
fn every_subset_is_drawn_about_equally_often() {
    // Four pairs of one type, two drawn: each of the 6 subsets has probability 1/6 under
    // sampling without replacement, 1,000 expected in 6,000 repeats. The counts below are the
    // seeded outcome (seed 17, repeats 0..6000: deterministic, so asserted exactly); their
    // chi-square statistic against 1,000 each, computed below, is 3.592, under the 5 % critical
    // value 11.07 of the chi-square distribution with 5 degrees of freedom.
    let table = tiny();
    let sampler = StratifiedSampler::new(0.5, 17).unwrap();
    let mut counts: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
    for r in 0..6_000 {
        *counts.entry(sampler.draw_indices(&table, r)).or_default() += 1;
    }
    assert_eq!(counts.len(), 6, "{counts:?}");
    let expected: BTreeMap<Vec<usize>, usize> = [
        (vec![0, 1], 989),
        (vec![0, 2], 978),
        (vec![0, 3], 1039),
        (vec![1, 2], 985),
        (vec![1, 3], 1029),
        (vec![2, 3], 980),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
    let chi2: f64 = counts
        .values()
        .map(|&c| (c as f64 - 1000.0).powi(2) / 1000.0)
        .sum();
    assert!(abs_diff_eq!(chi2, 3.592, epsilon = 1e-12), "{chi2}");
    assert!(chi2 < 11.07, "{chi2}");
}

// ---------------------------------------------------------------- the study on given draws

fn fixture() -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/robust/subsample_order.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The fixture's models as score tables, and its draws.
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
                .map(|i| ScoreRow {
                    pair_id: i.to_string(),
                    dataset: "fixture".into(),
                    bias_type: types[i].clone(),
                    direction: Direction::Stereo,
                    stereo: "s".into(),
                    anti: "a".into(),
                    score_stereo: stereo[i],
                    score_anti: anti[i],
                    scorer: "aul".into(),
                    model: m.clone().into(),
                    tokens_stereo: None,
                    tokens_anti: None,
                    group_id: None,
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

/// Every number of the study on the fixture's draws against numpy / scipy.
#[test]
fn study_on_given_draws_matches_numpy() {
    let fx = fixture();
    let (models, draws) = fixture_inputs(&fx);
    let m = Measures::new();
    let report = subsample_study_on_draws(&models, &m.all(), &draws).unwrap();
    assert_eq!(
        report.options.repeats,
        fx["repeats"].as_u64().unwrap() as usize
    );
    const TOL: f64 = 1e-9;
    for s in fx["measure_stats"].as_array().unwrap() {
        let (model, measure, rate) = (
            s["model"].as_str().unwrap(),
            s["measure"].as_str().unwrap(),
            s["rate"].as_f64().unwrap(),
        );
        let what = format!("{measure} on {model} at {rate}");
        let got = report.measure_at(model, measure, rate).unwrap();
        assert_eq!(got.n as u64, s["n"].as_u64().unwrap(), "{what}");
        assert_abs_diff_eq!(got.full, s["full"].as_f64().unwrap(), epsilon = TOL);
        assert_abs_diff_eq!(got.summary.mean, s["mean"].as_f64().unwrap(), epsilon = TOL);
        assert_abs_diff_eq!(got.summary.sd, s["sd"].as_f64().unwrap(), epsilon = TOL);
        assert_abs_diff_eq!(got.summary.q025, s["q025"].as_f64().unwrap(), epsilon = TOL);
        assert_abs_diff_eq!(got.summary.q975, s["q975"].as_f64().unwrap(), epsilon = TOL);
    }
    for r in fx["rank_agreement"].as_array().unwrap() {
        let (measure, rate) = (r["measure"].as_str().unwrap(), r["rate"].as_f64().unwrap());
        let what = format!("{measure} at {rate}");
        let got = report.agreement_at(measure, rate).unwrap();
        assert_eq!(got.no_bias, fx["no_bias"][measure].as_f64().unwrap());
        assert_eq!(got.full_order, strs(&r["full_order"]), "{what}");
        assert_eq!(got.mean_order, strs(&r["mean_order"]), "{what}");
        assert_eq!(
            got.mean_order_kept,
            r["mean_order_kept"].as_bool().unwrap(),
            "{what}"
        );
        assert_abs_diff_eq!(
            got.kendall_tau.unwrap(),
            r["kendall_tau"].as_f64().unwrap(),
            epsilon = 1e-12
        );
        assert_eq!(
            got.agreeing as u64,
            r["agreeing"].as_u64().unwrap(),
            "{what}"
        );
        assert_eq!(got.repeats, 6);
    }
    for g in fx["score_groups"].as_array().unwrap() {
        let (model, rate) = (g["model"].as_str().unwrap(), g["rate"].as_f64().unwrap());
        let got = report.score_groups_at(model, rate).unwrap();
        assert_abs_diff_eq!(got.full, g["full"].as_f64().unwrap(), epsilon = TOL);
        assert_abs_diff_eq!(
            got.delta_difference.mean,
            g["mean"].as_f64().unwrap(),
            epsilon = TOL
        );
        assert_abs_diff_eq!(
            got.delta_difference.sd,
            g["sd"].as_f64().unwrap(),
            epsilon = TOL
        );
        assert_abs_diff_eq!(got.shift, g["shift"].as_f64().unwrap(), epsilon = TOL);
        assert_abs_diff_eq!(
            got.mean_abs_shift,
            g["mean_abs_shift"].as_f64().unwrap(),
            epsilon = TOL
        );
    }
    // The fixture covers both answers to the paper's question: at rate 0.4 the indicator's
    // order by mean (B > C > A) is not the full-data order (B > A > C), one swap: τ = 1/3.
    let ind = report.agreement_at("indicator", 0.4).unwrap();
    assert!(!ind.mean_order_kept);
    assert_abs_diff_eq!(ind.kendall_tau.unwrap(), 1.0 / 3.0, epsilon = 1e-12);
    let kls = report.agreement_at("kls", 0.7).unwrap();
    assert!(kls.mean_order_kept && kls.kendall_tau == Some(1.0));
}

#[test]
fn explicit_draws_are_checked() {
    let fx = fixture();
    let (models, draws) = fixture_inputs(&fx);
    let m = Measures::new();
    let bad = |edit: &dyn Fn(&mut ExplicitDraws)| {
        let mut d = draws.clone();
        edit(&mut d);
        let err = subsample_study_on_draws(&models, &m.all(), &d).unwrap_err();
        assert!(matches!(err, RobustError::InvalidConfig(_)), "{err}");
        err.to_string()
    };
    assert!(bad(&|d| d.rows[0][1][0] = 99).contains("out of range"));
    assert!(bad(&|d| d.rows[0][1][1] = d.rows[0][1][0]).contains("drawn twice"));
    assert!(bad(&|d| {
        d.rows[1].pop();
    })
    .contains("same number of repeats"));
    assert!(bad(&|d| {
        d.rows[0][2].pop();
    })
    .contains("one non-zero size"));
    assert!(bad(&|d| {
        d.rates.pop();
    })
    .contains("lists of draws"));
    let mut short = models.clone();
    short[1].1 = short[1].1.rows()[..10].iter().cloned().collect();
    let err = subsample_study_on_draws(&short, &m.all(), &draws).unwrap_err();
    assert!(err.to_string().contains("same pairs"), "{err}");
}

// ---------------------------------------------------------------- the seeded study

/// The seeded study is the study on the sampler's draws, and its indicator means are those of
/// the draws' rows counted here.
#[test]
fn seeded_study_is_the_study_on_the_samplers_draws() {
    let a = crows();
    let b = shifted(&a, "b", 0.01);
    let models = vec![("a".to_owned(), a.clone()), ("b".to_owned(), b.clone())];
    let options = RobustnessOptions {
        rates: vec![0.3, 0.6],
        repeats: 5,
        seed: 77,
    };
    let seeded = study(&models, &options).unwrap();
    let rows: Vec<Vec<Vec<usize>>> = options
        .rates
        .iter()
        .map(|&rate| {
            let s = StratifiedSampler::new(rate, options.seed).unwrap();
            (0..options.repeats as u64)
                .map(|r| s.draw_indices(&a, r))
                .collect()
        })
        .collect();
    let draws = ExplicitDraws {
        rates: options.rates.clone(),
        rows: rows.clone(),
    };
    let m = Measures::new();
    let explicit = subsample_study_on_draws(&models, &m.all(), &draws).unwrap();
    assert_eq!(explicit.measure_stats, seeded.measure_stats);
    assert_eq!(explicit.rank_agreement, seeded.rank_agreement);
    assert_eq!(explicit.score_groups, seeded.score_groups);

    // The indicator from the rows: 100 · #(stereo > anti) / n, mean and sd (ddof = 1).
    for (ri, &rate) in options.rates.iter().enumerate() {
        for (name, table) in &models {
            let values: Vec<f64> = rows[ri]
                .iter()
                .map(|d| {
                    let wins = d
                        .iter()
                        .filter(|&&i| {
                            let r = &table.rows()[i];
                            r.score_stereo > r.score_anti
                        })
                        .count();
                    100.0 * wins as f64 / d.len() as f64
                })
                .collect();
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>()
                / (values.len() - 1) as f64)
                .sqrt();
            let got = seeded.measure_at(name, "indicator", rate).unwrap();
            assert_abs_diff_eq!(got.summary.mean, mean, epsilon = 1e-9);
            assert_abs_diff_eq!(got.summary.sd, sd, epsilon = 1e-9);
        }
    }
}

#[test]
fn same_seed_gives_the_same_report_on_one_and_two_threads() {
    let table = crows();
    let models = vec![
        ("a".to_owned(), table.clone()),
        ("b".to_owned(), shifted(&table, "b", 0.01)),
    ];
    let options = RobustnessOptions {
        repeats: 12,
        seed: 2024,
        ..RobustnessOptions::default()
    };
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| study(&models, &options).unwrap())
    };
    let one = run(1);
    let two = run(2);
    assert_eq!(one, two);
    let json = serde_json::to_string(&one).unwrap();
    assert_eq!(json, serde_json::to_string(&two).unwrap());
    // The settings keep their serialised name from before the rename to `options`.
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["config"]["seed"], 2024);
    assert!(value.get("options").is_none());
    // The report reads back; serde_json (without its `float_roundtrip` feature) may parse a
    // float 1 ulp off, so values are compared to a tolerance.
    let back: RobustnessReport = serde_json::from_str(&json).unwrap();
    for (x, y) in back.rank_agreement.iter().zip(&one.rank_agreement) {
        assert_eq!(
            (&x.full_order, &x.mean_order, x.mean_order_kept, x.agreeing),
            (&y.full_order, &y.mean_order, y.mean_order_kept, y.agreeing)
        );
        match (x.kendall_tau, y.kendall_tau) {
            (Some(p), Some(q)) => assert_abs_diff_eq!(p, q, epsilon = 1e-12),
            (p, q) => assert_eq!(p, q),
        }
    }
    assert_eq!(back.measure_stats.len(), one.measure_stats.len());
    for (x, y) in back.measure_stats.iter().zip(&one.measure_stats) {
        assert_eq!(
            (&x.model, &x.measure, x.rate, x.n),
            (&y.model, &y.measure, y.rate, y.n)
        );
        assert_abs_diff_eq!(x.summary.mean, y.summary.mean, epsilon = 1e-9);
        assert_abs_diff_eq!(x.full, y.full, epsilon = 1e-9);
    }
    // A different seed draws different sub-samples.
    let other = study(
        &models,
        &RobustnessOptions {
            seed: 2025,
            ..options.clone()
        },
    )
    .unwrap();
    assert_ne!(other.measure_stats, one.measure_stats);
}

#[test]
fn rank_agreement_is_one_when_a_model_is_more_biased_in_every_pair() {
    let a = crows();
    // Model B: every stereotypical score raised by 100, far above any score gap, so every pair
    // of B prefers the stereotypical sentence: its indicator is 100 (deviation 50) on every
    // sub-sample.
    let b = ScoreTable::new(
        a.rows()
            .iter()
            .map(|r| ScoreRow {
                score_stereo: r.score_stereo + 100.0,
                ..r.clone()
            })
            .collect(),
    );
    assert!(b.rows().iter().all(ScoreRow::prefers_stereo));
    // Model A's indicator is strictly between 0 and 100 on every sub-sample (deviation < 50) if,
    // at each rate, some bias type must draw more pairs than it has stereo-preferring pairs (so
    // a non-stereo pair is always drawn) and some type more than it has non-stereo pairs.
    let options = RobustnessOptions {
        repeats: 20,
        seed: 11,
        ..RobustnessOptions::default()
    };
    let by_type = a.by_bias_type();
    for &rate in &options.rates {
        let mut forces_anti = false;
        let mut forces_stereo = false;
        for rows in by_type.values() {
            let k = stratum_sizes(&[rows.len()], rate).unwrap()[0];
            let stereo = rows.iter().filter(|r| r.prefers_stereo()).count();
            forces_anti |= k > stereo;
            forces_stereo |= k > rows.len() - stereo;
        }
        assert!(forces_anti && forces_stereo, "precondition at rate {rate}");
    }
    let models = vec![("A".to_owned(), a.clone()), ("B".to_owned(), b)];
    let report = study(&models, &options).unwrap();
    for &rate in &options.rates {
        let agreement = report.agreement_at("indicator", rate).unwrap();
        assert_eq!(agreement.full_order, ["B", "A"]);
        assert_eq!(agreement.mean_order, ["B", "A"]);
        assert!(agreement.mean_order_kept);
        assert_eq!(agreement.kendall_tau, Some(1.0));
        assert_eq!(agreement.agreeing, options.repeats);
        assert_eq!(agreement.agreement, 1.0);
        let ind_b = report.measure_at("B", "indicator", rate).unwrap();
        assert_eq!(
            (ind_b.full, ind_b.summary.mean, ind_b.summary.sd),
            (100.0, 100.0, 0.0)
        );
    }

    // Two identical models tie on the full data and, drawing the same pairs, on every
    // sub-sample: the tie is kept, so every measure agrees in every repeat and by mean, and
    // τ-b is undefined (both sides all tied).
    let twins = vec![("A".to_owned(), a.clone()), ("A2".to_owned(), a)];
    let report = study(&twins, &options).unwrap();
    for agreement in &report.rank_agreement {
        assert_eq!(agreement.agreement, 1.0, "{agreement:?}");
        assert_eq!(agreement.full_order, ["A", "A2"]);
        assert_eq!(agreement.mean_order, ["A", "A2"]);
        assert!(agreement.mean_order_kept);
        assert_eq!(agreement.kendall_tau, None);
    }
}

fn row(id: usize, ty: BiasType, stereo: f64, anti: f64) -> ScoreRow {
    ScoreRow::builder(id.to_string(), ty, stereo, anti)
        .scorer("aul")
        .model("m")
        .build()
}

/// Four gender pairs: 0 and 1 prefer the stereotypical sentence, 2 and 3 do not.
fn tiny() -> ScoreTable {
    ScoreTable::new(vec![
        row(0, BiasType::Gender, -1.0, -2.0),
        row(1, BiasType::Gender, -1.5, -1.75),
        row(2, BiasType::Gender, -3.0, -1.0),
        row(3, BiasType::Gender, -2.0, -2.0),
    ])
}

#[test]
fn tiny_case_mean_sd_and_quantiles_by_hand() {
    // Rate 0.5 draws ceil(2.0) = 2 of the four pairs, so a draw's indicator is
    // 50 × #(drawn from {0, 1}).
    let table = tiny();
    let options = RobustnessOptions {
        rates: vec![0.5],
        repeats: 3,
        seed: 5,
    };
    let indicator = Indicator::default();
    let measures: [SyncMeasure<'_>; 1] = [&indicator];
    let report = subsample_study(&[("m".to_owned(), table.clone())], &measures, &options).unwrap();

    // The drawn rows (checked to be 2 distinct rows of the table), and from them, by hand,
    // each draw's indicator and |Δst| − |Δat|.
    let sampler = StratifiedSampler::new(0.5, 5).unwrap();
    let scores = [(-1.0, -2.0), (-1.5, -1.75), (-3.0, -1.0), (-2.0, -2.0)];
    let mut ind = Vec::new();
    let mut dd = Vec::new();
    for r in 0..3 {
        let rows = sampler.draw_indices(&table, r);
        assert_eq!(rows.len(), 2);
        assert!(rows[0] < rows[1] && rows[1] < 4);
        let (st, at): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&i| i < 2);
        ind.push(50.0 * st.len() as f64);
        let delta = |g: &[usize]| {
            if g.is_empty() {
                0.0
            } else {
                let n = g.len() as f64;
                (g.iter().map(|&i| scores[i].0).sum::<f64>() / n
                    - g.iter().map(|&i| scores[i].1).sum::<f64>() / n)
                    .abs()
            }
        };
        dd.push(delta(&st) - delta(&at));
    }
    let m = report.measure_at("m", "indicator", 0.5).unwrap();
    assert_eq!(m.n, 2);
    assert_eq!(m.full, 50.0);
    assert_eq!(m.full, indicator.measure(&table).unwrap().value);
    let mean = (ind[0] + ind[1] + ind[2]) / 3.0;
    let sd = (ind.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let mut sorted = ind.clone();
    sorted.sort_by(f64::total_cmp);
    // numpy linear: h = (3 − 1)·0.025 = 0.05 and (3 − 1)·0.975 = 1.95.
    let q025 = sorted[0] + 0.05 * (sorted[1] - sorted[0]);
    let q975 = sorted[1] + 0.95 * (sorted[2] - sorted[1]);
    assert!(
        abs_diff_eq!(m.summary.mean, mean, epsilon = 1e-12),
        "{m:?} vs {ind:?}"
    );
    assert_abs_diff_eq!(m.summary.sd, sd, epsilon = 1e-12);
    assert_abs_diff_eq!(m.summary.q025, q025, epsilon = 1e-12);
    assert_abs_diff_eq!(m.summary.q975, q975, epsilon = 1e-12);

    // Full data: |Δst| = |−1.25 − (−1.875)| = 0.625, |Δat| = |−2.5 − (−1.5)| = 1.0.
    let g = report.score_groups_at("m", 0.5).unwrap();
    assert_abs_diff_eq!(g.full, 0.625 - 1.0, epsilon = 1e-12);
    let dd_mean = dd.iter().sum::<f64>() / 3.0;
    assert_abs_diff_eq!(g.delta_difference.mean, dd_mean, epsilon = 1e-12);
    assert_abs_diff_eq!(g.shift, dd_mean - g.full, epsilon = 1e-12);
    let abs_shift = dd.iter().map(|v| (v - g.full).abs()).sum::<f64>() / 3.0;
    assert_abs_diff_eq!(g.mean_abs_shift, abs_shift, epsilon = 1e-12);
    // One model: its order is always kept, τ-b undefined.
    let a = report.agreement_at("indicator", 0.5).unwrap();
    assert!(a.mean_order_kept && a.agreement == 1.0 && a.kendall_tau.is_none());
}

#[test]
fn invalid_settings_are_rejected() {
    let models = vec![("m".to_owned(), crows())];
    let one_repeat = RobustnessOptions {
        repeats: 1,
        ..RobustnessOptions::default()
    };
    assert!(matches!(
        study(&models, &one_repeat),
        Err(RobustError::InvalidConfig(_))
    ));
    let bad_rate = RobustnessOptions {
        rates: vec![0.0],
        ..RobustnessOptions::default()
    };
    assert!(matches!(
        study(&models, &bad_rate),
        Err(RobustError::InvalidRate(_))
    ));
    assert!(matches!(
        study(&[], &RobustnessOptions::default()),
        Err(RobustError::InvalidConfig(_))
    ));
    // A measure that fails on a sub-sample: tests/it/error_chain.rs (its model, rate, repeat
    // and cause).
}

// ---------------------------------------------------------------- one study per scorer

/// One slice of the demo table's pairs as `model` scored by `scorer` (scores shifted by `by`).
fn slice(base: &ScoreTable, scorer: &str, model: &str, by: f64) -> ScoreSlice {
    let table: ScoreTable = base
        .rows()
        .iter()
        .map(|r| ScoreRow {
            scorer: scorer.to_owned().into(),
            model: model.to_owned().into(),
            score_anti: r.score_anti - by,
            ..r.clone()
        })
        .collect();
    ScoreSlice {
        dataset: "crows-pairs".to_owned(),
        scorer: scorer.to_owned(),
        model: model.to_owned(),
        table,
    }
}

fn by_scorer(
    slices: &[ScoreSlice],
    grouping: &ScorerGrouping,
    options: &RobustnessOptions,
) -> Result<Vec<bias_robust::ScorerStudy>, RobustError> {
    let m = Measures::new();
    let pair: [SyncMeasure<'_>; 1] = [&m.indicator];
    let dist: [SyncMeasure<'_>; 2] = [&m.kls, &m.jss];
    subsample_by_scorer(slices, &pair, &dist, grouping, options)
}

fn small_options() -> RobustnessOptions {
    RobustnessOptions {
        rates: vec![0.4, 0.8],
        repeats: 4,
        seed: 1,
    }
}

/// A study's data set, scorers, models and measures.
type StudyShape<'a> = (&'a str, Vec<&'a str>, Vec<&'a str>, Vec<&'a str>);

#[test]
fn each_scorer_is_its_own_study_and_kls_jss_run_on_aul() {
    let base = crows();
    let slices = vec![
        slice(&base, "cps", "bert", 0.0),
        slice(&base, "aul", "bert", 0.02),
        slice(&base, "cps", "roberta", 0.03),
        slice(&base, "aul", "roberta", -0.01),
        slice(&base, "aul", "albert", 0.005),
        slice(&base, "cps", "albert", 0.01),
    ];
    let options = small_options();
    let studies = by_scorer(&slices, &ScorerGrouping::default(), &options).unwrap();
    let shape: Vec<StudyShape<'_>> = studies
        .iter()
        .map(|s| {
            (
                s.dataset.as_str(),
                s.scorers.iter().map(String::as_str).collect(),
                s.report.models.iter().map(String::as_str).collect(),
                s.report.measures.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (
                "crows-pairs",
                vec!["aul"],
                vec!["bert", "roberta", "albert"],
                vec!["indicator", "kls", "jss"]
            ),
            (
                "crows-pairs",
                vec!["cps"],
                vec!["bert", "roberta", "albert"],
                vec!["indicator"]
            ),
        ]
    );
    // Each study is the plain study of that scorer's models.
    let m = Measures::new();
    let aul: Vec<(String, ScoreTable)> = [1, 3, 4]
        .iter()
        .map(|&i| (slices[i].model.clone(), slices[i].table.clone()))
        .collect();
    assert_eq!(
        studies[0].report,
        subsample_study(&aul, &m.all(), &options).unwrap()
    );

    // KLS and JSS on another scorer when asked.
    let on_cps = ScorerGrouping {
        distribution_scorer: "cps".to_owned(),
        ..ScorerGrouping::default()
    };
    let studies = by_scorer(&slices, &on_cps, &options).unwrap();
    assert_eq!(studies[0].report.measures, ["indicator"]);
    assert_eq!(studies[1].report.measures, ["indicator", "kls", "jss"]);
    assert_eq!(studies[1].scorers, ["cps"]);
}

#[test]
fn comparing_models_across_scorers_is_refused_unless_asked_for() {
    let base = crows();
    let slices = vec![
        slice(&base, "cps", "bert", 0.0),
        slice(&base, "aul", "roberta", 0.02),
    ];
    let options = small_options();
    let err = by_scorer(&slices, &ScorerGrouping::default(), &options).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, RobustError::MixedScorers { .. }), "{msg}");
    assert!(
        msg.contains("scorer `aul` has only model `roberta`")
            && msg.contains("`bert`: cps; `roberta`: aul")
            && msg.contains("same scorer"),
        "{msg}"
    );

    // Asked for: one study of the indicator over both slices, then KLS / JSS on AUL alone.
    let mixed = ScorerGrouping {
        mix_scorers: true,
        ..ScorerGrouping::default()
    };
    let studies = by_scorer(&slices, &mixed, &options).unwrap();
    assert_eq!(studies.len(), 2);
    assert_eq!(studies[0].scorers, ["aul", "cps"]);
    assert_eq!(studies[0].report.models, ["roberta (aul)", "bert (cps)"]);
    assert_eq!(studies[0].report.measures, ["indicator"]);
    assert_eq!(studies[1].scorers, ["aul"]);
    assert_eq!(studies[1].report.models, ["roberta"]);
    assert_eq!(studies[1].report.measures, ["kls", "jss"]);

    // A single model overall is no mixing: its own study.
    let one = vec![slice(&base, "aul", "bert", 0.0)];
    assert_eq!(
        by_scorer(&one, &ScorerGrouping::default(), &options)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn kls_and_jss_without_aul_scores_are_refused() {
    let base = crows();
    let slices = vec![
        slice(&base, "cps", "bert", 0.0),
        slice(&base, "cps", "roberta", 0.02),
    ];
    let err = by_scorer(&slices, &ScorerGrouping::default(), &small_options()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, RobustError::MissingScorer { .. }), "{msg}");
    assert!(
        msg.contains("no `aul` scores") && msg.contains("kls, jss") && msg.contains("scorers: cps"),
        "{msg}"
    );
    // The indicator alone needs no AUL scores.
    let m = Measures::new();
    let pair: [SyncMeasure<'_>; 1] = [&m.indicator];
    let studies = subsample_by_scorer(
        &slices,
        &pair,
        &[],
        &ScorerGrouping::default(),
        &small_options(),
    )
    .unwrap();
    assert_eq!(studies.len(), 1);
    // A model given twice for one scorer is refused.
    let twice = vec![
        slice(&base, "aul", "bert", 0.0),
        slice(&base, "aul", "bert", 0.02),
    ];
    let err = by_scorer(&twice, &ScorerGrouping::default(), &small_options()).unwrap_err();
    assert!(err.to_string().contains("given twice"), "{err}");
}
