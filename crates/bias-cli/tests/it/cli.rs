//! End-to-end tests of the `bias` binary on the real data sets and the committed demo table.

use crate::support::{bias, bias_json as json};
use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::path::PathBuf;

use bias_testkit::Run;
use bias_testkit::{real_data, root, CROWS_PAIRS_BY_TYPE};

fn demo_scores() -> PathBuf {
    root().join("fixtures/scores/crows_pairs_unigram.csv")
}

fn count(v: &serde_json::Value, group: &str, label: &str) -> u64 {
    v[group]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["label"] == label)
        .unwrap_or_else(|| panic!("no {label} in {group}"))["count"]
        .as_u64()
        .unwrap()
}

#[test]
fn crows_pairs_stats_match_the_published_counts() {
    let path = real_data("crows-pairs/crows_pairs_anonymized.csv");
    let v = json(&["data", "stats", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(v["n_pairs"], 1508);
    for (label, n) in CROWS_PAIRS_BY_TYPE {
        assert_eq!(count(&v, "by_bias_type", label), n as u64, "{label}");
    }
    assert_eq!(count(&v, "by_direction", "stereo"), 1290);
    assert_eq!(count(&v, "by_direction", "antistereo"), 218);
}

#[test]
fn stereoset_stats_report_both_sections() {
    let path = real_data("stereoset/dev.json");
    let v = json(&["data", "stats", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(v["n_pairs"], 2106);
    for (label, n) in [
        ("race", 962),
        ("profession", 810),
        ("gender", 255),
        ("religion", 79),
    ] {
        assert_eq!(count(&v, "by_bias_type", label), n as u64, "{label}");
    }
    let sections = v["sections"].as_array().unwrap();
    let n_items = |name: &str| {
        sections.iter().find(|s| s["name"] == name).unwrap()["n_items"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(n_items("intrasentence"), 2106);
    assert_eq!(n_items("intersentence"), 2123);
}

/// The indicator printed by the CLI equals a count made here directly from the CSV.
#[test]
fn measure_indicator_equals_a_direct_count() {
    let scores = demo_scores();
    let mut rdr = csv::Reader::from_path(&scores).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (s, a) = (col("score_stereo"), col("score_anti"));
    let (mut n, mut k) = (0u32, 0u32);
    for rec in rdr.records() {
        let rec = rec.unwrap();
        let ss: f64 = rec[s].parse().unwrap();
        let sa: f64 = rec[a].parse().unwrap();
        n += 1;
        k += u32::from(ss > sa);
    }
    let v = json(&[
        "measure",
        "--scores",
        scores.to_str().unwrap(),
        "--measures",
        "indicator,kls,jss",
        "--format",
        "json",
    ]);
    let results = v.as_array().unwrap();
    assert_eq!(results.len(), 3);
    let ind = &results[0];
    assert_eq!(ind["measure"], "indicator");
    assert_eq!(ind["n"], n);
    let expected = 100.0 * f64::from(k) / f64::from(n);
    assert_abs_diff_eq!(ind["value"].as_f64().unwrap(), expected, epsilon = 1e-12);
    // KLS and JSS equal the numpy reference of the authors' functions on this table
    // (fixtures/liu2024/unigram_reference.json); the by-type weights sum to N.
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/liu2024/unigram_reference.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let kls = results[1]["value"].as_f64().unwrap();
    let jss = results[2]["value"].as_f64().unwrap();
    let want_kls = reference["overall"]["kls_weighted"].as_f64().unwrap();
    let want_jss = reference["overall"]["jss_weighted"].as_f64().unwrap();
    assert!(
        abs_diff_eq!(kls, want_kls, epsilon = 1e-9),
        "{kls} vs {want_kls}"
    );
    assert!(
        abs_diff_eq!(jss, want_jss, epsilon = 1e-9),
        "{jss} vs {want_jss}"
    );
    let total: u64 = results[1]["by_type"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t["n"].as_u64().unwrap())
        .sum();
    assert_eq!(total, u64::from(n));
}

#[test]
fn measure_bootstrap_is_reproducible_and_brackets_the_estimate() {
    let scores = demo_scores();
    let args = [
        "measure",
        "--scores",
        scores.to_str().unwrap(),
        "--measures",
        "kls",
        "--bootstrap",
        "50",
        "--seed",
        "3",
        "--format",
        "json",
    ];
    let a = json(&args);
    assert_eq!(a, json(&args));
    let r = &a[0];
    let (lo, hi) = (
        r["bootstrap"]["lower"].as_f64().unwrap(),
        r["bootstrap"]["upper"].as_f64().unwrap(),
    );
    let estimate = r["value"].as_f64().unwrap();
    assert!(lo < estimate && estimate < hi, "{lo} {estimate} {hi}");
    // Another seed draws other replicates.
    let mut other = args;
    other[8] = "4";
    let b = json(&other);
    assert_ne!(b[0]["bootstrap"]["lower"], r["bootstrap"]["lower"]);
}

#[test]
fn normality_reports_every_side_and_type() {
    let scores = demo_scores();
    let v = json(&[
        "stats",
        "normality",
        "--scores",
        scores.to_str().unwrap(),
        "--format",
        "json",
    ]);
    // (all + 9 types) × 2 sides
    assert_eq!(v.as_array().unwrap().len(), 20);
    for row in v.as_array().unwrap() {
        let w = row["w"].as_f64().unwrap();
        assert!(w > 0.0 && w <= 1.0);
    }
}

#[test]
fn table_and_csv_formats_print_the_same_rows() {
    let scores = demo_scores();
    let run = |format: &str| {
        let out = bias()
            .args(["measure", "--scores", scores.to_str().unwrap(), "--by-type"])
            .args(["--format", format])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let table = run("table");
    let csv_out = run("csv");
    // header + 3 measures × (all + 9 types)
    assert_eq!(csv_out.lines().count(), 1 + 30);
    assert_eq!(table.lines().filter(|l| l.starts_with('|')).count(), 2 + 30);
    // Under the table: the family and its correction, and each test named.
    assert!(
        table.contains("* = Holm-adjusted p ≤ 0.05 over a family of 30 tests"),
        "{table}"
    );
    assert!(
        table.contains("binomial: exact two-sided binomial (sign) test"),
        "{table}"
    );
    assert!(
        table.contains("sign-flip: sign-flip permutation test"),
        "{table}"
    );
}

#[test]
fn missing_file_is_a_clear_error() {
    let out = bias()
        .args(["measure", "--scores", "/no/such/scores.csv"])
        .output()
        .unwrap();
    // A failure exits 1; 2 is for usage errors.
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/no/such/scores.csv"), "{err}");
}

#[test]
fn malformed_score_table_names_the_line() {
    let dir = std::env::temp_dir().join(format!("bias-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.csv");
    std::fs::write(
        &path,
        "pair_id,dataset,bias_type,direction,stereo,anti,score_stereo,score_anti,scorer,model\n\
         0,d,gender,stereo,A.,B.,-1,-2,aul,m\n\
         1,d,gender,stereo,A.,B.,x,-2,aul,m\n",
    )
    .unwrap();
    let out = bias()
        .args(["measure", "--scores", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.csv, line 3") && err.contains("score_stereo"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn unknown_scorer_lists_the_available_ones() {
    let scores = demo_scores();
    let out = bias()
        .args([
            "measure",
            "--scores",
            scores.to_str().unwrap(),
            "--scorer",
            "aul",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unigram-mean"), "{err}");
}

/// liu2024 Table 4 through the CLI: the groups partition the pairs by a direct count, and the
/// printed difference equals |Δst| − |Δat| of the printed groups.
#[test]
fn score_groups_partition_the_pairs() {
    let scores = demo_scores();
    let v = json(&[
        "stats",
        "score-groups",
        "--scores",
        scores.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let r = &v[0];
    let st = &r["stereotype_group"];
    let at = &r["anti_stereotype_group"];
    assert_eq!(
        st["n"].as_u64().unwrap() + at["n"].as_u64().unwrap(),
        r["n"].as_u64().unwrap()
    );
    let d = |g: &serde_json::Value| {
        (g["mean_stereo"].as_f64().unwrap() - g["mean_anti"].as_f64().unwrap()).abs()
    };
    let diff = d(st) - d(at);
    assert_abs_diff_eq!(
        r["delta_difference"].as_f64().unwrap(),
        diff,
        epsilon = 1e-12
    );
    // The stereotype group's pairs are exactly those counted by the indicator.
    let ind = json(&[
        "measure",
        "--scores",
        scores.to_str().unwrap(),
        "--measures",
        "indicator",
        "--format",
        "json",
    ]);
    assert_eq!(ind[0]["indicator"]["stereotypical"], st["n"]);
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bias-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const HEADER: &str =
    "pair_id,dataset,bias_type,direction,stereo,anti,score_stereo,score_anti,scorer,model\n";

#[test]
fn datasets_are_measured_separately() {
    // Two data sets with the same pair ids: indicator 100 % on one, 0 % on the other.
    let text = format!(
        "{HEADER}0,a,gender,stereo,A.,B.,-1,-2,aul,m\n1,a,gender,stereo,A.,B.,-1,-3,aul,m\n\
         0,b,gender,stereo,A.,B.,-2,-1,aul,m\n1,b,gender,stereo,A.,B.,-3,-1,aul,m\n"
    );
    let path = temp_file("two.csv", &text);
    let v = json(&[
        "measure",
        "--scores",
        path.to_str().unwrap(),
        "--measures",
        "indicator",
        "--format",
        "json",
    ]);
    let got: Vec<(String, f64, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["dataset"].as_str().unwrap().to_owned(),
                r["value"].as_f64().unwrap(),
                r["n"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, vec![("a".into(), 100.0, 2), ("b".into(), 0.0, 2)]);
}

#[test]
fn a_single_pair_type_error_names_file_slice_and_remedy() {
    let text = format!(
        "{HEADER}0,a,gender,stereo,A.,B.,-1,-2,aul,m\n1,a,gender,stereo,A.,B.,-1,-3,aul,m\n\
         2,a,age,stereo,A.,B.,-2,-1,aul,m\n"
    );
    let path = temp_file("small.csv", &text);
    let out = bias()
        .args([
            "measure",
            "--scores",
            path.to_str().unwrap(),
            "--measures",
            "kls",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("small.csv") && err.contains("scorer `aul`"),
        "{err}"
    );
    assert!(
        err.contains("`age`") && err.contains("--small-types skip"),
        "{err}"
    );
    // With the remedy, the type is left out: KLS over gender alone, n = 2.
    let v = json(&[
        "measure",
        "--scores",
        path.to_str().unwrap(),
        "--measures",
        "kls",
        "--small-types",
        "skip",
        "--format",
        "json",
    ]);
    assert_eq!(v[0]["n"], 2);
}

// ------------------------------------------------------------------ significance (issue 35)

/// The two fixture models' CrowS-Pairs tables and the scipy / statsmodels values of
/// `scripts/fixtures/significance_cases.py` beside them.
fn significance(rel: &str) -> PathBuf {
    root().join("fixtures/significance").join(rel)
}

fn significance_reference() -> serde_json::Value {
    let text = std::fs::read_to_string(significance("reference.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The reference cell of (model, scorer, bias type).
fn reference_cell<'a>(
    cells: &'a [serde_json::Value],
    model: &str,
    scorer: &str,
    ty: &str,
) -> &'a serde_json::Value {
    cells
        .iter()
        .find(|c| c["model"] == model && c["scorer"] == scorer && c["bias_type"] == ty)
        .unwrap_or_else(|| panic!("no reference cell {model} {scorer} {ty}"))
}

fn close(got: &serde_json::Value, want: &serde_json::Value, what: &str) {
    let (g, w) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!((g - w).abs() <= 1e-12, "{what}: {g:e} vs reference {w:e}");
}

/// Every overall and per-type p of `bias measure --format json` on two fixture models equals
/// scipy's binomtest, and every adjusted p statsmodels' Holm (default) or fdr_bh over the same
/// family of 40 cells (2 models × 2 scorers × (overall + 9 types)).
#[test]
fn measure_p_values_match_scipy_and_statsmodels() {
    let reference = significance_reference();
    let cells = reference["measure"].as_array().unwrap();
    assert_eq!(reference["family_size"], 40);
    for (correction, key) in [("holm", "holm"), ("bh", "bh")] {
        let results = json(&[
            "measure",
            "--scores",
            significance("bert.csv").to_str().unwrap(),
            significance("bert-trained.csv").to_str().unwrap(),
            "--measures",
            "indicator",
            "--correction",
            correction,
            "--format",
            "json",
        ]);
        let results = results.as_array().unwrap();
        assert_eq!(results.len(), 4);
        let mut checked = 0;
        for r in results {
            let (model, scorer) = (r["model"].as_str().unwrap(), r["scorer"].as_str().unwrap());
            assert_eq!(r["test"], "binomial");
            assert_eq!(r["correction"], correction);
            assert_eq!(r["alpha"], 0.05);
            assert_eq!(r["family_size"], 40);
            let want = reference_cell(cells, model, scorer, "all");
            close(&r["p_value"], &want["p"], &format!("{model} {scorer} p"));
            close(
                &r["p_adjusted"],
                &want[key],
                &format!("{model} {scorer} {key}"),
            );
            assert_eq!(
                r["significant"],
                want[key].as_f64().unwrap() <= 0.05,
                "{model} {scorer}"
            );
            checked += 1;
            for (ty, v) in r["by_type"].as_object().unwrap() {
                let want = reference_cell(cells, model, scorer, ty);
                assert_eq!(v["n"], want["n"]);
                close(
                    &v["p_value"],
                    &want["p"],
                    &format!("{model} {scorer} {ty} p"),
                );
                close(
                    &v["p_adjusted"],
                    &want[key],
                    &format!("{model} {scorer} {ty} {key}"),
                );
                assert!(v["detectable_deviation"].as_f64().unwrap() > 0.0);
                checked += 1;
            }
        }
        assert_eq!(checked, 40);
    }
}

/// `bias compare` of the two fixture models: McNemar's exact p of every (scorer, bias type)
/// equals statsmodels', Holm across the 20 cells too, and the difference is B − A.
#[test]
fn compare_mcnemar_matches_statsmodels() {
    let reference = significance_reference();
    let want = reference["compare"].as_array().unwrap();
    let rows = json(&[
        "compare",
        "--scores",
        significance("bert.csv").to_str().unwrap(),
        significance("bert-trained.csv").to_str().unwrap(),
        "--measures",
        "indicator",
        "--bootstrap",
        "200",
        "--format",
        "json",
    ]);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), want.len());
    for r in rows {
        let w = want
            .iter()
            .find(|w| w["scorer"] == r["scorer"] && w["bias_type"] == r["bias_type"])
            .unwrap();
        let what = format!("{} {}", r["scorer"], r["bias_type"]);
        assert_eq!(
            (&r["model_a"], &r["model_b"]),
            (&"bert".into(), &"bert-trained".into())
        );
        assert_eq!(r["test"], "mcnemar-exact");
        assert_eq!(r["discordant"][0], w["table"][0][1], "{what}");
        assert_eq!(r["discordant"][1], w["table"][1][0], "{what}");
        close(&r["p_value"], &w["p"], &format!("{what} McNemar p"));
        close(&r["p_adjusted"], &w["holm"], &format!("{what} Holm"));
        let d = r["difference"].as_f64().unwrap();
        assert!(
            (d - w["difference"].as_f64().unwrap()).abs() < 1e-9,
            "{what}"
        );
        let (lo, hi) = (
            r["ci_low"].as_f64().unwrap(),
            r["ci_high"].as_f64().unwrap(),
        );
        assert!(lo <= d && d <= hi, "{what}: {d} outside [{lo}, {hi}]");
        assert_eq!(r["family_size"], 20);
    }
}

/// Tables that are not on the same pairs are refused, naming the first pair that differs.
#[test]
fn compare_refuses_tables_of_other_pairs() {
    let dir = std::env::temp_dir().join(format!("bias-compare-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(significance("bert-trained.csv")).unwrap();
    // Drop pair 17's rows (both scorers).
    let kept: String = text
        .lines()
        .filter(|l| !l.starts_with("17,"))
        .map(|l| format!("{l}\n"))
        .collect();
    let cut = dir.join("cut.csv");
    std::fs::write(&cut, kept).unwrap();
    let err = bias()
        .args(["compare", "--measures", "indicator", "--scores"])
        .arg(significance("bert.csv"))
        .arg(&cut)
        .fails_saying(&["pair `17` is in A's table but not in B's"]);
    assert!(err.contains("`bert` (A) and `bert-trained` (B)"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
