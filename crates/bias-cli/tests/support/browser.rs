//! Opens an HTML page in headless Chromium and reports what a reader would meet: script and
//! console errors, resources that failed to load, figures and tables drawn with no size,
//! in-page links that lead nowhere; and takes a screenshot of one section.
//!
//! No WebDriver and no npm: the page is copied to a scratch folder with a `<script>` injected as
//! the first element of its `<head>` (plus a `<base>` pointing at the page's own folder, so
//! relative figure paths still resolve). The script records errors from the first moment, runs
//! the checks on `load` and writes its findings as JSON into a new `<pre id="browser-check">`,
//! which `chromium --dump-dom` prints with the rest of the page. Every Chromium run has a
//! fresh profile, no network features, and is killed after [`TIMEOUT`].

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long one Chromium run may take before it is killed.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The page width of every run (the screenshot's width).
pub const WIDTH: u32 = 1280;

/// The tallest screenshot taken.
pub const MAX_HEIGHT: u32 = 4000;

/// The names tried on `PATH`, in order, after `BIAS_CHROMIUM`.
const NAMES: [&str; 5] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

/// `BIAS_CHROMIUM` if set, else the first of `chromium`, `chromium-browser`, `google-chrome`,
/// … found on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BIAS_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    NAMES.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| is_executable(p))
    })
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// The Chromium to use, or `None` after printing why the test `test` is skipped. Panics
/// instead of skipping when `BIAS_REQUIRE_BROWSER=1` (CI sets it after installing Chromium).
pub fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    if let Some(p) = find_chromium() {
        return Some(p);
    }
    let why = "no Chromium found (install Debian's chromium, or set \
               BIAS_CHROMIUM=/path/to/chrome)";
    if std::env::var("BIAS_REQUIRE_BROWSER").as_deref() == Ok("1") {
        panic!("{test}: {why}, and BIAS_REQUIRE_BROWSER=1 makes that a failure");
    }
    // Straight to the process's stderr: the test harness captures `eprintln!` of passing tests.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
    None
}

/// A rendered element and its size in CSS pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Boxed {
    /// Tag, id, class and the start of its `src` or text, to find it in the page.
    pub what: String,
    pub width: f64,
    pub height: f64,
}

impl Boxed {
    fn is_empty(&self) -> bool {
        self.width <= 0.0 || self.height <= 0.0
    }
}

/// What the checker script found in the page (every list is empty on a clean page).
#[derive(Debug, Clone, Default)]
pub struct BrowserCheck {
    /// Uncaught script errors, `console.error` calls and unhandled promise rejections.
    pub errors: Vec<String>,
    /// Elements whose resource (image, style sheet, script, …) failed to load.
    pub failed_resources: Vec<String>,
    /// `<img>` elements that finished with no picture.
    pub broken_images: Vec<String>,
    /// Resources fetched from anywhere but `file:`, `data:`, `blob:` or `about:`.
    pub network: Vec<String>,
    /// Every `figure svg, figure img`.
    pub figures: Vec<Boxed>,
    /// Every `table.heat`.
    pub heat_tables: Vec<Boxed>,
    /// Whether the page has a `nav#contents`.
    pub has_contents: bool,
    /// The `href` of every `nav#contents a[href^="#"]`.
    pub toc_links: Vec<String>,
    /// In-page links (`a[href^="#"]`, anywhere) whose target id does not exist.
    pub broken_anchors: Vec<String>,
    /// `section#summary`, if the page has one.
    pub summary: Option<Boxed>,
    /// The `<details>` opened before measuring (a closed one hides its content).
    pub details_opened: usize,
}

impl BrowserCheck {
    /// One line: how many of each thing the page has.
    pub fn counts(&self) -> String {
        format!(
            "{} figures, {} heat tables, nav#contents {}, {} contents links, section#summary {}, \
             {} <details> opened to measure",
            self.figures.len(),
            self.heat_tables.len(),
            if self.has_contents {
                "present"
            } else {
                "absent"
            },
            self.toc_links.len(),
            if self.summary.is_some() {
                "present"
            } else {
                "absent"
            },
            self.details_opened
        )
    }

