//! Test–retest study (schroeder2024 §4.1.3, §5.3, Fig. 3). Reference values for every possible
//! subset come from numpy (`scripts/fixtures/retest_reference.py` → `fixtures/robust/retest.json`).

use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use bias_robust::{
    pool_deviations, retest_direct_bias, retest_same_binary, retest_study, retest_weat,
    subset_size, title_context_study, EmbedMeasure, RetestOptions, RobustError, ScoreRange,
    ShareDeviation, TargetLabels, WeatSplit,
};
use ndarray::{arr2, Array2, Axis};
use serde_json::Value;

/// Deterministic, irregular per-target values.
fn values(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i as f64) * 1.618).sin() * 3.0 + (i % 7) as f64)
        .collect()
}

fn mean_of(v: &[f64]) -> impl Fn(&[usize]) -> Result<f64, RobustError> + Sync + '_ {
    move |idx: &[usize]| Ok(idx.iter().map(|&i| v[i]).sum::<f64>() / idx.len() as f64)
}

#[test]
fn subset_sizes_are_the_papers() {
    // schroeder2024 §5.3: "We start with 20% (2120 samples) of the data [...] and decrease to 1%
    // (106 samples)" of 10,602 bios: floor(0.20 · 10602) = floor(2120.4), floor(106.02).
    assert_eq!(subset_size(10_602, 0.01), 106);
    assert_eq!(subset_size(10_602, 0.20), 2120);
    // §5.3's titles-vs-bios comparison uses half of the bios.
    assert_eq!(subset_size(10_602, 0.5), 5301);
    // 0.29 · 100 is 28.999999999999996 in floating point: still 29.
    assert_eq!(subset_size(100, 0.29), 29);
    assert_eq!(subset_size(100, 0.015), 2); // floor 1.5 = 1, raised to the floor of 2
    assert_eq!(subset_size(100, 0.01), 2);
    assert_eq!(subset_size(3, 0.5), 2);
    assert_eq!(subset_size(3, 1.0), 3);
    assert_eq!(subset_size(320, 0.02), 6);
}

#[test]
fn mean_measure_deviation_shrinks_with_the_share_and_vanishes_at_one() {
    let v = values(1000);
    let measure = mean_of(&v);
    let mut options = RetestOptions {
        repeats: 400,
        seed: 11,
        ..RetestOptions::default()
    };
    options.shares.push(1.0);
    let report = retest_study(v.len(), &measure, &options).unwrap();
    assert_eq!(report.shares.len(), 7);
    let mads: Vec<f64> = report.shares.iter().map(|s| s.mean_abs_deviation).collect();
    for w in mads.windows(2) {
        assert!(
            w[1] < w[0],
            "deviation must shrink with the share: {mads:?}"
        );
    }
    let last = report.shares.last().unwrap();
    assert_eq!(last.subset_size, 1000);
    assert_eq!(last.mean_abs_deviation, 0.0);
    assert_eq!(last.max, 0.0);
    assert_eq!(last.quantiles, [0.0; 5]);
    // No range: normalised equals raw.
    for s in &report.shares {
        assert_eq!(s.mean_abs_deviation, s.mean_abs_deviation_raw);
        assert_eq!(s.evaluated, 400);
        assert_eq!(s.failed, 0);
        assert!(s.quantiles.windows(2).all(|q| q[0] <= q[1]));
        assert!(s.quantiles[4] <= s.max);
    }
}

#[test]
fn identical_on_one_and_two_threads() {
    let v = values(500);
    let measure = mean_of(&v);
    let options = RetestOptions {
        repeats: 50,
        seed: 3,
        range: Some(ScoreRange { lo: -4.0, hi: 10.0 }),
        ..RetestOptions::default()
    };
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| retest_study(v.len(), &measure, &options).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(2));
    // A different seed draws different subsets: the two seeds' mean deviations at 1 % (values
    // recorded from these seeded runs; the statistics themselves are checked against numpy below).
    let other = retest_study(
        v.len(),
        &measure,
        &RetestOptions {
            seed: 4,
            ..options.clone()
        },
    )
    .unwrap();
    assert_eq!(one.shares[0].mean_abs_deviation, 0.07768949521356791);
    assert_eq!(other.shares[0].mean_abs_deviation, 0.08251863677870944);
}

