//! What `bias embed`, `bias debias` and `bias robust retest` share: the measure names, where the
//! vectors come from (word vectors or a model, behind [`DynEmbedder`]), named word sets, and the
//! bias subspace of a pair set.

use std::path::{Path, PathBuf};

use bias_data::wordlists::{load_word_lists, CasePolicy as ListCase, WordLists};
use bias_embed::protocol::{pair_subspace, MissingPairs};
use bias_embed::{BiasSubspace, CasePolicy, DynEmbedder, EmbedError, VectorFormat, WordVectors};
use bias_plm::{DeviceSpec, EmbedOptions, Layer, PlmEmbedder};
use clap::Args;

use crate::error::CliError;

/// Where vectors come from.
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// Word vectors: word2vec binary or text, or GloVe text.
    #[arg(long, conflicts_with = "model")]
    vectors: Option<PathBuf>,
    /// Lower-case the vocabulary (and queries) when loading vectors.
    #[arg(long)]
    lower: bool,
    /// A model folder or a Hugging Face id `org/name[@revision]` (as --model elsewhere): texts
    /// are embedded by mean pooling a layer (special tokens included).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Hidden layer to pool with --model (0 = embeddings; default: the last).
    #[arg(long)]
    layer: Option<usize>,
    /// With --model: embed every term through these templates and average (e.g. `This is a
    /// [target].`).
    #[arg(long)]
    template: Vec<String>,
}

impl SourceArgs {
    /// The word vectors, or the model with its templates (ignored with --vectors).
    pub fn open(&self) -> Result<DynEmbedder<'static>, CliError> {
        match (&self.vectors, &self.model) {
            (Some(path), None) => {
                let case = if self.lower {
                    CasePolicy::Lower
                } else {
                    CasePolicy::Keep
                };
                let vectors = WordVectors::load(path, VectorFormat::Auto, case)?;
                Ok(DynEmbedder::vectors(vectors))
            }
            (None, Some(_)) => {
                Ok(DynEmbedder::new(self.open_model("")?).with_templates(self.template.clone())?)
            }
            _ => Err(CliError::Usage("give --vectors FILE or --model DIR".into())),
        }
    }

    /// The model of --model; `needs` is the option that requires one (for the error).
    pub fn open_model(&self, needs: &str) -> Result<PlmEmbedder, CliError> {
        match &self.model {
            Some(dir) => {
                let options = EmbedOptions {
                    layer: self.layer.map_or(Layer::Last, Layer::Index),
                    ..EmbedOptions::default()
                };
                let (dir, _) = crate::model_args::resolve_model(dir)?;
                Ok(PlmEmbedder::load(dir, DeviceSpec::Auto, options)?)
            }
            None if self.vectors.is_some() && !needs.is_empty() => {
                Err(CliError::Usage(format!("{needs} needs --model DIR")))
            }
            None => Err(CliError::Usage("give --vectors FILE or --model DIR".into())),
        }
    }
}

/// The word lists of --sets, if given.
pub fn read_sets(path: Option<&Path>) -> Result<Option<WordLists>, CliError> {
    Ok(path
        .map(|p| load_word_lists(p, ListCase::Keep))
        .transpose()?)
}

/// Resolves a set argument: a text file, or a name in --sets (a pair set gives all its words).
pub fn resolve_set(
    arg: &str,
    lists: Option<&WordLists>,
) -> Result<(String, Vec<String>), CliError> {
    let path = Path::new(arg);
    if path.is_file() {
        let l = load_word_lists(path, ListCase::Keep)?;
        let set = l
            .sets
            .into_iter()
            .next()
            .ok_or_else(|| CliError::Usage(format!("{arg}: no words in the file")))?;
        return Ok((set.name, set.words));
    }
    let lists = lists.ok_or_else(|| {
        CliError::Usage(format!(
            "`{arg}` is not a file; give --sets FILE to pick named sets"
        ))
    })?;
    if let Some(s) = lists.get(arg) {
        return Ok((s.name.clone(), s.words.clone()));
    }
    if let Some(p) = lists.pairs(arg) {
        let words = p
            .pairs
            .iter()
            .flat_map(|(a, b)| [a.clone(), b.clone()])
            .collect();
        return Ok((p.name.clone(), words));
    }
    Err(CliError::Usage(format!(
        "no set `{arg}` in --sets (available: {})",
        lists.names().join(", ")
    )))
}

/// The bias subspace of the pair set `name` in --sets ([`pair_subspace`]); pairs with a word
/// that has no vector are left out, with a note on standard error.
pub fn definitional_subspace(
    name: &str,
    lists: Option<&WordLists>,
    embedder: &mut DynEmbedder<'_>,
    k: usize,
) -> Result<BiasSubspace, CliError> {
    let pairs = lists
        .and_then(|l| l.pairs(name))
        .ok_or_else(|| CliError::Usage(format!("no pair set `{name}` in --sets")))?;
    let p = pair_subspace(embedder, name, &pairs.pairs, k, MissingPairs::Skip)?;
    if !p.skipped.is_empty() {
        let list: Vec<String> = p
            .skipped
            .iter()
            .map(|s| format!("{} / {} ({})", s.pair.0, s.pair.1, s.missing.join(" ")))
            .collect();
        eprintln!(
            "note: pair set `{name}`: {} of {} pairs left out of the bias subspace, a word \
             without a vector: {}",
            p.skipped.len(),
            pairs.pairs.len(),
            list.join(", ")
        );
    }
    Ok(p.subspace)
}

impl From<EmbedError> for CliError {
    fn from(e: EmbedError) -> Self {
        match e {
            // A model's error, boxed by DynEmbedder: reported as the model layer's.
            EmbedError::Embedder(b) => match b.downcast::<bias_plm::PlmError>() {
                Ok(p) => CliError::Plm(p),
                Err(other) => CliError::Embed(Box::new(EmbedError::Embedder(other))),
            },
            e => CliError::Embed(Box::new(e)),
        }
    }
}
