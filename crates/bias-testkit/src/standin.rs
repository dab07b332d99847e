//! A stand-in for an OpenAI-compatible server on 127.0.0.1, for the served-model client's
//! tests: `/v1/models` and `/v1/completions` with `echo` and `logprobs`, whose log-probabilities
//! come from [`fake_logprob`] (a hand formula the tests can recompute), or with
//! `return_token_ids` (vLLM's), whose greedy tokens come from [`fake_next`]; it injects faults
//! into chosen requests.
//!
//! Its thread stops when the [`StandIn`] is dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// What the stand-in does with one `/v1/completions` request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    /// Replies 429 with `Retry-After: 0`.
    TooMany,
    /// Replies 500.
    ServerError,
    /// Closes the connection without a reply.
    Cut,
    /// Sends the first half of the reply's JSON and closes.
    Truncated,
    /// Replies with every choice's `logprobs` null (a chat-only or non-echoing server).
    NoLogprobs,
    /// Waits this long, then replies normally.
    Slow(Duration),
}

/// `log P(token | previous token)` at `position` as the stand-in serves it: a multiple of 1/16
/// in [−6.125, −0.0625], so sums are exact.
pub fn fake_logprob(previous: i64, token: i64, position: usize) -> f64 {
    -(((previous * 31 + token * 7 + position as i64).rem_euclid(97)) as f64 + 1.0) / 16.0
}

/// Whether the stand-in lists `token` as its top-1 token.
pub fn fake_is_top(token: i64) -> bool {
    token % 3 == 0
}

/// The token the stand-in generates after `previous` at `position` (of the whole sequence):
/// [`FAKE_EOS`] when `previous + position` is a multiple of 23, else one of 3..1003.
pub fn fake_next(previous: i64, position: usize) -> i64 {
    if (previous + position as i64) % 23 == 0 {
        return FAKE_EOS;
    }
    3 + (previous * 13 + position as i64 * 5 + 11).rem_euclid(1000)
}

/// The end-of-sequence id of [`fake_next`] (`</s>` of the Llama fixture's tokenizer).
pub const FAKE_EOS: i64 = 2;

/// The stand-in's greedy continuation of `prompt`: [`fake_next`] until [`FAKE_EOS`] (kept) or
/// `max_tokens`.
pub fn fake_generation(prompt: &[i64], max_tokens: usize) -> Vec<i64> {
    let mut all = prompt.to_vec();
    let mut out = Vec::new();
    while out.len() < max_tokens {
        let next = fake_next(*all.last().unwrap_or(&0), all.len());
        all.push(next);
        out.push(next);
        if next == FAKE_EOS {
            break;
        }
    }
    out
}

/// The "prompt" the stand-in's chat endpoint generates after: the bytes of each turn's
/// `role:content\n`.
pub fn fake_chat_ids(turns: &[(String, String)]) -> Vec<i64> {
    turns
        .iter()
        .flat_map(|(role, content)| format!("{role}:{content}\n").into_bytes())
        .map(i64::from)
        .collect()
}

/// A running stand-in server.
#[derive(Debug)]
pub struct StandIn {
    /// `http://127.0.0.1:PORT/v1`.
    pub url: String,
    /// `/v1/completions` requests received (faulty ones included).
    pub completions: Arc<AtomicUsize>,
    /// The prompts of every request answered normally, in arrival order.
    pub answered: Arc<Mutex<Vec<Vec<i64>>>>,
    stop: Arc<AtomicBool>,
}