#[test]
fn hand_checked_three_targets() {
    // Values 0, 3, 6; full mean 3. Share 0.5 → max(floor(1.5), 2) = 2 targets. The three
    // possible subsets have means 1.5, 3, 4.5: absolute deviations 1.5, 0, 1.5, which the range
    // [0, 6] (width 6) normalises to 0.25, 0, 0.25. Uniform subsets: expectation 2/3 · 0.25 = 1/6.
    let v = [0.0, 3.0, 6.0];
    let measure = mean_of(&v);
    let options = RetestOptions {
        shares: vec![0.5],
        repeats: 6000,
        seed: 1,
        range: Some(ScoreRange { lo: 0.0, hi: 6.0 }),
        skip_failures: false,
        ..RetestOptions::default()
    };
    let r = retest_study(3, &measure, &options).unwrap();
    assert_eq!(r.full_value, 3.0);
    let s = &r.shares[0];
    assert_eq!(s.subset_size, 2);
    assert_abs_diff_eq!(
        s.mean_abs_deviation_raw,
        6.0 * s.mean_abs_deviation,
        epsilon = 1e-12
    );
    // Seed 1 draws {0, 1} 2008 times, {0, 2} 2054 times and {1, 2} 1938 times (counts read off
    // this run's mean deviation and mean value, which fix them): 3946 deviations of 0.25, near
    // the expected 4000, and a mean value of (1.5 · 2008 + 3 · 2054 + 4.5 · 1938) / 6000.
    assert_abs_diff_eq!(
        s.mean_abs_deviation,
        3946.0 * 0.25 / 6000.0,
        epsilon = 1e-12
    );
    assert_eq!(s.max, 0.25);
    assert_eq!(s.quantiles[0], 0.0);
    assert_eq!(s.quantiles[4], 0.25);
    // Subset means average to about the full mean.
    let mean_value = (1.5 * 2008.0 + 3.0 * 2054.0 + 4.5 * 1938.0) / 6000.0;
    assert!(
        abs_diff_eq!(s.mean_value, mean_value, epsilon = 1e-12),
        "{}",
        s.mean_value
    );
    assert!(
        abs_diff_eq!(s.sd, 0.11863250819606182, epsilon = 1e-12),
        "{}",
        s.sd
    );
}

#[test]
fn invalid_settings_are_rejected() {
    let v = values(10);
    let measure = mean_of(&v);
    let err = |c: RetestOptions, n: usize| retest_study(n, &measure, &c).unwrap_err().to_string();
    assert_eq!(
        err(RetestOptions::default(), 1),
        "n_targets = 1: at least two targets"
    );
    for share in [0.0, -0.1, 1.5, f64::NAN] {
        let options = RetestOptions {
            shares: vec![share],
            ..RetestOptions::default()
        };
        assert_eq!(
            err(options, 10),
            format!("share = {share}: a share in (0, 1], such as 0.05")
        );
    }
    let options = RetestOptions {
        shares: vec![],
        ..RetestOptions::default()
    };
    assert_eq!(
        err(options, 10),
        "shares = []: at least one share in (0, 1]"
    );
    let options = RetestOptions {
        repeats: 0,
        ..RetestOptions::default()
    };
    assert_eq!(
        err(options, 10),
        "repeats = 0: at least one subset per share"
    );
    let options = RetestOptions {
        range: Some(ScoreRange { lo: 1.0, hi: 1.0 }),
        ..RetestOptions::default()
    };
    assert_eq!(err(options, 10), "range = [1, 1]: finite hi > lo");
}

#[test]
fn failures_propagate_or_are_counted() {
    // Fails on every subset without target 0.
    let measure = |idx: &[usize]| -> Result<f64, RobustError> {
        if idx.contains(&0) {
            Ok(idx.len() as f64)
        } else {
            Err(RobustError::InvalidRate(0.0))
        }
    };
    let options = RetestOptions {
        shares: vec![0.5],
        repeats: 50,
        ..RetestOptions::default()
    };
    assert_eq!(
        retest_study(4, &measure, &options).unwrap_err().to_string(),
        RobustError::InvalidRate(0.0).to_string()
    );
    let r = retest_study(
        4,
        &measure,
        &RetestOptions {
            skip_failures: true,
            ..options
        },
    )
    .unwrap();
    let s = &r.shares[0];
    // 3 of the 6 pairs hold target 0: about half of the 50 subsets (21 here, seed 0) evaluate.
    assert_eq!((s.evaluated, s.failed), (21, 29));
    // Subsets of 2 of 4 targets holding target 0: value 2, deviation |2 − 4| = 2.
    assert_eq!(s.mean_abs_deviation, 2.0);
}

