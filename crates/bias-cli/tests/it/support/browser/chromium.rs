//! Finding Chromium and running it headless: the flags of every run (a fresh profile, no
//! network features), the timeout, and the kill of a hung run with all its helpers.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::page::file_url;
use super::TIMEOUT;

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

/// What one Chromium run printed.
pub(super) struct Run {
    pub(super) stdout: String,
    pub(super) stderr: String,
}

/// The tail of Chromium's stderr, for failure messages.
pub(super) fn tail(s: &str) -> &str {
    let mut at = s.len().saturating_sub(4000);
    while !s.is_char_boundary(at) {
        at += 1;
    }
    &s[at..]
}

/// Runs Chromium headless on `page` with `extra` flags, killed after [`TIMEOUT`]; panics with
/// its stderr when it fails or hangs.
pub(super) fn run_chromium(chrome: &Path, dir: &Path, page: &Path, extra: &[String]) -> Run {
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