    /// Every problem any page should be free of: errors, failed or network loads, figures and
    /// heat maps drawn with no size, in-page links leading nowhere.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut list = |kind: &str, items: &[String]| {
            out.extend(items.iter().map(|i| format!("{kind}: {i}")));
        };
        list("error", &self.errors);
        list("failed resource", &self.failed_resources);
        list("broken image", &self.broken_images);
        list("network load", &self.network);
        list("broken anchor", &self.broken_anchors);
        for (kind, boxes) in [("figure", &self.figures), ("heat table", &self.heat_tables)] {
            out.extend(
                boxes
                    .iter()
                    .filter(|b| b.is_empty())
                    .map(|b| format!("{kind} of size {}×{}: {}", b.width, b.height, b.what)),
            );
        }
        out
    }

    fn from_json(v: &Value) -> BrowserCheck {
        let strings = |k: &str| -> Vec<String> {
            v[k].as_array()
                .unwrap_or_else(|| panic!("browser check: no list `{k}` in {v}"))
                .iter()
                .map(|s| {
                    s.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| s.to_string())
                })
                .collect()
        };
        let boxed = |b: &Value| Boxed {
            what: b["what"].as_str().unwrap_or_default().to_owned(),
            width: b["w"].as_f64().unwrap_or(0.0),
            height: b["h"].as_f64().unwrap_or(0.0),
        };
        let boxes = |k: &str| -> Vec<Boxed> {
            v[k].as_array()
                .unwrap_or_else(|| panic!("browser check: no list `{k}` in {v}"))
                .iter()
                .map(boxed)
                .collect()
        };
        BrowserCheck {
            errors: strings("errors"),
            failed_resources: strings("failed"),
            broken_images: strings("brokenImages"),
            network: strings("network"),
            figures: boxes("figures"),
            heat_tables: boxes("heatTables"),
            has_contents: v["hasContents"].as_bool().unwrap_or(false),
            toc_links: strings("tocLinks"),
            broken_anchors: strings("brokenAnchors"),
            summary: (!v["summary"].is_null()).then(|| boxed(&v["summary"])),
            details_opened: v["detailsOpened"].as_u64().unwrap_or(0) as usize,
        }
    }
}

/// Records errors from the first moment; on `load` opens every `<details>`, measures, and
/// writes the JSON findings (with `<`, `>`, `&` escaped so the DOM dump keeps them verbatim).
const CHECK_SCRIPT: &str = r##"
(function () {
  var R = { errors: [], failed: [], network: [] };
  function text(x) {
    try { return typeof x === 'string' ? x : (x && x.stack) || JSON.stringify(x) || String(x); }
    catch (e) { return String(x); }
  }
  window.addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && t.nodeType === 1) {
      R.failed.push(t.tagName.toLowerCase() + ' ' +
        (t.currentSrc || t.src || t.href || t.data || t.getAttribute('src') || t.outerHTML.slice(0, 120)));
    } else {
      R.errors.push('uncaught: ' + (e.message || text(e.error)) +
        (e.filename ? ' (' + e.filename + ':' + e.lineno + ')' : ''));
    }
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    R.errors.push('unhandled rejection: ' + text(e.reason));
  });
  var consoleError = console.error;
  console.error = function () {
    R.errors.push('console.error: ' + Array.prototype.map.call(arguments, text).join(' '));
    return consoleError.apply(console, arguments);
  };
  function describe(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (el.getAttribute('class')) s += '.' + el.getAttribute('class').trim().split(/\s+/).join('.');
    var fig = el.closest('figure');
    var cap = fig && fig.querySelector('figcaption');
    var hint = el.getAttribute('src') || (cap && cap.textContent) || el.textContent || '';
    hint = hint.replace(/\s+/g, ' ').trim().slice(0, 80);
    return hint ? s + ' "' + hint + '"' : s;
  }
  function box(el) {
    var r = el.getBoundingClientRect();
    return { what: describe(el), w: r.width, h: r.height };
  }
  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
  window.addEventListener('load', function () {
    var out;
    try {
      var details = all('details:not([open])');
      details.forEach(function (d) { d.open = true; });
      var nav = document.querySelector('nav#contents');
      var summary = document.querySelector('section#summary');
      out = {
        errors: R.errors,
        failed: R.failed,
        network: performance.getEntriesByType('resource').map(function (e) { return e.name; })
          .filter(function (n) { return !/^(file|data|blob|about):/i.test(n); }),
        brokenImages: all('img').filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
          .map(function (i) { return i.getAttribute('src') || describe(i); }),
        figures: all('figure svg, figure img').map(box),
        heatTables: all('table.heat').map(box),
        hasContents: !!nav,
        tocLinks: nav ? all('nav#contents a[href^="#"]').map(function (a) { return a.getAttribute('href'); }) : [],
        brokenAnchors: all('a[href^="#"]').map(function (a) { return a.getAttribute('href'); })
          .filter(function (h) {
            var id;
            try { id = decodeURIComponent(h.slice(1)); } catch (e) { id = h.slice(1); }
            return !document.getElementById(id);
          }),
        summary: summary ? box(summary) : null,
        detailsOpened: details.length
      };
    } catch (e) {
      out = { checkerFailed: text(e) };
    }
    var pre = document.createElement('pre');
    pre.id = 'browser-check';
    pre.textContent = JSON.stringify(out).replace(/[<>&]/g, function (c) {
      return '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4);
    });
    document.body.appendChild(pre);
  });
})();
"##;