/// Rows `[cos θ, sin θ, 0.1]` for spread angles.
fn embed(n: usize, offset: f64) -> Array2<f64> {
    Array2::from_shape_fn((n, 3), |(i, j)| {
        let t = offset + i as f64 * 0.37;
        [t.cos(), t.sin(), 0.1 + 0.01 * i as f64][j]
    })
}

#[test]
fn embedding_wrappers_use_the_measure_range() {
    let targets = embed(60, 0.2);
    let a0 = embed(3, 0.0);
    let a1 = embed(3, 2.5);
    let mut options = RetestOptions {
        shares: vec![0.1, 0.5, 1.0],
        repeats: 20,
        seed: 5,
        ..RetestOptions::default()
    };
    let same = retest_same_binary(targets.view(), a0.view(), a1.view(), &options).unwrap();
    assert_eq!(same.range, Some(ScoreRange::UNIT));
    assert_eq!(same.shares[2].mean_abs_deviation, 0.0);
    // The values themselves are checked against numpy in `same_retest_matches_numpy`.

    let subspace =
        bias_embed::BiasSubspace::from_direction(ndarray::arr1(&[1.0, -1.0, 0.0]).view()).unwrap();
    let db = retest_direct_bias(targets.view(), &subspace, 1.0, &options).unwrap();
    assert_eq!(db.range, Some(ScoreRange::UNIT));
    assert_eq!(db.shares[2].mean_abs_deviation, 0.0);

    // Two fixed sets X (even rows) and Y (odd rows): every row its own class, so both splits keep
    // the sets.
    let class: Vec<usize> = (0..60).collect();
    let group: Vec<usize> = (0..60).map(|i| i % 2).collect();
    let labels = TargetLabels::new(&class, &group).unwrap();
    options.skip_failures = true;
    let weat_with = |split| {
        retest_weat(
            targets.view(),
            &labels,
            a0.view(),
            a1.view(),
            bias_embed::Ddof::Zero,
            split,
            &options,
        )
        .unwrap()
    };
    let w = weat_with(WeatSplit::PerSubset);
    assert_eq!(w, weat_with(WeatSplit::Fixed));
    assert_eq!(w.range, Some(ScoreRange::WEAT));
    assert_eq!(w.shares[2].mean_abs_deviation, 0.0);
    assert_abs_diff_eq!(
        w.shares[1].mean_abs_deviation_raw,
        4.0 * w.shares[1].mean_abs_deviation,
        epsilon = 1e-12
    );
    // A caller's range wins.
    options.range = Some(ScoreRange { lo: 0.0, hi: 2.0 });
    let same2 = retest_same_binary(targets.view(), a0.view(), a1.view(), &options).unwrap();
    assert_eq!(
        same2.shares[0].mean_abs_deviation * 2.0,
        same.shares[0].mean_abs_deviation
    );
    let short = TargetLabels::new(&class[..5], &group[..5]).unwrap();
    let err = retest_weat(
        targets.view(),
        &short,
        a0.view(),
        a1.view(),
        bias_embed::Ddof::Zero,
        WeatSplit::PerSubset,
        &options,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("one class and group per target row (60)"),
        "{err}"
    );
    let json = serde_json::to_string(&same).unwrap();
    assert!(json.contains("mean_abs_deviation"));
}

fn fixture() -> Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("fixtures/robust/retest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn matrix(v: &Value) -> Array2<f64> {
    let rows: Vec<Vec<f64>> = serde_json::from_value(v.clone()).unwrap();
    let (n, d) = (rows.len(), rows[0].len());
    Array2::from_shape_vec((n, d), rows.concat()).unwrap()
}

fn usizes(v: &Value) -> Vec<usize> {
    serde_json::from_value(v.clone()).unwrap()
}

