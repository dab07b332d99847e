//! A masked LM opened from a Hugging Face folder, with everything scoring needs: model,
//! tokenizer, special ids, a name for the score table and a digest for run fingerprints.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use bias_core::run::{sha256_file, RunFingerprint};
use bias_core::{PairScorer, SentencePair};
use tch::Kind;

use crate::adapter::ModelFolder;
use crate::model::checkpoint_files;
use crate::{
    DeviceSpec, MlmScorer, ModelParts, PlmError, PlmModel, PlmTokenizer, ScorerKind,
    ScoringOptions, SpecialIds,
};

/// A masked language model with its tokenizer, ready to score.
///
/// ```no_run
/// use bias_core::run::score_to_table;
/// use bias_plm::{DeviceSpec, MaskedLm, ScorerKind, ScoringOptions};
///
/// let lm = MaskedLm::open("path/to/bert-base-uncased", DeviceSpec::Auto, tch::Kind::Float)?;
/// let pairs = bias_data::load_pairs("data/crows-pairs/crows_pairs_anonymized.csv")?.pairs;
/// let mut scorer = lm.scorer(&[ScorerKind::Aul, ScorerKind::Cps], ScoringOptions::default())?;
/// let (table, tally) = score_to_table(&mut scorer, &pairs, "crows-pairs", lm.name())?;
/// println!("{} rows, {} pairs skipped", table.len(), tally.skipped());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct MaskedLm {
    model: PlmModel,
    tokenizer: PlmTokenizer,
    special: SpecialIds,
    id: ModelId,
}

impl MaskedLm {
    /// Opens the masked LM in `dir` (`config.json`, `model.safetensors`, `tokenizer.json`) on
    /// `device` in the floating-point `kind`. Its name is the folder's name
    /// ([`MaskedLm::with_name`] changes it).
    ///
    /// # Errors
    /// Those of [`PlmModel::load`] and [`PlmTokenizer::from_dir`];
    /// [`PlmError::MissingSpecialToken`] when the tokenizer has no mask or padding token.
    pub fn open(dir: impl AsRef<Path>, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        let dir = dir.as_ref();
        let model = PlmModel::load(dir, device, kind)?;
        let tokenizer = PlmTokenizer::from_dir(dir)?;
        Self::assemble(model, tokenizer, ModelId::of(dir))
    }

    /// Builds the masked LM of `parts` (a `config.json` text, a `tokenizer.json` text and a
    /// `state_dict`'s tensors: see [`ModelParts`]) on `device` in the floating-point `kind`,
    /// through the same steps as [`MaskedLm::open`] and with the same checks and errors (a part
    /// is named by its pseudo-path, [`ModelParts::pseudo_path`]). Its name is
    /// [`ModelParts::name`], its [`MaskedLm::dir`] the pseudo-path `<in-memory model of NAME>`,
    /// and its digest [`ModelParts::digest`], computed on first use.
    ///
    /// Tensors already on the device in `kind` are used in place, without a copy (a CPU
    /// float32 `state_dict` loaded on the CPU in `Kind::Float`): see
    /// [`crate::LanguageModel::from_parts`].
    ///
    /// # Errors
    /// As [`MaskedLm::open`], but never [`PlmError::MissingFile`] or [`PlmError::Io`]:
    /// [`PlmError::ConfigJson`], [`PlmError::UnsupportedModel`] and
    /// [`PlmError::UnsupportedConfig`] for the configuration; [`PlmError::MissingMlmHead`],
    /// [`PlmError::MissingWeight`] / [`PlmError::WeightShape`] for a parameter that is absent or
    /// disagrees with the configuration; [`PlmError::Tokenizer`];
    /// [`PlmError::MissingSpecialToken`]; [`PlmError::HalfOnCpu`]; [`PlmError::Torch`].
    pub fn from_parts(parts: ModelParts, device: DeviceSpec, kind: Kind) -> Result<Self, PlmError> {
        let model = PlmModel::from_parts(&parts, device, kind)?;
        let tokenizer = PlmTokenizer::from_json_str(&parts.tokenizer_json, &parts.name)?;
        Self::assemble(model, tokenizer, ModelId::in_memory(parts))
    }

    /// What [`MaskedLm::open`] and [`MaskedLm::from_parts`] share once the model and the
    /// tokenizer are loaded: the special ids.
    fn assemble(model: PlmModel, tokenizer: PlmTokenizer, id: ModelId) -> Result<Self, PlmError> {
        let special = SpecialIds::of(&model, &tokenizer)?;
        Ok(MaskedLm {
            model,
            tokenizer,
            special,
            id,
        })
    }

