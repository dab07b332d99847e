//! The checker and the screenshot on small pages in headless Chromium (skipped, or failed under
//! `BIAS_REQUIRE_BROWSER=1`, when no Chromium is found).

use std::path::{Path, PathBuf};

use super::page::scratch;
use super::*;

fn page(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>t</title>\n<style>table.heat td{{padding:4px}}</style>\n</head>\n\
             <body>\n<h1>Test page</h1>\n{body}\n</body>\n</html>\n"
        ),
    )
    .unwrap();
    p
}

const SVG: &str = "<svg viewBox=\"0 0 100 50\" width=\"200\" height=\"100\" \
                   xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"100\" height=\"50\" \
                   fill=\"#48c\"/></svg>";

#[test]
fn the_checker_reports_errors_broken_anchors_failed_loads_and_empty_figures() {
    let Some(chrome) = chromium_or_skip("browser checker (bad page)") else {
        return;
    };
    let dir = scratch();
    let bad = page(
        &dir,
        "bad.html",
        &format!(
            "<nav id=\"contents\"><a href=\"#one\">one</a> <a href=\"#nowhere\">gone</a></nav>\n\
             <section id=\"one\"><h2>One</h2>\n\
             <figure>{SVG}<figcaption>fine</figcaption></figure>\n\
             <figure><svg width=\"0\" height=\"0\"></svg><figcaption>flat</figcaption></figure>\n\
             <figure><img src=\"figures/missing.png\" alt=\"x\"></figure>\n\
             <table class=\"heat\"></table>\n\
             <script>console.error('bad thing', 42); throw new Error('boom');</script>\n\
             </section>"
        ),
    );
    let c = check_page(&chrome, &bad);
    assert!(
        c.errors
            .iter()
            .any(|e| e.contains("console.error: bad thing 42")),
        "{c:?}"
    );
    assert!(c.errors.iter().any(|e| e.contains("boom")), "{c:?}");
    assert_eq!(c.broken_anchors, ["#nowhere"], "{c:?}");
    assert_eq!(c.toc_links, ["#one", "#nowhere"], "{c:?}");
    assert!(
        c.failed_resources.iter().any(|f| f.contains("missing.png")),
        "{c:?}"
    );
    assert!(
        c.broken_images.iter().any(|f| f.contains("missing.png")),
        "{c:?}"
    );
    assert_eq!(c.figures.len(), 3, "{c:?}");
    assert!(!c.figures[0].is_empty() && c.figures[1].is_empty(), "{c:?}");
    assert_eq!(c.heat_tables.len(), 1);
    assert!(c.heat_tables[0].is_empty(), "{c:?}");
    assert!(c.summary.is_none());
    let problems = c.problems().join("\n");
    for needle in [
        "#nowhere",
        "boom",
        "bad thing",
        "missing.png",
        "flat",
        "heat table",
    ] {
        assert!(
            problems.contains(needle),
            "{needle} missing from:\n{problems}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clean_page_passes_and_its_summary_is_photographed() {
    let Some(chrome) = chromium_or_skip("browser checker (good page)") else {
        return;
    };
    let dir = scratch();
    std::fs::create_dir_all(dir.join("figures")).unwrap();
    std::fs::write(dir.join("figures/f.svg"), SVG).unwrap();
    let rows: String = (0..30)
        .map(|i| format!("<tr><td>row {i}</td><td>{i}</td></tr>"))
        .collect();
    let good = page(
        &dir,
        "good.html",
        &format!(
            "<nav id=\"contents\"><a href=\"#summary\">Summary</a> <a href=\"#a\">A</a> \
             <a href=\"#b%20c\">B</a></nav>\n\
             <section id=\"summary\"><h2>Summary</h2>\
             <table class=\"heat\"><tr><td>1</td><td>2</td></tr></table></section>\n\
             <section id=\"a\"><h2>A</h2><figure>{SVG}</figure>\
             <figure><img src=\"figures/f.svg\" alt=\"f\"></figure></section>\n\
             <section id=\"b c\"><h2>B</h2><details><summary>long</summary>\
             <table class=\"heat\">{rows}</table></details></section>"
        ),
    );
    let c = check_page(&chrome, &good);
    assert!(c.problems().is_empty(), "{:#?}\n{c:?}", c.problems());
    assert!(c.has_contents);
    assert_eq!(c.toc_links.len(), 3);
    assert_eq!(c.figures.len(), 2);
    assert_eq!(c.heat_tables.len(), 2);
    assert_eq!(c.details_opened, 1);
    let summary = c.summary.expect("section#summary");
    assert!(summary.height > 0.0);

    let png = dir.join("shots/summary.png");
    let height = screenshot_section(&chrome, &good, "section#summary", &png);
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(png_size(&bytes), Some((WIDTH, height)));
    // The h1, the summary and margins: far shorter than the whole page with its 30 rows.
    assert!(height < 400, "{height}");
    let _ = std::fs::remove_dir_all(&dir);
}