/// Hides everything but the section `SELECTOR` (and the page's `h1`, unless inside it), then on
/// `load` writes the page height as `{"height": …}` into a hidden `<pre id="browser-check">`.
const SHOT_SCRIPT: &str = r##"
(function () {
  var SELECTOR = __SELECTOR__;
  var found = false;
  document.addEventListener('DOMContentLoaded', function () {
    var target = document.querySelector(SELECTOR);
    if (!target) return;
    found = true;
    var h1 = document.querySelector('h1');
    var keep = new Set();
    var roots = [target];
    if (h1 && !target.contains(h1) && !h1.contains(target)) roots.push(h1);
    roots.forEach(function (el) { while (el) { keep.add(el); el = el.parentElement; } });
    keep.forEach(function (el) {
      if (roots.indexOf(el) >= 0 || el === document.documentElement) return;
      Array.prototype.forEach.call(el.children, function (c) {
        if (!keep.has(c)) c.style.setProperty('display', 'none', 'important');
      });
    });
  });
  window.addEventListener('load', function () {
    var b = document.body;
    var height = b.getBoundingClientRect().bottom + window.scrollY +
      parseFloat(getComputedStyle(b).marginBottom || '0');
    var pre = document.createElement('pre');
    pre.id = 'browser-check';
    pre.hidden = true;
    pre.textContent = JSON.stringify({ found: found, height: Math.ceil(height) });
    b.appendChild(pre);
  });
})();
"##;

static RUNS: AtomicUsize = AtomicUsize::new(0);

/// A fresh scratch folder for one Chromium run (page copy, profile, output).
fn scratch() -> PathBuf {
    let n = RUNS.fetch_add(1, Ordering::SeqCst);
    let d = std::env::temp_dir().join(format!("bias-browser-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `html` with `script` and a `<base>` at the page's folder as the first elements of `<head>`.
fn inject(html: &str, base_dir: &Path, script: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let at = lower
        .match_indices("<head")
        .find(|(i, _)| {
            matches!(
                lower.as_bytes().get(i + 5),
                Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')
            )
        })
        .map(|(i, _)| i)
        .expect("the page has no <head>");
    let end = at + lower[at..].find('>').expect("unterminated <head") + 1;
    let base = file_url(base_dir);
    let base = if base.ends_with('/') {
        base
    } else {
        base + "/"
    };
    format!(
        "{}<script>{script}</script><base href=\"{}\">{}",
        &html[..end],
        base.replace('"', "%22"),
        &html[end..]
    )
}

/// A `file://` URL for an absolute path, with the characters URLs cannot hold percent-encoded.
fn file_url(p: &Path) -> String {
    let p = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut s = String::from("file://");
    for b in p.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                s.push(b as char)
            }
            _ => s.push_str(&format!("%{b:02X}")),
        }
    }
    s
}

