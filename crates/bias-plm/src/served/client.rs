//! The HTTP side of a served model: requests spread round-robin over the endpoints, a bounded
//! number in flight, each retried with backoff after a transient failure, replies checked.

use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::log::RequestLog;
use super::wire::{
    ChatRequest, Completion, EchoRequest, GenerateRequest, LogProbs, ModelCard, ModelList,
};
use super::ServedOptions;
use crate::{Greedy, PlmError};
use bias_core::{Finish, GenerationOptions};

/// The longest wait between two tries.
const MAX_BACKOFF: Duration = Duration::from_secs(8);

/// One prompt's echoed log-probabilities: `log_probs[i]` is `log P(ids[i] | ids[..i])` (0 at
/// `i = 0`, which has none), `top_is_token[i]` whether `ids[i]` was the server's top-1 token
/// (its log-probability the largest the server lists there, lm-eval's `is_greedy` test).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Echoed {
    pub(crate) log_probs: Vec<f64>,
    pub(crate) top_is_token: Vec<bool>,
}

/// What went wrong with one attempt of a request.
enum Failure {
    /// Worth another attempt (429, 5xx, a time-out, a cut connection, a reply cut short).
    Transient(String, Option<Duration>),
    /// Another attempt would fail the same way.
    Fatal(String),
}

/// A client of one model on the endpoints of an OpenAI-compatible server.
#[derive(Debug)]
pub(crate) struct Client {
    agent: ureq::Agent,
    endpoints: Vec<String>,
    model: String,
    api_key: Option<String>,
    max_in_flight: usize,
    prompts_per_request: usize,
    retries: u32,
    backoff: Duration,
    next: AtomicUsize,
}

impl Client {
    /// A client of `endpoints` (trailing `/` dropped) driven as `options` say.
    ///
    /// # Errors
    /// [`PlmError::Served`] without an endpoint.
    pub(crate) fn new(endpoints: &[String], options: &ServedOptions) -> Result<Self, PlmError> {
        if endpoints.is_empty() {
            return Err(PlmError::Served {
                request: "connect".into(),
                reason: "no endpoint given".into(),
            });
        }
        let agent = ureq::AgentBuilder::new()
            .timeout(options.timeout)
            .max_idle_connections_per_host(options.max_in_flight.max(1))
            .build();
        Ok(Client {
            agent,
            endpoints: endpoints
                .iter()
                .map(|e| e.trim_end_matches('/').to_owned())
                .collect(),
            model: String::new(),
            api_key: options.api_key.clone(),
            max_in_flight: options.max_in_flight.max(1),
            prompts_per_request: options.prompts_per_request.max(1),
            retries: options.retries,
            backoff: options.backoff,
            next: AtomicUsize::new(0),
        })
    }

    /// The same client, asking for `model`.
    pub(crate) fn for_model(mut self, model: &str) -> Self {
        model.clone_into(&mut self.model);
        self
    }

    pub(crate) fn endpoints(&self) -> &[String] {
        &self.endpoints
    }

    /// The models `endpoint` lists at `/models`.
    ///
    /// # Errors
    /// [`PlmError::Served`] when it cannot be reached after the retries, or replies with
    /// something else than a model list.
    pub(crate) fn models(&self, endpoint: &str) -> Result<Vec<ModelCard>, PlmError> {
        let what = format!("GET {endpoint}/models");
        let list: ModelList = self.attempts(&what, Some(endpoint), |url| {
            let request = self.authorised(self.agent.get(&format!("{url}/models")));
            let text = read(request.call())?;
            serde_json::from_str(&text)
                .map_err(|e| Failure::Fatal(format!("not a model list ({e}): {}", excerpt(&text))))
        })?;
        Ok(list.data)
    }

