//! `bias score` / `evaluate` end to end on the real data sets with a fixture model: every row is
//! written, an interrupted run resumes into a byte-identical file, and bad requests are errors.

use crate::support::bias;
use crate::support::scorer_measures;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use bias_testkit::real_data;
use bias_testkit::{assert_success, Run};
use bias_testkit::{data_dir, fixture_model as model, root};

fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("score-{name}"))
}

fn score_args(arch: &str, dataset: &str, scorers: &str, out: &Path) -> Vec<String> {
    [
        "score",
        "--model",
        &model(arch),
        "--dataset",
        dataset,
        "--data-dir",
        &data_dir(),
        "--scorers",
        scorers,
        "--chunk",
        "8",
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Rows of a score table (sentences may hold line breaks, so lines are not rows).
fn rows(path: &Path) -> usize {
    bias_core::ScoreTable::read_csv_path(path).unwrap().len()
}

#[test]
fn stereoset_is_scored_completely_by_every_scorer() {
    let dir = scratch("stereoset");
    let out = dir.join("scores.csv");
    let res = bias()
        .args(score_args(
            "bert",
            "stereoset",
            "aul,aula,cps,sss,all-masked",
            &out,
        ))
        .succeeds();
    // 2,106 intrasentence items × 5 scorers, minus SSS on items with an empty modified side.
    let err = String::from_utf8_lossy(&res.stderr);
    let unscorable: usize = err
        .lines()
        .find(|l| l.trim_start().starts_with("sss:") && l.contains("not scored"))
        .map_or(0, |l| l.split_whitespace().nth(1).unwrap().parse().unwrap());
    assert_eq!(rows(&out), 2106 * 5 - unscorable, "{err}");
    assert!(err.contains("2106 pairs"), "{err}");
}

#[test]
fn an_interrupted_run_resumes_into_an_identical_file() {
    let dir = scratch("resume");
    let full = dir.join("full.csv");
    let cut = dir.join("cut.csv");
    let bin = assert_cmd::cargo::cargo_bin("bias");

    // Uninterrupted reference run on the full CrowS-Pairs.
    let status = Process::new(&bin)
        .args(score_args("roberta", "crows-pairs", "aul,pll", &full))
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(rows(&full), 1508 * 2);

    // Same command, killed once some chunks are on disk.
    let mut child = Process::new(&bin)
        .args(score_args("roberta", "crows-pairs", "aul,pll", &cut))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let progress = dir.join("cut.csv.progress.json");
    let pairs_done = || {
        std::fs::read_to_string(&progress)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["pairs_done"].as_u64())
            .unwrap_or(0)
    };
    let started = Instant::now();
    loop {
        if pairs_done() >= 100 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        rows(&cut) < 1508 * 2,
        "the run finished before it could be interrupted"
    );

    // Rerun: it must say it resumed, and the file must equal the uninterrupted one.
    let res = Process::new(&bin)
        .args(score_args("roberta", "crows-pairs", "aul,pll", &cut))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "{err}");
    let resumed: usize = err
        .split(" resumed)")
        .next()
        .and_then(|s| s.rsplit('(').next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    assert!(resumed >= 100, "did not resume: {err}");
    assert_eq!(std::fs::read(&full).unwrap(), std::fs::read(&cut).unwrap());

    // A different request on the same output is refused, naming what differs.
    let res = bias()
        .args(score_args("roberta", "crows-pairs", "aul", &cut))
        .output()
        .unwrap();
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains("not resuming") && err.contains("scorers differ"),
        "{err}"
    );
}

