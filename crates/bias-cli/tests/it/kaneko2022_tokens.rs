//! Token-prediction accuracy of Kaneko & Bollegala (2022, §4.2, Tables 1 and 4) against
//! `transformers` (scripts/fixtures/kaneko2022_tokens.py → fixtures/kaneko2022/tokens.json) on
//! the fixture BERT and RoBERTa: per-token arg-max outcomes of `StudiedMlm`, and the accuracies and
//! McNemar tests of `bias_papers::scorer_accuracy` / `unrelated_accuracy` under every
//! option. The fixture keeps only pairs with no near-tied arg-max (top-2 log-probabilities 1e-4
//! apart or more), so the boolean outcomes are compared exactly.

use approx::abs_diff_eq;
use bias_testkit::json;
use std::path::PathBuf;

use bias_core::{SentencePair, TokenPredictor, TokenQuery};
use bias_papers::{
    scorer_accuracy, unrelated_accuracy, AccuracyOptions, AccuracySet, AulTokens, StereoSetAccuracy,
};
use bias_plm::{DeviceSpec, MaskedLm, StudiedMlm};
use serde_json::Value;

use bias_testkit::root;
use bias_testkit::Run;

fn fixture() -> Value {
    let text = std::fs::read_to_string(root().join("fixtures/kaneko2022/tokens.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn open(name: &str) -> StudiedMlm {
    let lm = MaskedLm::open(
        root().join("fixtures/models").join(name),
        DeviceSpec::Cpu,
        tch::Kind::Float,
    )
    .unwrap();
    StudiedMlm::new(lm)
}

fn bools(v: &Value) -> Vec<bool> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_bool().unwrap())
        .collect()
}

fn counts(v: &Value) -> (usize, usize) {
    (
        v[0].as_u64().unwrap() as usize,
        v[1].as_u64().unwrap() as usize,
    )
}

/// The fixture's pairs, as the data loader reads them (checked sentence by sentence).
fn pairs(set: &str, fx: &Value) -> Vec<SentencePair> {
    let path = match set {
        "crows-pairs" => bias_data::layout::crows_pairs(root().join("data")),
        _ => bias_data::layout::stereoset_dev(root().join("data")),
    };
    let all = bias_data::load_pairs(path).unwrap().pairs;
    fx.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let id = p["id"].as_str().unwrap();
            let found = all
                .iter()
                .find(|q| q.id == id)
                .unwrap_or_else(|| panic!("pair {id} not in {set}"));
            assert_eq!(found.stereo, p["stereo"].as_str().unwrap(), "{set} {id}");
            assert_eq!(found.anti, p["anti"].as_str().unwrap(), "{set} {id}");
            found.clone()
        })
        .collect()
}

/// The checkpoints of the reference: the two random ones and `bert-trained`, trained to predict
/// some tokens right (scripts/fixtures/trained_mlm.py), without which every StereoSet outcome
/// of the reference would be wrong and an implementation answering "wrong" everywhere would pass.
const MODELS: [&str; 3] = ["bert", "roberta", "bert-trained"];

/// The reference discriminates: on the trained checkpoint some outcomes are right and some
/// wrong, on both data sets, unmasked and masked.
#[test]
fn the_reference_has_right_and_wrong_outcomes() {
    let fx = fixture();
    let m = &fx["models"]["bert-trained"];
    for (set, key) in [("crows-pairs", "paper/token"), ("stereoset", "paper/item")] {
        let aul = counts(&m[set]["accuracy"][key]["aul"]);
        assert!(aul.0 > 0 && aul.0 < aul.1, "{set} AUL {aul:?}");
    }
    let cps = counts(&m["crows-pairs"]["accuracy"]["paper/token"]["masked"]);
    assert!(cps.0 > 0 && cps.0 < cps.1, "CPS {cps:?}");
    let ss_tokens = counts(&m["stereoset"]["accuracy"]["sentence/token"]["unrelated"]);
    assert!(
        ss_tokens.0 > 0 && ss_tokens.0 < ss_tokens.1,
        "unrelated {ss_tokens:?}"
    );
}

