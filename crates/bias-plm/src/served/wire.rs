//! The JSON of the OpenAI completions API that a served model's scoring reads and writes
//! (`/v1/models`, `/v1/completions` with `echo` and `logprobs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `GET /v1/models`.
#[derive(Debug, Deserialize)]
pub(crate) struct ModelList {
    pub(crate) data: Vec<ModelCard>,
}

/// One model of `/v1/models`.
#[derive(Debug, Deserialize)]
pub(crate) struct ModelCard {
    pub(crate) id: String,
    /// vLLM's window in tokens (absent on other servers).
    #[serde(default)]
    pub(crate) max_model_len: Option<usize>,
}

/// `POST /v1/completions` asking for the prompts' own log-probabilities.
#[derive(Debug, Serialize)]
pub(crate) struct EchoRequest<'a> {
    pub(crate) model: &'a str,
    /// Token ids, one list per prompt.
    pub(crate) prompt: &'a [&'a [i64]],
    pub(crate) echo: bool,
    pub(crate) logprobs: u32,
    pub(crate) max_tokens: u32,
    pub(crate) temperature: f64,
}

/// `POST /v1/completions` asking for a greedy continuation of each prompt.
#[derive(Debug, Serialize)]
pub(crate) struct GenerateRequest<'a> {
    pub(crate) model: &'a str,
    /// Token ids, one list per prompt.
    pub(crate) prompt: &'a [&'a [i64]],
    pub(crate) max_tokens: usize,
    pub(crate) temperature: f64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub(crate) stop: &'a [String],
    /// vLLM's extension: the generated token ids in each choice's `token_ids`.
    pub(crate) return_token_ids: bool,
}

/// `POST /v1/chat/completions`: one conversation, a greedy answer, the server's chat template.
#[derive(Debug, Serialize)]
pub(crate) struct ChatRequest<'a> {
    pub(crate) model: &'a str,
    pub(crate) messages: &'a [crate::Message],
    pub(crate) max_tokens: usize,
    pub(crate) temperature: f64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub(crate) stop: &'a [String],
    /// vLLM's extension: the generated token ids in the choice's `token_ids`.
    pub(crate) return_token_ids: bool,
}

/// The reply to an [`EchoRequest`], a [`GenerateRequest`] or a [`ChatRequest`] (whose choice's
/// `message` is not read: the text is decoded from the token ids).
#[derive(Debug, Deserialize)]
pub(crate) struct Completion {
    pub(crate) choices: Vec<Choice>,
}

/// One prompt's completion.
#[derive(Debug, Deserialize)]
pub(crate) struct Choice {
    pub(crate) index: usize,
    #[serde(default)]
    pub(crate) logprobs: Option<LogProbs>,
    /// The generated token ids (vLLM's `return_token_ids`).
    #[serde(default)]
    pub(crate) token_ids: Option<Vec<i64>>,
    /// `length` or `stop` (an EOS token or a stop string).
    #[serde(default)]
    pub(crate) finish_reason: Option<String>,
}

/// The legacy completions `logprobs` object: per token its log-probability (`null` for the first
/// prompt token) and the top tokens at its position (their texts are not read).
#[derive(Debug, Deserialize)]
pub(crate) struct LogProbs {
    #[serde(default)]
    pub(crate) token_logprobs: Vec<Option<f64>>,
    #[serde(default)]
    pub(crate) top_logprobs: Vec<Option<BTreeMap<String, f64>>>,
}
