//! A screenshot of one section of a page (the report's summary, say): the rest of the page
//! hidden, the height measured in a first run, the picture taken at that height in a second.

use std::path::Path;

use serde_json::Value;

use super::checker::check_json;
use super::chromium::run_chromium;
use super::page::{inject, scratch};
use super::{MAX_HEIGHT, WIDTH};

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
