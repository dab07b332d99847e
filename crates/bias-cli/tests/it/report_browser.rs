//! The page `bias report` writes, opened in a real browser (headless Chromium): no errors, no
//! failed or network loads, every figure and heat map drawn with a size, a table of contents
//! whose links all lead somewhere, and a screenshot of the summary.
//!
//! Skips with a `SKIPPED` line on stderr when no Chromium is found (`BIAS_CHROMIUM`, else
//! `chromium`, `chromium-browser`, `google-chrome` on `PATH`), unless `BIAS_REQUIRE_BROWSER=1`
//! (CI sets it), which makes a missing browser a failure.

use crate::support;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use support::browser::{self, BrowserCheck};

use bias_testkit::root;

fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("report-browser-{name}"))
}

/// The demo score table as model `model` under scorers `aul` and `cps`: every stereotypical
/// score raised by `shift`, and by a further −0.01, 0 or +0.01 (by row) under `cps`, so
/// that the two scorers differ. With `aul` the report has KLS and JSS.
fn scores(dir: &Path, model: &str, shift: f64) -> String {
    let demo = root().join("fixtures/scores/crows_pairs_unigram.csv");
    let table = bias_core::ScoreTable::read_csv_path(&demo).unwrap();
    let mut rows = Vec::new();
    for (scorer, wobble) in [("aul", 0.0), ("cps", 0.01)] {
        for (i, r) in table.rows().iter().enumerate() {
            let mut r = r.clone();
            r.model = model.into();
            r.scorer = scorer.into();
            r.score_stereo += shift + wobble * ((i % 3) as f64 - 1.0);
            rows.push(r);
        }
    }
    let path = dir.join(format!("{model}.csv"));
    bias_core::ScoreTable::new(rows)
        .write_csv_path(&path)
        .unwrap();
    path.display().to_string()
}

/// Where screenshots go: `target/report-browser/` of the workspace.
fn shots_dir() -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    // CARGO_TARGET_TMPDIR is `<target>/tmp`.
    tmp.parent().unwrap_or(&tmp).join("report-browser")
}

/// Asserts the contract of the report page on what the browser found, and that the file loads
/// nothing from the network.
fn assert_report_page(html: &Path, c: &BrowserCheck) {
    let problems = c.problems();
    assert!(
        problems.is_empty(),
        "{}: {} problems in the browser:\n{}",
        html.display(),
        problems.len(),
        problems.join("\n")
    );
    let text = std::fs::read_to_string(html).unwrap();
    let urls = browser::network_urls(&text);
    assert!(
        urls.is_empty(),
        "{} loads from the network:\n{}",
        html.display(),
        urls.join("\n")
    );
    // Links are not loaded, so the browser does not see a missing file behind one.
    let dir = html.parent().unwrap();
    let missing: Vec<String> = browser::local_references(&text)
        .into_iter()
        .filter(|r| !dir.join(r).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "{} refers to files that do not exist:\n{}",
        html.display(),
        missing.join("\n")
    );
    let counts = c.counts();
    assert!(
        !c.figures.is_empty(),
        "no `figure svg, figure img` ({counts})"
    );
    assert!(!c.heat_tables.is_empty(), "no `table.heat` ({counts})");
    assert!(c.has_contents, "no `nav#contents` ({counts})");
    assert!(
        c.toc_links.len() >= 3,
        "nav#contents has {} in-page links (at least 3 wanted): {:?}",
        c.toc_links.len(),
        c.toc_links
    );
    let summary = c
        .summary
        .as_ref()
        .unwrap_or_else(|| panic!("no `section#summary` ({counts})"));
    assert!(summary.width > 0.0 && summary.height > 0.0, "{summary:?}");
    eprintln!("{}: clean in Chromium; {counts}", html.display());
}