#[test]
fn per_token_outcomes_match_transformers() {
    let fx = fixture();
    for name in MODELS {
        let mut m = open(name);
        let mut checked = 0;
        for set in ["crows-pairs", "stereoset"] {
            for p in fx["models"][name][set]["pairs"].as_array().unwrap() {
                let sentences = [p["stereo"].as_str().unwrap(), p["anti"].as_str().unwrap()];
                let outcomes = m.token_outcomes(&sentences).unwrap();
                for (side, sd) in p["sides"].as_array().unwrap().iter().enumerate() {
                    let ids: Vec<i64> = json::ints(&sd["ids"]);
                    assert_eq!(m.token_ids(sentences[side]).unwrap(), ids);
                    let unmasked = bools(&sd["unmasked"]);
                    // token_outcomes: the non-special positions.
                    assert_eq!(
                        outcomes[side],
                        unmasked[1..unmasked.len() - 1],
                        "{name} {set} {} side {side}",
                        p["id"]
                    );
                    // predict_tokens with the masked scorer's masks.
                    let at: Vec<usize> = sd["paper"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_u64().unwrap() as usize)
                        .collect();
                    let masked = bools(&sd["masked"]);
                    if set == "stereoset" && !at.is_empty() {
                        let q = TokenQuery {
                            ids: ids.clone(),
                            masked: at.clone(),
                            targets: at.clone(),
                        };
                        assert_eq!(m.predict_tokens(&[q]).unwrap()[0], masked);
                    } else if set == "crows-pairs" {
                        let qs: Vec<TokenQuery> = at
                            .iter()
                            .map(|&p| TokenQuery {
                                ids: ids.clone(),
                                masked: vec![p],
                                targets: vec![p],
                            })
                            .collect();
                        let got: Vec<bool> = m
                            .predict_tokens(&qs)
                            .unwrap()
                            .into_iter()
                            .map(|o| o[0])
                            .collect();
                        assert_eq!(got, masked);
                    }
                    checked += unmasked.len() + masked.len();
                }
            }
        }
        assert!(checked > 1000, "{name}: only {checked} outcomes compared");
    }
}

#[test]
fn accuracies_and_mcnemar_match_the_reference_under_every_option() {
    let fx = fixture();
    let unrelated_all = bias_data::stereoset::unrelated_pairs(bias_data::layout::stereoset_dev(
        root().join("data"),
    ))
    .unwrap();
    for name in MODELS {
        let mut m = open(name);
        for (set_name, set) in [
            ("crows-pairs", AccuracySet::CrowsPairs),
            ("stereoset", AccuracySet::StereoSet),
        ] {
            let entry = &fx["models"][name][set_name];
            let ps = pairs(set_name, &entry["pairs"]);
            let unrelated: Vec<SentencePair> = ps
                .iter()
                .filter(|_| set == AccuracySet::StereoSet)
                .map(|p| {
                    let id = format!("{}/stereo-unrelated", p.id);
                    unrelated_all.iter().find(|u| u.id == id).unwrap().clone()
                })
                .collect();
            for (key, want) in entry["accuracy"].as_object().unwrap() {
                let (tokens, unit) = key.split_once('/').unwrap();
                // Every option on BERT; the paper's token set on RoBERTa (keeps the test short).
                if name == "roberta" && tokens != "paper" {
                    continue;
                }
                let options = AccuracyOptions {
                    aul_tokens: tokens.parse::<AulTokens>().unwrap(),
                    stereoset: unit.parse::<StereoSetAccuracy>().unwrap(),
                };
                let got = scorer_accuracy(&mut m, set, &ps, options).unwrap();
                let ctx = format!("{name} {set_name} {key}");
                assert_eq!(got.unit, unit, "{ctx}");
                assert_eq!(
                    (got.masked.correct(), got.masked.total()),
                    counts(&want["masked"]),
                    "{ctx}"
                );
                assert_eq!(
                    (got.aul.correct(), got.aul.total()),
                    counts(&want["aul"]),
                    "{ctx}"
                );
                assert_eq!(got.pairs as u64, want["pairs"].as_u64().unwrap(), "{ctx}");
                let test = got.test.unwrap();
                let table: [[u64; 2]; 2] =
                    serde_json::from_value(want["mcnemar"]["table"].clone()).unwrap();
                assert_eq!(test.table, table, "{ctx}");
                let p = want["mcnemar"]["exact_p"].as_f64().unwrap();
                assert!(
                    abs_diff_eq!(test.exact.p_value, p, epsilon = 1e-9 * p.max(1e-300)),
                    "{ctx}"
                );
                match want["mcnemar"]["chi2_p"].as_f64() {
                    Some(p) => assert!(
                        abs_diff_eq!(
                            test.chi2.unwrap().p_value,
                            p,
                            epsilon = 1e-9 * p.max(1e-300)
                        ),
                        "{ctx}"
                    ),
                    None => assert!(test.chi2.is_none(), "{ctx}"),
                }
                if set == AccuracySet::StereoSet {
                    // Like with like: the unrelated sentence's candidate against the
                    // stereotypical sentence's, one sentence each.
                    let u = unrelated_accuracy(&mut m, &unrelated, options).unwrap();
                    assert_eq!(
                        (u.changed.correct(), u.changed.total()),
                        counts(&want["unrelated"]),
                        "{ctx} unrelated"
                    );
                    assert_eq!(
                        (u.original.correct(), u.original.total()),
                        counts(&want["unrelated_original"]),
                        "{ctx} unrelated original"
                    );
                    assert!(u.test.is_none());
                }
            }
        }
    }
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("k22-tokens-{name}"))
}

