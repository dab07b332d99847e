//! The checker script injected into a page, and its findings read back from Chromium's DOM
//! dump as a [`BrowserCheck`].

use std::path::Path;

use serde_json::Value;

use super::chromium::{run_chromium, tail, Run};
use super::page::{inject, scratch};
use super::{Boxed, BrowserCheck, WIDTH};

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

impl BrowserCheck {
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

/// The JSON the injected script wrote into `<pre id="browser-check">`.
pub(super) fn check_json(run: &Run) -> Value {
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
