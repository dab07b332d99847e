//! `bias robust …` and `bias report` end to end on the demo score table and a second table made
//! from it in the test.

use crate::support::{bias_output as bias, bias_stdout as run};
use approx::abs_diff_eq;
use std::path::PathBuf;

use serde_json::Value;

use bias_testkit::{hand_scores, root};

fn demo() -> String {
    root()
        .join("fixtures/scores/crows_pairs_unigram.csv")
        .display()
        .to_string()
}

fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("robust-cli-{name}"))
}

/// The demo table under another model name, every stereotypical score raised by 0.05.
fn second_model(dir: &std::path::Path) -> String {
    let table = bias_core::ScoreTable::read_csv_path(demo()).unwrap();
    let rows = table
        .into_rows()
        .into_iter()
        .map(|mut r| {
            r.model = "shifted".into();
            r.score_stereo += 0.05;
            r
        })
        .collect();
    let path = dir.join("shifted.csv");
    bias_core::ScoreTable::new(rows)
        .write_csv_path(&path)
        .unwrap();
    path.display().to_string()
}

#[test]
fn subsample_sizes_equal_the_reference_and_the_shift_keeps_the_indicator_order() {
    let dir = scratch("subsample");
    let second = second_model(&dir);
    let v: Value = serde_json::from_slice(&run(&[
        "robust",
        "subsample",
        "--scores",
        &demo(),
        &second,
        "--measures",
        "indicator",
        "--repeats",
        "20",
        "--format",
        "json",
    ]))
    .unwrap();
    // Both tables hold scorer `unigram-mean` on CrowS-Pairs: one study of two models.
    let studies = v.as_array().unwrap();
    assert_eq!(studies.len(), 1);
    assert_eq!(studies[0]["dataset"], "crows-pairs");
    assert_eq!(studies[0]["scorers"], serde_json::json!(["unigram-mean"]));
    let report = &studies[0]["report"];
    let sizes: Vec<u64> = report["measure_stats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["model"] == "shifted")
        .map(|m| m["n"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, vec![456, 606, 756, 909, 1060, 1210]);
    // Full data: the shifted model's indicator is 66.6 (|x − 50| = 16.6), the original's 39.0
    // (11.0), computed in Python from the CSV. Both models draw the same pairs, and the gap
    // is far wider than the draws' spread (sd ≈ 1.8 at rate 0.3), so every draw, and the mean
    // over the draws, keeps the order.
    assert_eq!(report["rank_agreement"].as_array().unwrap().len(), 6);
    for r in report["rank_agreement"].as_array().unwrap() {
        assert_eq!(r["full_order"][0], "shifted");
        assert_eq!(r["mean_order"], r["full_order"]);
        assert_eq!(r["mean_order_kept"], true);
        assert_eq!(r["kendall_tau"].as_f64(), Some(1.0));
        assert_eq!(r["agreement"].as_f64().unwrap(), 1.0, "{r}");
    }
}

/// The demo table's pairs scored by `scorer` for `model`, scores shifted by `by`.
fn as_scorer(dir: &std::path::Path, scorer: &str, model: &str, by: f64) -> String {
    let table = bias_core::ScoreTable::read_csv_path(demo()).unwrap();
    let rows = table
        .into_rows()
        .into_iter()
        .map(|mut r| {
            r.scorer = scorer.into();
            r.model = model.into();
            r.score_anti -= by;
            r
        })
        .collect();
    let path = dir.join(format!("{model}-{scorer}.csv"));
    bias_core::ScoreTable::new(rows)
        .write_csv_path(&path)
        .unwrap();
    path.display().to_string()
}

#[test]
fn subsample_runs_one_study_per_scorer_with_kls_and_jss_on_aul() {
    let dir = scratch("per-scorer");
    let files = [
        as_scorer(&dir, "cps", "bert", 0.0),
        as_scorer(&dir, "aul", "bert", 0.01),
        as_scorer(&dir, "cps", "roberta", 0.03),
        as_scorer(&dir, "aul", "roberta", -0.02),
    ];
    let mut args = vec!["robust", "subsample", "--scores"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--rates", "0.5,0.8", "--repeats", "4"]);
    let mut json = args.clone();
    json.extend(["--format", "json"]);
    let v: Value = serde_json::from_slice(&run(&json)).unwrap();
    let shape: Vec<(Value, Value, Value)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["scorers"].clone(),
                s["report"]["models"].clone(),
                s["report"]["measures"].clone(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (
                serde_json::json!(["aul"]),
                serde_json::json!(["bert", "roberta"]),
                serde_json::json!(["indicator", "kls", "jss"])
            ),
            (
                serde_json::json!(["cps"]),
                serde_json::json!(["bert", "roberta"]),
                serde_json::json!(["indicator"])
            ),
        ]
    );
    // The table output shows the order by mean next to the single draws.
    let table = String::from_utf8(run(&args)).unwrap();
    for needle in [
        "order by mean",
        "same order",
        "Kendall τ",
        "single draws keeping it",
    ] {
        assert!(table.contains(needle), "{needle} missing:\n{table}");
    }
}

#[test]
fn subsample_refuses_to_rank_across_scorers_unless_asked() {
    let dir = scratch("mixed");
    let bert = as_scorer(&dir, "cps", "bert", 0.0);
    let roberta = as_scorer(&dir, "aul", "roberta", 0.01);
    let base = ["robust", "subsample", "--scores", &bert, &roberta];
    let opts = ["--rates", "0.5", "--repeats", "3", "--format", "json"];
    let refused = bias(&[&base[..], &opts[..]].concat());
    assert_eq!(refused.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&refused.stderr);
    assert!(
        msg.contains("scorer `aul` has only model `roberta`") && msg.contains("--mix-scorers"),
        "{msg}"
    );
    let v: Value = serde_json::from_slice(&run(
        &[&base[..], &opts[..], &["--mix-scorers"][..]].concat()
    ))
    .unwrap();
    assert_eq!(
        v[0]["report"]["models"],
        serde_json::json!(["roberta (aul)", "bert (cps)"])
    );
    assert_eq!(v[0]["report"]["measures"], serde_json::json!(["indicator"]));
    assert_eq!(v[1]["scorers"], serde_json::json!(["aul"]));
    assert_eq!(
        v[1]["report"]["measures"],
        serde_json::json!(["kls", "jss"])
    );
}

#[test]
fn subsample_kls_and_jss_need_aul_scores_or_a_named_scorer() {
    let base = ["robust", "subsample", "--scores"];
    let demo = demo();
    let opts = ["--rates", "0.5", "--repeats", "3", "--format", "json"];
    let refused = bias(&[&base[..], &[demo.as_str()][..], &opts[..]].concat());
    assert_eq!(refused.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&refused.stderr);
    assert!(
        msg.contains("no `aul` scores") && msg.contains("--kls-jss-scorer"),
        "{msg}"
    );
    let v: Value = serde_json::from_slice(&run(&[
        &base[..],
        &[demo.as_str(), "--kls-jss-scorer", "unigram-mean"][..],
        &opts[..],
    ]
    .concat()))
    .unwrap();
    assert_eq!(
        v[0]["report"]["measures"],
        serde_json::json!(["indicator", "kls", "jss"])
    );
}

#[test]
fn human_agreement_auc_matches_scikit_learn() {
    let crows = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    assert!(crows.is_file(), "run scripts/setup.sh");
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/robust/human_auc.json")).unwrap(),
    )
    .unwrap();
    let v: Value = serde_json::from_slice(&run(&[
        "robust",
        "human",
        "--scores",
        &demo(),
        "--dataset",
        crows.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    let auc = v[0]["auc"].as_f64().unwrap();
    let want = reference["auc"].as_f64().unwrap();
    assert!(abs_diff_eq!(auc, want, epsilon = 1e-9), "{auc} vs {want}");
}

/// The model of a one-model table and its indicator `100 · #(score_stereo > score_anti) / n`
/// (liu2024 Eq. 2), counted here.
fn indicator_of(path: &str) -> (String, f64) {
    let table = bias_core::ScoreTable::read_csv_path(path).unwrap();
    let rows = table.rows();
    let model = rows[0].model.clone();
    assert!(rows.iter().all(|r| r.model == model));
    let k = rows
        .iter()
        .filter(|r| r.score_stereo > r.score_anti)
        .count();
    (model.to_string(), 100.0 * k as f64 / rows.len() as f64)
}

/// The Markdown section of `report.md` headed `## title`, up to the next heading.
fn md_section<'a>(md: &'a str, title: &str) -> &'a str {
    let head = format!("## {title}\n");
    let start = md
        .find(&head)
        .unwrap_or_else(|| panic!("no section {title}:\n{md}"));
    let rest = &md[start + head.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The demo table (scorer `unigram-mean`, no AUL rows) and its shifted copy: the report is
/// written, its sub-sampling study runs the indicator only and says why, and shows per rate
/// the order of the two models by the mean next to the single draws.
#[test]
fn report_writes_a_page_with_tables_and_figures() {
    let dir = scratch("report");
    let second = second_model(&dir);
    let out_dir = dir.join("report");
    let crows = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    let stdout = run(&[
        "report",
        "--scores",
        &demo(),
        &second,
        "--out",
        out_dir.to_str().unwrap(),
        // `--crows` is the old spelling of `--dataset`, kept as a hidden alias for one release.
        "--crows",
        crows.to_str().unwrap(),
        "--repeats",
        "10",
    ]);
    assert!(String::from_utf8_lossy(&stdout).contains("index.html"));
    let html = std::fs::read_to_string(out_dir.join("index.html")).unwrap();
    for needle in [
        "Bias measures",
        "Robustness to sub-sampling",
        "Sub-sampling on crows-pairs",
        "Agreement with human annotations",
        "<svg",
        "shifted",
        // The fallback, said in the report.
        "Data set `crows-pairs` has no `aul` scores (its scorers: unigram-mean): KLS and JSS",
        "so its sub-sampling study runs the indicator only.",
    ] {
        assert!(html.contains(needle), "index.html lacks {needle}");
    }
    // Full data, counted from the CSVs: the shifted model 66.6 (|x − 50| = 16.6), the
    // original 39.0 (11.0). Both models draw the same pairs and the gap is far wider than the
    // draws' spread (sd ≈ 1.8 at rate 0.3), so every draw, and the mean over the draws, keeps
    // the order: shifted first.
    let (original, full_original) = indicator_of(&demo());
    let (shifted, full_shifted) = indicator_of(&second);
    assert_eq!(shifted, "shifted");
    assert!((full_shifted - 50.0).abs() > (full_original - 50.0).abs() + 5.0);
    let order = format!("{shifted} > {original}");
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    let study = md_section(&md, "Sub-sampling on crows-pairs");
    for rate in ["0.30", "0.40", "0.50", "0.60", "0.70", "0.80"] {
        let line =
            format!("| indicator | {rate} | {order} | {order} | yes | 1.000 | 10/10 (100 %) |");
        assert!(study.contains(&line), "{line} missing:\n{study}");
    }
    let means = format!("| indicator | {shifted} | {full_shifted:.2} |");
    assert!(study.contains(&means), "{means} missing:\n{study}");

    // The summary puts the two models side by side, one column each under the scorer, the
    // overall row first with the values counted from the CSVs above; both are beyond noise
    // (|x − 50| ≥ 11 on 1,508 pairs), so both are starred.
    let summary = md_section(&md, "Summary");
    let header = format!("| bias type | UNIGRAM-MEAN · {original} | UNIGRAM-MEAN · {shifted} |");
    assert!(summary.contains(&header), "{header} missing:\n{summary}");
    let overall = summary
        .lines()
        .find(|l| l.starts_with("| **overall"))
        .unwrap_or_else(|| panic!("no overall row:\n{summary}"));
    for value in [full_original, full_shifted] {
        assert!(
            overall.contains(&format!(" {value:.2} * (")),
            "{value}: {overall}"
        );
    }
    // The models ranked (shifted further from 50), and every draw keeping that order.
    let models = md_section(&md, "Models compared");
    let ranked = format!(
        "| UNIGRAM-MEAN | {shifted} ({full_shifted:.2}) > {original} ({full_original:.2}) |"
    );
    assert!(models.contains(&ranked), "{ranked} missing:\n{models}");
    let kept = format!(
        "| UNIGRAM-MEAN on crows-pairs |{}",
        " 100 % (10/10) |".repeat(6)
    );
    assert!(models.contains(&kept), "{kept} missing:\n{models}");
    assert!(
        !study.contains("| kls |") && !study.contains("| jss |"),
        "{study}"
    );
    let png = std::fs::read(out_dir.join("figures/robustness_crows-pairs_indicator.png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    assert!(!out_dir
        .join("figures/robustness_crows-pairs_kls.png")
        .exists());
}

/// A `cps` table of 11 `toy` pairs ([`hand_scores`]: model `P` prefers the stereotype on the
/// pairs of types 0 and 1, model `Q` on those of type 3).
fn hand_table(dir: &std::path::Path, model: &str, stereo_types: &[usize]) -> String {
    let rows = hand_scores(stereo_types).into_iter().enumerate();
    let rows = rows
        .map(|(i, (ty, s, a))| bias_core::ScoreRow {
            pair_id: i.to_string(),
            dataset: "toy".into(),
            bias_type: ty.parse().unwrap(),
            direction: bias_core::Direction::Stereo,
            stereo: format!("stereo {i}"),
            anti: format!("anti {i}"),
            score_stereo: s,
            score_anti: a,
            scorer: "cps".into(),
            model: model.into(),
            tokens_stereo: None,
            tokens_anti: None,
            group_id: None,
        })
        .collect();
    let path = dir.join(format!("toy-{model}.csv"));
    bias_core::ScoreTable::new(rows)
        .write_csv_path(&path)
        .unwrap();
    path.display().to_string()
}

/// One study per (data set, scorer), as `bias robust subsample`: the CrowS-Pairs `aul` tables
/// get the indicator, KLS and JSS; the `toy` data set has `cps` scores only, so it gets the
/// indicator only, with a note, and its orders are the ones worked out by hand.
///
/// `toy` has 2, 2, 2 and 5 pairs of four types; `P` prefers the stereotype on the 4 pairs of
/// the first two, `Q` on the 5 of the last. With `c_k = ceil(n_k · rate)`:
///
/// | rate | c_k | P | Q | order (most biased first) |
/// |---|---|---|---|---|
/// | full | 2, 2, 2, 5 | 400/11 = 36.36 (dev 13.64) | 500/11 = 45.45 (dev 4.55) | P > Q |
/// | 0.5 | 1, 1, 1, 3 | 200/6 = 33.33 (dev 16.67) | 300/6 = 50 (dev 0) | P > Q: kept, τ = 1 |
/// | 0.6 | 2, 2, 2, 3 | 400/9 = 44.44 (dev 5.56) | 300/9 = 33.33 (dev 16.67) | Q > P: changed, τ = −1 |
/// | 0.8 | 2, 2, 2, 4 | 400/10 = 40 (dev 10) | 400/10 = 40 (dev 10) | a new tie: changed, τ n/a |
///
/// Every draw of a rate gives these values: the mean is the value, and every single draw keeps
/// the order or none does.
#[test]
fn report_runs_one_study_per_scorer_with_kls_and_jss_on_aul_only() {
    let dir = scratch("report-per-scorer");
    let files = [
        hand_table(&dir, "P", &[0, 1]),
        hand_table(&dir, "Q", &[3]),
        as_scorer(&dir, "aul", "P", 0.0),
        as_scorer(&dir, "aul", "Q", 0.02),
    ];
    let out_dir = dir.join("report");
    let crows = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    let mut args = vec!["report", "--scores"];
    args.extend(files.iter().map(String::as_str));
    args.extend([
        "--out",
        out_dir.to_str().unwrap(),
        "--dataset",
        crows.to_str().unwrap(),
        "--rates",
        "0.5,0.6,0.8",
        "--repeats",
        "3",
    ]);
    run(&args);
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    let overview = md_section(&md, "Robustness to sub-sampling");
    assert!(
        overview.contains("Data set \\`toy\\` has no \\`aul\\` scores (its scorers: cps)"),
        "{overview}"
    );
    assert!(
        !overview.contains("Data set \\`crows-pairs\\`"),
        "{overview}"
    );

    let toy = md_section(&md, "Sub-sampling on toy");
    for line in [
        "| indicator | 0.50 | P > Q | P > Q | yes | 1.000 | 3/3 (100 %) |",
        "| indicator | 0.60 | P > Q | Q > P | no | -1.000 | 0/3 (0 %) |",
        "| indicator | 0.80 | P > Q | P > Q | no | n/a | 0/3 (0 %) |",
        "| indicator | P | 36.36 | 33.33 | 44.44 | 40.00 |",
        "| indicator | Q | 45.45 | 50.00 | 33.33 | 40.00 |",
    ] {
        assert!(toy.contains(line), "{line} missing:\n{toy}");
    }
    assert!(
        !toy.contains("| kls |") && !toy.contains("| jss |"),
        "{toy}"
    );

    let aul = md_section(&md, "Sub-sampling on crows-pairs");
    for measure in ["indicator", "kls", "jss"] {
        for rate in ["0.50", "0.60", "0.80"] {
            assert!(
                aul.contains(&format!("| {measure} | {rate} |")),
                "{measure} at {rate} missing:\n{aul}"
            );
        }
    }
    // No study ranks one scorer's models against another's.
    assert!(!md.contains("P (aul)") && !md.contains("P (cps)"));

    // Figures per data set and measure, a panel per scorer; red rings (liu2024 Fig. 5's red
    // circles) around both models' means at 0.6 and 0.8 in the toy figure, and one in its
    // legend.
    let figures = out_dir.join("figures");
    for stem in [
        "robustness_toy_indicator",
        "robustness_crows-pairs_indicator",
        "robustness_crows-pairs_kls",
        "robustness_crows-pairs_jss",
    ] {
        assert!(figures.join(format!("{stem}.png")).is_file(), "{stem}");
    }
    assert!(!figures.join("robustness_toy_kls.png").exists());
    let svg = std::fs::read_to_string(figures.join("robustness_toy_indicator.svg")).unwrap();
    let rings = svg
        .split("<circle")
        .filter(|c| c.contains("stroke=\"#FF0000\"") && c.contains("fill=\"none\""))
        .count();
    assert_eq!(rings, 2 * 2 + 1, "{svg}");
}

/// Tables that could only be compared across scorers are refused, as by `bias robust
/// subsample`, unless `--mix-scorers` asks for it.
#[test]
fn report_refuses_to_rank_across_scorers_unless_asked() {
    let dir = scratch("report-mixed");
    let bert = as_scorer(&dir, "cps", "bert", 0.0);
    let roberta = as_scorer(&dir, "aul", "roberta", 0.01);
    let out_dir = dir.join("report");
    let base = [
        "report",
        "--scores",
        &bert,
        &roberta,
        "--out",
        out_dir.to_str().unwrap(),
        "--dataset",
        "/nonexistent",
        "--rates",
        "0.5",
        "--repeats",
        "2",
    ];
    let refused = bias(&base);
    assert_eq!(refused.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&refused.stderr);
    assert!(
        msg.contains("scorer `aul` has only model `roberta`") && msg.contains("--mix-scorers"),
        "{msg}"
    );
    run(&[&base[..], &["--mix-scorers"][..]].concat());
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    let mixed = md_section(&md, "Sub-sampling on crows-pairs");
    assert!(
        mixed.contains("models: roberta (aul), bert (cps);"),
        "{mixed}"
    );
}

/// A table holding only part of CrowS-Pairs (a `--limit` run, or pairs a scorer skipped) is
/// measured on the pairs it has, not refused.
#[test]
fn human_agreement_uses_the_pairs_a_table_has() {
    let dir = scratch("human-subset");
    let table = bias_core::ScoreTable::read_csv_path(demo()).unwrap();
    let rows: Vec<_> = table.into_rows().into_iter().take(300).collect();
    let path = dir.join("first300.csv");
    bias_core::ScoreTable::new(rows)
        .write_csv_path(&path)
        .unwrap();
    let crows = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    assert!(crows.is_file(), "run scripts/setup.sh");
    let v: Value = serde_json::from_slice(&run(&[
        "robust",
        "human",
        "--scores",
        path.to_str().unwrap(),
        "--dataset",
        crows.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    let n = v[0]["biased"].as_u64().unwrap() + v[0]["not_biased"].as_u64().unwrap();
    assert_eq!(n, 300);
}