    /// Every prompt's echoed log-probabilities, in order: those `log` holds read from it, the
    /// others asked for in requests of `prompts_per_request` prompts, `max_in_flight` at a
    /// time, each request's answers appended to `log` as they arrive.
    ///
    /// # Errors
    /// [`PlmError::Served`] for the first request (in prompt order) that failed;
    /// [`PlmError::Io`] writing the log.
    pub(crate) fn prompt_logprobs(
        &self,
        prompts: &[&[i64]],
        log: Option<&RequestLog>,
    ) -> Result<Vec<Echoed>, PlmError> {
        let logged = |p: &[i64]| log.and_then(|l| l.get(p)).cloned();
        let asked: Vec<&[i64]> = prompts
            .iter()
            .copied()
            .filter(|p| logged(p).is_none())
            .collect();
        let mut fresh = self.ask(&asked, log)?.into_iter();
        Ok(prompts
            .iter()
            .filter_map(|p| logged(p).or_else(|| fresh.next()))
            .collect())
    }

    /// [`Client::prompt_logprobs`] of prompts the log does not hold.
    fn ask(&self, prompts: &[&[i64]], log: Option<&RequestLog>) -> Result<Vec<Echoed>, PlmError> {
        self.spread(prompts, self.prompts_per_request, |group, first| {
            let echoed = self.echo(group, first, prompts.len())?;
            log.map_or(Ok(()), |l| l.append(group, &echoed))?;
            Ok(echoed)
        })
    }

    /// Every prompt's greedy continuation (`temperature` 0, `options`' token limit and stop
    /// strings, the generated token ids asked for with vLLM's `return_token_ids`), in order;
    /// `eos` tells an end-of-sequence stop from a stop string's.
    ///
    /// # Errors
    /// [`PlmError::Served`] for the first request that failed, or whose reply has no token ids.
    pub(crate) fn greedy(
        &self,
        prompts: &[&[i64]],
        options: &GenerationOptions,
        eos: &[i64],
    ) -> Result<Vec<Greedy>, PlmError> {
        self.spread(prompts, self.prompts_per_request, |group, first| {
            let body = encode(&GenerateRequest {
                model: &self.model,
                prompt: group,
                max_tokens: options.max_new_tokens,
                temperature: 0.0,
                stop: &options.stop,
                return_token_ids: true,
            })?;
            let what = format!(
                "POST /completions (generating for prompts {}–{} of {})",
                first + 1,
                first + group.len(),
                prompts.len()
            );
            self.post("completions", &what, &body, |reply| {
                generated(reply, group.len(), eos)
            })
        })
    }

    /// Every conversation's greedy answer through `POST /chat/completions` (the server's chat
    /// template; one conversation a request, `max_in_flight` at a time), as [`Client::greedy`].
    ///
    /// # Errors
    /// [`PlmError::Served`] for the first request that failed, or whose reply has no token ids.
    pub(crate) fn chat_greedy(
        &self,
        conversations: &[Vec<crate::Message>],
        options: &GenerationOptions,
        eos: &[i64],
    ) -> Result<Vec<Greedy>, PlmError> {
        self.spread(conversations, 1, |one, first| {
            let body = encode(&ChatRequest {
                model: &self.model,
                messages: &one[0],
                max_tokens: options.max_new_tokens,
                temperature: 0.0,
                stop: &options.stop,
                return_token_ids: true,
            })?;
            let what = format!(
                "POST /chat/completions (conversation {} of {})",
                first + 1,
                conversations.len()
            );
            self.post("chat/completions", &what, &body, |reply| {
                generated(reply, 1, eos)
            })
        })
    }

