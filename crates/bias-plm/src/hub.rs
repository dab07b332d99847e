//! Models named the way people name them: a local folder, or a Hugging Face id
//! (`bert-base-uncased`, `EleutherAI/pythia-160m@main`) found in the Hugging Face cache, laid out
//! as `huggingface_hub` lays it out (`models--{org}--{name}/refs/{revision}` holding a commit,
//! `snapshots/{commit}/` holding the files, symlinks into `blobs/`; see "Manage
//! `huggingface_hub` cache-system", <https://huggingface.co/docs/huggingface_hub/guides/manage-cache>),
//! or else downloaded into that cache from the Hub ([`resolve_model_with`]).
//!
//! The cache is the first of `$HF_HUB_CACHE`, `$HF_HOME/hub`, `$XDG_CACHE_HOME/huggingface/hub`
//! and `~/.cache/huggingface/hub` that is set, as `huggingface_hub.constants` chooses it
//! ([`hub_cache`]). A model the cache lacks is downloaded with the `hf-hub` crate — only what the
//! loader reads: `config.json` (or a LoRA adapter's `adapter_config.json` and
//! `adapter_model.safetensors`), the tokenizer files, and `model.safetensors` or
//! `model.safetensors.index.json` and its shards — from `$HF_ENDPOINT`
//! (`https://huggingface.co`), with the token of `$HF_TOKEN` for gated and private models; never
//! when `$HF_HUB_OFFLINE` is set ([`HubOptions::from_env`]). A download that fails leaves nothing
//! in the cache.

use std::path::{Path, PathBuf};

use crate::PlmError;

mod download;

/// The Hub a model is downloaded from when `$HF_ENDPOINT` is not set.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// A Hugging Face model id with an optional revision: `[org/]name[@revision]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubId {
    /// `org/name`, or `name` for a model without an organisation.
    pub repo: String,
    /// A branch, a tag or a commit; `main` when none is given.
    pub revision: String,
}

impl HubId {
    /// Parses `[org/]name[@revision]`: one or two parts of letters, digits, `-`, `_` and `.`
    /// (not starting with `.` or `-`), the revision anything without `/..` or a NUL. `None` for
    /// anything else (a path).
    pub fn parse(spec: &str) -> Option<Self> {
        let (repo, revision) = match spec.split_once('@') {
            Some((repo, rev)) => (repo, rev),
            None => (spec, "main"),
        };
        let part_ok = |p: &str| {
            !p.is_empty()
                && !p.starts_with(['.', '-'])
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        let parts: Vec<&str> = repo.split('/').collect();
        let revision_ok = !revision.is_empty()
            && !revision.contains("..")
            && !revision.starts_with('/')
            && !revision.contains('\0');
        (parts.len() <= 2 && parts.iter().all(|p| part_ok(p)) && revision_ok).then(|| HubId {
            repo: repo.to_owned(),
            revision: revision.to_owned(),
        })
    }

    /// The cache folder of the repository: `models--{org}--{name}`.
    pub fn cache_folder(&self) -> String {
        format!("models--{}", self.repo.replace('/', "--"))
    }
}

/// Where a model argument points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedModel {
    /// The folder to load.
    pub dir: PathBuf,
    /// The Hugging Face id and the commit it resolved to, when the argument was one.
    pub hub: Option<(HubId, String)>,
}

impl ResolvedModel {
    /// The name a score table should show: the id for a hub model, else `None` (the folder's
    /// name).
    pub fn name(&self) -> Option<&str> {
        self.hub.as_ref().map(|(id, _)| id.repo.as_str())
    }
}

/// Where and how [`resolve_model_with`] looks for and downloads a Hugging Face model.
#[derive(Clone)]
pub struct HubOptions {
    /// The Hugging Face cache (`None`: no cache, so an id is taken as a path).
    pub cache: Option<PathBuf>,
    /// The Hub's address, without a trailing `/` (`https://huggingface.co`).
    pub endpoint: String,
    /// The access token sent as `Authorization: Bearer …` (gated and private models).
    pub token: Option<String>,
    /// Look in the cache only: a model it lacks is an error, nothing is downloaded.
    pub offline: bool,
    /// Show each download on standard error (a progress bar on a terminal, a line per file).
    pub progress: bool,
}