#[test]
fn evaluate_prints_indicator_kls_and_jss_per_scorer() {
    let dir = scratch("evaluate");
    let out = dir.join("scores.csv");
    let mut args = score_args("albert", "crows-pairs", "aul,cps", &out);
    args[0] = "evaluate".into();
    args.extend([
        "--limit".into(),
        "300".into(),
        "--format".into(),
        "json".into(),
    ]);
    let res = bias().args(&args).succeeds();
    let v: serde_json::Value = serde_json::from_slice(&res.stdout).unwrap();
    assert_eq!(v["model"], "albert");
    assert_eq!(v["dataset"], "crows-pairs");
    // Accuracy counts every scored position of both sentences: AUL scores all non-special
    // tokens, so its total is the table's token count.
    let table = bias_core::ScoreTable::read_csv_path(&out).unwrap();
    let aul_tokens: usize = table
        .rows()
        .iter()
        .filter(|r| r.scorer == "aul")
        .map(|r| r.tokens_stereo.unwrap() + r.tokens_anti.unwrap())
        .sum();
    assert_eq!(v["accuracy"]["aul"]["total"], aul_tokens);
    let got = scorer_measures(&v);
    let want: Vec<(String, String)> = [
        ("aul", "indicator"),
        ("aul", "kls"),
        ("aul", "jss"),
        ("cps", "indicator"),
        ("cps", "kls"),
        ("cps", "jss"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(got, want);
    assert_eq!(v["measures"][0]["n"], 300);
}

#[test]
fn bad_requests_are_clear_errors() {
    let dir = scratch("errors");
    let out = dir.join("x.csv");
    // Failures exit 1; a usage error (clap's) exits 2.
    let run = |extra: &[&str], model_dir: &str, code: i32| {
        let mut args = score_args("bert", "crows-pairs", "aul", &out);
        args[2] = model_dir.to_owned();
        args.extend(extra.iter().map(|s| s.to_string()));
        let res = bias().args(&args).output().unwrap();
        assert_eq!(res.status.code(), Some(code));
        String::from_utf8_lossy(&res.stderr).into_owned()
    };
    let err = run(&["--device", "cuda:7"], &model("bert"), 1);
    assert!(
        err.contains("cuda:7") && err.contains("hint: pass --device cpu"),
        "{err}"
    );
    let err = run(&["--dtype", "f16", "--device", "cpu"], &model("bert"), 1);
    assert!(err.contains("needs a CUDA device"), "{err}");
    let err = run(&["--scorers", "aul,nope"], &model("bert"), 2);
    assert!(
        err.contains("invalid value 'nope'") && err.contains("all-masked"),
        "{err}"
    );
    // The library's names (bias_core::Choice): listed in the refusal, aliases taken.
    let err = run(&["--dtype", "f64"], &model("bert"), 2);
    assert!(
        err.contains("invalid value 'f64'") && err.contains("[possible values: f32, bf16, f16]"),
        "{err}"
    );
    let err = run(&["--sss", "mean"], &model("bert"), 2);
    assert!(err.contains("diagonal, matrix"), "{err}");
    // A model folder without tokenizer.json.
    let broken = dir.join("no-tokenizer");
    std::fs::create_dir_all(&broken).unwrap();
    for f in ["config.json", "model.safetensors"] {
        std::fs::copy(root().join("fixtures/models/bert").join(f), broken.join(f)).unwrap();
    }
    let err = run(&[], &broken.display().to_string(), 1);
    assert!(err.contains("tokenizer.json"), "{err}");
}

#[test]
fn a_sentence_longer_than_the_model_is_an_error_naming_the_pair_unless_truncated() {
    let dir = scratch("long");
    let long = "word ".repeat(200);
    let pairs = dir.join("pairs.csv");
    std::fs::write(
        &pairs,
        format!("id,stereo,anti,bias_type\nshort,She is here.,He is here.,gender\nlong-one,She said {long}.,He said {long}.,gender\n"),
    )
    .unwrap();
    let out = dir.join("x.csv");
    let args = score_args("roberta", &pairs.display().to_string(), "aul", &out);
    let res = bias().args(&args).output().unwrap();
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    // Refused before anything is scored or written, naming the file and line.
    let place = format!(
        "{}, line 3: this sentence cannot be scored",
        pairs.display()
    );
    assert!(
        err.contains("pair `long-one`")
            && err.contains(&place)
            && err.contains("hint: shorten or remove that line, or pass --truncate"),
        "{err}"
    );
    assert!(!out.exists(), "a refused run writes no table");
    let out2 = dir.join("y.csv");
    let mut args = score_args("roberta", &pairs.display().to_string(), "aul", &out2);
    args.push("--truncate".into());
    bias().args(&args).succeeds();
    assert_eq!(rows(&out2), 2);
}

/// WinoBias reads a pair from two files: the refusal names the file and line of the sentence
/// that is too long (here the anti-stereotyped one), in a shard too.
#[test]
fn an_over_long_winobias_line_is_refused_naming_its_file_and_line() {
    let dir = scratch("long-winobias");
    let wino = dir.join("winobias");
    std::fs::create_dir_all(&wino).unwrap();
    for side in ["pro", "anti"] {
        let name = format!("{side}_stereotyped_type1.txt.dev");
        let text = std::fs::read_to_string(real_data("winobias").join(&name)).unwrap();
        let mut lines: Vec<String> = text.lines().take(12).map(str::to_owned).collect();
        if side == "anti" {
            lines[9] = format!("10 [The worker] said {} to [her] .", "very ".repeat(600));
        }
        std::fs::write(wino.join(&name), lines.join("\n") + "\n").unwrap();
    }
    let anti = wino.join("anti_stereotyped_type1.txt.dev");
    for shard in [None, Some("2/2")] {
        let out = dir.join(format!("x{}.csv", shard.is_some()));
        let mut args = score_args("bert", "winobias-type1-dev", "aul", &out);
        let at = |args: &[String], flag: &str| args.iter().position(|a| a == flag).unwrap() + 1;
        let (data, chunk) = (at(&args, "--data-dir"), at(&args, "--chunk"));
        args[data] = dir.display().to_string();
        args[chunk] = "4".to_owned();
        if let Some(s) = shard {
            args.extend(["--shard".to_owned(), s.to_owned()]);
        }
        let res = bias().args(&args).output().unwrap();
        assert_eq!(res.status.code(), Some(1));
        let err = String::from_utf8_lossy(&res.stderr);
        let place = format!(
            "{}, line 10: this sentence cannot be scored",
            anti.display()
        );
        assert!(
            err.contains(&place) && err.contains("the anti sentence has"),
            "{err}"
        );
        assert!(!out.exists(), "a refused run writes no table");
    }
}

#[test]
fn three_shards_merge_into_the_unsharded_table_byte_for_byte() {
    let dir = scratch("shards");
    let whole = dir.join("whole.csv");
    bias()
        .args(score_args("bert", "crows-pairs", "aul,cps", &whole))
        .succeeds();
    let mut parts = Vec::new();
    for i in 1..=3 {
        let part = dir.join(format!("part{i}.csv"));
        let mut args = score_args("bert", "crows-pairs", "aul,cps", &part);
        args.extend(["--shard".to_owned(), format!("{i}/3")]);
        bias().args(&args).succeeds();
        parts.push(part.display().to_string());
    }
    let merged = dir.join("merged.csv");
    let merge = |shards: &[&String], out: &Path| {
        let mut args = vec![
            "merge".to_owned(),
            "--out".into(),
            out.display().to_string(),
        ];
        args.extend(shards.iter().map(|s| s.to_string()));
        bias().args(&args).output().unwrap()
    };
    let res = merge(&[&parts[2], &parts[0], &parts[1]], &merged);
    assert_success(&res);
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&merged).unwrap()
    );
    // Every CrowS-Pairs pair (1508) by both scorers.
    assert_eq!(rows(&merged), 2 * 1508);
    // The merged run is a finished unsharded run: scoring again resumes nothing.
    let res = bias()
        .args(score_args("bert", "crows-pairs", "aul,cps", &merged))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        res.status.success() && err.contains("1508 pairs (1508 resumed)"),
        "{err}"
    );
    // A missing shard is an error naming it.
    let res = merge(&[&parts[0], &parts[2]], &dir.join("gap.csv"));
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("shard 2/3 (pairs "), "{err}");
    // 1508 pairs in chunks of 8 are ⌈1508/8⌉ = 189 chunks; shard 2 of 3 holds chunks
    // ⌊1·189/3⌋ = 63 to ⌊2·189/3⌋ = 126, pairs 63·8 = 504 to 126·8 = 1008.
    assert!(
        err.contains("shard 2/3 (pairs 504..1008) is missing"),
        "{err}"
    );
}

