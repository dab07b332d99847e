//! Downloads of a model the Hugging Face cache lacks, with the blocking client of the `hf-hub`
//! crate, into the cache's own layout.
//!
//! `hf-hub` 0.4 asks each file's metadata with `GET …/resolve/{revision}/{file}` and
//! `Range: bytes=0-0` (following relative redirects; it needs the `x-repo-commit`,
//! `etag`/`x-linked-etag` and `content-range` headers), downloads the body into
//! `blobs/{etag}.part` (locked through `blobs/{etag}.lock`), renames it to `blobs/{etag}`, links
//! `snapshots/{commit}/{file}` to it and writes `refs/{revision}`. It leaves the `.part` file of a
//! transfer that failed (to resume it) and the `.lock` files, and writes a ref after the first
//! file, before the model is whole. So it is pointed at a staging cache of this download's own
//! (`models--org--name/.bias-download-{pid}-{n}/`), and only a model that arrived whole, every
//! blob named by a SHA-256 checked, is moved into the cache: blobs, then the snapshot's links
//! (`config.json` last), then the ref (see "Manage `huggingface_hub` cache-system",
//! <https://huggingface.co/docs/huggingface_hub/guides/manage-cache>). The staging folder is
//! removed whatever happens; one left by a process that was killed is removed by the next
//! download of the same model.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use hf_hub::api::sync::{ApiBuilder, ApiError, ApiRepo};
use hf_hub::{Cache, Repo, RepoType};
use sha2::{Digest, Sha256};

use super::{HubId, HubOptions, ResolvedModel};
use crate::adapter::{ADAPTER_CONFIG, ADAPTER_WEIGHTS};
use crate::error::DownloadError;
use crate::PlmError;

/// The name of a staging folder, before `{process id}-{download number}`.
const STAGING: &str = ".bias-download-";
/// The tokenizer files the loaders read when the repository has them.
const TOKENIZER_FILES: [&str; 3] = [
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
];
/// Retries of a transfer cut short (each resumes where the last stopped).
const RETRIES: usize = 2;

