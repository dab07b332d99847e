//! Chat templates: a conversation rendered into a model's prompt as `transformers`'
//! `apply_chat_template` renders it — the model's `chat_template` (from `tokenizer_config.json`,
//! a `chat_template.jinja` beside it, or a file of one's own) through a Jinja engine made for
//! these templates (minijinja with its Python-compatible methods, as Hugging Face's own Rust
//! servers use), with `transformers`' settings: blocks trimmed and left-stripped
//! (`trim_blocks`, `lstrip_blocks`), `raise_exception`, and the tokenizer's `bos_token` and
//! `eos_token` in the context. The rendered text is tokenised without special tokens
//! (`apply_chat_template(tokenize=True)`), the template having written them.

use std::path::{Path, PathBuf};

use minijinja::{context, Environment, ErrorKind};
use serde::Serialize;
use serde_json::Value;

use crate::causal::read_json;
use crate::PlmError;

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The turn's text.
    pub content: String,
}

impl Message {
    /// A turn of `role` saying `content`.
    pub fn new(role: impl Into<String>, content: impl Into<String>) -> Self {
        Message {
            role: role.into(),
            content: content.into(),
        }
    }
}

/// A model's chat template, ready to render.
#[derive(Debug)]
pub struct ChatTemplate {
    env: Environment<'static>,
    source: String,
    bos_token: String,
    eos_token: String,
    /// Where the template was read from, for errors.
    origin: PathBuf,
}

impl ChatTemplate {
    /// The template `source` (read from `origin`) with the tokenizer's special tokens.
    ///
    /// # Errors
    /// [`PlmError::ChatTemplate`] when the template does not parse.
    pub fn new(
        source: &str,
        bos_token: impl Into<String>,
        eos_token: impl Into<String>,
        origin: impl Into<PathBuf>,
    ) -> Result<Self, PlmError> {
        let origin = origin.into();
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("raise_exception", |message: String| {
            Err::<String, _>(minijinja::Error::new(ErrorKind::InvalidOperation, message))
        });
        env.add_template_owned("chat", source.to_owned())
            .map_err(|e| chat_error(&origin, &e))?;
        Ok(ChatTemplate {
            env,
            source: source.to_owned(),
            bos_token: bos_token.into(),
            eos_token: eos_token.into(),
            origin,
        })
    }

    /// The chat template of the tokenizer folder `dir`: `chat_template.jinja` when present,
    /// else `tokenizer_config.json`'s `chat_template` (a string, or a list of named templates of
    /// which `default` is taken); `None` when the folder has none. The special tokens are
    /// `tokenizer_config.json`'s `bos_token` and `eos_token`.
    ///
    /// # Errors
    /// [`PlmError::Io`], [`PlmError::ConfigJson`]; [`PlmError::ChatTemplate`] for a template
    /// that does not parse or a list without `default`.
    pub fn of_folder(dir: &Path) -> Result<Option<Self>, PlmError> {
        let config_path = dir.join("tokenizer_config.json");
        let config = read_json(&config_path)?.unwrap_or(Value::Null);
        let token = |key: &str| special_token(&config, key).unwrap_or_default();
        let jinja = dir.join("chat_template.jinja");
        if jinja.is_file() {
            let source = read_text(&jinja)?;
            return Self::new(&source, token("bos_token"), token("eos_token"), jinja).map(Some);
        }
        let source = match config.get("chat_template") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(named)) => named
                .iter()
                .find(|t| t.get("name").and_then(Value::as_str) == Some("default"))
                .and_then(|t| t.get("template").and_then(Value::as_str))
                .map(str::to_owned)
                .ok_or_else(|| PlmError::ChatTemplate {
                    path: config_path.clone(),
                    reason: "its chat_template lists named templates but none named `default`: \
                             give one with --chat-template FILE"
                        .into(),
                })?,
            Some(_) => {
                return Err(PlmError::ChatTemplate {
                    path: config_path,
                    reason: "chat_template is neither a string nor a list of templates".into(),
                })
            }
        };
        let (bos, eos) = (token("bos_token"), token("eos_token"));
        Self::new(&source, bos, eos, config_path).map(Some)
    }

    /// The template in `file`, with the special tokens of the tokenizer folder `dir`
    /// (`tokenizer_config.json`'s `bos_token` and `eos_token`, empty where it has none): a
    /// template of one's own for a model (`--chat-template FILE`).
    ///
    /// # Errors
    /// [`PlmError::Io`], [`PlmError::ConfigJson`], [`PlmError::ChatTemplate`].
    pub fn from_file(file: &Path, dir: &Path) -> Result<Self, PlmError> {
        let config = read_json(&dir.join("tokenizer_config.json"))?.unwrap_or(Value::Null);
        let token = |key: &str| special_token(&config, key).unwrap_or_default();
        let source = read_text(file)?;
        Self::new(&source, token("bos_token"), token("eos_token"), file)
    }

    /// The template's text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// `messages` rendered, followed by the assistant's opening where `add_generation_prompt`.
    ///
    /// # Errors
    /// [`PlmError::ChatTemplate`] with the template's own message when it refuses the
    /// conversation (`raise_exception`: a system turn it does not take, roles that do not
    /// alternate) or fails to render.
    pub fn render(
        &self,
        messages: &[Message],
        add_generation_prompt: bool,
    ) -> Result<String, PlmError> {
        let template = self
            .env
            .get_template("chat")
            .map_err(|e| chat_error(&self.origin, &e))?;
        template
            .render(context! {
                messages => messages,
                add_generation_prompt => add_generation_prompt,
                bos_token => &self.bos_token,
                eos_token => &self.eos_token,
            })
            .map_err(|e| chat_error(&self.origin, &e))
    }
}