fn evaluate_json(args: &[&str]) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bias"))
        .current_dir(root())
        .args(["evaluate", "--token-accuracy"])
        .args(args)
        .args(["--format", "json"])
        .succeeds();
    serde_json::from_slice(&out.stdout).unwrap()
}

fn count(v: &Value) -> (u64, u64) {
    (v["correct"].as_u64().unwrap(), v["total"].as_u64().unwrap())
}

/// `bias evaluate --aul-accuracy-tokens`: each choice changes AUL's count, and each equals an
/// independent count: `sentence` = the AUL scorer's own tally (every non-special position),
/// `with-special` = that plus the two special tokens of each sentence, `paper` = CPS's positions
/// (CPS's total equals the CPS scorer's tally).
#[test]
fn evaluate_aul_accuracy_tokens() {
    let dir = scratch("cp");
    // Six race-color pairs of CrowS-Pairs (one bias type, so KLS/JSS have their 2 observations).
    let text = std::fs::read_to_string(root().join("data/crows-pairs/crows_pairs_anonymized.csv"))
        .unwrap();
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let mut w = csv::Writer::from_path(dir.join("cp.csv")).unwrap();
    w.write_record(rdr.headers().unwrap()).unwrap();
    let mut n = 0;
    for r in rdr.records() {
        let r = r.unwrap();
        if &r[4] == "race-color" && n < 6 {
            w.write_record(&r).unwrap();
            n += 1;
        }
    }
    w.flush().unwrap();
    let data = dir.join("cp.csv");
    let out = dir.join("scores.csv");
    let base = [
        "--model",
        "fixtures/models/bert",
        "--dataset",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let run = |tokens: &str| {
        let mut a = base.to_vec();
        a.extend(["--aul-accuracy-tokens", tokens]);
        evaluate_json(&a)
    };
    let paper = run("paper");
    let sentence = run("sentence");
    let special = run("with-special");
    let tally = &paper["accuracy"];
    let ta = &paper["token_accuracy"];
    assert_eq!(ta["masked_scorer"], "cps");
    assert_eq!(ta["unit"], "token");
    assert_eq!(ta["pairs"], 6);
    assert_eq!(count(&ta["masked"]), count(&tally["cps"]));
    assert_eq!(ta["aul"]["total"], tally["cps"]["total"]);
    assert_eq!(
        count(&sentence["token_accuracy"]["aul"]),
        count(&tally["aul"])
    );
    let (c, t) = count(&tally["aul"]);
    let (sc, st) = count(&special["token_accuracy"]["aul"]);
    assert_eq!(st, t + 2 * 2 * 6);
    assert!(sc >= c);
    assert_ne!(count(&ta["aul"]), count(&sentence["token_accuracy"]["aul"]));
    assert_eq!(special["token_accuracy"]["aul_tokens"], "with-special");
    // The test pairs the same tokens whatever AUL counts.
    assert_eq!(
        paper["token_accuracy"]["mcnemar_exact_p"],
        special["token_accuracy"]["mcnemar_exact_p"]
    );
}

/// `bias evaluate --stereoset-accuracy`: `item` counts one outcome per StereoSet item, `token`
/// the modified positions, whose SSS count is the SSS scorer's own tally.
#[test]
fn evaluate_stereoset_accuracy() {
    let dir = scratch("ss");
    let out = dir.join("ss.csv");
    let run = |unit: &str| {
        evaluate_json(&[
            "--model",
            "fixtures/models/bert",
            "--dataset",
            "stereoset",
            "--limit",
            "30",
            "--out",
            out.to_str().unwrap(),
            "--stereoset-accuracy",
            unit,
        ])
    };
    let item = run("item");
    let token = run("token");
    let ti = &item["token_accuracy"];
    let tt = &token["token_accuracy"];
    assert_eq!(
        (ti["masked_scorer"].as_str(), ti["unit"].as_str()),
        (Some("sss"), Some("item"))
    );
    assert_eq!(ti["masked"]["total"], 30);
    assert_eq!(ti["aul"]["total"], 30);
    assert_eq!(tt["unit"], "token");
    assert_eq!(count(&tt["masked"]), count(&item["accuracy"]["sss"]));
    assert_eq!(tt["aul"]["total"], item["accuracy"]["sss"]["total"]);
    assert_ne!(ti["aul"]["total"], tt["aul"]["total"]);
}

/// Tables 1 and 4 as the kaneko2022 reproduction computes them (`bias reproduce kaneko2022
/// --max-pairs 12`), against the reference: the first 12 pairs of each data set are the
/// fixture's pairs (none had a near tie), so Table 1's four accuracies and McNemar tables and
/// Table 4's unrelated column (token-level, like with like) equal the reference counts; the
/// shuffled columns pair each original outcome with the same token shuffled (same counts, same
/// seed → same outcomes, another seed → another shuffle).
#[test]
fn tables_1_and_4_of_the_reproduction_match_the_reference() {
    use bias_papers::{shuffle_seeds, table_1_accuracies, table_4_rows, Study, TABLE_4_OPTIONS};
    let fx = fixture();
    let models: Vec<StudiedMlm> = MODELS.iter().map(|m| open(m)).collect();
    let scores = scratch("study");
    let mut study = Study::new(models, root().join("data"), &scores)
        .unwrap()
        .with_max_pairs(Some(12));
    let options = AccuracyOptions::default();
    let t1 = table_1_accuracies(&mut study, options).unwrap();
    let t1_tokens = table_1_accuracies(&mut study, TABLE_4_OPTIONS).unwrap();
    let seeds = shuffle_seeds(2);
    let t4 = table_4_rows(&mut study, TABLE_4_OPTIONS, &seeds).unwrap();
    let again = table_4_rows(&mut study, TABLE_4_OPTIONS, &seeds).unwrap();
    assert_eq!(t4, again, "seeded shuffles repeat");
    for (((name, cp, ss), (_, cp_t, ss_t)), row) in t1.iter().zip(&t1_tokens).zip(&t4) {
        let m = &fx["models"][name.as_str()];
        for (set, got, key) in [
            ("crows-pairs", cp, "paper/token"),
            ("stereoset", ss, "paper/item"),
            ("stereoset", ss_t, "paper/token"),
        ] {
            let ids: Vec<&str> = m[set]["pairs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["id"].as_str().unwrap())
                .collect();
            assert_eq!(
                ids.len(),
                12,
                "{name} {set}: the fixture kept the first 12 pairs"
            );
            let want = &m[set]["accuracy"][key];
            assert_eq!(
                (got.masked.correct(), got.masked.total()),
                counts(&want["masked"]),
                "{name} {set} {key}"
            );
            assert_eq!(
                (got.aul.correct(), got.aul.total()),
                counts(&want["aul"]),
                "{name} {set} {key}"
            );
            let table: [[u64; 2]; 2] =
                serde_json::from_value(want["mcnemar"]["table"].clone()).unwrap();
            assert_eq!(got.test.unwrap().table, table, "{name} {set} {key}");
        }
        assert_eq!(row.model, *name);
        let u = &row.ss_unrelated;
        let want = &m["stereoset"]["accuracy"]["paper/token"];
        assert_eq!(u.unit, "token");
        assert_eq!(
            (u.changed.correct(), u.changed.total()),
            counts(&want["unrelated"])
        );
        assert_eq!(
            (u.original.correct(), u.original.total()),
            counts(&want["unrelated_original"])
        );
        assert!(u.test.is_none());
        for (runs, orig) in [(&row.cp_shuffled, cp_t), (&row.ss_shuffled, ss_t)] {
            assert_eq!(runs.len(), 2, "{name}: one run per seed");
            for sh in runs {
                // Table 4's original = Table 1's AUL counted on tokens (the shuffled run keeps
                // every non-identical pair; none lacks a masked position here).
                assert_eq!(sh.unit, "token");
                assert_eq!(sh.original, orig.aul, "{name}");
                assert_eq!(sh.changed.total(), sh.original.total());
                assert!(sh.test.is_some());
            }
        }
        assert_ne!(
            row.cp_shuffled[0].changed, row.cp_shuffled[1].changed,
            "{name}: two seeds, two shuffles"
        );
    }
}