/// Screenshot of `section#summary` of `html` into `png`, checked to be a non-empty PNG.
fn summary_screenshot(chrome: &Path, html: &Path, png: &Path) {
    let height = browser::screenshot_section(chrome, html, "section#summary", png);
    let bytes = std::fs::read(png).unwrap();
    let size = browser::png_size(&bytes);
    assert_eq!(
        size,
        Some((browser::WIDTH, height)),
        "{} is not a {}×{height} PNG",
        png.display(),
        browser::WIDTH
    );
    eprintln!(
        "summary screenshot: {} ({}×{height}, {} bytes)",
        png.display(),
        browser::WIDTH,
        bytes.len()
    );
}

#[test]
fn report_page_renders_cleanly_in_chromium() {
    let Some(chrome) = browser::chromium_or_skip("report_browser") else {
        return;
    };
    let dir = scratch("report");
    let a = scores(&dir, "demo", 0.0);
    let b = scores(&dir, "shifted", 0.05);
    let out_dir = dir.join("report");
    let crows = root().join("data/crows-pairs/crows_pairs_anonymized.csv");
    let out = Command::cargo_bin("bias")
        .unwrap()
        .args(["report", "--scores", &a, &b, "--out"])
        .arg(&out_dir)
        .arg("--dataset")
        .arg(&crows)
        .args(["--repeats", "10"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bias report: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = out_dir.join("index.html");
    let text = std::fs::read_to_string(&html).unwrap();
    // What the tables make the report hold: KLS and JSS (an `aul` scorer), both scorers and
    // both models.
    for needle in ["KLS", "JSS", "aul", "cps", "demo", "shifted"] {
        assert!(text.contains(needle), "index.html lacks {needle}");
    }
    // The statistics (issue 35): stars from Holm-adjusted p with the family said, and the
    // paired differences of the two models with their verdict.
    for needle in [
        "Holm-adjusted p ≤ 0.05 over a family of",
        "cells significant",
        "paired differences are significant",
        "shifted − demo",
        "McNemar",
    ] {
        assert!(text.contains(needle), "index.html lacks {needle:?}");
    }

    let check = browser::check_page(&chrome, &html);
    assert_report_page(&html, &check);
    // Both models × both scorers have a density figure, and more come from the other sections.
    assert!(check.figures.len() >= 4, "{}", check.counts());
    summary_screenshot(&chrome, &html, &shots_dir().join("summary.png"));
    // The paired differences are drawn too (a heat map with a size in section#models).
    let png = shots_dir().join("models.png");
    let height = browser::screenshot_section(&chrome, &html, "section#models", &png);
    assert!(height > 100, "section#models is {height} px high");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `make report-screenshot`: the checks above on an existing report (`BIAS_REPORT_HTML`,
/// e.g. `out/demo/report/index.html` from `make demo`) and its summary screenshot written to
/// `BIAS_SCREENSHOT` (e.g. `docs/img/report-summary.png`, the README's picture).
#[test]
#[ignore = "needs an existing report: BIAS_REPORT_HTML=… BIAS_SCREENSHOT=… (make report-screenshot)"]
fn readme_screenshot() {
    // Asked for by name: no skipping without a browser.
    let chrome = browser::find_chromium().expect(
        "readme_screenshot: no Chromium found (install Debian's chromium, or set \
         BIAS_CHROMIUM=/path/to/chrome)",
    );
    // Relative paths are taken from the repository root (Cargo runs tests in the crate folder).
    let from_root = |var: &str| -> PathBuf {
        let p = PathBuf::from(
            std::env::var_os(var).unwrap_or_else(|| panic!("set {var} (make report-screenshot)")),
        );
        if p.is_absolute() {
            p
        } else {
            root().join(p)
        }
    };
    let html = from_root("BIAS_REPORT_HTML");
    assert!(
        html.is_file(),
        "{} does not exist (run `make demo` first)",
        html.display()
    );
    let png = from_root("BIAS_SCREENSHOT");
    let check = browser::check_page(&chrome, &html);
    assert_report_page(&html, &check);
    summary_screenshot(&chrome, &html, &png);
}