/// Downloads `id` into `cache` (see the module doc) and resolves it there.
pub(super) fn download(
    id: &HubId,
    cache: &Path,
    options: &HubOptions,
) -> Result<ResolvedModel, PlmError> {
    let repo_dir = cache.join(id.cache_folder());
    remove_stale_staging(&repo_dir);
    // One folder per download, even of two threads of a process; one that a killed process of
    // the same id left is removed first.
    static DOWNLOADS: AtomicUsize = AtomicUsize::new(0);
    let n = DOWNLOADS.fetch_add(1, Ordering::Relaxed);
    let staging = repo_dir.join(format!("{STAGING}{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    if options.progress {
        eprintln!(
            "downloading {}@{} from {} into {}",
            id.repo,
            id.revision,
            options.endpoint,
            cache.display()
        );
    }
    let result = Fetch::new(id, &staging, options).and_then(|fetch| {
        let commit = fetch.model()?;
        publish(&fetch.staged_repo(), &repo_dir, &id.revision, &commit)?;
        Ok(commit)
    });
    // Best effort: the error to report is the download's, not a cleanup's.
    let _ = fs::remove_dir_all(&staging);
    if result.is_err() {
        // The repository folder, when this download made it and it holds nothing else.
        let _ = fs::remove_dir(&repo_dir);
    }
    let commit = result?;
    Ok(ResolvedModel {
        dir: repo_dir.join("snapshots").join(&commit),
        hub: Some((id.clone(), commit)),
    })
}

/// Removes the staging folders of processes that no longer run (where `/proc` tells).
fn remove_stale_staging(repo_dir: &Path) {
    let (Ok(entries), true) = (fs::read_dir(repo_dir), Path::new("/proc/self").exists()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(STAGING))
            .and_then(|n| n.split_once('-'))
            .map(|(pid, _)| pid);
        if pid.is_some_and(|p| !Path::new("/proc").join(p).exists()) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// One download: the client, pointed at the staging cache, and what errors name.
struct Fetch<'a> {
    id: &'a HubId,
    options: &'a HubOptions,
    staging: PathBuf,
    api: hf_hub::api::sync::Api,
}

impl<'a> Fetch<'a> {
    fn new(id: &'a HubId, staging: &Path, options: &'a HubOptions) -> Result<Self, PlmError> {
        let api = ApiBuilder::from_cache(Cache::new(staging.to_path_buf()))
            .with_endpoint(options.endpoint.trim_end_matches('/').to_owned())
            .with_token(options.token.clone())
            .with_progress(options.progress)
            .with_retries(RETRIES)
            .with_user_agent("bias", env!("CARGO_PKG_VERSION"))
            .build()
            .map_err(|e| Self::fail(id, options, &id.revision, "any file", e))?;
        Ok(Fetch {
            id,
            options,
            staging: staging.to_path_buf(),
            api,
        })
    }

    /// The repository's folder in the staging cache.
    fn staged_repo(&self) -> PathBuf {
        self.staging.join(self.id.cache_folder())
    }

    /// Downloads what the loader reads and returns the commit it came from.
    fn model(&self) -> Result<String, PlmError> {
        let first = self.repo(&self.id.revision);
        // A model, else a LoRA adapter (peft's folder, over a base model it names).
        let adapter = match self.optional(&first, "config.json")? {
            Some(_) => false,
            None => match self.optional(&first, ADAPTER_CONFIG)? {
                Some(_) => true,
                None => return Err(self.no_model()),
            },
        };
        let commit = self.commit()?;
        let pinned = self.repo(&commit);
        for file in TOKENIZER_FILES {
            self.optional(&pinned, file)?;
        }
        if adapter {
            self.required(&pinned, ADAPTER_WEIGHTS)?;
        } else {
            self.weights(&pinned)?;
        }
        Ok(commit)
    }

    /// `model.safetensors`, else `model.safetensors.index.json` and every shard it names.
    fn weights(&self, repo: &ApiRepo) -> Result<(), PlmError> {
        if self.optional(repo, "model.safetensors")?.is_some() {
            return Ok(());
        }
        let Some(index) = self.optional(repo, "model.safetensors.index.json")? else {
            return Err(self.error(
                "model.safetensors",
                "not found (HTTP 404), and no model.safetensors.index.json either",
                "only safetensors checkpoints are read, not pytorch_model.bin: pick a revision \
                 with model.safetensors (or convert the checkpoint and give its folder)",
            ));
        };
        for shard in shards(&index)? {
            self.required(repo, &shard)?;
        }
        Ok(())
    }

    /// The client for `revision`.
    fn repo(&self, revision: &str) -> ApiRepo {
        self.api.repo(Repo::with_revision(
            self.id.repo.clone(),
            RepoType::Model,
            revision.to_owned(),
        ))
    }

    /// The commit `hf-hub` wrote to the staging cache's ref for the revision asked.
    fn commit(&self) -> Result<String, PlmError> {
        if super::is_commit(&self.id.revision) {
            return Ok(self.id.revision.clone());
        }
        let path = self.staged_repo().join("refs").join(&self.id.revision);
        fs::read_to_string(&path)
            .map(|c| c.trim().to_owned())
            .map_err(|source| PlmError::Io { path, source })
    }

    /// Downloads `file`, which must exist.
    fn required(&self, repo: &ApiRepo, file: &str) -> Result<PathBuf, PlmError> {
        self.optional(repo, file)?.ok_or_else(|| {
            self.error(
                file,
                "not found (HTTP 404)",
                "the repository names it but does not hold it: try another revision",
            )
        })
    }

    /// Downloads `file`; `None` when the Hub has no such file (HTTP 404 without a repository
    /// or revision error).
    fn optional(&self, repo: &ApiRepo, file: &str) -> Result<Option<PathBuf>, PlmError> {
        match repo.download(file) {
            Ok(path) => {
                check_blob(&path).map_err(|reason| {
                    self.error(file, &reason, "nothing was kept in the cache: run again")
                })?;
                self.progress_line(file, &size_of(&path));
                Ok(Some(path))
            }
            Err(e) if is_missing_file(&e) => Ok(None),
            Err(e) => Err(Self::fail(
                self.id,
                self.options,
                &self.id.revision,
                file,
                e,
            )),
        }
    }

    /// One line per file on standard error, when progress is shown.
    fn progress_line(&self, file: &str, what: &str) {
        if self.options.progress {
            eprintln!("  {}: {file} {what}", self.id.repo);
        }
    }

    /// The error for a repository without `config.json` or `adapter_config.json`.
    fn no_model(&self) -> PlmError {
        self.error(
            "config.json",
            &format!("no such model or revision on {}", self.options.endpoint),
            &format!(
                "neither config.json nor {ADAPTER_CONFIG} was found: check the id and the \
                 revision (no folder of that name exists here either){}",
                token_hint(self.options)
            ),
        )
    }

    /// A [`PlmError::Download`] of `file`.
    fn error(&self, file: &str, reason: &str, hint: &str) -> PlmError {
        download_error(
            self.id,
            self.options,
            file,
            reason.to_owned(),
            hint.to_owned(),
            None,
        )
    }

    /// The [`PlmError::Download`] for `hf-hub`'s error `e` on `file`.
    fn fail(id: &HubId, options: &HubOptions, revision: &str, file: &str, e: ApiError) -> PlmError {
        let (reason, hint, source) = explain(e, options, revision);
        download_error(id, options, file, reason, hint, source)
    }
}

/// The boxed source of a [`PlmError::Download`].
type Source = Option<Box<dyn std::error::Error + Send + Sync>>;

/// A [`PlmError::Download`].
fn download_error(
    id: &HubId,
    options: &HubOptions,
    file: &str,
    reason: String,
    hint: String,
    source: Source,
) -> PlmError {
    PlmError::Download(Box::new(DownloadError {
        repo: id.repo.clone(),
        revision: id.revision.clone(),
        file: file.to_owned(),
        endpoint: options.endpoint.clone(),
        reason,
        hint,
        source,
    }))
}

/// What to add to a hint about tokens.
fn token_hint(options: &HubOptions) -> &'static str {
    if options.token.is_some() {
        "; a private or gated model needs a token with access to it (the one given, from \
         HF_TOKEN or the token file, may lack it)"
    } else {
        "; a private or gated model reads as missing without a token: set HF_TOKEN (or run \
         `huggingface-cli login`)"
    }
}

