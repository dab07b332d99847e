//! A causal LM served by an OpenAI-compatible engine (vLLM, SGLang, TGI, llama.cpp's server):
//! the log-probabilities the causal scorers read come from the server's `/v1/completions`, the
//! token ids from the model's own tokenizer, read here.
//!
//! Each prompt is sent as its token ids (so the server scores exactly the ids a local model
//! would), with `echo: true`, `logprobs: 1` and `max_tokens: 1`, as lm-evaluation-harness's
//! `local-completions` model sends its `loglikelihood` requests; the prompt's own
//! `token_logprobs` are read back (the one generated token is dropped), the first token being
//! context only. A continuation's greedy flag asks of each token whether its log-probability is
//! the largest the server lists at its position, as `local-completions` does.
//!
//! A server that cannot echo the prompt's log-probabilities (a chat-only endpoint, a hosted API
//! without `echo`) cannot score: the run stops with [`crate::PlmError::Served`] naming the
//! request and saying so.

mod client;
mod log;
mod wire;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::causal::{Span, TokenLogProbs};
use crate::PlmError;

pub(crate) use client::Client;

/// How a served model is reached and driven.
#[derive(Debug, Clone, PartialEq)]
pub struct ServedOptions {
    /// The model's name on the server (`model` of the requests); `None`: the one model the
    /// server lists at `/v1/models` (an error if it lists several).
    pub served_name: Option<String>,
    /// The folder of the model's tokenizer (`tokenizer.json`, `tokenizer_config.json`, and a
    /// `config.json` for its BOS / EOS ids): a Hugging Face folder or a snapshot of the cache.
    pub tokenizer: PathBuf,
    /// A bearer token sent as `Authorization: Bearer …`.
    pub api_key: Option<String>,
    /// Requests in flight at once (over every endpoint).
    pub max_in_flight: usize,
    /// Prompts per request (the completions API takes a list).
    pub prompts_per_request: usize,
    /// The time limit of one request (connect, send and receive).
    pub timeout: Duration,
    /// Retries of a request after a 429, a 5xx, a time-out, a cut connection or a reply cut
    /// short, with exponential backoff (`backoff` doubling, at most 8 s, or the server's
    /// `Retry-After`).
    pub retries: u32,
    /// The wait before the first retry.
    pub backoff: Duration,
    /// The model's window in tokens; `None`: the `max_model_len` the server reports at
    /// `/v1/models` (vLLM), else `config.json`'s `max_position_embeddings`.
    pub max_tokens: Option<usize>,
}

impl ServedOptions {
    /// The defaults for the tokenizer in `tokenizer`: 8 requests in flight, 16 prompts each, 120 s
    /// per request, 6 retries after 0.5 s, 1 s, 2 s, ...
    pub fn new(tokenizer: impl Into<PathBuf>) -> Self {
        ServedOptions {
            served_name: None,
            tokenizer: tokenizer.into(),
            api_key: None,
            max_in_flight: 8,
            prompts_per_request: 16,
            timeout: Duration::from_secs(120),
            retries: 6,
            backoff: Duration::from_millis(500),
            max_tokens: None,
        }
    }
}

/// The endpoints a model argument names when it names a served model: one or more
/// `http(s)://HOST:PORT/v1` addresses, separated by commas (replicas of one model); `None` for
/// a folder or a Hugging Face id.
pub fn endpoints_of(spec: &str) -> Option<Vec<String>> {
    let is_endpoint = |s: &str| s.starts_with("http://") || s.starts_with("https://");
    is_endpoint(spec.trim()).then(|| {
        spec.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    })
}

/// A model on one or more endpoints of an OpenAI-compatible server (replicas of the same model:
/// requests are spread over them round-robin).
#[derive(Debug)]
pub struct ServedModel {
    client: Client,
    name: String,
    max_tokens: usize,
    tokenizer_dir: PathBuf,
    log: Option<log::RequestLog>,
}

impl ServedModel {
    /// Connects to `endpoints` (each `http://HOST:PORT/v1`), asks each for its models and
    /// checks that they serve the same one.
    ///
    /// # Errors
    /// [`PlmError::Served`] when an endpoint cannot be reached, lists no model, or several
    /// without `served_name`, or another model than the others.
    pub(crate) fn connect(
        endpoints: &[String],
        options: &ServedOptions,
        fallback_max_tokens: Option<usize>,
    ) -> Result<Self, PlmError> {
        let client = Client::new(endpoints, options)?;
        let mut chosen: Option<(String, Option<usize>)> = None;
        for endpoint in endpoints {
            let listed = client.models(endpoint)?;
            let model = pick_model(endpoint, &listed, options.served_name.as_deref())?;
            match &chosen {
                Some((name, _)) if *name != model.id => {
                    return Err(PlmError::Served {
                        request: format!("GET {endpoint}/models"),
                        reason: format!(
                            "serves {}, not {name} as the first endpoint: every --model \
                             endpoint must serve the same model",
                            model.id
                        ),
                    })
                }
                Some(_) => {}
                None => chosen = Some((model.id.clone(), model.max_model_len)),
            }
        }
        let Some((name, reported)) = chosen else {
            return Err(PlmError::Served {
                request: "connect".into(),
                reason: "no endpoint given".into(),
            });
        };
        let max_tokens = options
            .max_tokens
            .or(reported)
            .or(fallback_max_tokens)
            .ok_or_else(|| PlmError::Served {
                request: format!("GET {}/models", endpoints[0]),
                reason: "the server reports no max_model_len and config.json has no \
                         max_position_embeddings: give the window with --max-model-len"
                    .into(),
            })?;
        Ok(ServedModel {
            client: client.for_model(&name),
            name,
            // A local model is fed a span but its last token (`max + 1` tokens fit); a served
            // one takes the whole span as its prompt and generates one token after it.
            max_tokens: max_tokens.saturating_sub(2).max(1),
            tokenizer_dir: options.tokenizer.clone(),
            log: None,
        })
    }