    /// The model.
    pub fn model(&self) -> &PlmModel {
        &self.model
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &PlmTokenizer {
        &self.tokenizer
    }

    /// Mask and padding ids and the maximum length.
    pub fn special(&self) -> SpecialIds {
        self.special
    }

    /// The device the weights live on.
    pub fn device(&self) -> tch::Device {
        self.model.device()
    }

    /// A scorer for `kinds` on this model.
    ///
    /// # Errors
    /// [`PlmError::UnknownScorer`] if `kinds` is empty.
    pub fn scorer(
        &self,
        kinds: &[ScorerKind],
        options: ScoringOptions,
    ) -> Result<MlmScorer<'_>, PlmError> {
        MlmScorer::new(&self.model, &self.tokenizer, self.special, kinds, options)
    }
}

/// The methods a loaded language model (`$ty`, holding its [`ModelId`] as `id`) answers about
/// its identity: its name, folder, digest and run fingerprints, alike for masked and causal
/// models.
macro_rules! model_identity {
    ($ty:ident) => {
        impl $ty {
            /// Sets the name written to the score table's `model` column.
            pub fn with_name(mut self, name: impl Into<String>) -> Self {
                self.id.name = name.into();
                self
            }

            /// The name written to the score table's `model` column.
            pub fn name(&self) -> &str {
                &self.id.name
            }

            #[doc = concat!(
                "The folder the model was opened from; for a model built from parts (`",
                stringify!($ty),
                "::from_parts`), the pseudo-path `<in-memory model of NAME>`, which is no folder."
            )]
            pub fn dir(&self) -> &std::path::Path {
                &self.id.dir
            }

            /// What the model is known by in tables and fingerprints.
            pub(crate) fn id(&self) -> &$crate::masked_lm::ModelId {
                &self.id
            }

            /// SHA-256 of the files that define the model (`config.json`, `tokenizer.json` and
            /// the weights, hashes joined by `:`), computed on first use; for a model built from
            /// parts, `ModelParts::digest` of them (which reads every tensor once).
            ///
            /// # Errors
            /// `PlmError::Core` if a file cannot be read; `PlmError::Torch` if a tensor cannot.
            pub fn digest(&self) -> Result<&str, $crate::PlmError> {
                self.id.digest()
            }

            /// The fingerprint of a resumable run of `scorer` (built from this model) over
            /// `pairs` of `dataset`, `chunk_pairs` pairs at a time.
            ///
            /// # Errors
            /// As the digest's.
            pub fn fingerprint(
                &self,
                scorer: &(impl bias_core::PairScorer + ?Sized),
                dataset: &str,
                pairs: &[bias_core::SentencePair],
                chunk_pairs: usize,
            ) -> Result<bias_core::run::RunFingerprint, $crate::PlmError> {
                self.id.fingerprint(scorer, dataset, pairs, chunk_pairs)
            }
        }
    };
}
pub(crate) use model_identity;

model_identity!(MaskedLm);

/// What a loaded model is known by in score tables and run fingerprints: its name, the folder
/// it was opened from (or the pseudo-path of parts held in memory), and the digest of that
/// folder's files (or of the parts), computed on first use.
#[derive(Debug)]
pub(crate) struct ModelId {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    digest: OnceLock<String>,
    /// For a model built from parts: the parts, held (texts, and handles on the tensors'
    /// storage, not copies) until their digest is computed, then released; `None` for a
    /// folder.
    parts: Option<Mutex<Option<ModelParts>>>,
}

impl ModelId {
    /// The identity of the model in `dir`, named after the folder ([`folder_name`]).
    pub(crate) fn of(dir: &Path) -> Self {
        ModelId {
            name: folder_name(dir),
            dir: dir.to_path_buf(),
            digest: OnceLock::new(),
            parts: None,
        }
    }

    /// An identity whose digest is already known (a served model's).
    pub(crate) fn known(name: String, dir: &Path, digest: String) -> Self {
        ModelId {
            name,
            dir: dir.to_path_buf(),
            digest: OnceLock::from(digest),
            parts: None,
        }
    }

    /// The identity of a model built from `parts`: their name, the pseudo-path
    /// `<in-memory model of NAME>`, and [`ModelParts::digest`] when first asked for.
    pub(crate) fn in_memory(parts: ModelParts) -> Self {
        ModelId {
            name: parts.name.clone(),
            dir: parts.pseudo_path("model"),
            digest: OnceLock::new(),
            parts: Some(Mutex::new(Some(parts))),
        }
    }