/// Where stderr is a file (a Slurm job's log), `bias score` prints progress lines at the pace
/// `BIAS_PROGRESS_SECONDS` sets (0: every chunk): from where the run starts (a resumed run from
/// its resumed pairs) to the last pair, with the share done, and a rate once there is one.
#[test]
fn a_log_file_gets_progress_lines_from_where_the_run_starts() {
    let dir = scratch("progress");
    let out = dir.join("scores.csv");
    let run = |limit: &str| {
        let mut args = score_args("bert", "crows-pairs", "aul", &out);
        args.extend(["--limit".into(), limit.into()]);
        let done = bias()
            .args(&args)
            .env("BIAS_PROGRESS_SECONDS", "0")
            .succeeds();
        String::from_utf8(done.stderr).unwrap()
    };
    let err = run("24");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("bert: crows-pairs: "))
        .collect();
    assert_eq!(lines.len(), 4, "0, 8, 16 and 24 of 24:\n{err}");
    assert_eq!(
        lines[0],
        "bert: crows-pairs: 0/24 pairs (0.0%), rate not yet known"
    );
    assert!(
        lines[1].starts_with("bert: crows-pairs: 8/24 pairs (33.3%), "),
        "{err}"
    );
    assert!(lines[3].contains(" pairs/s, 0s left"), "{err}");
    // A finished run, asked again, starts and ends at 24 of 24.
    let again = run("24");
    assert!(
        again.contains("bert: crows-pairs: 24/24 pairs (100.0%)\n"),
        "{again}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
