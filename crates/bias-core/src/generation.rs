//! Text generation as a capability: lm-evaluation-harness's `generate_until` request (Gao et
//! al. 2024, `lm_eval.api.model.LM.generate_until`), greedy, on which generative tasks (BBQ's
//! `bbq_generate`) read a model's answer.

use serde::{Deserialize, Serialize};

use crate::capability::BoxError;

/// How far to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerationOptions {
    /// The most tokens to generate (lm-evaluation-harness's `max_gen_toks`; 256 by default, its
    /// default).
    pub max_new_tokens: usize,
    /// Stop strings (lm-evaluation-harness's `until`): generation stops once the text generated
    /// so far contains one, and the text is cut before the first.
    pub stop: Vec<String>,
}

impl Default for GenerationOptions {
    fn default() -> Self {
        GenerationOptions {
            max_new_tokens: 256,
            stop: Vec::new(),
        }
    }
}

/// Why generation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Finish {
    /// The token limit was reached.
    Length,
    /// The model produced an end-of-sequence token (the last of the ids).
    Eos,
    /// A stop string appeared in the generated text.
    Stop,
}

/// A prompt's greedy continuation (one JSON line per prompt in `bias generate`'s output).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    /// The prompt, as given (before any chat template).
    pub prompt: String,
    /// The generated text: its tokens decoded without special tokens, cut before the first stop
    /// string (lm-evaluation-harness's `generate_until` post-processing).
    pub text: String,
    /// The generated token ids (an end-of-sequence token included; after a stop string, the
    /// tokens up to the one that completed it).
    pub token_ids: Vec<i64>,
    /// Why generation stopped.
    pub finish: Finish,
}

/// Generates a greedy continuation of each prompt until a stop string, an end-of-sequence token
/// or the token limit.
pub trait TextGenerator {
    /// The continuations of `prompts`, in order. How a prompt becomes tokens (special tokens, a
    /// chat template) is the runtime's to document.
    ///
    /// # Errors
    /// The runtime's error, boxed.
    fn generate_until(
        &mut self,
        prompts: &[&str],
        options: &GenerationOptions,
    ) -> Result<Vec<Generation>, BoxError>;
}
