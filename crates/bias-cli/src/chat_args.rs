//! `--apply-chat-template`, `--chat-template FILE` and `--system-instruction TEXT`: prompts in
//! the model's chat format, as lm-evaluation-harness's `--apply_chat_template` renders them.

use std::path::PathBuf;

use bias_plm::{CausalLm, ChatPrompt, ChatTemplate};
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