impl std::fmt::Debug for HubOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubOptions")
            .field("cache", &self.cache)
            .field("endpoint", &self.endpoint)
            .field("token", &self.token.as_ref().map(|_| "<hidden>"))
            .field("offline", &self.offline)
            .field("progress", &self.progress)
            .finish()
    }
}

impl HubOptions {
    /// The options `huggingface_hub` takes from the environment: the cache of [`hub_cache`];
    /// `$HF_ENDPOINT` (else [`DEFAULT_ENDPOINT`]); the token of `$HF_TOKEN`, else
    /// `$HUGGING_FACE_HUB_TOKEN`, else the file `$HF_TOKEN_PATH`, else `token` in the Hugging
    /// Face home (`$HF_HOME`, `~/.cache/huggingface`: where `huggingface-cli login` writes it);
    /// offline when `$HF_HUB_OFFLINE` is `1`, `true`, `on` or `yes`; with progress.
    pub fn from_env() -> Self {
        HubOptions {
            cache: hub_cache(),
            endpoint: env_var("HF_ENDPOINT").map_or_else(
                || DEFAULT_ENDPOINT.to_owned(),
                |e| e.to_string_lossy().into(),
            ),
            token: token_from_env(),
            offline: env_var("HF_HUB_OFFLINE").is_some_and(|v| {
                matches!(
                    v.to_string_lossy().to_ascii_lowercase().as_str(),
                    "1" | "true" | "on" | "yes"
                )
            }),
            progress: true,
        }
        .trimmed()
    }

    /// Options that only look in `cache` and never download (what [`resolve_model_in`] uses).
    pub fn cache_only(cache: Option<PathBuf>) -> Self {
        HubOptions {
            cache,
            endpoint: DEFAULT_ENDPOINT.to_owned(),
            token: None,
            offline: true,
            progress: false,
        }
    }

    /// The endpoint without trailing slashes.
    fn trimmed(mut self) -> Self {
        let len = self.endpoint.trim_end_matches('/').len();
        self.endpoint.truncate(len);
        self
    }
}

/// A non-empty environment variable.
fn env_var(key: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(key).filter(|v| !v.is_empty())
}

/// `$HF_TOKEN`, `$HUGGING_FACE_HUB_TOKEN`, or the token file (see [`HubOptions::from_env`]).
fn token_from_env() -> Option<String> {
    let file = env_var("HF_TOKEN_PATH")
        .map(PathBuf::from)
        .or_else(|| hf_home().map(|h| h.join("token")));
    let from_file = || std::fs::read_to_string(file?).ok();
    env_var("HF_TOKEN")
        .or_else(|| env_var("HUGGING_FACE_HUB_TOKEN"))
        .map(|t| t.to_string_lossy().into_owned())
        .or_else(from_file)
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
}

/// The Hugging Face home folder: `$HF_HOME`, else `$XDG_CACHE_HOME/huggingface`, else
/// `~/.cache/huggingface` (`huggingface_hub.constants.HF_HOME`); `None` without a home folder.
pub fn hf_home() -> Option<PathBuf> {
    env_var("HF_HOME")
        .map(PathBuf::from)
        .or_else(|| env_var("XDG_CACHE_HOME").map(|c| PathBuf::from(c).join("huggingface")))
        .or_else(|| env_var("HOME").map(|h| PathBuf::from(h).join(".cache/huggingface")))
}

/// The Hugging Face cache folder this process would use (see the module doc): `$HF_HUB_CACHE`,
/// else `hub` in [`hf_home`]; `None` when neither a variable nor a home folder is set.
pub fn hub_cache() -> Option<PathBuf> {
    env_var("HF_HUB_CACHE")
        .map(PathBuf::from)
        .or_else(|| hf_home().map(|h| h.join("hub")))
}

/// Resolves a model argument with the options of the environment
/// ([`HubOptions::from_env`]): see [`resolve_model_with`].
///
/// # Errors
/// Those of [`resolve_model_with`].
pub fn resolve_model(spec: &str) -> Result<ResolvedModel, PlmError> {
    resolve_model_with(spec, &HubOptions::from_env())
}

