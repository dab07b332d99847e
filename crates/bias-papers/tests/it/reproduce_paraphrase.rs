//! The paraphrase reproduction (`bias_papers::reproduce_paraphrase`, Kwon &
//! Mihindukulasooriya 2022) on a model whose verdicts are fixed in advance — every pair prefers
//! the stereotypical sentence except each original's first paraphrase (`<id>-p1`) — so that
//! MPER_AGREE is a count: 0 with every paraphrase (every original has a `-p1`), and with the
//! paper's group sizes the share of originals whose draw left `-p1` out. Checked: both group
//! sizes side by side (mean, spread over seeds), the group sizes per bias type worked out from
//! Table 1, the paper's rows as the paper prints them, and JSON cells that are numbers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use approx::assert_abs_diff_eq;
use bias_core::{
    DatasetScorer, PairOutcome, PairScore, PairScorer, ScoringRun, SentencePair, SentenceScore,
};
use bias_papers::{reproduce_paraphrase, Paper, Paraphrase2022Options, Reproduction, Study};
use bias_robust::paraphrase::{
    crows_pairs_first100, draw_paper_group_sizes, GroupSizes, Table1Reading,
};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("paraphrase-repro-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Scores with `cps`: MDIFF −1 for a pair whose id ends in `-p1`, +1 for every other.
struct Fake;

impl PairScorer for Fake {
    type Error = std::io::Error;
    fn scorer_names(&self) -> Vec<String> {
        vec!["cps".into()]
    }
    fn score_pairs(&mut self, pairs: &[SentencePair]) -> Result<Vec<PairOutcome>, Self::Error> {
        let s = |score| SentenceScore {
            score,
            scored_tokens: 5,
            correct_predictions: None,
        };
        Ok(pairs
            .iter()
            .map(|p| {
                let (stereo, anti) = if p.id.ends_with("-p1") {
                    (-3.0, -2.0)
                } else {
                    (-2.0, -3.0)
                };
                PairOutcome::Scored {
                    scores: vec![PairScore {
                        scorer: "cps".into(),
                        stereo: s(stereo),
                        anti: s(anti),
                    }],
                    unscorable: Vec::new(),
                }
            })
            .collect())
    }
}

fn run(name: &str, options: &Paraphrase2022Options) -> Result<PathBuf, bias_papers::PaperError> {
    let dir = scratch(name);
    let models: Vec<Box<dyn DatasetScorer>> = vec![Box::new(ScoringRun::new("fake", "fake", Fake))];
    let mut study = Study::new(models, dir.join("data"), dir.join("scores"))?;
    let mut out = Reproduction::create(Paper::Paraphrase, dir.join("out"))?;
    let result = reproduce_paraphrase(&mut study, &mut out, options);
    out.finish()?;
    result.map(|()| dir.join("out"))
}

fn rows(out: &Path, id: &str) -> Vec<Value> {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(format!("{id}.json"))).unwrap())
            .unwrap();
    v["table"]["rows"].as_array().unwrap().clone()
}

/// Originals of the shipped set whose draw with `seed` left their `-p1` out, of 100.
fn agreeing_originals(seed: u64) -> usize {
    let drawn = draw_paper_group_sizes(
        &crows_pairs_first100(),
        Table1Reading::IncludesOriginals,
        seed,
    )
    .unwrap();
    let originals = drawn
        .iter()
        .filter(|p| p.group_id.as_deref() == Some(&p.id))
        .count();
    let with_p1 = drawn.iter().filter(|p| p.id.ends_with("-p1")).count();
    originals - with_p1
}

fn num(row: &Value, column: &str) -> f64 {
    row[column]
        .as_f64()
        .unwrap_or_else(|| panic!("{column} of {row}"))
}