    /// `send(group, index of its first item)` on `items` in groups of `per_request`,
    /// `max_in_flight` at a time; the answers in item order, or the first group's failure (in
    /// item order), after which no new group is sent.
    fn spread<I: Sync, T: Send>(
        &self,
        items: &[I],
        per_request: usize,
        send: impl Fn(&[I], usize) -> Result<Vec<T>, PlmError> + Sync,
    ) -> Result<Vec<T>, PlmError> {
        let per_request = per_request.max(1);
        let groups: Vec<&[I]> = items.chunks(per_request).collect();
        let results: Mutex<Vec<Option<Vec<T>>>> =
            Mutex::new((0..groups.len()).map(|_| None).collect());
        let failed: Mutex<Option<(usize, PlmError)>> = Mutex::new(None);
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let workers = self.max_in_flight.min(groups.len());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= groups.len() || stop.load(Ordering::Relaxed) {
                        return;
                    }
                    match send(groups[g], g * per_request) {
                        Ok(echoed) => lock(&results)[g] = Some(echoed),
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            let mut failed = lock(&failed);
                            if failed.as_ref().is_none_or(|(i, _)| g < *i) {
                                *failed = Some((g, e));
                            }
                            return;
                        }
                    }
                });
            }
        });
        if let Some((_, e)) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        Ok(results.into_iter().flatten().flatten().collect())
    }

    /// One request: `prompts`, the prompts `first + 1 …` of `total`.
    fn echo(
        &self,
        prompts: &[&[i64]],
        first: usize,
        total: usize,
    ) -> Result<Vec<Echoed>, PlmError> {
        let body = encode(&EchoRequest {
            model: &self.model,
            prompt: prompts,
            echo: true,
            logprobs: 1,
            max_tokens: 1,
            temperature: 0.0,
        })?;
        let what = format!(
            "POST /completions (prompts {}–{} of {total})",
            first + 1,
            first + prompts.len()
        );
        self.post("completions", &what, &body, |reply| echoed(reply, prompts))
    }

    /// `POST /{path}` of `body` (retried as [`Client::attempts`] does), its reply read by
    /// `parse` (whose error is fatal).
    fn post<T>(
        &self,
        path: &str,
        what: &str,
        body: &str,
        parse: impl Fn(Completion) -> Result<T, String>,
    ) -> Result<T, PlmError> {
        self.attempts(what, None, |url| {
            let request = self.authorised(self.agent.post(&format!("{url}/{path}")));
            let text = read(
                request
                    .set("Content-Type", "application/json")
                    .send_string(body),
            )?;
            let reply: Completion = serde_json::from_str(&text).map_err(|e| {
                // A reply cut short is a transfer's failure; a whole one of another shape is not.
                if e.is_eof() {
                    Failure::Transient(format!("the reply was cut short ({e})"), None)
                } else {
                    Failure::Fatal(format!("not a completion ({e}): {}", excerpt(&text)))
                }
            })?;
            parse(reply).map_err(Failure::Fatal)
        })
    }

    /// Runs `attempt` against `endpoint` (or the next endpoint, round-robin, for each try) until
    /// it succeeds, fails for good, or has been retried `retries` times.
    fn attempts<T>(
        &self,
        what: &str,
        endpoint: Option<&str>,
        attempt: impl Fn(&str) -> Result<T, Failure>,
    ) -> Result<T, PlmError> {
        let mut backoff = self.backoff;
        let mut tries = 0;
        loop {
            let url = match endpoint {
                Some(e) => e.to_owned(),
                None => {
                    let i = self.next.fetch_add(1, Ordering::Relaxed);
                    self.endpoints[i % self.endpoints.len()].clone()
                }
            };
            tries += 1;
            let (reason, wait) = match attempt(&url) {
                Ok(v) => return Ok(v),
                Err(Failure::Fatal(reason)) => {
                    return Err(PlmError::Served {
                        request: format!("{what} to {url}"),
                        reason,
                    })
                }
                Err(Failure::Transient(reason, wait)) => (reason, wait),
            };
            if tries > self.retries {
                return Err(PlmError::Served {
                    request: format!("{what} to {url}"),
                    reason: format!("{reason} (gave up after {tries} attempts)"),
                });
            }
            std::thread::sleep(wait.unwrap_or(backoff).min(MAX_BACKOFF));
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    fn authorised(&self, request: ureq::Request) -> ureq::Request {
        match &self.api_key {
            Some(key) => request.set("Authorization", &format!("Bearer {key}")),
            None => request,
        }
    }
}

/// The body of a reply, or why there is none.
fn read(reply: Result<ureq::Response, ureq::Error>) -> Result<String, Failure> {
    match reply {
        Ok(response) => {
            let mut text = String::new();
            response
                .into_reader()
                .read_to_string(&mut text)
                .map_err(|e| Failure::Transient(format!("the reply was cut short ({e})"), None))?;
            Ok(text)
        }
        Err(ureq::Error::Status(code, response)) => {
            let wait = response
                .header("Retry-After")
                .and_then(|s| s.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64);
            let body = response.into_string().unwrap_or_default();
            let reason = format!("HTTP {code}: {}", excerpt(&body));
            if code == 429 || code >= 500 {
                Err(Failure::Transient(reason, wait))
            } else {
                Err(Failure::Fatal(reason))
            }
        }
        Err(ureq::Error::Transport(t)) => Err(Failure::Transient(t.to_string(), None)),
    }
}

/// The prompts' echoed log-probabilities from `reply`, in prompt order.
fn echoed(reply: Completion, prompts: &[&[i64]]) -> Result<Vec<Echoed>, String> {
    in_order(reply, prompts.len(), |i, choice| {
        let Some(lp) = choice.logprobs else {
            return Err(format!(
                "choice {i} has no logprobs: this server or endpoint cannot echo a prompt's \
                 log-probabilities (a chat-only endpoint, or a hosted API without `echo`), so \
                 it cannot score; serve the model with vLLM, SGLang, TGI or llama.cpp's server"
            ));
        };
        echo_of(&lp, prompts[i].len()).map_err(|e| format!("choice {i}: {e}"))
    })
}

/// `read(index, choice)` of each of the `n` choices of `reply`, in index order; an error for
/// another number of choices or an index out of range or repeated.
fn in_order<T>(
    reply: Completion,
    n: usize,
    read: impl Fn(usize, super::wire::Choice) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    if reply.choices.len() != n {
        return Err(format!("{} choices for {n} prompts", reply.choices.len()));
    }
    let mut out: Vec<Option<T>> = (0..n).map(|_| None).collect();
    for choice in reply.choices {
        let i = choice.index;
        let Some(slot) = out.get_mut(i).filter(|s| s.is_none()) else {
            return Err(format!("a choice index {i} out of range or repeated"));
        };
        *slot = Some(read(i, choice)?);
    }
    Ok(out.into_iter().flatten().collect())
}

/// The JSON text of a request body.
fn encode(request: &impl serde::Serialize) -> Result<String, PlmError> {
    serde_json::to_string(request).map_err(|e| PlmError::Served {
        request: "encoding a request".into(),
        reason: e.to_string(),
    })
}

/// The `n` prompts' generated tokens from `reply`, in prompt order; a `stop` finish whose last
/// token is one of `eos` is an end-of-sequence stop.
fn generated(reply: Completion, n: usize, eos: &[i64]) -> Result<Vec<Greedy>, String> {
    in_order(reply, n, |i, choice| {
        let Some(token_ids) = choice.token_ids else {
            return Err(format!(
                "choice {i} has no token_ids: the server ignored `return_token_ids` (vLLM \
                 answers it from version 0.10.2 on); serve the model with a recent vLLM"
            ));
        };
        let finish = match choice.finish_reason.as_deref() {
            Some("length") => Finish::Length,
            Some("stop") if token_ids.last().is_some_and(|t| eos.contains(t)) => Finish::Eos,
            Some("stop") => Finish::Stop,
            other => return Err(format!("choice {i} finished for {other:?}")),
        };
        Ok(Greedy {
            margins: Vec::new(),
            token_ids,
            finish,
        })
    })
}

/// One prompt of `n` tokens from its `logprobs`.
fn echo_of(lp: &LogProbs, n: usize) -> Result<Echoed, String> {
    if lp.token_logprobs.len() < n {
        return Err(format!(
            "{} token log-probabilities for a prompt of {n} tokens (was it echoed?)",
            lp.token_logprobs.len()
        ));
    }
    let mut log_probs = vec![0.0; n];
    let mut top_is_token = vec![false; n];
    for t in 1..n {
        log_probs[t] = match lp.token_logprobs[t] {
            Some(v) if v.is_finite() => v,
            other => return Err(format!("token {t} has log-probability {other:?}")),
        };
        let top = lp.top_logprobs.get(t).and_then(Option::as_ref);
        let best = top.and_then(|m| m.values().copied().max_by(f64::total_cmp));
        top_is_token[t] = best == Some(log_probs[t]);
    }
    Ok(Echoed {
        log_probs,
        top_is_token,
    })
}

/// The first 200 characters of a reply, for an error message.
fn excerpt(text: &str) -> String {
    let cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
