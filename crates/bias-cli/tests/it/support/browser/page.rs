//! The page copy a Chromium run opens: a scratch folder per run, and the page with a script and
//! a `<base>` at the page's own folder injected at the top of its `<head>`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

static RUNS: AtomicUsize = AtomicUsize::new(0);

/// A fresh scratch folder for one Chromium run (page copy, profile, output).
pub(super) fn scratch() -> PathBuf {
    let n = RUNS.fetch_add(1, Ordering::SeqCst);
    let d = std::env::temp_dir().join(format!("bias-browser-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `html` with `script` and a `<base>` at the page's folder as the first elements of `<head>`.
pub(super) fn inject(html: &str, base_dir: &Path, script: &str) -> String {
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
pub(super) fn file_url(p: &Path) -> String {
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