#[test]
fn both_group_sizes_side_by_side_with_the_papers_numbers() {
    let options = Paraphrase2022Options {
        seed: 10,
        draws: 4,
        ..Paraphrase2022Options::default()
    };
    let out = run("both", &options).unwrap();
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("index.json")).unwrap()).unwrap();
    let ids: Vec<&str> = index["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    for id in [
        "table-1",
        "analysis-2.1-group-sizes",
        "figure-1",
        "table-2",
        "analysis-2.2",
        "analysis-2.2-group-sizes",
        "figure-2",
        "figure-3",
        "figure-4",
    ] {
        assert!(ids.contains(&id), "{id} not in {ids:?}");
    }

    // Every paraphrase: every original has a -p1 (3 to 5 paraphrases each), so none agrees.
    let a = rows(&out, "analysis-2.2-group-sizes");
    let here = |ty: &str, sizes: &str| -> &Value {
        a.iter()
            .find(|r| r["source"] == "here" && r["bias type"] == ty && r["group sizes"] == sizes)
            .unwrap_or_else(|| panic!("no row {ty} {sizes}"))
    };
    let all = here("all", "all");
    assert_eq!(all["originals"], 100);
    assert_eq!(all["paraphrases"], 374);
    assert_abs_diff_eq!(num(all, "paraphrases per original"), 3.74);
    assert_eq!(num(all, "MPER_AGREE %"), 0.0);
    assert!(all["draws"].is_null() && all["MPER_AGREE % SD"].is_null());

    // Paper-sized: seeds 10 to 13; each MPER_AGREE the originals without their -p1.
    let per_seed: Vec<f64> = (10..14).map(|s| agreeing_originals(s) as f64).collect();
    assert!(per_seed.iter().all(|&v| v > 0.0), "{per_seed:?}");
    let mean = per_seed.iter().sum::<f64>() / 4.0;
    let sd = (per_seed.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
    let drawn = here("all", "paper (includes-originals)");
    assert_eq!(drawn["draws"], 4);
    assert_eq!(drawn["originals"], 100);
    // 383 − 100 = 283 paraphrases, 2.83 per original.
    assert_abs_diff_eq!(num(drawn, "paraphrases"), 283.0);
    assert_abs_diff_eq!(num(drawn, "paraphrases per original"), 2.83);
    assert_abs_diff_eq!(num(drawn, "MPER_AGREE %"), mean, epsilon = 0.05);
    assert_abs_diff_eq!(num(drawn, "MPER_AGREE % SD"), sd, epsilon = 0.05);
    let lo = per_seed.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = per_seed.iter().copied().fold(0.0, f64::max);
    assert_eq!(num(drawn, "MPER_AGREE % min"), lo);
    assert_eq!(num(drawn, "MPER_AGREE % max"), hi);
    // Gender keeps 109 − 20 = 89 of its 20 × 5.
    let gender = here("gender", "paper (includes-originals)");
    assert_abs_diff_eq!(num(gender, "paraphrases"), 89.0);
    assert_eq!(here("gender", "all")["paraphrases"], 100);

    // The paper's rows: §2.2 and Figure 3 as printed.
    let paper: BTreeMap<(String, String), f64> = a
        .iter()
        .filter(|r| r["source"] == "paper")
        .map(|r| {
            (
                (
                    r["model"].as_str().unwrap().to_owned(),
                    r["bias type"].as_str().unwrap().to_owned(),
                ),
                num(r, "MPER_AGREE %"),
            )
        })
        .collect();
    let printed: BTreeMap<(String, String), f64> = [
        ("DistilBERT-base", "all", 75.0),
        ("MPNet-base", "all", 57.0),
        ("ALBERT-XXL-v2", "gender", 38.0),
        ("MPNet-base", "gender", 43.0),
        ("RoBERTa-large", "gender", 43.0),
        ("BERT-base", "gender", 67.0),
        ("DistilBERT-base", "gender", 71.0),
    ]
    .into_iter()
    .map(|(m, t, v)| ((m.to_owned(), t.to_owned()), v))
    .collect();
    assert_eq!(paper, printed);

    // analysis-2.2 with every paraphrase (the default): the same count, the paper's rows too.
    let b = rows(&out, "analysis-2.2");
    let all = b
        .iter()
        .find(|r| r["source"] == "here" && r["bias type"] == "all")
        .unwrap();
    assert_eq!(all["group sizes"], "all");
    assert_eq!(all["MAGREEMENT = 1"], 0);
    // 374 − 100 paraphrases agree (all but the -p1s).
    assert_abs_diff_eq!(
        num(all, "paraphrases agreeing %"),
        100.0 * 274.0 / 374.0,
        epsilon = 0.05
    );
    assert_eq!(b.iter().filter(|r| r["source"] == "paper").count(), 7);

    // The group sizes per bias type: Table 1, less the originals for the draw.
    let g = rows(&out, "analysis-2.1-group-sizes");
    let by_label: BTreeMap<&str, &Value> = g
        .iter()
        .map(|r| (r["bias type"].as_str().unwrap(), r))
        .collect();
    for (label, originals, here, table_1) in [
        ("Race", 34, 106, 106),
        ("Gender", 20, 100, 109),
        ("Sexual Orientation", 3, 11, 11),
        ("Religion", 3, 10, 10),
        ("Age", 2, 6, 6),
        ("Nationality", 10, 32, 32),
        ("Disability", 11, 41, 41),
        ("Physical appearance", 7, 30, 30),
        ("Socioeconomic status", 10, 38, 38),
        ("Total", 100, 374, 383),
    ] {
        let r = by_label[label];
        assert_eq!(r["originals (here)"], originals, "{label}");
        assert_eq!(r["paraphrases (here)"], here, "{label}");
        assert_eq!(r["samples (paper, Table 1)"], table_1, "{label}");
        assert_eq!(
            r["paraphrases if 383 include the originals"],
            table_1 - originals,
            "{label}"
        );
        assert_eq!(
            r["paraphrases kept (paper-sized draw)"],
            table_1 - originals,
            "{label}"
        );
        let per = |n: usize| (n as f64 / originals as f64 * 100.0).round() / 100.0;
        assert_abs_diff_eq!(
            num(r, "per original if 383 are paraphrases"),
            per(table_1),
            epsilon = 0.006
        );
    }
    // Gender as paraphrases only: 109 / 20 = 5.45, above §2.1's 5.
    assert_abs_diff_eq!(
        num(by_label["Gender"], "per original if 383 are paraphrases"),
        5.45
    );

    // Table 2's paper rows as printed.
    let t2 = rows(&out, "table-2");
    let albert = t2
        .iter()
        .find(|r| r["source"] == "paper" && r["model"] == "ALBERT-XXL-v2")
        .unwrap();
    assert_eq!(
        [
            num(albert, "attacked"),
            num(albert, "assaulted"),
            num(albert, "ambushed")
        ],
        [0.0177, 0.0609, -0.1344]
    );
    let fake = t2.iter().find(|r| r["source"] == "here").unwrap();
    assert_eq!(
        [
            num(fake, "attacked"),
            num(fake, "assaulted"),
            num(fake, "ambushed")
        ],
        [1.0, -1.0, 1.0]
    );

    // JSON cells are numbers: no text cell of a table (but the sentence ids of Figure 1) reads
    // as a number, or starts with one ("3.73 (-0.18)", "75 †").
    for id in [
        "table-1",
        "analysis-2.1-group-sizes",
        "table-2",
        "analysis-2.2",
        "analysis-2.2-group-sizes",
    ] {
        for r in rows(&out, id) {
            for (column, cell) in r.as_object().unwrap() {
                if let Some(text) = cell.as_str() {
                    let first = text.split_whitespace().next().unwrap_or("");
                    assert!(
                        first.parse::<f64>().is_err(),
                        "{id}: {column} = {text:?} is text"
                    );
                }
            }
        }
    }
}