fn key(subset: &[usize]) -> String {
    subset
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The subsets a study with `options` draws (one share), as the measure sees them: recorded by a
/// generic [`retest_study`] on the same seed, minus its first call (the full set, the baseline).
fn drawn_subsets(n: usize, options: &RetestOptions) -> Vec<Vec<usize>> {
    assert_eq!(options.shares.len(), 1);
    let seen = Mutex::new(Vec::new());
    let record = |idx: &[usize]| -> Result<f64, RobustError> {
        seen.lock().unwrap().push(idx.to_vec());
        Ok(0.0)
    };
    retest_study(n, &record, options).unwrap();
    let mut v = seen.into_inner().unwrap();
    assert_eq!(v.remove(0), (0..n).collect::<Vec<_>>());
    assert_eq!(v.len(), options.repeats);
    v
}

/// Quantiles 0.05, 0.25, 0.5, 0.75, 0.95 by numpy's default rule (linear): position
/// `h = (n − 1)·q` in the sorted sample, interpolated between the order statistics around it.
/// Checked against `np.quantile` in `quantile_rule_matches_numpy`.
fn linear_quantiles(sample: &[f64]) -> [f64; 5] {
    let mut s = sample.to_vec();
    s.sort_by(f64::total_cmp);
    [0.05, 0.25, 0.5, 0.75, 0.95].map(|q| {
        let h = (s.len() - 1) as f64 * q;
        let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
        s[lo] + (h - lo as f64) * (s[hi] - s[lo])
    })
}

#[test]
fn quantile_rule_matches_numpy() {
    let f = fixture();
    let q = &f["quantiles"];
    let levels: Vec<f64> = serde_json::from_value(q["levels"].clone()).unwrap();
    assert_eq!(levels, [0.05, 0.25, 0.5, 0.75, 0.95]);
    for (case, n) in [("same", 70), ("weat", 191)] {
        let sample: Vec<f64> = serde_json::from_value(q[case]["sample"].clone()).unwrap();
        let numpy: Vec<f64> = serde_json::from_value(q[case]["quantiles"].clone()).unwrap();
        assert_eq!(sample.len(), n);
        for (g, e) in linear_quantiles(&sample).iter().zip(&numpy) {
            assert!(
                abs_diff_eq!(g, e, epsilon = 1e-12),
                "{case}: {g} vs numpy {e}"
            );
        }
    }
}

/// Mean, raw mean, sample sd, max of `|v − baseline| / width`, and the mean of the values; then
/// the quantiles of `|v − baseline| / width`.
fn expected_stats(values: &[f64], baseline: f64, width: f64) -> ([f64; 5], [f64; 5]) {
    let n = values.len() as f64;
    let dev: Vec<f64> = values
        .iter()
        .map(|v| (v - baseline).abs() / width)
        .collect();
    let mean = dev.iter().sum::<f64>() / n;
    let sd = (dev.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let max = dev.iter().copied().fold(f64::MIN, f64::max);
    (
        [mean, mean * width, sd, max, values.iter().sum::<f64>() / n],
        linear_quantiles(&dev),
    )
}

fn assert_stats(s: &ShareDeviation, (expected, quantiles): ([f64; 5], [f64; 5])) {
    let got = [
        s.mean_abs_deviation,
        s.mean_abs_deviation_raw,
        s.sd,
        s.max,
        s.mean_value,
    ];
    for (g, e) in got.iter().zip(expected) {
        assert!(
            abs_diff_eq!(*g, e, epsilon = 1e-12),
            "{got:?} vs {expected:?}"
        );
    }
    for (g, e) in s.quantiles.iter().zip(quantiles) {
        assert!(
            abs_diff_eq!(*g, e, epsilon = 1e-12),
            "{:?} vs {quantiles:?}",
            s.quantiles
        );
    }
}

/// SAME's retest against numpy: the fixture holds SAME on every 4-of-8 subset; the deviations of
/// the subsets the study drew, from the numpy full-set value, give the expected statistics.
#[test]
fn same_retest_matches_numpy() {
    let f = fixture();
    let c = &f["same"];
    let (t, a0, a1) = (matrix(&c["targets"]), matrix(&c["a0"]), matrix(&c["a1"]));
    let options = RetestOptions {
        shares: vec![c["share"].as_f64().unwrap()],
        repeats: 200,
        seed: 17,
        ..RetestOptions::default()
    };
    let report = retest_same_binary(t.view(), a0.view(), a1.view(), &options).unwrap();
    let full = c["full"].as_f64().unwrap();
    assert_abs_diff_eq!(report.full_value, full, epsilon = 1e-12);
    let s = &report.shares[0];
    assert_eq!(s.subset_size, c["subset_size"].as_u64().unwrap() as usize);
    let drawn = drawn_subsets(8, &options);
    let values: Vec<f64> = drawn
        .iter()
        .map(|d| c["subsets"][key(d)].as_f64().unwrap())
        .collect();
    assert_stats(s, expected_stats(&values, full, 1.0));
    // 200 draws (seed 17) hit 64 of the 70 subsets: the study did not keep drawing the same few.
    let distinct: std::collections::HashSet<_> = drawn.iter().collect();
    assert_eq!(distinct.len(), 64);
}

/// WEAT's retest against numpy under both splits: the fixture holds X, Y and the effect size of
/// every 5-of-10 subset, sorted on the subset (the paper) and on all targets. Subsets with X or Y
/// empty fail and are counted.
#[test]
fn weat_retest_matches_numpy_under_both_splits() {
    let f = fixture();
    let c = &f["weat"];
    let (t, a, b) = (matrix(&c["targets"]), matrix(&c["a"]), matrix(&c["b"]));
    let (class, group) = (usizes(&c["class"]), usizes(&c["group"]));
    let labels = TargetLabels::new(&class, &group).unwrap();
    let options = RetestOptions {
        shares: vec![c["share"].as_f64().unwrap()],
        repeats: 300,
        seed: 23,
        skip_failures: true,
        ..RetestOptions::default()
    };
    let drawn = drawn_subsets(10, &options);
    let full = c["full"]["effect_size"].as_f64().unwrap();
    let mut means = HashMap::new();
    for (split, name) in [
        (WeatSplit::PerSubset, "per_subset"),
        (WeatSplit::Fixed, "fixed"),
    ] {
        let report = retest_weat(
            t.view(),
            &labels,
            a.view(),
            b.view(),
            bias_embed::Ddof::Zero,
            split,
            &options,
        )
        .unwrap();
        assert_abs_diff_eq!(report.full_value, full, epsilon = 1e-12);
        let mut values = Vec::new();
        let mut failed = 0;
        for d in &drawn {
            let e = &c["subsets"][key(d)][name];
            // The library sorts the subset the same way as numpy.
            let (x, y) = labels.split(d, split);
            assert_eq!((x, y), (usizes(&e["x"]), usizes(&e["y"])), "{name} {d:?}");
            match e["effect_size"].as_f64() {
                Some(v) => values.push(v),
                None => failed += 1,
            }
        }
        let s = &report.shares[0];
        assert_eq!((s.evaluated, s.failed), (values.len(), failed), "{name}");
        assert!(
            failed > 0,
            "{name}: the case should produce one-sided subsets"
        );
        assert_stats(s, expected_stats(&values, full, 4.0));
        means.insert(name, s.mean_abs_deviation);
    }
    // Re-sorting changes the split of 184 of the 252 subsets here (numpy's count), and so the
    // deviations: the means below are the numpy-derived ones asserted above for seed 23.
    assert_eq!(c["subsets_resorted_differently"], 184);
    assert_abs_diff_eq!(means["per_subset"], 0.17918745280229978, epsilon = 1e-12);
    assert_abs_diff_eq!(means["fixed"], 0.2173684396690803, epsilon = 1e-12);
}

/// The re-sorting by hand. Seven bios of three jobs, group 0 or 1:
///
/// | row | 0 | 1 | 2 | 3 | 4 | 5 | 6 |
/// |-----|---|---|---|---|---|---|---|
/// | job | 0 | 0 | 1 | 1 | 2 | 2 | 2 |
/// | group | 0 | 0 | 1 | 1 | 0 | 1 | 1 |
///
/// On all rows job 2 has 1 : 2, so it goes to Y: the fixed split is X = {0, 1}. Leaving out row
/// 5 or 6 makes job 2 a 1 : 1 tie, which goes to X, so the subset's own split moves rows 4 and
/// 6 (or 4 and 5) to X; leaving out row 0 or 1 leaves job 0 with 1 : 0, still X.
///
/// With A = {(1, 0)}, B = {(0, 1)} a unit target at angle θ has s = cos θ − sin θ: rows at (1, 0)
/// give 1, at (1, 1) 0, at (0, 1) −1. Rows: (1,0), (1,1), (0,1), (0,1), (1,0), (1,1), (0,1), so
/// s = 1, 0, −1, −1, 1, 0, −1. On all rows: mean s_X = 1/2, mean s_Y = −2/5, population sd of
/// all s = √34 / 7, effect size 0.9 · 7 / √34 = 1.080441. Without row 6, re-sorted: X = {0, 1,
/// 4, 5} (mean 1/2), Y = {2, 3} (mean −1), sd √(2/3): 1.5 · √1.5 = 1.837117; fixed: X = {0, 1}
/// (1/2), Y = {2, 3, 4, 5} (−1/4): 0.75 · √1.5 = 0.918559.
#[test]
fn weat_resorting_by_hand() {
    let class = [0, 0, 1, 1, 2, 2, 2];
    let group = [0, 0, 1, 1, 0, 1, 1];
    let labels = TargetLabels::new(&class, &group).unwrap();
    assert_eq!(labels.n_classes(), 3);
    assert_eq!(
        labels.classes_in_x(&[0, 1, 2, 3, 4, 5, 6]),
        [true, false, false]
    );
    assert_eq!(
        labels.classes_in_x(&[0, 1, 2, 3, 4, 5]),
        [true, false, true]
    );
    let all = [0, 1, 2, 3, 4, 5, 6];
    for split in [WeatSplit::PerSubset, WeatSplit::Fixed] {
        assert_eq!(labels.split(&all, split), (vec![0, 1], vec![2, 3, 4, 5, 6]));
    }
    let no6 = [0, 1, 2, 3, 4, 5];
    assert_eq!(
        labels.split(&no6, WeatSplit::PerSubset),
        (vec![0, 1, 4, 5], vec![2, 3])
    );
    assert_eq!(
        labels.split(&no6, WeatSplit::Fixed),
        (vec![0, 1], vec![2, 3, 4, 5])
    );
    assert_eq!(
        labels.split(&[0, 1, 2, 3, 4, 6], WeatSplit::PerSubset),
        (vec![0, 1, 4, 6], vec![2, 3])
    );
    assert_eq!(
        labels.split(&[1, 2, 3, 4, 5, 6], WeatSplit::PerSubset),
        (vec![1], vec![2, 3, 4, 5, 6])
    );
    assert_eq!(WeatSplit::default(), WeatSplit::PerSubset);

    // The studies: subsets of 6 of the 7 rows (share 6/7), all seven leave-one-out subsets
    // drawn among 70 repeats. Expected effect sizes per left-out row, from the table above.
    let h = 1.5f64.sqrt();
    let full = 0.9 * 7.0 / 34f64.sqrt();
    assert_abs_diff_eq!(full, 1.080441, epsilon = 1e-6);
    // Leaving out row r: (re-sorted, fixed) effect sizes, worked out like the row-6 case.
    let by_left_out = |r: usize| -> (f64, f64) {
        let s = [1.0, 0.0, -1.0, -1.0, 1.0, 0.0, -1.0];
        let rows: Vec<usize> = (0..7).filter(|&i| i != r).collect();
        let es = |x: &[usize]| {
            let (sx, sy): (Vec<f64>, Vec<f64>) = {
                let (xs, ys): (Vec<usize>, Vec<usize>) = rows.iter().partition(|i| x.contains(i));
                (
                    xs.iter().map(|&i| s[i]).collect(),
                    ys.iter().map(|&i| s[i]).collect(),
                )
            };
            let m = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            let all: Vec<f64> = rows.iter().map(|&i| s[i]).collect();
            let mu = m(&all);
            let sd = (all.iter().map(|v| (v - mu).powi(2)).sum::<f64>() / 6.0).sqrt();
            (m(&sx) - m(&sy)) / sd
        };
        // X by hand: job 0 always; job 2 joins when row 5 or 6 is left out.
        let resorted: &[usize] = match r {
            5 => &[0, 1, 4, 6],
            6 => &[0, 1, 4, 5],
            _ => &[0, 1],
        };
        (es(resorted), es(&[0, 1]))
    };
    let (re6, fx6) = by_left_out(6);
    assert_abs_diff_eq!(re6, 1.5 * h, epsilon = 1e-12);
    assert_abs_diff_eq!(fx6, 0.75 * h, epsilon = 1e-12);

    let t = arr2(&[
        [1.0, 0.0],
        [1.0, 1.0],
        [0.0, 1.0],
        [0.0, 1.0],
        [1.0, 0.0],
        [1.0, 1.0],
        [0.0, 1.0],
    ]);
    let (a, b) = (arr2(&[[1.0, 0.0]]), arr2(&[[0.0, 1.0]]));
    let options = RetestOptions {
        shares: vec![6.0 / 7.0],
        repeats: 70,
        seed: 2,
        ..RetestOptions::default()
    };
    let drawn = drawn_subsets(7, &options);
    let left_out: Vec<usize> = drawn
        .iter()
        .map(|d| (0..7).find(|i| !d.contains(i)).unwrap())
        .collect();
    assert!(left_out.contains(&5) && left_out.contains(&6));
    for (split, pick) in [(WeatSplit::PerSubset, 0usize), (WeatSplit::Fixed, 1usize)] {
        let r = retest_weat(
            t.view(),
            &labels,
            a.view(),
            b.view(),
            bias_embed::Ddof::Zero,
            split,
            &options,
        )
        .unwrap();
        assert_abs_diff_eq!(r.full_value, full, epsilon = 1e-12);
        assert_eq!(r.shares[0].subset_size, 6);
        let values: Vec<f64> = left_out
            .iter()
            .map(|&o| {
                let (re, fx) = by_left_out(o);
                [re, fx][pick]
            })
            .collect();
        assert_stats(&r.shares[0], expected_stats(&values, full, 4.0));
    }
}

#[test]
fn labels_are_checked() {
    let err = TargetLabels::new(&[0, 1], &[0]).unwrap_err().to_string();
    assert!(err.contains("one group label per target"), "{err}");
    let err = TargetLabels::new(&[0, 1], &[0, 2]).unwrap_err().to_string();
    assert!(
        err.contains("group of target 1") && err.contains("0 (the side"),
        "{err}"
    );
    let err = TargetLabels::new(&[], &[]).unwrap_err().to_string();
    assert_eq!(err, "class = []: labels for at least one target");
}

/// schroeder2024 §5.3's titles-vs-bios comparison against numpy: the baseline is the measure on
/// the four titles (WEAT: titles sorted by their jobs' counts on all bios), the deviations those
/// of the drawn half-size subsets of the bios.
#[test]
fn title_context_matches_numpy() {
    let f = fixture();
    let c = &f["weat"];
    let tc = &f["titles"];
    let (t, a, b) = (matrix(&c["targets"]), matrix(&c["a"]), matrix(&c["b"]));
    let titles = matrix(&tc["titles"]);
    let (class, group) = (usizes(&c["class"]), usizes(&c["group"]));
    let labels = TargetLabels::new(&class, &group).unwrap();
    let options = RetestOptions {
        repeats: 120,
        seed: 9,
        skip_failures: true,
        ..RetestOptions::title_context()
    };
    assert_eq!(options.shares, vec![0.5]);
    let drawn = drawn_subsets(10, &options);

    let same = EmbedMeasure::Same {
        a0: a.view(),
        a1: b.view(),
    };
    let r = title_context_study(titles.view(), t.view(), &labels, &same, &options).unwrap();
    let title_same = tc["same"].as_f64().unwrap();
    assert_abs_diff_eq!(r.title_value, title_same, epsilon = 1e-12);
    assert_abs_diff_eq!(
        r.full_value,
        c["full"]["same"].as_f64().unwrap(),
        epsilon = 1e-12
    );
    assert_eq!(
        (r.n_titles, r.n_targets, r.range),
        (4, 10, ScoreRange::UNIT)
    );
    let values: Vec<f64> = drawn
        .iter()
        .map(|d| c["subsets"][key(d)]["same"].as_f64().unwrap())
        .collect();
    assert_stats(&r.shares[0], expected_stats(&values, title_same, 1.0));

    let weat = EmbedMeasure::Weat {
        a: a.view(),
        b: b.view(),
        ddof: bias_embed::Ddof::Zero,
        split: WeatSplit::PerSubset,
    };
    let r = title_context_study(titles.view(), t.view(), &labels, &weat, &options).unwrap();
    let title_weat = tc["weat"].as_f64().unwrap();
    assert_abs_diff_eq!(r.title_value, title_weat, epsilon = 1e-12);
    assert_eq!(r.range, ScoreRange::WEAT);
    let values: Vec<f64> = drawn
        .iter()
        .filter_map(|d| c["subsets"][key(d)]["per_subset"]["effect_size"].as_f64())
        .collect();
    assert_eq!(r.shares[0].failed, drawn.len() - values.len());
    assert_stats(&r.shares[0], expected_stats(&values, title_weat, 4.0));

    // A job without a title row, a title without bios, and a dimension mismatch are refused.
    let err = title_context_study(
        titles.select(Axis(0), &[0, 1, 2]).view(),
        t.view(),
        &labels,
        &same,
        &options,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("one title row per class 0..4"), "{err}");
    let more = titles.select(Axis(0), &[0, 1, 2, 3, 0]);
    let err = title_context_study(more.view(), t.view(), &labels, &same, &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("title row 4"), "{err}");
    let err = title_context_study(
        titles.select(Axis(1), &[0, 1, 2]).view(),
        t.view(),
        &labels,
        &same,
        &options,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("the targets' dimension 5"), "{err}");
}

/// Pooling two models' deviations {0.1, 0.3} and {0.2, 0.6}: as if the four were one sample,
/// mean 0.3 and sd √((0.04 + 0 + 0.01 + 0.09) / 3).
#[test]
fn pooled_deviation_by_hand() {
    let share = |mean: f64, sd: f64| ShareDeviation {
        share: 0.5,
        subset_size: 10,
        evaluated: 2,
        failed: 0,
        mean_abs_deviation_raw: mean,
        mean_abs_deviation: mean,
        sd,
        quantiles: [0.0; 5],
        max: 0.0,
        mean_value: 0.0,
    };
    let (m1, m2) = (share(0.2, 0.02f64.sqrt()), share(0.4, 0.08f64.sqrt()));
    let p = pool_deviations(&[&m1, &m2]).unwrap();
    assert_eq!(p.n, 4);
    assert_abs_diff_eq!(p.mean, 0.3, epsilon = 1e-12);
    assert!(
        abs_diff_eq!(p.sd, (0.14f64 / 3.0).sqrt(), epsilon = 1e-12),
        "{}",
        p.sd
    );
    let err = pool_deviations(&[]).unwrap_err().to_string();
    assert!(err.starts_with("shares = 0 entries, 0 subsets: "), "{err}");
}

#[test]
fn nested_prefixes_are_the_authors_subsets() {
    use bias_robust::SubsetDraw;
    // schroeder2024's robustness.py: shares 0.01/0.03/0.05/0.1/0.2, 50 repeats, each repeat one
    // shuffle whose first int(share · n) targets are the subsets.
    let o = RetestOptions::schroeder2024();
    assert_eq!(o.shares, [0.01, 0.03, 0.05, 0.1, 0.2]);
    assert_eq!((o.repeats, o.draw), (50, SubsetDraw::NestedPrefixes));
    // Python's int(share · n): 0.03 · 100 = 3.0000000000000004 → 3, 0.29 · 100 = 28.999… → 28,
    // 0.01 · 50 = 0.5 → 0 (no floor of 2, unlike the independent draw).
    assert_eq!(o.subset_len(100, 0.03), 3);
    assert_eq!(o.subset_len(100, 0.29), 28);
    assert_eq!(o.subset_len(50, 0.01), 0);
    assert_eq!(RetestOptions::default().subset_len(50, 0.01), 2);
    // Record the subsets: within a repeat every smaller share's subset lies in the larger one's.
    let seen: Mutex<Vec<Vec<usize>>> = Mutex::new(Vec::new());
    let measure = |idx: &[usize]| -> Result<f64, RobustError> {
        seen.lock().unwrap().push(idx.to_vec());
        Ok(idx.len() as f64)
    };
    let options = RetestOptions {
        shares: vec![0.1, 0.3],
        repeats: 4,
        ..RetestOptions::schroeder2024()
    };
    let report = retest_study(20, &measure, &options).unwrap();
    assert_eq!(report.shares[0].subset_size, 2);
    assert_eq!(report.shares[1].subset_size, 6);
    let seen = seen.into_inner().unwrap();
    let small: Vec<&Vec<usize>> = seen.iter().filter(|s| s.len() == 2).collect();
    let large: Vec<&Vec<usize>> = seen.iter().filter(|s| s.len() == 6).collect();
    assert_eq!((small.len(), large.len()), (4, 4));
    for s in &small {
        assert!(
            large.iter().any(|l| s.iter().all(|i| l.contains(i))),
            "{s:?} is in no larger subset"
        );
    }
    // Independent draws do not nest in general (same seed, same shares).
    let independent = RetestOptions {
        draw: SubsetDraw::Independent,
        ..options.clone()
    };
    let seen2: Mutex<Vec<Vec<usize>>> = Mutex::new(Vec::new());
    let measure2 = |idx: &[usize]| -> Result<f64, RobustError> {
        seen2.lock().unwrap().push(idx.to_vec());
        Ok(idx.len() as f64)
    };
    retest_study(20, &measure2, &independent).unwrap();
    let seen2 = seen2.into_inner().unwrap();
    let small2: Vec<&Vec<usize>> = seen2.iter().filter(|s| s.len() == 2).collect();
    let large2: Vec<&Vec<usize>> = seen2.iter().filter(|s| s.len() == 6).collect();
    let nested = small2
        .iter()
        .filter(|s| large2.iter().any(|l| s.iter().all(|i| l.contains(i))))
        .count();
    assert!(nested < 4, "independent draws happened to nest: {seen2:?}");
    // A share whose subset is empty fails, and is counted when failures are skipped.
    let tiny = RetestOptions {
        shares: vec![0.01, 0.5],
        repeats: 3,
        skip_failures: true,
        ..RetestOptions::schroeder2024()
    };
    let count = |idx: &[usize]| -> Result<f64, RobustError> { Ok(idx.len() as f64) };
    assert!(
        retest_study(20, &count, &tiny).is_err(),
        "every subset of 1 % is empty"
    );
}
