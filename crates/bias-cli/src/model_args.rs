//! Arguments shared by the commands that score with a language model: the model, the data set,
//! the scorers and their options.

use bias_core::Scorer;
use std::path::PathBuf;

use bias_core::SentencePair;
use bias_plm::{
    AlignmentOrder, BatchOptions, DeviceSpec, LanguageModel, MaskedLm, Precision, ScorerKind,
    ScoringOptions, SssAverage,
};
use clap::Args;

use crate::choice::choice;
use crate::error::CliError;

/// The scorer names of a `--scorers` list, in order; the model's defaults
/// ([`LanguageModel::default_scorers`]) when the list is empty (the flag left out).
pub fn scorer_names(scorers: &[Scorer], lm: &LanguageModel) -> Vec<&'static str> {
    if scorers.is_empty() {
        lm.default_scorers()
    } else {
        scorers.iter().map(|s| s.name()).collect()
    }
}

/// The masked-LM scorers of a `--scorers` list, in order, for the commands that work with masked
/// LMs only (`controlled`, `robust paraphrase`); `default` when the list is empty.
pub fn kinds(scorers: &[Scorer], default: &[ScorerKind]) -> Result<Vec<ScorerKind>, CliError> {
    if scorers.is_empty() {
        return Ok(default.to_vec());
    }
    scorers
        .iter()
        .map(|&s| {
            ScorerKind::of(s).ok_or_else(|| {
                CliError::Usage(format!(
                    "--scorers {}: a causal-LM scorer; this command works with masked LMs, whose \
                     scorers are aul, aula, cps, sss, all-masked and pll",
                    s.name()
                ))
            })
        })
        .collect()
}

/// How many sequences and padded tokens a forward pass takes: `--batch-size`, `--batch-tokens`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// At most this many sequences per forward pass.
    #[arg(long, default_value_t = 64)]
    pub batch_size: usize,
    /// At most this many padded tokens per forward pass.
    #[arg(long, default_value_t = 4096)]
    pub batch_tokens: usize,
}

impl BatchArgs {
    /// The engine's batch limits (each at least 1).
    pub fn options(&self) -> BatchOptions {
        BatchOptions {
            max_batch: self.batch_size.max(1),
            max_tokens: self.batch_tokens.max(1),
        }
    }
}

/// Where a model runs: `--device`, `--threads`, `--dtype`.
#[derive(Debug, Args)]
pub struct DeviceArgs {
    /// `auto`, `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "auto")]
    pub device: String,
    /// Intra-op threads of libtorch on the CPU (default: libtorch's choice).
    #[arg(long)]
    pub threads: Option<i32>,
    /// Model precision (f16 only on CUDA; bf16 on CUDA or the CPU, log-softmax and sums in f32
    /// and f64).
    #[arg(long, value_parser = choice::<Precision>(), default_value = "f32")]
    pub dtype: Precision,
    #[command(flatten)]
    pub served: ServedArgs,
}

/// A served model: `--model http://HOST:PORT/v1[,http://…]` and how to drive the server (each
/// unset flag takes `bias_plm::ServedOptions::new`'s default).
#[derive(Debug, Default, Args)]
pub struct ServedArgs {
    /// With `--model http://…`: the model's tokenizer, a folder or a Hugging Face id (its
    /// tokenizer.json, tokenizer_config.json and config.json); the token ids are made here and
    /// sent as ids.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// The model's name on the server, where it serves several.
    #[arg(long)]
    pub served_name: Option<String>,
    /// The environment variable holding the server's API key (sent as a bearer token).
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// Requests in flight at once, over every endpoint [default: 8].
    #[arg(long)]
    pub max_in_flight: Option<usize>,
    /// Prompts per request [default: 16].
    #[arg(long)]
    pub prompts_per_request: Option<usize>,
    /// The time limit of one request, in seconds [default: 120].
    #[arg(long)]
    pub request_timeout: Option<f64>,
    /// Retries of a request after a 429, a 5xx, a time-out or a cut connection [default: 6].
    #[arg(long)]
    pub retries: Option<u32>,
    /// The model's window in tokens (default: what the server reports, else config.json's).
    #[arg(long)]
    pub max_model_len: Option<usize>,
}