/// A special token of a tokenizer configuration (`"<s>"` or `{"content": "<s>", ...}`).
fn special_token(config: &Value, key: &str) -> Option<String> {
    crate::causal::special_token(config, key).flatten()
}

fn chat_error(origin: &Path, e: &minijinja::Error) -> PlmError {
    // The template's own words for a refusal; the engine's (with the line) for the rest.
    let reason = match e.kind() {
        ErrorKind::InvalidOperation => e.detail().unwrap_or("the template failed").to_owned(),
        _ => e.to_string(),
    };
    PlmError::ChatTemplate {
        path: origin.to_path_buf(),
        reason,
    }
}

fn read_text(path: &Path) -> Result<String, PlmError> {
    std::fs::read_to_string(path).map_err(|source| PlmError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// lm-evaluation-harness's `--apply_chat_template` for one-turn prompts (0.4.13,
/// `ConfigurableTask.fewshot_context` with no few-shot examples, and `HFLM.apply_chat_template`):
/// the prompt as the user's turn, after the system instruction when there is one, rendered with
/// the assistant's turn opened (`add_generation_prompt`); a template that refuses the
/// conversation with a system turn is rendered again without it, as lm-eval does.
#[derive(Debug)]
pub struct ChatPrompt {
    template: ChatTemplate,
    system: Option<String>,
    source_sha256: String,
}

impl ChatPrompt {
    /// Prompts rendered by `template`, after `system` when given.
    pub fn new(template: ChatTemplate, system: Option<String>) -> Self {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(template.source().as_bytes());
        ChatPrompt {
            template,
            system,
            source_sha256: format!("{:x}", h.finalize()),
        }
    }

    /// `text` as the user's turn of a chat.
    ///
    /// # Errors
    /// [`PlmError::ChatTemplate`] when the template refuses the user's turn too.
    pub fn render_user(&self, text: &str) -> Result<String, PlmError> {
        let user = Message::new("user", text);
        match &self.system {
            None => self.template.render(&[user], true),
            Some(system) => {
                let both = [Message::new("system", system.as_str()), user.clone()];
                self.template
                    .render(&both, true)
                    .or_else(|_| self.template.render(&[user], true))
            }
        }
    }

    /// What a run's identity records of the prompts: the template's SHA-256 and the system
    /// instruction.
    pub fn identity(&self) -> String {
        match &self.system {
            None => format!("chat template {}", self.source_sha256),
            Some(s) => format!("chat template {}, system {s:?}", self.source_sha256),
        }
    }
}

/// A [`bias_core::ContinuationScorer`] whose requests are lm-evaluation-harness's
/// multiple-choice requests under `--apply_chat_template`: `(context, " " + choice)` becomes
/// `(chat(context), choice)` — the context rendered by the [`ChatPrompt`], and no target
/// delimiter (lm-eval drops it when a chat template is applied and the task has no
/// `gen_prefix`, as BBQ and Winogender have none).
#[derive(Debug)]
pub struct ChatScorer<'s, S: ?Sized> {
    inner: &'s mut S,
    prompt: &'s ChatPrompt,
}

impl<'s, S: bias_core::ContinuationScorer + ?Sized> ChatScorer<'s, S> {
    /// `inner`'s requests rendered by `prompt`.
    pub fn new(inner: &'s mut S, prompt: &'s ChatPrompt) -> Self {
        ChatScorer { inner, prompt }
    }

    fn chat(
        &self,
        requests: &[bias_core::Continuation],
    ) -> Result<Vec<bias_core::Continuation>, PlmError> {
        // A document's choices share their context: each distinct one is rendered once.
        let mut rendered: std::collections::HashMap<&str, String> = Default::default();
        requests
            .iter()
            .map(|r| {
                let choice = r.continuation.strip_prefix(' ').unwrap_or(&r.continuation);
                let context = match rendered.get(r.context.as_str()) {
                    Some(c) => c.clone(),
                    None => {
                        let c = self.prompt.render_user(&r.context)?;
                        rendered.insert(&r.context, c.clone());
                        c
                    }
                };
                Ok(bias_core::Continuation::new(context, choice))
            })
            .collect()
    }
}

impl<S: bias_core::ContinuationScorer + ?Sized> bias_core::ContinuationScorer
    for ChatScorer<'_, S>
{
    fn score_continuations(
        &mut self,
        requests: &[bias_core::Continuation],
    ) -> Result<Vec<bias_core::ContinuationScore>, bias_core::BoxError> {
        let chatted = self.chat(requests)?;
        self.inner.score_continuations(&chatted)
    }

    fn check_continuations(
        &mut self,
        requests: &[bias_core::Continuation],
    ) -> Result<(), bias_core::BoxError> {
        let chatted = self.chat(requests)?;
        self.inner.check_continuations(&chatted)
    }
}

/// A [`bias_core::TextGenerator`] whose prompts are rendered by a [`ChatPrompt`] first (the
/// user's turn, the assistant's turn opened: lm-evaluation-harness's `generate_until` under
/// `--apply_chat_template`); each [`bias_core::Generation`] keeps the prompt as given.
#[derive(Debug)]
pub struct ChatGenerator<'s, G: ?Sized> {
    inner: &'s mut G,
    prompt: &'s ChatPrompt,
}

