//! Greedy decoding with a key-value cache, as `transformers`' `generate(do_sample=False)` runs
//! it and lm-evaluation-harness's `generate_until` asks for it.
//!
//! The prompt runs once; each later step runs the network on its one new token, reading the
//! keys and values of the earlier ones from [`super::cache::KvCache`]. The next token is the
//! first arg-max of the last position's logits (`torch.argmax`, which `transformers`' greedy
//! search takes). Decoding stops at an end-of-sequence token (kept in the output, as
//! `transformers` keeps it), when a stop string appears in the text generated so far, or at the
//! token limit.

use bias_core::{Finish, Generation, GenerationOptions};
use tch::{Kind, Tensor};

use super::cache::{KvCache, Pass};
use super::{CausalBackend, CausalLm, CausalModel};
use crate::PlmError;

/// The tokens a greedy decoding produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Greedy {
    /// The generated token ids, after the prompt's.
    pub token_ids: Vec<i64>,
    /// For each generated token, how far its logit is above the runner-up's (the top-2 gap): a
    /// gap near 0 is a near-tie that another CPU's rounding may break the other way.
    pub margins: Vec<f32>,
    /// Why decoding stopped.
    pub finish: Finish,
}

impl CausalModel {
    /// The greedy continuation of `prompt` (token ids, special tokens included as the model
    /// should see them): at most `max_new_tokens` tokens, stopping after one of `eos` or once
    /// `stop(generated so far)` says so.
    ///
    /// # Errors
    /// [`PlmError::Shape`] for an empty prompt; [`PlmError::SequenceTooLong`] when the prompt
    /// and `max_new_tokens` exceed [`crate::CausalConfig::max_tokens`];
    /// [`PlmError::TokenOutOfVocabulary`]; those of `stop`; [`PlmError::Torch`].
    pub fn greedy(
        &self,
        prompt: &[i64],
        max_new_tokens: usize,
        eos: &[i64],
        stop: &mut dyn FnMut(&[i64]) -> Result<bool, PlmError>,
    ) -> Result<Greedy, PlmError> {
        let _guard = tch::no_grad_guard();
        self.check_prompt(prompt, max_new_tokens)?;
        let mut cache = KvCache::new(self.arch.layers());
        let mut out = Greedy {
            token_ids: Vec::with_capacity(max_new_tokens),
            margins: Vec::with_capacity(max_new_tokens),
            finish: Finish::Length,
        };
        let mut step = Tensor::from_slice(prompt).f_to_device(self.device)?;
        while out.token_ids.len() < max_new_tokens {
            if self.switches_rope(cache.len()) {
                cache = KvCache::new(self.arch.layers());
                let all = [prompt, &out.token_ids].concat();
                step = Tensor::from_slice(&all).f_to_device(self.device)?;
            }
            let (token, margin) = self.next_token(&step, &mut cache)?;
            out.token_ids.push(token);
            out.margins.push(margin);
            if eos.contains(&token) {
                out.finish = Finish::Eos;
                break;
            }
            if stop(&out.token_ids)? {
                out.finish = Finish::Stop;
                break;
            }
            step = Tensor::from_slice(&[token]).f_to_device(self.device)?;
        }
        Ok(out)
    }

    /// Runs `ids` (`[new]`) after the cached tokens and returns the arg-max of the last
    /// position's logits with its top-2 gap.
    fn next_token(&self, ids: &Tensor, cache: &mut KvCache) -> Result<(i64, f32), PlmError> {
        let new = ids.size()[0];
        let mask = Tensor::f_ones([1, cache.len() + new], (Kind::Int64, self.device))?;
        let hidden = self.arch.forward(
            &ids.f_unsqueeze(0)?,
            &Pass {
                mask: &mask,
                cache: Some(cache),
            },
        )?;
        cache.advance(new);
        let last = hidden.f_select(1, new - 1)?;
        // `transformers` takes the step's logits in float32 before the arg-max.
        let logits = self
            .arch
            .logits(&last)?
            .f_to_kind(Kind::Float)?
            .f_view([-1])?;
        let token = logits.f_argmax(0, false)?.f_int64_value(&[])?;
        let margin = if logits.size()[0] > 1 {
            let (top, _) = logits.f_topk(2, 0, true, true)?;
            top.f_double_value(&[0])? - top.f_double_value(&[1])?
        } else {
            f64::INFINITY
        };
        Ok((token, margin as f32))
    }

