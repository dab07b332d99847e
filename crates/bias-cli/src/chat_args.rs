//! `--apply-chat-template`, `--chat-template FILE` and `--system-instruction TEXT`: prompts in
//! the model's chat format, as lm-evaluation-harness's `--apply_chat_template` renders them.

use std::path::PathBuf;

use bias_core::TextGenerator;
use bias_plm::{CausalLm, ChatGenerator, ChatPrompt, ChatTemplate, ServerChat};
use clap::Args;

use crate::error::CliError;

/// How prompts are put to the model.
#[derive(Debug, Default, Args)]
pub struct ChatArgs {
    /// Render each prompt through the model's chat template (tokenizer_config.json's
    /// `chat_template`, or `chat_template.jinja`) as the user's turn, the assistant's turn
    /// opened, with no space before the answer (lm-evaluation-harness's
    /// `--apply_chat_template`).
    #[arg(long)]
    pub apply_chat_template: bool,
    /// A chat template file (Jinja) instead of the model's own; implies --apply-chat-template.
    #[arg(long, value_name = "FILE")]
    pub chat_template: Option<PathBuf>,
    /// A system turn before each prompt (dropped for a template that refuses system turns, as
    /// lm-evaluation-harness drops it); needs a chat template.
    #[arg(long, value_name = "TEXT")]
    pub system_instruction: Option<String>,
    /// With a served model, put each prompt to the server's `/v1/chat/completions`, which
    /// applies its own chat template (generation only: `bias generate`, `bias task bbq
    /// --generate`).
    #[arg(long)]
    pub chat_on_server: bool,
}

impl ChatArgs {
    /// A usage error saying `why` when a chat format is asked for where it does not apply.
    ///
    /// # Errors
    /// [`CliError::Usage`] when any chat flag is given.
    pub fn refuse(&self, why: &str) -> Result<(), CliError> {
        let asked = self.apply_chat_template
            || self.chat_template.is_some()
            || self.system_instruction.is_some();
        if asked {
            return Err(CliError::Usage(format!(
                "{why}: --apply-chat-template, --chat-template and --system-instruction are \
                 for bbq and winogender"
            )));
        }
        Ok(())
    }

    /// The prompts' chat format for `lm`, or `None` for plain prompts.
    ///
    /// # Errors
    /// [`CliError::Usage`] for a system instruction without a chat template, or a model whose
    /// tokenizer has no template; the template's errors.
    pub fn prompt(&self, lm: &CausalLm) -> Result<Option<ChatPrompt>, CliError> {
        if self.chat_on_server {
            return Err(CliError::Usage(
                "--chat-on-server generates through the server's chat endpoint, which cannot \
                 score a prompt's likelihood: use --apply-chat-template (rendered here) or \
                 --generate"
                    .into(),
            ));
        }
        if !self.apply_chat_template && self.chat_template.is_none() {
            if self.system_instruction.is_some() {
                return Err(CliError::Usage(
                    "--system-instruction needs --apply-chat-template (or --chat-template FILE)"
                        .into(),
                ));
            }
            return Ok(None);
        }
        let template = match &self.chat_template {
            Some(file) => ChatTemplate::from_file(file, &lm.tokenizer_dir())?,
            None => lm.chat_template()?.ok_or_else(|| {
                CliError::Usage(format!(
                    "{}: the tokenizer has no chat_template (tokenizer_config.json or \
                     chat_template.jinja); give one with --chat-template FILE",
                    lm.tokenizer_dir().display()
                ))
            })?,
        };
        Ok(Some(ChatPrompt::new(
            template,
            self.system_instruction.clone(),
        )))
    }
}

impl ChatArgs {
    /// Runs `f` with `lm` as a text generator in the prompt format asked for — plain, rendered
    /// here by a chat template, or the server's chat (`--chat-on-server`) — and the identity a
    /// run log records of it (the model's digest and the format).
    ///
    /// # Errors
    /// Those of [`ChatArgs::prompt`]; [`CliError::Usage`] for `--chat-on-server` with a local
    /// model or a local template; `f`'s.
    pub fn with_generator<T>(
        &self,
        lm: &mut CausalLm,
        f: impl FnOnce(&mut dyn TextGenerator, String) -> Result<T, CliError>,
    ) -> Result<T, CliError> {
        let digest = lm.digest()?.to_owned();
        if self.chat_on_server {
            if lm.model().is_some() || self.apply_chat_template || self.chat_template.is_some() {
                return Err(CliError::Usage(
                    "--chat-on-server needs a served model (--model http://HOST:PORT/v1) and no \
                     --apply-chat-template or --chat-template: the server renders the chat"
                        .into(),
                ));
            }
            let mut chat = ServerChat::new(lm, self.system_instruction.clone());
            let identity = format!("{digest}, {}", chat.identity());
            return f(&mut chat, identity);
        }
        match self.prompt(lm)? {
            Some(p) => {
                let identity = format!("{digest}, {}", p.identity());
                f(&mut ChatGenerator::new(lm, &p), identity)
            }
            None => f(lm, digest),
        }
    }
}
