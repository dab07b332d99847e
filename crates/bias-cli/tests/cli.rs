//! End-to-end tests of the `bias` binary on the real data sets and the committed demo table.

use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::path::PathBuf;

use assert_cmd::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn real(rel: &str) -> PathBuf {
    let p = root().join("data").join(rel);
    assert!(
        p.is_file(),
        "{} is missing: run scripts/setup.sh (or make test) first",
        p.display()
    );
    p
}

fn demo_scores() -> PathBuf {
    root().join("fixtures/scores/crows_pairs_unigram.csv")
}

fn bias() -> Command {
    Command::cargo_bin("bias").unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = bias().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "bias {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
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
    let path = real("crows-pairs/crows_pairs_anonymized.csv");
    let v = json(&["data", "stats", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(v["n_pairs"], 1508);
    let expected = [
        ("race-color", 516),
        ("gender", 262),
        ("socioeconomic", 172),
        ("nationality", 159),
        ("religion", 105),
        ("age", 87),
        ("sexual-orientation", 84),
        ("physical-appearance", 63),
        ("disability", 60),
    ];
    for (label, n) in expected {
        assert_eq!(count(&v, "by_bias_type", label), n, "{label}");
    }
    assert_eq!(count(&v, "by_direction", "stereo"), 1290);
    assert_eq!(count(&v, "by_direction", "antistereo"), 218);
}

#[test]
fn stereoset_stats_report_both_sections() {
    let path = real("stereoset/dev.json");
    let v = json(&["data", "stats", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(v["n_pairs"], 2106);
    for (label, n) in [
        ("race", 962),
        ("profession", 810),
        ("gender", 255),
        ("religion", 79),
    ] {
        assert_eq!(count(&v, "by_bias_type", label), n, "{label}");
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
    assert_eq!(table.lines().count(), 2 + 30);
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