/// Whether `e` is a plain "no such file" (HTTP 404 that names no missing repository or
/// revision).
fn is_missing_file(e: &ApiError) -> bool {
    match e {
        ApiError::RequestError(e) => match &**e {
            ureq::Error::Status(404, response) => !matches!(
                response.header("x-error-code"),
                Some("RepoNotFound" | "RevisionNotFound")
            ),
            _ => false,
        },
        _ => false,
    }
}

/// The reason, the hint and the source of a failed request.
fn explain(e: ApiError, options: &HubOptions, revision: &str) -> (String, String, Source) {
    let endpoint = &options.endpoint;
    match e {
        ApiError::TooManyRetries(e) => explain(*e, options, revision),
        ApiError::RequestError(e) => match *e {
            ureq::Error::Status(code, response) => {
                let error_code = response.header("x-error-code").map(str::to_owned);
                status_reason(code, error_code.as_deref(), options, revision)
            }
            ureq::Error::Transport(t) => (
                format!("cannot reach {endpoint}"),
                "no folder of that name exists here, so it was taken for a Hugging Face id: \
                 check the path, or the network, a proxy (HTTPS_PROXY) or HF_ENDPOINT; without \
                 a network, fill the cache on another machine (`huggingface-cli download`) and \
                 set HF_HUB_OFFLINE=1"
                    .into(),
                Some(Box::new(t)),
            ),
        },
        ApiError::IoError(e) if e.kind() == ErrorKind::UnexpectedEof => (
            "the transfer was cut short before the end of the file".into(),
            "nothing was kept in the cache: run again to download it afresh".into(),
            Some(Box::new(e)),
        ),
        ApiError::IoError(e) => (
            "the file could not be received or written to the cache".into(),
            "check the connection and the cache's disk space and permissions, then run again"
                .into(),
            Some(Box::new(e)),
        ),
        ApiError::MissingHeader(h) | ApiError::InvalidHeader(h) => (
            format!("the server's answer lacks a valid {h} header"),
            format!("is {endpoint} a Hugging Face Hub (HF_ENDPOINT)?"),
            None,
        ),
        other => (
            other.to_string(),
            "run again; if it persists, download the model with `huggingface-cli download`".into(),
            None,
        ),
    }
}