    /// Whether the step after `cached` tokens crosses LongRoPE's switch from the short to the
    /// long frequencies, where `transformers`' `Phi3ForCausalLM.prepare_inputs_for_generation`
    /// drops the cache and runs the whole sequence again (so that every key is rotated with the
    /// long frequencies, not only those after the switch).
    fn switches_rope(&self, cached: i64) -> bool {
        match &self.config.rope_scaling {
            crate::RopeScaling::LongRope {
                original_max_position_embeddings,
                ..
            } => cached > 0 && cached == *original_max_position_embeddings,
            _ => false,
        }
    }

    /// A prompt decoding can start from: not empty, in the vocabulary, and with room for
    /// `max_new_tokens` more within the model's positions.
    fn check_prompt(&self, prompt: &[i64], max_new_tokens: usize) -> Result<(), PlmError> {
        if prompt.is_empty() {
            return Err(PlmError::Shape(
                "the prompt has no tokens: give it at least one (a BOS token)".into(),
            ));
        }
        let vocab_size = self.config.vocab_size;
        if let Some(&id) = prompt.iter().find(|&&t| t < 0 || t >= vocab_size) {
            return Err(PlmError::TokenOutOfVocabulary { id, vocab_size });
        }
        let length = prompt.len() as i64 + max_new_tokens as i64;
        let max = self.config.max_tokens();
        if length > max {
            return Err(PlmError::SequenceTooLong { length, max });
        }
        Ok(())
    }
}

/// What generation reads beside the network: the BOS token's text (a prompt that starts with it
/// is encoded without special tokens) and the ids that end a sequence.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ends {
    pub(crate) bos_text: Option<String>,
    pub(crate) eos: Vec<i64>,
}

/// The `eos_token_id` (one id or a list) of a `generation_config.json`, which `transformers`'
/// `generate` stops on; `None` when the file or the key is absent.
pub(crate) fn eos_ids(generation_config: Option<&serde_json::Value>) -> Option<Vec<i64>> {
    match generation_config?.get("eos_token_id")? {
        serde_json::Value::Array(ids) => Some(ids.iter().filter_map(|v| v.as_i64()).collect()),
        v => v.as_i64().map(|id| vec![id]),
    }
}

