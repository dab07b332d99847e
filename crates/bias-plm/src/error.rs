//! The error type of bias-plm.

use std::path::PathBuf;

/// Errors raised while loading models and scoring sentences.
///
/// An underlying error (I/O, JSON, libtorch, the tokenizers library) is the variant's
/// [`source`](std::error::Error::source), not repeated in its message; messages say what is
/// wrong in the library's terms (the CLI adds which flag to change).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlmError {
    /// An error from the shared layer.
    #[error(transparent)]
    Core(#[from] bias_core::CoreError),
    /// A chat template does not parse, refuses a conversation, or cannot be found.
    #[error("chat template of {}: {reason}", path.display())]
    ChatTemplate {
        /// Where the template was read from.
        path: PathBuf,
        /// What went wrong: the template's own message where it refused.
        reason: String,
    },
    /// A served model's request failed for good (after its retries), or its reply cannot be
    /// scored.
    #[error("served model: {request}: {reason}")]
    Served {
        /// The request: method, path, which prompts, and the endpoint.
        request: String,
        /// What went wrong, and what to do where something can be done.
        reason: String,
    },
    /// A resumable scoring run failed.
    #[error(transparent)]
    Run(#[from] bias_core::RunError),
    /// A libtorch operation failed (its error is the source).
    #[error("a libtorch operation failed")]
    Torch(#[from] tch::TchError),
    /// A device specification could not be parsed.
    #[error("invalid device {0:?}: expected `auto`, `cpu`, `cuda` or `cuda:N`")]
    InvalidDevice(String),
    /// Tensor shapes that must agree do not.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A file the model folder must hold is absent.
    #[error("missing file {}: {hint}", path.display())]
    MissingFile {
        /// The file that was looked for.
        path: PathBuf,
        /// What to do about it.
        hint: String,
    },
    /// A model could not be downloaded from the Hugging Face Hub ([`crate::resolve_model`]);
    /// nothing of it was left in the cache. Boxed, as it names much.
    #[error(transparent)]
    Download(Box<DownloadError>),
    /// A file or folder could not be read, written, created or removed.
    #[error("cannot read or write {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A `config.json` (or another JSON file of a model or a run) is not valid JSON or lacks a
    /// required field.
    #[error("cannot parse {}{}", path.display(), json_position(.source))]
    ConfigJson {
        /// The configuration file.
        path: PathBuf,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// The `model_type` of a `config.json` is not one this crate implements.
    #[error(
        "unsupported model_type {model_type:?} in {}: supported are {}",
        path.display(),
        crate::config::supported_model_types()
    )]
    UnsupportedModel {
        /// The `model_type` found.
        model_type: String,
        /// The configuration file.
        path: PathBuf,
    },
    /// A configuration option has a value this crate does not implement.
    #[error("unsupported setting {key} = {value} in {}: {reason}", path.display())]
    UnsupportedConfig {
        /// The configuration key.
        key: String,
        /// Its value, as written in the file.
        value: String,
        /// Why it is refused and what is supported.
        reason: String,
        /// The configuration file.
        path: PathBuf,
    },
    /// A LoRA adapter that cannot be merged onto its base model ([`crate::LoraAdapter`]).
    #[error("LoRA adapter {}: {reason}", path.display())]
    Adapter {
        /// `adapter_config.json` or `adapter_model.safetensors`.
        path: PathBuf,
        /// What is wrong, and what to do.
        reason: String,
    },
    /// A parameter the architecture needs is absent from the checkpoint.
    #[error("weight {name} not found in {}", path.display())]
    MissingWeight {
        /// The Hugging Face parameter name looked for.
        name: String,
        /// The checkpoint file.
        path: PathBuf,
    },
    /// A checkpoint file that is not what its name says (a safetensors header that cannot be
    /// read).
    #[error("{}: {reason}", path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong and what to do.
        reason: String,
    },
    /// A parameter has a shape other than the configuration implies.
    #[error("weight {name} in {} has shape {found:?}, expected {expected:?}", path.display())]
    WeightShape {
        /// The Hugging Face parameter name.
        name: String,
        /// The shape the configuration implies.
        expected: Vec<i64>,
        /// The shape in the checkpoint.
        found: Vec<i64>,
        /// The checkpoint file.
        path: PathBuf,
    },
    /// The checkpoint holds an encoder without its masked-language-model head (for example a
    /// `BertModel` saved without `cls.predictions.*`): it can embed text but not score it.
    #[error(
        "{} holds no masked-LM head (looked for {expected}); it is a bare encoder \
         (usable for embeddings through `PlmModel::load_encoder`), not a masked language model",
        path.display()
    )]
    MissingMlmHead {
        /// The checkpoint file.
        path: PathBuf,
        /// The head parameter that was looked for.
        expected: String,
    },
    /// A batch is longer than the model's position embeddings allow.
    #[error("sequence of {length} tokens exceeds the model's maximum of {max} (special tokens included)")]
    SequenceTooLong {
        /// The batch length, in tokens.
        length: i64,
        /// [`crate::ModelConfig::max_tokens`].
        max: i64,
    },
    /// A token id is outside the model's vocabulary.
    #[error("token id {id} outside the model's vocabulary of {vocab_size}")]
    TokenOutOfVocabulary {
        /// The offending id.
        id: i64,
        /// The model's vocabulary size.
        vocab_size: i64,
    },
    /// The `tokenizers` library failed to load a `tokenizer.json` or to encode / decode.
    #[error("tokenizer {}: the tokenizers library failed", path.display())]
    Tokenizer {
        /// The `tokenizer.json` file.
        path: PathBuf,
        /// The library's error.
        #[source]
        source: tokenizers::Error,
    },
    /// The tokenizer has no token for a special role (mask or padding).
    #[error("tokenizer {} has no {role} token (looked for {candidates})", path.display())]
    MissingSpecialToken {
        /// `mask` or `pad`.
        role: &'static str,
        /// The token strings looked for.
        candidates: String,
        /// The `tokenizer.json` file.
        path: PathBuf,
    },
    /// A scorer name that does not exist (or no scorer was given).
    #[error(
        "unknown scorer {0:?}: expected aul, aula, cps, sss, all-masked or pll (masked LMs), \
         ll-sum or ll-mean (causal LMs)"
    )]
    UnknownScorer(String),
    /// A sentence of a pair has more tokens than the model accepts.
    #[error("pair `{pair_id}`: the {side} sentence has {tokens} tokens but the model accepts at most {max}; shorten it, leave the pair out, or truncate it (ScoringOptions::truncate)")]
    TooLong {
        /// The pair's id.
        pair_id: String,
        /// `stereo` or `anti`.
        side: String,
        /// Its token count (special tokens included).
        tokens: usize,
        /// The model's limit.
        max: usize,
    },
    /// A `loglikelihood` request that cannot be scored: its continuation has no token of its own
    /// (empty, or merged into the context's last token), or more tokens than the model's window.
    #[error("request {index} (context {context:?}, continuation {continuation:?}): {reason}")]
    BadContinuation {
        /// The request's position in its batch of requests.
        index: usize,
        /// Its context, cut to 80 characters.
        context: String,
        /// Its continuation, cut to 80 characters.
        continuation: String,
        /// What is wrong and what to do.
        reason: String,
    },
    /// An output file exists from a different run.
    #[error("{out}: not resuming: {reason}")]
    ResumeMismatch {
        /// The output file.
        out: std::path::PathBuf,
        /// What differs and what to do.
        reason: String,
    },
    /// A CUDA device was asked for on a machine where libtorch sees none (or fewer).
    #[error("device {requested} requested, but libtorch sees {available} CUDA device(s)")]
    CudaUnavailable {
        /// The request (`cuda:1`).
        requested: String,
        /// CUDA devices libtorch can use.
        available: usize,
    },
    /// Fine-tuning cannot start or go on (no usable sentence, a bad setting, a base model
    /// that does not fit the request).
    #[error("fine-tuning: {0}")]
    Training(String),
    /// A new masked-LM head was asked for on a model that already has one
    /// (`MlmTrainer::new_mlm_head`).
    #[error(
        "fine-tuning: {} already has a masked-LM head: fine-tune it as it is, without a new head \
         (MlmTrainer::new_mlm_head(false))",
        base.display()
    )]
    HeadExists {
        /// The base model's folder.
        base: std::path::PathBuf,
    },
    /// A fine-tuning run stopped early as asked (`MlmTrainer::stop_after`); running it again
    /// resumes from its last checkpoint.
    #[error(
        "fine-tuning stopped after step {step} as asked (MlmTrainer::stop_after); the same run \
         started again resumes from the last checkpoint in {}",
        out.display()
    )]
    Interrupted {
        /// Steps done when it stopped.
        step: usize,
        /// The run's output folder.
        out: PathBuf,
    },
    /// f16 was asked for on the CPU.
    #[error("precision {0} needs a CUDA device: f32 (Kind::Float) is the reference precision, f16 on the CPU is slow and inexact, and bf16 (Kind::BFloat16) is the half precision that runs on the CPU")]
    HalfOnCpu(String),
    /// A value could not be serialised as JSON (a run's state, a model's configuration).
    #[error("cannot write {} as JSON", path.display())]
    WriteJson {
        /// The file it was for.
        path: PathBuf,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },
    /// A scorer of the other family: a pseudo-log-likelihood scorer (AUL, CPS, ...) asked of a
    /// causal LM, or a causal log-likelihood (`ll-sum`, `ll-mean`) asked of a masked LM.
    #[error(
        "scorer {scorer} does not apply to the {family} language model {model_type:?}; \
         its scorers are {supported}"
    )]
    ScorerNotForModel {
        /// The scorer asked for.
        scorer: String,
        /// The model's `model_type`.
        model_type: String,
        /// `masked` or `causal`.
        family: &'static str,
        /// The scorers the model has, comma-separated.
        supported: String,
    },
}

/// A download from the Hugging Face Hub that failed ([`PlmError::Download`]): which file of
/// which repository and revision, from where, what went wrong and what to do.
#[derive(Debug, thiserror::Error)]
#[error("cannot download {file} of {repo}@{revision} from {endpoint}: {reason}; {hint}")]
#[non_exhaustive]
pub struct DownloadError {
    /// The repository, `org/name`.
    pub repo: String,
    /// The revision asked for (a branch, a tag or a commit).
    pub revision: String,
    /// The file that failed (`config.json`, `model.safetensors`, ...).
    pub file: String,
    /// The Hub's address (`HF_ENDPOINT`).
    pub endpoint: String,
    /// What went wrong.
    pub reason: String,
    /// What to do about it.
    pub hint: String,
    /// The underlying error (a connection's, a transfer's), when there is one.
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// Where a JSON error is (`: line 4, column 32`), or nothing when serde gives no position.
fn json_position(e: &serde_json::Error) -> String {
    if e.line() == 0 {
        String::new()
    } else {
        format!(": line {}, column {}", e.line(), e.column())
    }
}