    /// Keeps every answer in the request log at `path` (JSON lines), and answers from it what
    /// it already holds: an interrupted run, started again with the same log, asks the server
    /// only for the rest and writes the same bytes. Returns how many prompts the log held.
    ///
    /// # Errors
    /// [`PlmError::Served`] for a log of another served model or a damaged line;
    /// [`PlmError::Io`].
    pub fn log_requests(&mut self, path: &Path) -> Result<usize, PlmError> {
        let log = log::RequestLog::open(path, &self.name)?;
        let held = log.len();
        self.log = Some(log);
        Ok(held)
    }

    /// The model's name on the server.
    pub fn served_name(&self) -> &str {
        &self.name
    }

    /// The endpoints, in round-robin order.
    pub fn endpoints(&self) -> &[String] {
        self.client.endpoints()
    }

    /// The window a span is cut to, as a local model's: the server's window less the two
    /// tokens a request adds to what a local model is fed (the span's last token and the one
    /// generated token), so that the longest span and its generated token fit.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The folder its tokenizer was read from.
    pub fn tokenizer_dir(&self) -> &Path {
        &self.tokenizer_dir
    }

    /// `log P(ids[i] | ids[..i])` for `i ≥ first` of every span, with whether each was the
    /// server's top-1 token, in input order (what the local engine's `score_spans` gives).
    ///
    /// # Errors
    /// [`PlmError::Served`] naming the request that failed after its retries, or whose reply
    /// has no usable log-probabilities.
    pub(crate) fn score_spans(&self, spans: &[Span<'_>]) -> Result<Vec<TokenLogProbs>, PlmError> {
        let prompts: Vec<&[i64]> = spans.iter().map(|s| s.ids).collect();
        let echoed = self.client.prompt_logprobs(&prompts, self.log.as_ref())?;
        Ok(spans
            .iter()
            .zip(echoed)
            .map(|(span, e)| {
                let first = span.first.max(1);
                TokenLogProbs {
                    log_probs: e.log_probs[first..].to_vec(),
                    correct: e.top_is_token[first..].to_vec(),
                }
            })
            .collect())
    }
}

impl ServedModel {
    /// The greedy continuations of `prompts` (token ids) through `POST /completions`, spread
    /// over the endpoints as scoring's requests are; `eos` tells an end-of-sequence stop from a
    /// stop string's.
    ///
    /// # Errors
    /// [`PlmError::Served`] naming the request that failed after its retries, or whose reply
    /// has no generated token ids.
    pub(crate) fn greedy(
        &self,
        prompts: &[&[i64]],
        options: &crate::GenerationOptions,
        eos: &[i64],
    ) -> Result<Vec<crate::Greedy>, PlmError> {
        self.client.greedy(prompts, options, eos)
    }

    /// The greedy answers to `conversations` through `POST /chat/completions` (the server's
    /// own chat template).
    ///
    /// # Errors
    /// As [`ServedModel::greedy`].
    pub(crate) fn chat_greedy(
        &self,
        conversations: &[Vec<crate::Message>],
        options: &crate::GenerationOptions,
        eos: &[i64],
    ) -> Result<Vec<crate::Greedy>, PlmError> {
        self.client.chat_greedy(conversations, options, eos)
    }
}

/// The model of `listed` to use: `wanted`, or the only one.
fn pick_model<'a>(
    endpoint: &str,
    listed: &'a [wire::ModelCard],
    wanted: Option<&str>,
) -> Result<&'a wire::ModelCard, PlmError> {
    let names = || {
        listed
            .iter()
            .map(|m| m.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let error = |reason: String| PlmError::Served {
        request: format!("GET {endpoint}/models"),
        reason,
    };
    match wanted {
        Some(w) => listed
            .iter()
            .find(|m| m.id == w)
            .ok_or_else(|| error(format!("serves no model {w} (it serves: {})", names()))),
        None => match listed {
            [one] => Ok(one),
            [] => Err(error("lists no model".into())),
            _ => Err(error(format!(
                "serves several models ({}): choose one with --served-name",
                names()
            ))),
        },
    }
}