/// What one Chromium run printed.
struct Run {
    stdout: String,
    stderr: String,
}

/// The tail of Chromium's stderr, for failure messages.
fn tail(s: &str) -> &str {
    let mut at = s.len().saturating_sub(4000);
    while !s.is_char_boundary(at) {
        at += 1;
    }
    &s[at..]
}

/// Runs Chromium headless on `page` with `extra` flags, killed after [`TIMEOUT`]; panics with
/// its stderr when it fails or hangs.
fn run_chromium(chrome: &Path, dir: &Path, page: &Path, extra: &[String]) -> Run {
    let out_path = dir.join("stdout.txt");
    let err_path = dir.join("stderr.txt");
    let mut cmd = Command::new(chrome);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--mute-audio",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", dir.join("profile").display()))
    .args(extra)
    .arg(file_url(page))
    .stdin(Stdio::null())
    .stdout(std::fs::File::create(&out_path).unwrap())
    .stderr(std::fs::File::create(&err_path).unwrap());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so that a hung run is killed with all its helpers.
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {}: {e}", chrome.display()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > TIMEOUT {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let Some(status) = status else {
        #[cfg(unix)]
        {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "{} {extra:?} hung: killed after {} s; its stderr:\n{}",
            chrome.display(),
            TIMEOUT.as_secs(),
            tail(&read(&err_path))
        );
    };
    let run = Run {
        stdout: read(&out_path),
        stderr: read(&err_path),
    };
    assert!(
        status.success(),
        "{} {extra:?} failed ({status}); its stderr:\n{}",
        chrome.display(),
        tail(&run.stderr)
    );
    run
}

/// The JSON the injected script wrote into `<pre id="browser-check">`.
fn check_json(run: &Run) -> Value {
    let open = "<pre id=\"browser-check\"";
    let at = run.stdout.rfind(open).unwrap_or_else(|| {
        panic!(
            "Chromium's DOM dump has no {open}> (did `load` fire?); {} bytes of DOM, stderr:\n{}",
            run.stdout.len(),
            tail(&run.stderr)
        )
    });
    let body = &run.stdout[at..];
    let start = body.find('>').unwrap() + 1;
    let end = body
        .find("</pre>")
        .expect("unterminated <pre id=\"browser-check\">");
    let v: Value = serde_json::from_str(&body[start..end])
        .unwrap_or_else(|e| panic!("browser check: bad JSON ({e}): {}", &body[start..end]));
    if let Some(e) = v.get("checkerFailed") {
        panic!("the checker script itself failed: {e}");
    }
    v
}

/// Opens `html` in headless Chromium and reports what the checker script found.
pub fn check_page(chrome: &Path, html: &Path) -> BrowserCheck {
    let dir = scratch();
    let text = std::fs::read_to_string(html)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", html.display()));
    let page = dir.join("check.html");
    std::fs::write(&page, inject(&text, html.parent().unwrap(), CHECK_SCRIPT)).unwrap();
    let run = run_chromium(
        chrome,
        &dir,
        &page,
        &[
            format!("--window-size={WIDTH},900"),
            "--virtual-time-budget=5000".into(),
            "--dump-dom".into(),
        ],
    );
    let check = BrowserCheck::from_json(&check_json(&run));
    let _ = std::fs::remove_dir_all(&dir);
    check
}