#[test]
fn the_paper_sized_draw_in_figures_and_analysis() {
    let options = Paraphrase2022Options {
        group_sizes: GroupSizes::Paper,
        seed: 3,
        draws: 1,
        ..Paraphrase2022Options::default()
    };
    let out = run("paper", &options).unwrap();
    let b = rows(&out, "analysis-2.2");
    let all = b
        .iter()
        .find(|r| r["source"] == "here" && r["bias type"] == "all")
        .unwrap();
    assert_eq!(all["group sizes"], "paper (includes-originals) seed 3");
    assert_eq!(all["paraphrases"], 283);
    assert_eq!(all["MAGREEMENT = 1"], agreeing_originals(3));
    // One draw: no standard deviation, least = greatest = the value.
    let a = rows(&out, "analysis-2.2-group-sizes");
    let drawn = a
        .iter()
        .find(|r| r["group sizes"] == "paper (includes-originals)" && r["bias type"] == "all")
        .unwrap();
    assert!(drawn["MPER_AGREE % SD"].is_null());
    assert_eq!(num(drawn, "MPER_AGREE % min"), agreeing_originals(3) as f64);
    // Figure 2's label is the draw's count.
    let f2 = std::fs::read_to_string(out.join("figure-2.svg")).unwrap();
    let label = format!("{}/100", agreeing_originals(3));
    assert!(f2.contains(&label), "{label}");
}

#[test]
fn options_the_set_cannot_meet_are_errors() {
    let e = run(
        "only",
        &Paraphrase2022Options {
            reading: Table1Reading::ParaphrasesOnly,
            ..Paraphrase2022Options::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("bias type gender") && e.contains("= 109") && e.contains("at most the 100"),
        "{e}"
    );
    let e = run(
        "zero",
        &Paraphrase2022Options {
            draws: 0,
            ..Paraphrase2022Options::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("paraphrase draws = 0"), "{e}");
}