    /// [`model_digest`] of the folder, or [`ModelParts::digest`] of the parts, computed on first
    /// use.
    pub(crate) fn digest(&self) -> Result<&str, PlmError> {
        if let Some(d) = self.digest.get() {
            return Ok(d);
        }
        let Some(held) = &self.parts else {
            let d = model_digest(&self.dir)?;
            return Ok(self.digest.get_or_init(|| d));
        };
        let mut held = held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The parts were kept for their digest only: released once it is known.
        if let Some(parts) = held.take() {
            match parts.digest() {
                Ok(d) => {
                    self.digest.get_or_init(|| d);
                }
                Err(e) => {
                    *held = Some(parts);
                    return Err(e);
                }
            }
        }
        drop(held);
        // Set just now, or by whoever took the parts before this call got the lock.
        Ok(self.digest.get().map(String::as_str).unwrap_or_default())
    }

    /// The Hugging Face commit of a folder that is a snapshot of the cache
    /// ([`RunFingerprint::model_revision`]); `None` for parts held in memory.
    pub(crate) fn revision(&self) -> Option<String> {
        match self.parts {
            Some(_) => None,
            None => crate::hub::snapshot_revision(&self.dir),
        }
    }

    /// The fingerprint of a resumable run of `scorer` over `pairs` of `dataset`, `chunk_pairs`
    /// pairs at a time, with the Hugging Face commit of a folder that is a snapshot of the
    /// cache ([`RunFingerprint::model_revision`]).
    pub(crate) fn fingerprint(
        &self,
        scorer: &(impl PairScorer + ?Sized),
        dataset: &str,
        pairs: &[SentencePair],
        chunk_pairs: usize,
    ) -> Result<RunFingerprint, PlmError> {
        Ok(fingerprint_of(
            &self.name,
            self.digest()?,
            scorer,
            dataset,
            pairs,
            chunk_pairs,
        )
        .with_model_revision(self.revision()))
    }
}

/// [`RunFingerprint::new`] for a scorer that may be unsized (a `dyn PairScorer`).
pub(crate) fn fingerprint_of(
    model: &str,
    digest: &str,
    scorer: &(impl PairScorer + ?Sized),
    dataset: &str,
    pairs: &[SentencePair],
    chunk_pairs: usize,
) -> RunFingerprint {
    /// What a fingerprint reads of a scorer: its names and settings.
    struct Described {
        names: Vec<String>,
        settings: String,
    }
    impl PairScorer for Described {
        type Error = std::convert::Infallible;
        fn scorer_names(&self) -> Vec<String> {
            self.names.clone()
        }
        fn settings(&self) -> String {
            self.settings.clone()
        }
        /// Never called: a fingerprint only describes the scorer.
        fn score_pairs(
            &mut self,
            _: &[SentencePair],
        ) -> Result<Vec<bias_core::PairOutcome>, Self::Error> {
            Ok(Vec::new())
        }
    }
    let described = Described {
        names: scorer.scorer_names(),
        settings: scorer.settings(),
    };
    RunFingerprint::new(model, digest, dataset, pairs, &described, chunk_pairs)
}

/// The name of a model folder (after resolving `.` and links), `model` if it has none.
pub fn folder_name(dir: &Path) -> String {
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    canonical
        .file_name()
        .map_or_else(|| "model".to_owned(), |n| n.to_string_lossy().into_owned())
}

/// SHA-256 of the files that define the model in `dir`: `config.json`, `tokenizer.json` and the
/// weights (hashes joined by `:`; absent files are left out); for a LoRA adapter folder, its
/// base model's, then the adapter's configuration, weights and tokenizer.
///
/// # Errors
/// [`PlmError::Core`] if a file cannot be read; those of [`crate::LoraAdapter::find`].
pub fn model_digest(dir: &Path) -> Result<String, PlmError> {
    let folder = ModelFolder::of(dir)?;
    let dir = folder.model.as_path();
    let mut files: Vec<PathBuf> = ["config.json", "tokenizer.json"]
        .iter()
        .map(|f| dir.join(f))
        .collect();
    if let Ok((weights, _)) = checkpoint_files(dir) {
        files.extend(weights);
    }
    if let Some(adapter) = &folder.adapter {
        files.extend(adapter.files());
    }
    let mut parts = Vec::new();
    for p in files.iter().filter(|p| p.is_file()) {
        parts.push(sha256_file(p)?);
    }
    Ok(parts.join(":"))
}