/// The reason and hint of an HTTP error status (with the Hub's `X-Error-Code`).
fn status_reason(
    code: u16,
    error_code: Option<&str>,
    options: &HubOptions,
    revision: &str,
) -> (String, String, Source) {
    let endpoint = &options.endpoint;
    let (reason, hint) = match (code, error_code) {
        (_, Some("RepoNotFound")) => (
            format!("no such model on {endpoint} (HTTP {code})"),
            format!(
                "check the id (no folder of that name exists here either){}",
                token_hint(options)
            ),
        ),
        (_, Some("RevisionNotFound")) => (
            format!("no revision {revision} on {endpoint} (HTTP {code})"),
            "check the branch, tag or commit after `@`".into(),
        ),
        (401 | 403, _) | (_, Some("GatedRepo")) => (
            format!("access refused (HTTP {code})"),
            if options.token.is_some() {
                format!(
                    "the token given (HF_TOKEN, or the token file) has no access to this gated \
                     or private model: accept its terms on its page on {endpoint}, or use a \
                     token that has access"
                )
            } else {
                format!(
                    "a gated or private model needs a token: set HF_TOKEN (or run \
                     `huggingface-cli login`), after accepting its terms on its page on \
                     {endpoint}"
                )
            },
        ),
        (404, _) => (
            format!("no such model, revision or file on {endpoint} (HTTP 404)"),
            format!("check the id and the revision{}", token_hint(options)),
        ),
        _ => (
            format!("the server answered HTTP {code}"),
            "try again later".into(),
        ),
    };
    (reason, hint, None)
}

/// Checks a downloaded file against its blob's name when that is a SHA-256 (the Hub's etag of
/// a file stored with Git LFS, as weights are): a transfer cut short or corrupted fails here.
fn check_blob(path: &Path) -> Result<(), String> {
    let blob = fs::read_link(path).ok();
    let name = blob
        .as_deref()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .unwrap_or("");
    if name.len() != 64 || !name.chars().all(|c| c.is_ascii_hexdigit()) {
        return Ok(());
    }
    let mut hasher = Sha256::new();
    let mut file = fs::File::open(path).map_err(|e| format!("cannot read it back: {e}"))?;
    std::io::copy(&mut file, &mut hasher).map_err(|e| format!("cannot read it back: {e}"))?;
    let digest: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if digest.eq_ignore_ascii_case(name) {
        Ok(())
    } else {
        Err(format!(
            "what arrived does not match its SHA-256 {name} (a transfer cut short or corrupted)"
        ))
    }
}

/// A file's size for a progress line.
fn size_of(path: &Path) -> String {
    let bytes = fs::metadata(path).map_or(0, |m| m.len());
    if bytes >= 1 << 20 {
        format!("({:.1} MiB)", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("({bytes} bytes)")
    }
}

/// The shard files a `model.safetensors.index.json` names, each once.
fn shards(index: &Path) -> Result<Vec<String>, PlmError> {
    let text = fs::read_to_string(index).map_err(|source| PlmError::Io {
        path: index.to_path_buf(),
        source,
    })?;
    let parsed: serde_json::Value =
        serde_json::from_str(&text).map_err(|source| PlmError::ConfigJson {
            path: index.to_path_buf(),
            source,
        })?;
    let mut files: Vec<String> = parsed
        .get("weight_map")
        .and_then(serde_json::Value::as_object)
        .map(|m| {
            m.values()
                .filter_map(serde_json::Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files.dedup();
    Ok(files)
}

/// Moves the staged snapshot of `commit` into `repo_dir`: its blobs, then its links
/// (`config.json` and `adapter_config.json` last, which make a snapshot a model), then
/// `refs/{revision}` (unless the revision is the commit itself).
fn publish(staged: &Path, repo_dir: &Path, revision: &str, commit: &str) -> Result<(), PlmError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PlmError::Io { path, source }
    };
    let from = staged.join("snapshots").join(commit);
    let to = repo_dir.join("snapshots").join(commit);
    let mut files = snapshot_files(&from).map_err(io(&from))?;
    files.sort_by_key(|f| f == Path::new("config.json") || f == Path::new(ADAPTER_CONFIG));
    for file in &files {
        publish_file(staged, repo_dir, &from.join(file), &to.join(file)).map_err(io(&to))?;
    }
    if revision != commit {
        let refs = repo_dir.join("refs").join(revision);
        write_ref(&refs, commit).map_err(io(&refs))?;
    }
    Ok(())
}

/// The files of a snapshot folder, relative to it (shards may sit in subfolders).
fn snapshot_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let path = rel.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    Ok(files)
}

/// Moves one staged file: its blob into `repo_dir/blobs` (kept if already there) and its link
/// (the same relative target) into the snapshot; a staged plain file (where `hf-hub` could not
/// make a link) is moved as it is.
fn publish_file(staged: &Path, repo_dir: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
    if to.exists() {
        // Another download of the same commit put it there: the same bytes.
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent)?;
    }
    if to.symlink_metadata().is_ok() {
        // A link whose blob is gone.
        fs::remove_file(to)?;
    }
    let Ok(target) = fs::read_link(from) else {
        return fs::rename(from, to);
    };
    let blob_name = target.file_name().unwrap_or_default();
    let blob = repo_dir.join("blobs").join(blob_name);
    if !blob.is_file() {
        fs::create_dir_all(repo_dir.join("blobs"))?;
        fs::rename(staged.join("blobs").join(blob_name), &blob)?;
    }
    link(&target, to, &blob)
}