/// Resolves a model argument from `cache` alone, downloading nothing
/// ([`HubOptions::cache_only`]): see [`resolve_model_with`].
///
/// # Errors
/// Those of [`resolve_model_with`] offline.
pub fn resolve_model_in(spec: &str, cache: Option<&Path>) -> Result<ResolvedModel, PlmError> {
    resolve_model_with(spec, &HubOptions::cache_only(cache.map(Path::to_path_buf)))
}

/// Resolves a model argument: an existing path is used as it is (a local folder wins over a
/// name); else a Hugging Face id `[org/]name[@revision]` is looked up in the cache of `options`:
/// the revision's commit from `refs/{revision}` (or the revision itself when it is a 40-digit
/// commit), then `snapshots/{commit}/` with a `config.json` (or an `adapter_config.json`). A
/// model the cache lacks is downloaded into it, unless `options.offline`: the revision is pinned
/// to the commit the Hub names for the first file, every file comes from that commit, and the
/// files are staged apart and moved into the cache only once all of them arrived whole, so that
/// a failed download leaves nothing behind.
///
/// # Errors
/// [`PlmError::MissingFile`] offline for a model the cache lacks, saying where it looked and how
/// to fetch it; [`PlmError::Download`] for a download that failed (naming the repository, the
/// revision, the file, the endpoint and what to do); [`PlmError::Io`] for a cache that cannot
/// be read or written.
pub fn resolve_model_with(spec: &str, options: &HubOptions) -> Result<ResolvedModel, PlmError> {
    let path = Path::new(spec);
    let local = ResolvedModel {
        dir: path.to_path_buf(),
        hub: None,
    };
    if path.exists() {
        return Ok(local);
    }
    let (Some(id), Some(cache)) = (HubId::parse(spec), options.cache.as_deref()) else {
        // Not a name, or no cache to look in: the loader's missing-folder error says the rest.
        return Ok(local);
    };
    match cached(&id, cache)? {
        Some(found) => Ok(found),
        None if options.offline => Err(not_cached(spec, &id, cache)),
        None => download::download(&id, cache, options),
    }
}

/// Whether `revision` is a full commit hash.
fn is_commit(revision: &str) -> bool {
    revision.len() == 40 && revision.chars().all(|c| c.is_ascii_hexdigit())
}

/// Whether a snapshot folder holds a model: `config.json`, or a LoRA adapter's configuration.
fn is_model(dir: &Path) -> bool {
    dir.join("config.json").is_file() || dir.join(crate::adapter::ADAPTER_CONFIG).is_file()
}

/// The snapshot of `id` in `cache`, if it has one with a model.
fn cached(id: &HubId, cache: &Path) -> Result<Option<ResolvedModel>, PlmError> {
    let repo = cache.join(id.cache_folder());
    let commit = if is_commit(&id.revision) {
        id.revision.clone()
    } else {
        let refs = repo.join("refs").join(&id.revision);
        match std::fs::read_to_string(&refs) {
            Ok(text) => text.trim().to_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(PlmError::Io { path: refs, source }),
        }
    };
    let dir = repo.join("snapshots").join(&commit);
    Ok(is_model(&dir).then(|| ResolvedModel {
        dir,
        hub: Some((id.clone(), commit)),
    }))
}

/// The error for a model the cache lacks when nothing may be downloaded.
fn not_cached(spec: &str, id: &HubId, cache: &Path) -> PlmError {
    PlmError::MissingFile {
        path: cache.join(id.cache_folder()),
        hint: format!(
            "`{spec}` is not a folder, and the Hugging Face cache ({}) holds no snapshot of {} at \
             {} with a config.json; downloads are off (offline: HF_HUB_OFFLINE is set, or a \
             cache-only lookup). Unset HF_HUB_OFFLINE to download it, or fetch it into the cache with `huggingface-cli \
             download {} --revision {}` (or `hf download`) on a machine with network, or give \
             the model's folder",
            cache.display(),
            id.repo,
            id.revision,
            id.repo,
            id.revision
        ),
    }
}