impl StandIn {
    /// A stand-in serving `model` (with `max_model_len`), injecting `faults[i]` into the
    /// `i`-th completions request (0-based; later requests are answered normally).
    pub fn start(model: &str, max_model_len: usize, faults: Vec<Option<Fault>>) -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let url = format!("http://{}/v1", listener.local_addr().expect("address"));
        let stop = Arc::new(AtomicBool::new(false));
        let completions = Arc::new(AtomicUsize::new(0));
        let answered = Arc::new(Mutex::new(Vec::new()));
        let server = Server {
            model: model.to_owned(),
            max_model_len,
            faults: Arc::new(faults),
            completions: completions.clone(),
            answered: answered.clone(),
        };
        let stopping = stop.clone();
        std::thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let server = server.clone();
                        std::thread::spawn(move || server.handle(stream));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        StandIn {
            url,
            completions,
            answered,
            stop,
        }
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[derive(Debug, Clone)]
struct Server {
    model: String,
    max_model_len: usize,
    faults: Arc<Vec<Option<Fault>>>,
    completions: Arc<AtomicUsize>,
    answered: Arc<Mutex<Vec<Vec<i64>>>>,
}

impl Server {
    fn handle(&self, stream: TcpStream) {
        let _ = stream.set_nonblocking(false);
        let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
        let mut first = String::new();
        if reader.read_line(&mut first).is_err() {
            return;
        }
        let mut length = 0;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() || line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let mut out = stream;
        if first.starts_with("GET /v1/models") {
            let list = json!({"object": "list", "data": [
                {"id": self.model, "object": "model", "max_model_len": self.max_model_len}]});
            reply(&mut out, 200, &list.to_string());
            return;
        }
        if first.starts_with("POST /v1/chat/completions") {
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let turns: Vec<(String, String)> = request["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| {
                    let text = |k: &str| m[k].as_str().unwrap_or_default().to_owned();
                    (text("role"), text("content"))
                })
                .collect();
            let max_tokens = request["max_tokens"].as_u64().unwrap_or(16) as usize;
            let mut choice = generated(0, &fake_chat_ids(&turns), max_tokens);
            choice["message"] = json!({"role": "assistant", "content": ""});
            let text = json!({"object": "chat.completion", "choices": [choice]});
            reply(&mut out, 200, &text.to_string());
            return;
        }
        if !first.starts_with("POST /v1/completions") {
            reply(&mut out, 404, r#"{"error": "not found"}"#);
            return;
        }
        let n = self.completions.fetch_add(1, Ordering::SeqCst);
        let fault = self.faults.get(n).copied().flatten();
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let prompts: Vec<Vec<i64>> = request["prompt"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .map(|p| {
                        p.as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_i64)
                            .collect()
                    })
                    .collect()
            })
            .unwrap_or_default();
        match fault {
            Some(Fault::TooMany) => return reply_with(&mut out, 429, "Retry-After: 0\r\n", "{}"),
            Some(Fault::ServerError) => return reply(&mut out, 500, r#"{"error": "boom"}"#),
            Some(Fault::Cut) => return,
            Some(Fault::Slow(d)) => std::thread::sleep(d),
            _ => {}
        }
        let no_logprobs = fault == Some(Fault::NoLogprobs);
        let generating = request["return_token_ids"] == json!(true);
        let max_tokens = request["max_tokens"].as_u64().unwrap_or(16) as usize;
        let choices: Vec<Value> = prompts
            .iter()
            .enumerate()
            .map(|(i, p)| match generating {
                true => generated(i, p, max_tokens),
                false => choice(i, p, no_logprobs),
            })
            .collect();
        let text = json!({"object": "text_completion", "model": self.model, "choices": choices})
            .to_string();
        if fault == Some(Fault::Truncated) {
            let half = &text[..text.len() / 2];
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n",
                text.len()
            );
            let _ = out.write_all(head.as_bytes());
            let _ = out.write_all(half.as_bytes());
            return;
        }
        if fault.is_none() {
            let mut answered = self.answered.lock().unwrap_or_else(|p| p.into_inner());
            answered.extend(prompts.iter().cloned());
        }
        reply(&mut out, 200, &text);
    }
}

/// One prompt's echoed choice: token texts `id:N`, [`fake_logprob`] per token (null first),
/// the top token the token itself where [`fake_is_top`], and one generated token.
fn choice(index: usize, prompt: &[i64], no_logprobs: bool) -> Value {
    if no_logprobs {
        return json!({"index": index, "text": "", "logprobs": null, "finish_reason": "length"});
    }
    let mut tokens: Vec<String> = prompt.iter().map(|t| format!("id:{t}")).collect();
    let mut logprobs: Vec<Value> = vec![Value::Null];
    let mut top: Vec<Value> = vec![Value::Null];
    for i in 1..prompt.len() {
        let lp = fake_logprob(prompt[i - 1], prompt[i], i);
        logprobs.push(json!(lp));
        // The top-1 token and its log-probability: the token itself, or a likelier other one.
        if fake_is_top(prompt[i]) {
            top.push(json!({ format!("id:{}", prompt[i]): lp }));
        } else {
            top.push(json!({ "id:-1": lp + 0.5, format!("id:{}", prompt[i]): lp }));
        }
    }
    // The one generated token, which a scorer drops.
    tokens.push("id:7".into());
    logprobs.push(json!(-1.0));
    top.push(json!({"id:7": -1.0}));
    json!({"index": index, "text": "", "finish_reason": "length",
           "logprobs": {"tokens": tokens, "token_logprobs": logprobs, "top_logprobs": top}})
}

/// One prompt's generated choice ([`fake_generation`]), its ids in `token_ids` as vLLM's
/// `return_token_ids` gives them; the text is left empty (the client decodes the ids itself).
fn generated(index: usize, prompt: &[i64], max_tokens: usize) -> Value {
    let ids = fake_generation(prompt, max_tokens);
    let finish = if ids.last() == Some(&FAKE_EOS) {
        "stop"
    } else {
        "length"
    };
    json!({"index": index, "text": "", "finish_reason": finish, "token_ids": ids})
}

fn reply(out: &mut TcpStream, status: u16, body: &str) {
    reply_with(out, status, "", body);
}

fn reply_with(out: &mut TcpStream, status: u16, headers: &str, body: &str) {
    let text = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n{headers}\r\n{body}",
        body.len()
    );
    let _ = out.write_all(text.as_bytes());
}