/// A symbolic link `to` → `target` (relative); on systems without symbolic links, a copy of
/// `blob`.
fn link(target: &Path, to: &Path, blob: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let _ = blob;
        match std::os::unix::fs::symlink(target, to) {
            Err(e) if e.kind() == ErrorKind::AlreadyExists && to.exists() => Ok(()),
            other => other,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = target;
        fs::copy(blob, to).map(|_| ())
    }
}

/// Writes `refs/{revision}` atomically (a temporary file renamed over it).
fn write_ref(path: &Path, commit: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    fs::write(&tmp, commit)?;
    fs::rename(&tmp, path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn snapshot_links_are_published_config_last_and_the_ref_after() {
        let root = std::env::temp_dir().join(format!("bias-plm-publish-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let (staged, real) = (root.join("staged"), root.join("real"));
        let commit = "0123456789abcdef0123456789abcdef01234567";
        let snap = staged.join("snapshots").join(commit);
        fs::create_dir_all(&snap).unwrap();
        fs::create_dir_all(staged.join("blobs")).unwrap();
        for (file, blob) in [("config.json", "b1"), ("model.safetensors", "b2")] {
            fs::write(staged.join("blobs").join(blob), file).unwrap();
            std::os::unix::fs::symlink(Path::new("../../blobs").join(blob), snap.join(file))
                .unwrap();
        }
        publish(&staged, &real, "main", commit).unwrap();
        let out = real.join("snapshots").join(commit);
        assert_eq!(
            fs::read_to_string(out.join("config.json")).unwrap(),
            "config.json"
        );
        assert_eq!(
            fs::read_to_string(out.join("model.safetensors")).unwrap(),
            "model.safetensors"
        );
        assert_eq!(fs::read_to_string(real.join("refs/main")).unwrap(), commit);
        assert_eq!(
            snapshot_files(&real.join("blobs")).unwrap().len(),
            2,
            "no temporary file left"
        );
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_blob_named_by_a_sha256_must_match_it() {
        let root = std::env::temp_dir().join(format!("bias-plm-blob-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        let good = format!("{:x}", Sha256::digest(b"abc"));
        let bad = format!("{:x}", Sha256::digest(b"abcd"));
        for name in [&good, &bad] {
            fs::write(root.join(name), b"abc").unwrap();
            std::os::unix::fs::symlink(root.join(name), root.join(format!("link-{name}"))).unwrap();
        }
        assert!(check_blob(&root.join(format!("link-{good}"))).is_ok());
        let err = check_blob(&root.join(format!("link-{bad}"))).unwrap_err();
        assert!(err.contains("cut short"), "{err}");
        // A name that is no SHA-256 (a git blob id) is not checked.
        fs::write(root.join("plain"), b"x").unwrap();
        assert!(check_blob(&root.join("plain")).is_ok());
        let _ = fs::remove_dir_all(&root);
    }
}
