//! `bias robust paraphrase`: the shipped paraphrase set of the first 100 CrowS-Pairs pairs as the
//! default pair set of `--model`, `--pairs` for another file, `--scores` for a table scored
//! already, and the near-tie band on each scorer's scale. The model is the tiny random BERT of
//! `fixtures/models/bert`: the agreement numbers mean nothing, the counts and bands do.

use crate::support::bias_output as bias;
use approx::{abs_diff_eq, assert_abs_diff_eq};

use serde_json::Value;

use bias_testkit::root;

fn path(rel: &str) -> String {
    root().join(rel).display().to_string()
}

fn json(args: &[&str]) -> Vec<Value> {
    let out = bias(args);
    assert!(
        out.status.success(),
        "bias {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn row<'a>(rows: &'a [Value], scorer: &str, bias_type: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["scorer"] == scorer && r["bias_type"] == bias_type)
        .unwrap_or_else(|| panic!("no row for {scorer} / {bias_type}"))
}

#[test]
fn model_scores_the_shipped_set_by_default() {
    let dir = std::env::temp_dir().join(format!("bias-robust-paraphrase-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let saved = dir.join("scores.csv").display().to_string();
    let model = path("fixtures/models/bert");
    let rows = json(&[
        "robust",
        "paraphrase",
        "--model",
        &model,
        "--device",
        "cpu",
        "--scorers",
        "aul",
        "--save-scores",
        &saved,
        "--format",
        "json",
    ]);
    let all = row(&rows, "aul", "all");
    assert_eq!(all["dataset"], "crows-pairs-first100-paraphrases");
    assert_eq!(all["groups"], 100);
    assert_eq!(all["paraphrases"], 374);
    for (ty, groups, paraphrases) in [
        ("race-color", 34, 106),
        ("gender", 20, 100),
        ("disability", 11, 41),
        ("socioeconomic", 10, 38),
        ("nationality", 10, 32),
        ("physical-appearance", 7, 30),
        ("sexual-orientation", 3, 11),
        ("religion", 3, 10),
        ("age", 2, 6),
    ] {
        let r = row(&rows, "aul", ty);
        assert_eq!(
            (r["groups"].as_u64(), r["paraphrases"].as_u64()),
            (Some(groups), Some(paraphrases)),
            "{ty}"
        );
    }
    // AUL is a per-token mean: the band is 0.25 / n̄, n̄ the table's mean tokens per sentence.
    assert_eq!(all["scale"], "per-token mean");
    let n = all["mean_tokens"].as_f64().unwrap();
    let band = all["near_tie_band"].as_f64().unwrap();
    assert!(
        abs_diff_eq!(band, 0.25 / n, epsilon = 1e-12),
        "{band} vs 0.25 / {n}"
    );

    // The saved table gives the same report through --scores.
    let again = json(&[
        "robust",
        "paraphrase",
        "--scores",
        &saved,
        "--format",
        "json",
    ]);
    assert_eq!(again, rows);
    let table = bias_core::ScoreTable::read_csv_path(&saved).unwrap();
    assert_eq!(table.len(), 474);
    // n̄ and MPER_AGREE recomputed from the saved scores, without the library: n̄ is the mean
    // over rows of (tokens_stereo + tokens_anti) / 2; a paraphrase agrees when its preferred
    // side (stereo > anti) is its original's.
    let rows_ = table.rows();
    let n_by_hand = rows_
        .iter()
        .map(|r| (r.tokens_stereo.unwrap() + r.tokens_anti.unwrap()) as f64 / 2.0)
        .sum::<f64>()
        / rows_.len() as f64;
    assert!(
        abs_diff_eq!(n, n_by_hand, epsilon = 1e-12),
        "{n} vs {n_by_hand}"
    );
    let prefers = |id: &str| {
        let r = rows_.iter().find(|r| r.pair_id == id).unwrap();
        r.score_stereo > r.score_anti
    };
    let paraphrases: Vec<_> = rows_
        .iter()
        .filter(|r| Some(&r.pair_id) != r.group_id.as_ref())
        .collect();
    let agreeing = paraphrases
        .iter()
        .filter(|r| prefers(&r.pair_id) == prefers(r.group_id.as_ref().unwrap()))
        .count();
    let para = all["paraphrase_agree"].as_f64().unwrap();
    let by_hand = agreeing as f64 / paraphrases.len() as f64;
    assert!(
        abs_diff_eq!(para, by_hand, epsilon = 1e-12),
        "{para} vs {agreeing}/{}",
        paraphrases.len()
    );
    // MPER_AGREE (the paper's Figures 2–3): originals all of whose paraphrases agree.
    let groups: std::collections::BTreeSet<&str> = rows_
        .iter()
        .map(|r| r.group_id.as_deref().unwrap())
        .collect();
    let full = groups
        .iter()
        .filter(|g| {
            paraphrases
                .iter()
                .filter(|r| r.group_id.as_deref() == Some(**g))
                .all(|r| prefers(&r.pair_id) == prefers(g))
        })
        .count();
    let mper = all["mper_agree"].as_f64().unwrap();
    assert_eq!(all["agreeing_groups"].as_u64(), Some(full as u64));
    assert!(
        abs_diff_eq!(mper, full as f64 / groups.len() as f64, epsilon = 1e-12),
        "{mper} vs {full}/{}",
        groups.len()
    );
    assert_eq!(all["group_agree"], all["mper_agree"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pairs_flag_scores_another_file_on_the_sum_scale() {
    let model = path("fixtures/models/bert");
    let pairs = path("fixtures/paraphrase/pairs.csv");
    let rows = json(&[
        "robust",
        "paraphrase",
        "--model",
        &model,
        "--device",
        "cpu",
        "--pairs",
        &pairs,
        "--scorers",
        "cps",
        "--format",
        "json",
    ]);
    let all = row(&rows, "cps", "all");
    assert_eq!(all["dataset"], "pairs");
    assert_eq!(
        (all["groups"].as_u64(), all["paraphrases"].as_u64()),
        (Some(21), Some(63))
    );
    // CPS sums log-probabilities: the paper's band as it is.
    assert_eq!(all["scale"], "sum");
    assert_eq!(all["near_tie_band"], 0.25);
    assert_eq!(all["mean_tokens"], Value::Null);
}

#[test]
fn usage_errors_are_clear() {
    let out = bias(&["robust", "paraphrase"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--scores") && err.contains("--model"), "{err}");

    let out = bias(&[
        "robust",
        "paraphrase",
        "--scores",
        &path("fixtures/scores/crows_pairs_unigram.csv"),
        "--pairs",
        &path("fixtures/paraphrase/pairs.csv"),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// A score table of model `model`, scorer cps: (pair id, group, MDIFF) rows of gender pairs.
fn hand_table(model: &str, rows: &[(&str, &str, f64)]) -> bias_core::ScoreTable {
    bias_core::ScoreTable::new(
        rows.iter()
            .map(|&(id, group, mdiff)| bias_core::ScoreRow {
                pair_id: id.into(),
                dataset: "hand".into(),
                bias_type: bias_core::BiasType::Gender,
                direction: bias_core::Direction::Stereo,
                stereo: format!("{id} s"),
                anti: format!("{id} a"),
                score_stereo: -10.0 + mdiff,
                score_anti: -10.0,
                scorer: "cps".into(),
                model: model.into(),
                tokens_stereo: None,
                tokens_anti: None,
                group_id: Some(group.into()),
            })
            .collect(),
    )
}

#[test]
fn figures_flag_draws_figures_2_to_4_over_the_models_given() {
    let dir = std::env::temp_dir().join(format!("bias-paraphrase-figs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // m1: g1 (+1; +0.5, +0.2) agrees fully, g2 (−1; +0.3) does not → 1 of 2 originals.
    // m2: g1 (+1; −0.5, +0.2) and g2 (−1; +0.3) both flip → 0 of 2.
    let a = dir.join("m1.csv");
    let b = dir.join("m2.csv");
    hand_table(
        "m1",
        &[
            ("g1", "g1", 1.0),
            ("g1-p1", "g1", 0.5),
            ("g1-p2", "g1", 0.2),
            ("g2", "g2", -1.0),
            ("g2-p1", "g2", 0.3),
        ],
    )
    .write_csv_path(&a)
    .unwrap();
    hand_table(
        "m2",
        &[
            ("g1", "g1", 1.0),
            ("g1-p1", "g1", -0.5),
            ("g1-p2", "g1", 0.2),
            ("g2", "g2", -1.0),
            ("g2-p1", "g2", 0.3),
        ],
    )
    .write_csv_path(&b)
    .unwrap();
    let figs = dir.join("figs");
    let (a, b, f) = (
        a.display().to_string(),
        b.display().to_string(),
        figs.display().to_string(),
    );
    let rows = json(&[
        "robust",
        "paraphrase",
        "--scores",
        &a,
        &b,
        "--figures",
        &f,
        "--format",
        "json",
    ]);
    let m1 = rows
        .iter()
        .find(|r| r["model"] == "m1" && r["bias_type"] == "all")
        .unwrap();
    assert_eq!(m1["mper_agree"], 0.5);
    // Paraphrases: g1-p1, g1-p2 agree, g2-p1 flips: 2 of 3.
    assert_abs_diff_eq!(
        m1["paraphrase_agree"].as_f64().unwrap(),
        2.0 / 3.0,
        epsilon = 1e-12
    );
    for n in ["2", "3", "4"] {
        for ext in ["png", "svg"] {
            assert!(
                figs.join(format!("cps_figure-{n}.{ext}")).is_file(),
                "{n}.{ext}"
            );
        }
    }
    let f2 = std::fs::read_to_string(figs.join("cps_figure-2.svg")).unwrap();
    assert!(
        f2.contains("1/2 (50 %)") && f2.contains("0/2 (0 %)"),
        "{f2}"
    );
    assert!(f2.contains("\nm1\n") && f2.contains("\nm2\n"));
    let _ = std::fs::remove_dir_all(&dir);
}