impl ServedArgs {
    /// The library's options for a served model; `None` without `--tokenizer`.
    fn options(&self) -> Result<Option<bias_plm::ServedOptions>, CliError> {
        let Some(tokenizer) = &self.tokenizer else {
            return Ok(None);
        };
        let (dir, _) = resolve_model(tokenizer)?;
        let api_key = match &self.api_key_env {
            None => None,
            Some(var) => Some(std::env::var(var).map_err(|_| {
                CliError::Usage(format!("--api-key-env {var}: the variable is not set"))
            })?),
        };
        let mut options = bias_plm::ServedOptions::new(dir);
        if let Some(t) = self.request_timeout {
            options.timeout = std::time::Duration::try_from_secs_f64(t)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    CliError::Usage("--request-timeout must be a positive number of seconds".into())
                })?;
        }
        options.served_name = self.served_name.clone();
        options.api_key = api_key;
        options.max_in_flight = self.max_in_flight.unwrap_or(options.max_in_flight).max(1);
        options.prompts_per_request = (self.prompts_per_request)
            .unwrap_or(options.prompts_per_request)
            .max(1);
        options.retries = self.retries.unwrap_or(options.retries);
        options.max_tokens = self.max_model_len;
        Ok(Some(options))
    }
}

/// A served model's request log at `path` (its folder made): answers kept, reused by a rerun,
/// which says how many it found. Nothing for a local model.
pub fn keep_requests(
    log_requests: impl FnOnce(&std::path::Path) -> Result<Option<usize>, bias_plm::PlmError>,
    path: &std::path::Path,
) -> Result<(), CliError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| bias_core::CoreError::io(parent, e))?;
    }
    if let Some(held) = log_requests(path)?.filter(|&n| n > 0) {
        eprintln!("{}: {held} prompts already answered", path.display());
    }
    Ok(())
}

/// The folder a `--model` argument names — itself, or a Hugging Face id
/// (`[org/]name[@revision]`) found in the Hugging Face cache or downloaded into it
/// (`bias_plm::resolve_model`, with the `HF_*` variables of the environment) — and the id, the
/// default name of a hub model.
pub fn resolve_model(model: &std::path::Path) -> Result<(PathBuf, Option<String>), CliError> {
    match model.to_str() {
        Some(spec) => {
            let resolved = bias_plm::resolve_model(spec)?;
            let name = resolved.name().map(str::to_owned);
            Ok((resolved.dir, name))
        }
        None => Ok((model.to_path_buf(), None)),
    }
}

impl DeviceArgs {
    /// The device to open a model on, once the thread count is set; in half precision, what it
    /// is measured to keep of f32's verdicts is said on stderr (once a run).
    fn prepare(&self) -> Result<DeviceSpec, CliError> {
        if let Some(t) = self.threads {
            tch::set_num_threads(t.max(1));
        }
        if let Some(note) = self.dtype.agreement_note() {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| eprintln!("note: {note}"));
        }
        Ok(self.device.parse()?)
    }

    /// Opens the masked LM of `model` (a folder or a Hugging Face id, see [`resolve_model`]) on
    /// this device (setting the thread count first); `name` (default: the id, or the folder's
    /// name) goes to the score table's `model` column.
    pub fn open(&self, model: &std::path::Path, name: Option<&str>) -> Result<MaskedLm, CliError> {
        let spec = self.prepare()?;
        let (dir, id) = resolve_model(model)?;
        let lm = MaskedLm::open(dir, spec, self.dtype.kind())?;
        Ok(match name.or(id.as_deref()) {
            Some(n) => lm.with_name(n),
            None => lm,
        })
    }

    /// Opens the masked or causal LM in `dir` (by its `model_type`) on this device, as
    /// [`DeviceArgs::open`] does.
    pub fn open_any(
        &self,
        model: &std::path::Path,
        name: Option<&str>,
    ) -> Result<LanguageModel, CliError> {
        let spec = self.prepare()?;
        let lm = match model.to_str() {
            Some(text) => {
                let served = self.served.options()?;
                LanguageModel::open_any(text, spec, self.dtype.kind(), served.as_ref())?
            }
            None => LanguageModel::open(model, spec, self.dtype.kind())?,
        };
        Ok(match name {
            Some(n) => lm.with_name(n),
            None => lm,
        })
    }

    /// The causal LM of `model` ([`DeviceArgs::open_any`]); a masked LM is a usage error naming
    /// its type and saying that `work` needs a causal LM, rather than the causal loader's list of
    /// every supported type.
    pub fn open_causal(
        &self,
        model: &std::path::Path,
        name: Option<&str>,
        work: &str,
    ) -> Result<bias_plm::CausalLm, CliError> {
        match self.open_any(model, name)? {
            LanguageModel::Causal(lm) => Ok(lm),
            lm => Err(CliError::Usage(format!(
                "{}: a masked LM ({}); {work} with a causal LM ({})",
                model.display(),
                lm.model_type(),
                bias_plm::CausalType::supported_list()
            ))),
        }
    }

    /// Opens the BERT next-sentence head of `model` (a folder or a Hugging Face id, see
    /// [`resolve_model`]) on this device.
    pub fn open_next_sentence(
        &self,
        model: &std::path::Path,
    ) -> Result<bias_plm::NextSentenceModel, CliError> {
        let spec = self.prepare()?;
        let (dir, _) = resolve_model(model)?;
        Ok(bias_plm::NextSentenceModel::open(
            dir,
            spec,
            self.dtype.kind(),
        )?)
    }
}

