//! Models named the way people name them: a local folder, or a Hugging Face id
//! (`bert-base-uncased`, `EleutherAI/pythia-160m@main`) found in the Hugging Face cache, laid out
//! as `huggingface_hub` lays it out (`models--{org}--{name}/refs/{revision}` holding a commit,
//! `snapshots/{commit}/` holding the files).
//!
//! The cache is the first of `$HF_HUB_CACHE`, `$HF_HOME/hub`, `$XDG_CACHE_HOME/huggingface/hub`
//! and `~/.cache/huggingface/hub` that is set, as `huggingface_hub.constants` chooses it. Nothing
//! is downloaded: a model that is not in the cache is an error saying how to put it there.

use std::path::{Path, PathBuf};

use crate::PlmError;

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

/// The Hugging Face cache folder this process would use (see the module doc), or `None` when
/// neither a variable nor a home folder is set.
pub fn hub_cache() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("HF_HUB_CACHE")
        .or_else(|| var("HF_HOME").map(|h| h.join("hub")))
        .or_else(|| var("XDG_CACHE_HOME").map(|c| c.join("huggingface/hub")))
        .or_else(|| var("HOME").map(|h| h.join(".cache/huggingface/hub")))
}

/// Resolves a model argument with the cache of [`hub_cache`]: see [`resolve_model_in`].
///
/// # Errors
/// Those of [`resolve_model_in`].
pub fn resolve_model(spec: &str) -> Result<ResolvedModel, PlmError> {
    resolve_model_in(spec, hub_cache().as_deref())
}

/// Resolves a model argument: an existing path is used as it is (a local folder wins over a
/// name); else a Hugging Face id `[org/]name[@revision]` is looked up in `cache`: the revision's
/// commit from `refs/{revision}` (or the revision itself when it is a 40-digit commit), then
/// `snapshots/{commit}/`.
///
/// # Errors
/// [`PlmError::MissingFile`] for an argument that is neither an existing path nor a model in the
/// cache, saying where it looked and how to fetch the model; [`PlmError::Io`] for a `refs` file
/// that cannot be read.
pub fn resolve_model_in(spec: &str, cache: Option<&Path>) -> Result<ResolvedModel, PlmError> {
    let path = Path::new(spec);
    let local = ResolvedModel {
        dir: path.to_path_buf(),
        hub: None,
    };
    if path.exists() {
        return Ok(local);
    }
    let (Some(id), Some(cache)) = (HubId::parse(spec), cache) else {
        // Not a name, or no cache to look in: the loader's missing-folder error says the rest.
        return Ok(local);
    };
    let repo = cache.join(id.cache_folder());
    let commit = if id.revision.len() == 40 && id.revision.chars().all(|c| c.is_ascii_hexdigit()) {
        Some(id.revision.clone())
    } else {
        let refs = repo.join("refs").join(&id.revision);
        match std::fs::read_to_string(&refs) {
            Ok(text) => Some(text.trim().to_owned()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => return Err(PlmError::Io { path: refs, source }),
        }
    };
    let snapshot = commit
        .as_ref()
        .map(|c| repo.join("snapshots").join(c))
        .filter(|d| d.join("config.json").is_file());
    match (snapshot, commit) {
        (Some(dir), Some(commit)) => Ok(ResolvedModel {
            dir,
            hub: Some((id, commit)),
        }),
        _ => Err(PlmError::MissingFile {
            path: repo,
            hint: format!(
                "`{spec}` is not a folder, and the Hugging Face cache ({}) holds no snapshot of \
                 {} at {} with a config.json. Fetch it into the cache with `huggingface-cli \
                 download {} --revision {}` (or `hf download`), on a machine with network if \
                 this one is offline, or give the model's folder",
                cache.display(),
                id.repo,
                id.revision,
                id.repo,
                id.revision
            ),
        }),
    }
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
                err.contains("huggingface-cli download") && err.contains(&*cache.to_string_lossy()),
                "{err}"
            );
        }
        // An existing path wins over a name, and no cache means a path.
        let local = resolve_model_in(&cache.to_string_lossy(), Some(&cache)).unwrap();
        assert_eq!(local.hub, None);
        assert_eq!(resolve_model_in("org/tiny", None).unwrap().hub, None);
    }
}