impl<'s, G: bias_core::TextGenerator + ?Sized> ChatGenerator<'s, G> {
    /// `inner`'s prompts rendered by `prompt`.
    pub fn new(inner: &'s mut G, prompt: &'s ChatPrompt) -> Self {
        ChatGenerator { inner, prompt }
    }
}

impl<G: bias_core::TextGenerator + ?Sized> bias_core::TextGenerator for ChatGenerator<'_, G> {
    fn generate_until(
        &mut self,
        prompts: &[&str],
        options: &bias_core::GenerationOptions,
    ) -> Result<Vec<bias_core::Generation>, bias_core::BoxError> {
        let rendered = prompts
            .iter()
            .map(|p| self.prompt.render_user(p))
            .collect::<Result<Vec<_>, _>>()?;
        let rendered: Vec<&str> = rendered.iter().map(String::as_str).collect();
        let mut out = self.inner.generate_until(&rendered, options)?;
        for (g, p) in out.iter_mut().zip(prompts) {
            (*p).clone_into(&mut g.prompt);
        }
        Ok(out)
    }
}

/// A [`bias_core::TextGenerator`] that puts each prompt to a served model's
/// `/v1/chat/completions` as the user's turn (after the system instruction, when given): the
/// server renders the chat with its own template ([`crate::CausalLm::generate_chat_on_server`]).
#[derive(Debug)]
pub struct ServerChat<'a> {
    lm: &'a crate::CausalLm,
    system: Option<String>,
}

impl<'a> ServerChat<'a> {
    /// Prompts of the served `lm`, after `system` when given.
    pub fn new(lm: &'a crate::CausalLm, system: Option<String>) -> Self {
        ServerChat { lm, system }
    }

    /// What a run's identity records of the prompts.
    pub fn identity(&self) -> String {
        match &self.system {
            None => "the server's chat template".into(),
            Some(s) => format!("the server's chat template, system {s:?}"),
        }
    }
}

impl bias_core::TextGenerator for ServerChat<'_> {
    fn generate_until(
        &mut self,
        prompts: &[&str],
        options: &bias_core::GenerationOptions,
    ) -> Result<Vec<bias_core::Generation>, bias_core::BoxError> {
        let conversations: Vec<Vec<Message>> = prompts
            .iter()
            .map(|p| {
                let user = Message::new("user", *p);
                match &self.system {
                    Some(s) => vec![Message::new("system", s.as_str()), user],
                    None => vec![user],
                }
            })
            .collect();
        Ok(self
            .lm
            .generate_chat_on_server(prompts, &conversations, options)?)
    }
}