/// Writes a PNG of the section `selector` of `html` (with the page's `h1` above it, everything
/// else hidden), [`WIDTH`] wide and as tall as that content (at most [`MAX_HEIGHT`]). Returns
/// the height.
pub fn screenshot_section(chrome: &Path, html: &Path, selector: &str, out_png: &Path) -> u32 {
    let dir = scratch();
    let text = std::fs::read_to_string(html)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", html.display()));
    let script = SHOT_SCRIPT.replace("__SELECTOR__", &Value::from(selector).to_string());
    let page = dir.join("shot.html");
    std::fs::write(&page, inject(&text, html.parent().unwrap(), &script)).unwrap();
    // First the height of what is left once the rest is hidden, then the picture at that height.
    let measured = check_json(&run_chromium(
        chrome,
        &dir,
        &page,
        &[
            format!("--window-size={WIDTH},600"),
            "--virtual-time-budget=5000".into(),
            "--dump-dom".into(),
        ],
    ));
    assert_eq!(
        measured["found"],
        Value::Bool(true),
        "{} has no {selector}",
        html.display()
    );
    let height =
        (measured["height"].as_f64().unwrap_or(0.0).ceil() as u32 + 16).clamp(100, MAX_HEIGHT);
    if let Some(parent) = out_png.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let _ = std::fs::remove_file(out_png);
    let abs = std::path::absolute(out_png).unwrap();
    run_chromium(
        chrome,
        &dir,
        &page,
        &[
            format!("--window-size={WIDTH},{height}"),
            "--virtual-time-budget=5000".into(),
            format!("--screenshot={}", abs.display()),
        ],
    );
    assert!(
        abs.is_file(),
        "Chromium wrote no screenshot at {}",
        abs.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
    height
}

/// Width and height of a PNG, read from its header; `None` if `bytes` is not a PNG.
pub fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    Some((be(16), be(20)))
}

/// Every `src`, `href`, `srcset`, `action`, `poster`, CSS `url(…)` or `@import` in `html` whose
/// value starts with `http:`, `https:` or `//` (a page that must work offline has none).
pub fn network_urls(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut out = Vec::new();
    for key in [
        "src=", "href=", "srcset=", "action=", "poster=", "url(", "@import",
    ] {
        for (i, _) in lower.match_indices(key) {
            let rest =
                lower[i + key.len()..].trim_start_matches([' ', '\t', '\n', '\r', '"', '\'']);
            if ["http:", "https:", "//"]
                .iter()
                .any(|p| rest.starts_with(p))
            {
                let end = (i + 100).min(html.len());
                let end = (end..=html.len())
                    .find(|&e| html.is_char_boundary(e))
                    .unwrap();
                out.push(html[i..end].lines().next().unwrap_or_default().to_owned());
            }
        }
    }
    out
}

/// The quoted `src` and `href` values of `html` that name a file beside the page (not an
/// in-page `#…`, `data:`, `mailto:` or network address), without any `?…` or `#…` suffix.
pub fn local_references(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut out = Vec::new();
    for key in [" src=", " href=", "\nsrc=", "\nhref="] {
        for (i, _) in lower.match_indices(key) {
            let rest = &html[i + key.len()..];
            let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                continue;
            };
            let Some(end) = rest[1..].find(quote) else {
                continue;
            };
            let value = rest[1..1 + end].trim();
            let v = value.to_ascii_lowercase();
            let skip = [
                "#",
                "data:",
                "mailto:",
                "javascript:",
                "http:",
                "https:",
                "//",
            ];
            if value.is_empty() || skip.iter().any(|p| v.starts_with(p)) {
                continue;
            }
            let value = value.split(['?', '#']).next().unwrap_or_default();
            out.push(value.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn network_urls_and_local_references_are_found_in_attributes() {
        let html = "<svg xmlns=\"http://www.w3.org/2000/svg\"><use xlink:href=\"#a\"/></svg>\
                    <img src=\"figures/a.png\"><a href=\"#x\">x</a>\
                    <img SRC='https://example.org/a.png'>\
                    <link href=\"//cdn.example.org/x.css\">\
                    <style>body{background:url( \"http://example.org/b.png\")}</style>";
        let found = network_urls(html);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found[0].starts_with("SRC='https://example.org"),
            "{found:?}"
        );
        assert!(network_urls("<p>see http://example.org</p>").is_empty());
        assert_eq!(
            local_references(html),
            ["figures/a.png"],
            "{:?}",
            local_references(html)
        );
        assert_eq!(
            local_references("<a href='f/b.png#x'>b</a><a\nhref=\"c.svg?v=1\">c</a>"),
            ["f/b.png", "c.svg"]
        );
    }
}