impl CausalLm {
    /// The token ids a generation prompt is encoded to, as lm-evaluation-harness's
    /// `generate_until` encodes a context: with the tokenizer's own special tokens
    /// (`tokenizer(prompt)`: Llama's `<s>` first, nothing for GPT-2), or without any when the
    /// prompt already starts with the BOS token's text (a rendered chat template).
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`] if the library fails.
    pub fn encode_prompt(&self, prompt: &str) -> Result<Vec<i64>, PlmError> {
        match &self.ends.bos_text {
            Some(bos) if !bos.is_empty() && prompt.starts_with(bos.as_str()) => {
                self.tokenizer.encode_plain(prompt)
            }
            _ => self.tokenizer.encode(prompt),
        }
    }

    /// The ids that end a generated sequence: `generation_config.json`'s `eos_token_id` (one or
    /// a list), else `config.json`'s.
    pub fn eos_token_ids(&self) -> &[i64] {
        &self.ends.eos
    }

    /// The greedy continuation of `prompt` ([`CausalLm::generate_batch`] of one).
    ///
    /// # Errors
    /// Those of [`CausalLm::generate_batch`].
    pub fn generate(
        &self,
        prompt: &str,
        options: &GenerationOptions,
    ) -> Result<Generation, PlmError> {
        let mut one = self.generate_batch(&[prompt], options)?;
        Ok(one.remove(0))
    }

    /// The greedy continuations of `prompts`, in order: each encoded by
    /// [`CausalLm::encode_prompt`] and decoded by [`CausalModel::greedy`] (a local model, one
    /// prompt after another) or by the server (`POST /completions` with `temperature` 0, the
    /// requests spread and in flight as scoring's are), stopping at an EOS id, a stop string of
    /// `options` or its token limit. The text is decoded here from the token ids in both cases.
    ///
    /// # Errors
    /// Those of [`CausalLm::encode_prompt`] and [`CausalModel::greedy`];
    /// [`PlmError::Served`] naming a request that failed.
    pub fn generate_batch(
        &self,
        prompts: &[&str],
        options: &GenerationOptions,
    ) -> Result<Vec<Generation>, PlmError> {
        let ids = prompts
            .iter()
            .map(|p| self.encode_prompt(p))
            .collect::<Result<Vec<_>, _>>()?;
        let greedy = match self.backend() {
            CausalBackend::Local(model) => {
                let mut stop = |generated: &[i64]| self.contains_stop(generated, &options.stop);
                ids.iter()
                    .map(|ids| model.greedy(ids, options.max_new_tokens, &self.ends.eos, &mut stop))
                    .collect::<Result<Vec<_>, _>>()?
            }
            CausalBackend::Served(served) => {
                let ids: Vec<&[i64]> = ids.iter().map(Vec::as_slice).collect();
                served.greedy(&ids, options, &self.ends.eos)?
            }
        };
        self.generations(prompts, greedy, options)
    }

    /// The answers of a served model to `conversations` through its `/v1/chat/completions`
    /// (the server applies its own chat template; vLLM's `return_token_ids` gives the tokens),
    /// each [`Generation`] naming its prompt of `prompts` and its text decoded here from the
    /// token ids, cut at a stop string.
    ///
    /// # Errors
    /// [`PlmError::Served`] for a local model (render the chat here with a
    /// [`crate::ChatPrompt`] instead) or a request that failed.
    pub fn generate_chat_on_server(
        &self,
        prompts: &[&str],
        conversations: &[Vec<crate::Message>],
        options: &GenerationOptions,
    ) -> Result<Vec<Generation>, PlmError> {
        let CausalBackend::Served(served) = self.backend() else {
            return Err(PlmError::Served {
                request: "chat completions".into(),
                reason: format!(
                    "{} is a local model: a chat on the server needs a served model",
                    self.name()
                ),
            });
        };
        let greedy = served.chat_greedy(conversations, options, &self.ends.eos)?;
        self.generations(prompts, greedy, options)
    }

    /// The [`Generation`]s of `greedy`'s tokens for `prompts`: the text decoded without special
    /// tokens and cut before the first stop string.
    fn generations(
        &self,
        prompts: &[&str],
        greedy: Vec<Greedy>,
        options: &GenerationOptions,
    ) -> Result<Vec<Generation>, PlmError> {
        prompts
            .iter()
            .zip(greedy)
            .map(|(prompt, g)| {
                Ok(Generation {
                    prompt: (*prompt).to_owned(),
                    text: cut_at_stop(self.tokenizer.decode(&g.token_ids, true)?, &options.stop),
                    token_ids: g.token_ids,
                    finish: g.finish,
                })
            })
            .collect()
    }

    /// Whether the text of `generated` (special tokens kept, as lm-evaluation-harness's
    /// stopping criterion decodes it) contains one of `stop`.
    fn contains_stop(&self, generated: &[i64], stop: &[String]) -> Result<bool, PlmError> {
        if stop.is_empty() {
            return Ok(false);
        }
        let text = self.tokenizer.decode(generated, false)?;
        Ok(stop
            .iter()
            .any(|s| !s.is_empty() && text.contains(s.as_str())))
    }
}

/// `text` cut before the first occurrence of any of `stop` (empty strings ignored).
pub(crate) fn cut_at_stop(mut text: String, stop: &[String]) -> String {
    let cut = stop
        .iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| text.find(s.as_str()))
        .min();
    if let Some(at) = cut {
        text.truncate(at);
    }
    text
}

impl bias_core::TextGenerator for CausalLm {
    fn generate_until(
        &mut self,
        prompts: &[&str],
        options: &GenerationOptions,
    ) -> Result<Vec<Generation>, bias_core::BoxError> {
        Ok(self.generate_batch(prompts, options)?)
    }
}
