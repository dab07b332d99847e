//! `--model org/name` downloaded into the Hugging Face cache from a stand-in for the Hub: an
//! HTTP/1.1 server on 127.0.0.1 (`HF_ENDPOINT`) serving fixtures/models/bert under
//! `/org/tiny/resolve/{main,COMMIT}/{file}` with the headers the Hub sends (`X-Repo-Commit`,
//! `ETag`, `X-Linked-Etag` = the SHA-256 of a weights file, `Content-Range` for `Range`
//! requests, `X-Error-Code` on errors). A download lands in the Hub's layout and then works with
//! the network off; a missing repository or revision, a missing weights file, a gated repository
//! without a token and a transfer cut short are clean errors that leave no file in the cache, a
//! download after a cut transfer succeeds, and `HF_TOKEN` is sent as a bearer token.

use crate::support::rows_without_model;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use assert_cmd::Command;
use sha2::{Digest, Sha256};

/// The commit `main` stands at on the stand-in Hub.
const COMMIT: &str = "5d8e0c3f1b2a4e6d8c0b9a7f5e3d1c2b4a6f8e0d";
/// The only repository the stand-in Hub holds.
const REPO: &str = "org/tiny";

use bias_testkit::root;

fn scratch(name: &str) -> PathBuf {
    bias_testkit::scratch(&format!("hubdl-{name}"))
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The fixture model's files, by name.
fn fixture_files() -> HashMap<String, Vec<u8>> {
    std::fs::read_dir(root().join("fixtures/models/bert"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect()
}

/// What the stand-in Hub does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Serves the fixture.
    Normal,
    /// Knows no repository (404, `RepoNotFound`, as the Hub answers).
    NoRepo,
    /// Holds no `model.safetensors` (nor an index).
    NoWeights,
    /// Gated: 401 (`GatedRepo`) without `Authorization: Bearer abc`.
    Gated,
    /// Sends the headers of `model.safetensors`'s body with its full length, half the bytes,
    /// then closes the connection.
    Cut,
}

/// The stand-in Hub: a thread answering one request per connection.
struct Hub {
    addr: SocketAddr,
    mode: Arc<Mutex<Mode>>,
    /// The `Authorization` header of every request, in order.
    auth: Arc<Mutex<Vec<Option<String>>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Hub {
    fn start(mode: Mode) -> Hub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let mode = Arc::new(Mutex::new(mode));
        let auth = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let files = fixture_files();
        let (m, a, s) = (mode.clone(), auth.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    let mode = *m.lock().unwrap();
                    // A client that hangs up mid-answer is the client's business.
                    let _ = answer(stream, mode, &files, &a);
                }
            }
        });
        Hub {
            addr,
            mode,
            auth,
            stop,
            thread: Some(thread),
        }
    }

    fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn set_mode(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    fn requests(&self) -> Vec<Option<String>> {
        self.auth.lock().unwrap().clone()
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A request: its path and headers (lower-case names).
fn read_request(stream: &TcpStream) -> std::io::Result<(String, HashMap<String, String>)> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    Ok((path, headers))
}

/// An error answer with the Hub's `X-Error-Code`.
fn error(stream: &mut TcpStream, status: &str, code: &str) -> std::io::Result<()> {
    let body = format!("{code}\n");
    write!(
        stream,
        "HTTP/1.1 {status}\r\nX-Error-Code: {code}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
}

fn answer(
    mut stream: TcpStream,
    mode: Mode,
    files: &HashMap<String, Vec<u8>>,
    auth: &Mutex<Vec<Option<String>>>,
) -> std::io::Result<()> {
    let (path, headers) = read_request(&stream)?;
    let token = headers.get("authorization").cloned();
    auth.lock().unwrap().push(token.clone());
    let Some(rest) = path.strip_prefix(&format!("/{REPO}/resolve/")) else {
        return error(&mut stream, "404 Not Found", "RepoNotFound");
    };
    let (revision, file) = rest.split_once('/').unwrap_or((rest, ""));
    if mode == Mode::NoRepo {
        return error(&mut stream, "404 Not Found", "RepoNotFound");
    }
    if mode == Mode::Gated && token.as_deref() != Some("Bearer abc") {
        return error(&mut stream, "401 Unauthorized", "GatedRepo");
    }
    if revision != "main" && revision != COMMIT {
        return error(&mut stream, "404 Not Found", "RevisionNotFound");
    }
    let body = match files.get(file) {
        Some(_) if mode == Mode::NoWeights && file == "model.safetensors" => None,
        other => other,
    };
    let Some(body) = body else {
        return error(&mut stream, "404 Not Found", "EntryNotFound");
    };
    send_file(&mut stream, file, body, headers.get("range"), mode)
}

/// A file's answer, the part a `Range: bytes=A-[B]` asks for (206) or whole (200).
fn send_file(
    stream: &mut TcpStream,
    file: &str,
    body: &[u8],
    range: Option<&String>,
    mode: Mode,
) -> std::io::Result<()> {
    let len = body.len();
    let (start, end) = range
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.split_once('-'))
        .map_or((0, len - 1), |(a, b)| {
            (
                a.parse().unwrap_or(0),
                b.parse().unwrap_or(len - 1).min(len - 1),
            )
        });
    let sha = hex(body);
    // Weights are Git LFS files on the Hub: their etag is the SHA-256 of the content.
    let etags = if file.ends_with(".safetensors") {
        format!("ETag: \"{}\"\r\nX-Linked-Etag: \"{sha}\"\r\n", &sha[..40])
    } else {
        format!("ETag: \"{}\"\r\n", &sha[..40])
    };
    let status = if range.is_some() {
        format!("206 Partial Content\r\nContent-Range: bytes {start}-{end}/{len}")
    } else {
        "200 OK".to_owned()
    };
    let part = &body[start..=end];
    write!(
        stream,
        "HTTP/1.1 {status}\r\nX-Repo-Commit: {COMMIT}\r\n{etags}Content-Length: {}\r\n\
         Connection: close\r\n\r\n",
        part.len()
    )?;
    let cut = mode == Mode::Cut && file == "model.safetensors" && part.len() > 1;
    if cut {
        stream.write_all(&part[..part.len() / 2])?;
        stream.flush()?;
        return stream.shutdown(std::net::Shutdown::Both);
    }
    stream.write_all(part)
}

/// `bias evaluate --model org/tiny` against `hub` (or offline) with the cache in `dir`.
fn evaluate(dir: &Path, endpoint: &str, env: &[(&str, &str)]) -> std::process::Output {
    evaluate_model(dir, endpoint, REPO, env)
}

/// `bias evaluate --model MODEL` against `hub` with the cache in `dir`, no token and no proxy.
fn evaluate_model(
    dir: &Path,
    endpoint: &str,
    model: &str,
    env: &[(&str, &str)],
) -> std::process::Output {
    let mut cmd = Command::cargo_bin("bias").unwrap();
    for key in [
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "HF_TOKEN_PATH",
        "HF_HUB_OFFLINE",
        "ALL_PROXY",
        "all_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
    ] {
        cmd.env_remove(key);
    }
    cmd.env("HF_ENDPOINT", endpoint)
        .env("HF_HUB_CACHE", dir.join("hub"))
        .env("HF_HOME", dir.join("home"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    evaluate_args(&mut cmd, model, &dir.join("scores.csv"))
}

fn evaluate_args(cmd: &mut Command, model: &str, out: &Path) -> std::process::Output {
    let _ = std::fs::remove_file(out);
    let _ = std::fs::remove_file(out.with_extension("csv.progress.json"));
    cmd.args(["evaluate", "--model", model, "--dataset", "crows-pairs"])
        .args(["--data-dir", &root().join("data").display().to_string()])
        .args(["--device", "cpu", "--limit", "100", "--scorers", "aul"])
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

/// Every file under `dir` (symbolic links included), relative to it.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_download_lands_in_the_hub_layout_and_then_works_offline() {
    let dir = scratch("normal");
    let hub = Hub::start(Mode::Normal);
    let o = evaluate(&dir, &hub.endpoint(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        hub.requests().iter().all(Option::is_none),
        "no token was sent"
    );
    let repo = dir.join("hub/models--org--tiny");
    assert_eq!(
        std::fs::read_to_string(repo.join("refs/main")).unwrap(),
        COMMIT
    );
    let snapshot = repo.join("snapshots").join(COMMIT);
    let fixture = fixture_files();
    for (name, bytes) in &fixture {
        let link = std::fs::read_link(snapshot.join(name)).unwrap();
        assert!(link.starts_with("../../blobs"), "{name}: {link:?}");
        assert_eq!(
            &std::fs::read(snapshot.join(name)).unwrap(),
            bytes,
            "{name}"
        );
    }
    // The weights' blob is named by its SHA-256, as the Hub's client names it.
    let weights = std::fs::read_link(snapshot.join("model.safetensors")).unwrap();
    assert_eq!(
        weights.file_name().unwrap().to_string_lossy(),
        hex(&fixture["model.safetensors"])
    );
    // Only the fixture's files, each once as a blob and once as a link: no partial, lock or
    // staging file, no ref but main.
    assert_eq!(
        files_under(&repo).len(),
        2 * fixture.len() + 1,
        "{:?}",
        files_under(&repo)
    );
    // The same scores as the fixture's folder.
    let by_folder = dir.join("by_folder.csv");
    let folder = root().join("fixtures/models/bert").display().to_string();
    let o = evaluate_args(
        &mut Command::cargo_bin("bias").unwrap(),
        &folder,
        &by_folder,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, by_id) = rows_without_model(&dir.join("scores.csv"));
    assert!(!by_id.is_empty());
    assert_eq!(by_id, rows_without_model(&by_folder).1);
    // The Hub gone and the network off: the cache serves the model.
    let endpoint = hub.endpoint();
    drop(hub);
    let o = evaluate(&dir, &endpoint, &[("HF_HUB_OFFLINE", "1")]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_missing_repository_is_an_error_naming_it_and_the_endpoint() {
    let dir = scratch("norepo");
    let hub = Hub::start(Mode::NoRepo);
    let o = evaluate(&dir, &hub.endpoint(), &[]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("org/tiny@main")
            && err.contains(&hub.endpoint())
            && err.contains("no such model")
            && err.contains("HF_TOKEN"),
        "{err}"
    );
    assert_eq!(files_under(&dir.join("hub")), Vec::<PathBuf>::new());
    assert!(!dir.join("scores.csv").exists());
    // A revision the repository lacks.
    let hub = Hub::start(Mode::Normal);
    let o = evaluate_model(&dir, &hub.endpoint(), "org/tiny@v9", &[]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("org/tiny@v9") && err.contains("no revision v9"),
        "{err}"
    );
    assert_eq!(files_under(&dir.join("hub")), Vec::<PathBuf>::new());
}

#[test]
fn a_repository_without_safetensors_weights_is_an_error_naming_the_file() {
    let dir = scratch("noweights");
    let hub = Hub::start(Mode::NoWeights);
    let o = evaluate(&dir, &hub.endpoint(), &[]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("cannot download model.safetensors of org/tiny@main")
            && err.contains("model.safetensors.index.json"),
        "{err}"
    );
    assert_eq!(files_under(&dir.join("hub")), Vec::<PathBuf>::new());
}

#[test]
fn a_gated_repository_needs_the_token_and_gets_it_as_a_bearer_token() {
    let dir = scratch("gated");
    let hub = Hub::start(Mode::Gated);
    let o = evaluate(&dir, &hub.endpoint(), &[]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("access refused (HTTP 401)") && err.contains("HF_TOKEN"),
        "{err}"
    );
    assert_eq!(files_under(&dir.join("hub")), Vec::<PathBuf>::new());
    let before = hub.requests().len();
    let o = evaluate(&dir, &hub.endpoint(), &[("HF_TOKEN", "abc")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sent = &hub.requests()[before..];
    assert!(!sent.is_empty());
    assert!(
        sent.iter().all(|a| a.as_deref() == Some("Bearer abc")),
        "{sent:?}"
    );
}

#[test]
fn a_transfer_cut_short_leaves_nothing_half_written_and_a_later_run_succeeds() {
    let dir = scratch("cut");
    let hub = Hub::start(Mode::Cut);
    let o = evaluate(&dir, &hub.endpoint(), &[]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("cannot download model.safetensors of org/tiny@main")
            && err.contains("cut short"),
        "{err}"
    );
    // Not a partial blob, a lock, a ref or a snapshot of the files that did arrive.
    assert_eq!(files_under(&dir.join("hub")), Vec::<PathBuf>::new());
    hub.set_mode(Mode::Normal);
    let o = evaluate(&dir, &hub.endpoint(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let weights = dir
        .join("hub/models--org--tiny/snapshots")
        .join(COMMIT)
        .join("model.safetensors");
    assert_eq!(
        std::fs::read(weights).unwrap(),
        fixture_files()["model.safetensors"]
    );
}

#[test]
fn offline_with_an_empty_cache_is_an_error_saying_so() {
    let dir = scratch("offline");
    let hub = Hub::start(Mode::Normal);
    let o = evaluate(&dir, &hub.endpoint(), &[("HF_HUB_OFFLINE", "1")]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("offline") && err.contains("HF_HUB_OFFLINE") && err.contains("org/tiny"),
        "{err}"
    );
    assert!(hub.requests().is_empty(), "nothing was asked of the Hub");
    assert_eq!(files_under(&dir.join("hub")), Vec::<PathBuf>::new());
}