/// `org/name@commit` when `dir` is a snapshot folder of the Hugging Face cache
/// (`…/models--org--name/snapshots/<commit>`), for run fingerprints: a run records the commit
/// its model came from, so that a revision that moved is not resumed.
pub(crate) fn snapshot_revision(dir: &Path) -> Option<String> {
    let mut parts = dir.components().rev().map(|c| c.as_os_str().to_str());
    let (commit, snapshots, folder) = (parts.next()??, parts.next()??, parts.next()??);
    let repo = folder.strip_prefix("models--")?;
    (snapshots == "snapshots" && !commit.is_empty())
        .then(|| format!("{}@{commit}", repo.replace("--", "/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_and_paths_do_not() {
        let id = HubId::parse("EleutherAI/pythia-160m@step1000").unwrap();
        assert_eq!(id.repo, "EleutherAI/pythia-160m");
        assert_eq!(id.revision, "step1000");
        assert_eq!(id.cache_folder(), "models--EleutherAI--pythia-160m");
        assert_eq!(HubId::parse("bert-base-uncased").unwrap().revision, "main");
        for path in [
            "./model",
            "/abs/model",
            "a/b/c",
            "../x",
            "",
            "org/",
            "org/name@",
            "o/n@../../etc",
        ] {
            assert_eq!(HubId::parse(path), None, "{path}");
        }
    }

    #[test]
    fn a_snapshot_folder_names_its_repository_and_commit() {
        let c = "0123456789abcdef0123456789abcdef01234567";
        let dir = PathBuf::from(format!("/c/hub/models--org--tiny-x/snapshots/{c}/"));
        assert_eq!(snapshot_revision(&dir), Some(format!("org/tiny-x@{c}")));
        let dir = PathBuf::from(format!("models--bert-base/snapshots/{c}"));
        assert_eq!(snapshot_revision(&dir), Some(format!("bert-base@{c}")));
        for other in [
            "fixtures/models/bert",
            "snapshots/x",
            "/",
            "models--a--b/refs/main",
        ] {
            assert_eq!(snapshot_revision(Path::new(other)), None, "{other}");
        }
    }

    #[test]
    fn options_hide_the_token_and_trim_the_endpoint() {
        let options = HubOptions {
            endpoint: "http://127.0.0.1:1//".into(),
            token: Some("secret".into()),
            ..HubOptions::cache_only(None)
        }
        .trimmed();
        assert_eq!(options.endpoint, "http://127.0.0.1:1");
        let debug = format!("{options:?}");
        assert!(
            !debug.contains("secret") && debug.contains("<hidden>"),
            "{debug}"
        );
    }

    fn cache_with(files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "bias-plm-hub-{}-{}",
            std::process::id(),
            files.len()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_revision_resolves_through_refs_to_its_snapshot() {
        let c = "0123456789abcdef0123456789abcdef01234567";
        let cache = cache_with(&[
            ("models--org--tiny/refs/main", &format!("{c}\n")),
            (
                &format!("models--org--tiny/snapshots/{c}/config.json"),
                "{}",
            ),
        ]);
        let r = resolve_model_in("org/tiny", Some(&cache)).unwrap();
        assert_eq!(
            r.dir,
            cache.join(format!("models--org--tiny/snapshots/{c}"))
        );
        assert_eq!(r.name(), Some("org/tiny"));
        assert_eq!(r.hub.as_ref().unwrap().1, c);
        // A commit is used as it is.
        let r = resolve_model_in(&format!("org/tiny@{c}"), Some(&cache)).unwrap();
        assert_eq!(r.hub.unwrap().1, c);
        // An unknown revision or model is an error naming the cache and the command.
        for spec in ["org/tiny@v2", "org/other"] {
            let err = resolve_model_in(spec, Some(&cache))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("huggingface-cli download")
                    && err.contains("HF_HUB_OFFLINE")
                    && err.contains(&*cache.to_string_lossy()),
                "{err}"
            );
        }
        // An existing path wins over a name, and no cache means a path.
        let local = resolve_model_in(&cache.to_string_lossy(), Some(&cache)).unwrap();
        assert_eq!(local.hub, None);
        assert_eq!(resolve_model_in("org/tiny", None).unwrap().hub, None);
    }
}
