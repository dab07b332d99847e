//! `--model org/name[@revision]` from a Hugging Face cache laid out as `huggingface_hub` lays it
//! out (`models--org--name/refs/main` → `snapshots/<commit>/`, the files symlinked from
//! `blobs/`), built here from the tiny BERT fixture, with the network off (`HF_HUB_OFFLINE=1`):
//! the scores equal those of the fixture's folder, the table's `model` column is the id, a
//! model the cache lacks is an error saying where it looked and how to fetch it, and a run is not
//! resumed once the revision moved to another commit, even one with the same files.

use crate::support::rows_without_model;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use bias_testkit::{assert_success, Run};

const COMMIT: &str = "1f0e3dad99908345f7439f8ffabdffc4e4b3c7a1";

use bias_testkit::root;

fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("hub-{name}"))
}

/// A cache holding fixtures/models/bert as `test-org/tiny-bert` at `COMMIT`, `main` pointing to
/// it; each file is a blob named by its content's length (a stand-in for the hub's hash) and a
/// symlink in the snapshot, as the hub client writes them.
fn cache(dir: &Path) -> PathBuf {
    let cache = dir.join("hub");
    snapshot(&cache, COMMIT);
    cache
}

/// Adds the fixture as the snapshot `commit` of `test-org/tiny-bert` and points `main` to it.
fn snapshot(cache: &Path, commit: &str) {
    let repo = cache.join("models--test-org--tiny-bert");
    let snapshot = repo.join("snapshots").join(commit);
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::create_dir_all(repo.join("blobs")).unwrap();
    std::fs::create_dir_all(&snapshot).unwrap();
    std::fs::write(repo.join("refs/main"), commit).unwrap();
    let fixture = root().join("fixtures/models/bert");
    for entry in std::fs::read_dir(&fixture).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        let blob = repo.join("blobs").join(format!(
            "{}-{}",
            name.to_string_lossy(),
            path.metadata().unwrap().len()
        ));
        std::fs::copy(&path, &blob).unwrap();
        std::os::unix::fs::symlink(
            Path::new("../../blobs").join(blob.file_name().unwrap()),
            snapshot.join(&name),
        )
        .unwrap();
    }
}

fn evaluate(model: &str, cache: &Path, out: &Path) -> std::process::Output {
    Command::cargo_bin("bias")
        .unwrap()
        .env("HF_HUB_CACHE", cache)
        .env("HF_HUB_OFFLINE", "1")
        .args(["evaluate", "--model", model, "--dataset", "crows-pairs"])
        .args(["--data-dir", &root().join("data").display().to_string()])
        .args(["--device", "cpu", "--limit", "100", "--scorers", "aul"])
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn a_hub_id_in_the_cache_scores_as_its_folder_does() {
    let dir = scratch("found");
    let cache = cache(&dir);
    let fixture = root().join("fixtures/models/bert");
    for (spec, out) in [
        ("test-org/tiny-bert", "by_id.csv"),
        (&*format!("test-org/tiny-bert@{COMMIT}"), "by_commit.csv"),
        (&*fixture.display().to_string(), "by_folder.csv"),
    ] {
        let o = evaluate(spec, &cache, &dir.join(out));
        assert!(
            o.status.success(),
            "{spec}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let (id_models, by_id) = rows_without_model(&dir.join("by_id.csv"));
    let (_, by_commit) = rows_without_model(&dir.join("by_commit.csv"));
    let (folder_models, by_folder) = rows_without_model(&dir.join("by_folder.csv"));
    assert!(!by_id.is_empty());
    assert_eq!(by_id, by_folder);
    assert_eq!(by_commit, by_folder);
    assert!(
        id_models.iter().all(|m| m == "test-org/tiny-bert"),
        "{id_models:?}"
    );
    assert!(
        folder_models.iter().all(|m| m == "bert"),
        "{folder_models:?}"
    );
}

#[test]
fn a_model_the_cache_lacks_is_an_error_saying_how_to_fetch_it() {
    let dir = scratch("missing");
    let cache = cache(&dir);
    for spec in ["test-org/tiny-bert@v2", "test-org/other"] {
        let out = dir.join("x.csv");
        let o = evaluate(spec, &cache, &out);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("huggingface-cli download") && err.contains("hub"),
            "{spec}: {err}"
        );
        assert!(!out.exists());
    }
}

#[test]
fn a_run_is_not_resumed_after_its_revision_moved() {
    let dir = scratch("moved");
    let cache = cache(&dir);
    let out = dir.join("scores.csv");
    let o = evaluate("test-org/tiny-bert", &cache, &out);
    assert_success(&o);
    let progress = std::fs::read_to_string(dir.join("scores.csv.progress.json")).unwrap();
    assert!(
        progress.contains(&format!("test-org/tiny-bert@{COMMIT}")),
        "{progress}"
    );
    // The same revision at the same commit: the finished run is taken up again.
    let o = evaluate("test-org/tiny-bert", &cache, &out);
    assert_success(&o);
    // `main` moves to another commit with the very same files: refused, naming both commits.
    let moved = "2a9c46e5f3b0d1e7c8a4b6f2d9e0c1b3a5f7e9d1";
    snapshot(&cache, moved);
    let before = std::fs::read(&out).unwrap();
    let o = evaluate("test-org/tiny-bert", &cache, &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("not resuming")
            && err.contains(&format!("test-org/tiny-bert@{COMMIT}"))
            && err.contains(&format!("test-org/tiny-bert@{moved}")),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        before,
        "the table is untouched"
    );
    // Naming the run's commit resumes it.
    let o = evaluate(&format!("test-org/tiny-bert@{COMMIT}"), &cache, &out);
    assert_success(&o);
}

/// `bias finetune --base` takes an id as `--model` does: the batches a run would train on from
/// `test-org/tiny-bert` are those of the fixture folder.
#[test]
fn finetune_takes_a_hub_id_as_its_base() {
    let dir = scratch("finetune");
    let cache = cache(&dir);
    let corpus = dir.join("corpus.txt");
    std::fs::write(
        &corpus,
        "He is a doctor.\nShe is a nurse.\nThey went home.\n",
    )
    .unwrap();
    let batches = |base: &str, name: &str| -> String {
        let file = dir.join(format!("{name}.json"));
        Command::cargo_bin("bias")
            .unwrap()
            .env("HF_HUB_CACHE", &cache)
            .env("HF_HUB_OFFLINE", "1")
            .args(["finetune", "--base", base, "--corpus"])
            .arg(&corpus)
            .arg("--out")
            .arg(dir.join(format!("{name}-model")))
            .arg("--export-batches")
            .arg(&file)
            .args(["--device", "cpu"])
            .succeeds();
        std::fs::read_to_string(file).unwrap()
    };
    let fixture = root().join("fixtures/models/bert").display().to_string();
    assert_eq!(
        batches("test-org/tiny-bert", "hub"),
        batches(&fixture, "folder")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