/// Model, data and engine settings shared by `score`, `evaluate` and `bench`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// A Hugging Face model folder (config.json, model.safetensors, tokenizer.json), or a Hugging
    /// Face id `org/name[@revision]`: taken from the Hugging Face cache (HF_HUB_CACHE,
    /// HF_HOME/hub, ~/.cache/huggingface/hub), else downloaded into it from HF_ENDPOINT (config,
    /// tokenizer, safetensors weights; HF_TOKEN for gated models; never with HF_HUB_OFFLINE=1).
    /// A folder of that name wins. A masked LM (bert, roberta, ...) or a causal LM (gpt2, llama,
    /// mistral, qwen2, gpt_neox, opt, gemma2, phi3, olmo2), by its model_type.
    #[arg(long)]
    pub model: PathBuf,
    /// `crows-pairs`, `stereoset` (intrasentence dev), `stereoset-test`,
    /// `winobias-type{1,2}-{dev,test}` (pro- against anti-stereotyped sentences), or a pair file
    /// (CSV / JSONL).
    #[arg(long)]
    pub dataset: String,
    /// Where `crows-pairs` and `stereoset` are found (as scripts/setup.sh lays them out).
    #[arg(long, default_value = bias_data::layout::DEFAULT_DATA_DIR)]
    pub data_dir: PathBuf,
    /// Name written to the `model` column (default: the folder's name, or the Hugging Face id).
    #[arg(long)]
    pub model_name: Option<String>,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub batch: BatchArgs,
    /// Truncate sentences longer than the model accepts instead of failing.
    #[arg(long)]
    pub truncate: bool,
    /// Round CPS sentence scores to 3 decimals (Nangia's and Kaneko's scripts).
    #[arg(long)]
    pub cps_round: bool,
    /// SSS averaging.
    #[arg(long, value_parser = choice::<SssAverage>(), default_value = "diagonal")]
    pub sss: SssAverage,
    /// Alignment order of a pair's tokens.
    #[arg(long, value_parser = choice::<AlignmentOrder>(), default_value = "stereo-first")]
    pub alignment: AlignmentOrder,
    /// Only the first N pairs.
    #[arg(long)]
    pub limit: Option<usize>,
}

impl ModelArgs {
    /// The data set's name and pairs (the first `--limit`).
    pub fn pairs(&self) -> Result<(String, Vec<SentencePair>), CliError> {
        let dataset = self.dataset()?;
        Ok((dataset.name, dataset.pairs))
    }

    /// The data set, its pairs (and their places in the files) cut to the first `--limit`.
    pub fn dataset(&self) -> Result<bias_data::Dataset, CliError> {
        let mut dataset = bias_data::load_named(&self.dataset, &self.data_dir)?;
        if let Some(n) = self.limit {
            dataset.pairs.truncate(n);
            dataset.origins.truncate(n);
        }
        Ok(dataset)
    }

    pub fn options(&self) -> ScoringOptions {
        ScoringOptions {
            cps_round_3: self.cps_round,
            sss: self.sss,
            alignment: self.alignment,
            truncate: self.truncate,
            batch: self.batch.options(),
        }
    }

    /// Opens `--model`: a masked or a causal LM, by its `model_type`.
    pub fn open(&self) -> Result<LanguageModel, CliError> {
        self.device
            .open_any(&self.model, self.model_name.as_deref())
    }
}
