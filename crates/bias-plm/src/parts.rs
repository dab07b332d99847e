//! A model handed over in memory rather than read from a folder: the text of its `config.json`
//! and `tokenizer.json` and its parameters as tensors, named as PyTorch's
//! [`Module.state_dict()`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.state_dict)
//! names them — what a Python binding finds in a `transformers` model object, so that a model can
//! be measured while it trains, without saving it first.
//!
//! [`crate::LanguageModel::from_parts`], [`crate::MaskedLm::from_parts`] and
//! [`crate::CausalLm::from_parts`] build a model from a [`ModelParts`] through the same
//! constructors as the folder loaders ([`crate::LanguageModel::open`] and the like): the same
//! configuration parser, parameter names and shape checks, tokenizer, special tokens and errors.

use std::path::PathBuf;

use sha2::{Digest, Sha256};
use tch::{Device, Tensor};

use crate::PlmError;

/// The parts of a Hugging Face model held in memory: what
/// [`crate::LanguageModel::from_parts`] builds a model from, instead of a folder's files.
///
/// In Python, for a `transformers` model `model` and its fast tokenizer `tok`:
///
/// | field                      | from                                                          |
/// |----------------------------|---------------------------------------------------------------|
/// | `config_json`              | `model.config.to_json_string()` (the text `config.json` holds) |
/// | `tokenizer_json`           | `tok.backend_tokenizer.to_str()` (the text of `tokenizer.json`) |
/// | `tokenizer_config_json`    | the text of `tokenizer_config.json`, if any                    |
/// | `special_tokens_map_json`  | the text of `special_tokens_map.json`, if any                  |
/// | `tensors`                  | `model.state_dict().items()`                                  |
///
/// The tensors are named as `state_dict()` names them, which is how `save_pretrained` names them
/// in `model.safetensors` (`bert.encoder.layer.0.attention.self.query.weight`,
/// `transformer.h.0.attn.c_attn.weight`, `model.layers.0.self_attn.q_proj.weight`, ...). A
/// `state_dict()` also lists the tied copies `save_pretrained` leaves out (transformers'
/// `_tied_weights_keys`: BERT's `cls.predictions.decoder.weight` and
/// `cls.predictions.decoder.bias`, GPT-2's and Llama's `lm_head.weight` when
/// `tie_word_embeddings` is true): they are accepted, and ignored where the configuration ties
/// them, as when `transformers` loads a checkpoint. Names the architecture does not read are
/// ignored; a name given twice is read from its last tensor (as when shards repeat a name).
///
/// The two tokenizer configuration files only matter for a causal LM: its prefix token
/// ([`crate::CausalLm::prefix_token_id`]) is their `bos_token`, else their `eos_token`, else
/// `config.json`'s `bos_token_id` / `eos_token_id`. Give them when the tokenizer names its
/// BOS / EOS tokens there (for `transformers`, `tok.save_pretrained(dir)` writes them).
///
/// References: `config.json` is what
/// [`PretrainedConfig.to_json_string`](https://huggingface.co/docs/transformers/main_classes/configuration#transformers.PretrainedConfig.to_json_string)
/// writes and `save_pretrained` saves; `tokenizer.json` is the serialisation of
/// [`tokenizers.Tokenizer.to_str`](https://huggingface.co/docs/tokenizers/api/tokenizer#tokenizers.Tokenizer.to_str);
/// the tensors are those of PyTorch's `Module.state_dict()`, which
/// [`PreTrainedModel.save_pretrained`](https://huggingface.co/docs/transformers/main_classes/model#transformers.PreTrainedModel.save_pretrained)
/// writes to `model.safetensors` (without the tied copies).
///
/// Errors about a part name it with a pseudo-path, `<in-memory config.json of NAME>`,
/// `<in-memory tokenizer of NAME>`, `<in-memory state_dict of NAME>` (see
/// [`ModelParts::pseudo_path`]), where a folder's loader names the file.
pub struct ModelParts {
    /// The name written to the score table's `model` column (the folder's name, for a folder).
    pub name: String,
    /// The text of the model's Hugging Face `config.json` (`model.config.to_json_string()`);
    /// its `model_type` chooses the architecture, and keys it lacks take the configuration
    /// class's defaults, as in a folder.
    pub config_json: String,
    /// The text of the fast tokenizer's `tokenizer.json`
    /// (`tokenizer.backend_tokenizer.to_str()` in Python).
    pub tokenizer_json: String,
    /// The text of `tokenizer_config.json`, when there is one (a causal LM's prefix token).
    pub tokenizer_config_json: Option<String>,
    /// The text of `special_tokens_map.json`, when there is one (a causal LM's prefix token).
    pub special_tokens_map_json: Option<String>,
    /// The parameters: `(name, tensor)` pairs as `model.state_dict()` gives them, on any device
    /// and in any floating-point kind (each is moved and converted on load only when it is not
    /// already on the model's device in its kind: see [`crate::LanguageModel::from_parts`]).
    pub tensors: Vec<(String, Tensor)>,
}

impl ModelParts {
    /// Parts named `name` with a `config.json` text, a `tokenizer.json` text and the tensors of a
    /// `state_dict`, without the tokenizer configuration files (set
    /// [`ModelParts::tokenizer_config_json`] and [`ModelParts::special_tokens_map_json`] for a
    /// causal LM whose BOS / EOS tokens they name).
    pub fn new(
        name: impl Into<String>,
        config_json: impl Into<String>,
        tokenizer_json: impl Into<String>,
        tensors: Vec<(String, Tensor)>,
    ) -> Self {
        ModelParts {
            name: name.into(),
            config_json: config_json.into(),
            tokenizer_json: tokenizer_json.into(),
            tokenizer_config_json: None,
            special_tokens_map_json: None,
            tensors,
        }
    }

    /// The pseudo-path that names one of the parts in errors and in
    /// [`crate::MaskedLm::dir`]: `<in-memory {what} of {name}>` (`what`: `model`,
    /// `config.json`, `tokenizer`, `state_dict`, `tokenizer_config.json`,
    /// `special_tokens_map.json`). It is no file: reading it fails.
    pub fn pseudo_path(&self, what: &str) -> PathBuf {
        pseudo_path(what, &self.name)
    }

    /// The digest of the parts, which stands for a folder's [`crate::model_digest`] in run
    /// fingerprints: SHA-256 (hex) of the `config.json` text, of the `tokenizer.json` text, of
    /// each tokenizer configuration file given (its name, a NUL byte, its text), and of the
    /// tensors, joined by `:`. The tensors' hash covers, for each in the order of their names:
    /// the name, its dtype and shape, and its elements' bytes in row-major (contiguous) order,
    /// native endianness.
    ///
    /// # Cost
    /// It reads every byte of every tensor once: about as long as hashing the model's
    /// `model.safetensors` (SHA-256 runs at roughly 0.5–2 GB/s on one core; a 110M-parameter
    /// float32 BERT is 440 MB). Tensors are copied to the CPU in chunks of at most 16 MiB, so
    /// it needs no more memory than that; a tensor that is not contiguous is made so first
    /// (one copy of it). A model built from parts computes it only when asked
    /// ([`crate::LanguageModel::digest`], [`crate::LanguageModel::fingerprint`]).
    ///
    /// # Errors
    /// [`PlmError::Torch`] if libtorch cannot read a tensor.
    pub fn digest(&self) -> Result<String, PlmError> {
        let text = |label: Option<&str>, text: &str| {
            let mut h = Sha256::new();
            if let Some(label) = label {
                h.update(label.as_bytes());
                h.update([0]);
            }
            h.update(text.as_bytes());
            hex(&h.finalize())
        };
        let mut parts = vec![
            text(None, &self.config_json),
            text(None, &self.tokenizer_json),
        ];
        if let Some(t) = &self.tokenizer_config_json {
            parts.push(text(Some("tokenizer_config.json"), t));
        }
        if let Some(t) = &self.special_tokens_map_json {
            parts.push(text(Some("special_tokens_map.json"), t));
        }
        parts.push(tensors_sha256(&self.tensors)?);
        Ok(parts.join(":"))
    }
}

impl std::fmt::Debug for ModelParts {
    /// The name, the texts' lengths and the tensors' count and elements (not their values).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let elements: i64 = self.tensors.iter().map(|(_, t)| t.numel() as i64).sum();
        f.debug_struct("ModelParts")
            .field("name", &self.name)
            .field(
                "config_json",
                &format_args!("{} bytes", self.config_json.len()),
            )
            .field(
                "tokenizer_json",
                &format_args!("{} bytes", self.tokenizer_json.len()),
            )
            .field(
                "tokenizer_config_json",
                &self.tokenizer_config_json.as_ref().map(String::len),
            )
            .field(
                "special_tokens_map_json",
                &self.special_tokens_map_json.as_ref().map(String::len),
            )
            .field(
                "tensors",
                &format_args!("{} tensors, {elements} elements", self.tensors.len()),
            )
            .finish()
    }
}

/// `<in-memory {what} of {name}>`: see [`ModelParts::pseudo_path`].
pub(crate) fn pseudo_path(what: &str, name: &str) -> PathBuf {
    PathBuf::from(format!("<in-memory {what} of {name}>"))
}

/// Elements hashed per chunk (times the element size: at most 16 MiB for 8-byte kinds).
const CHUNK_ELEMENTS: i64 = 1 << 21;

/// SHA-256 (hex) of tensors, in the order of their names: see [`ModelParts::digest`].
fn tensors_sha256(tensors: &[(String, Tensor)]) -> Result<String, PlmError> {
    let mut order: Vec<&(String, Tensor)> = tensors.iter().collect();
    order.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = Sha256::new();
    let mut buffer = Vec::new();
    for (name, tensor) in order {
        let kind = tensor.f_kind()?;
        let size = tensor.size();
        h.update(format!("{name}\0{kind:?}\0{size:?}\0").as_bytes());
        let flat = tensor.f_detach()?.f_contiguous()?.f_reshape([-1])?;
        let numel = flat.size()[0];
        let width = kind.elt_size_in_bytes();
        let mut start = 0;
        while start < numel {
            let n = CHUNK_ELEMENTS.min(numel - start);
            let chunk = flat.f_narrow(0, start, n)?;
            let chunk = if chunk.device() == Device::Cpu {
                chunk
            } else {
                chunk.f_to_device(Device::Cpu)?
            };
            let bytes = n as usize * width;
            buffer.resize(bytes, 0);
            chunk.f_copy_data_u8(&mut buffer, n as usize)?;
            h.update(&buffer);
            start += n;
        }
    }
    Ok(hex(&h.finalize()))
}

/// Lower-case hex of bytes.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Weights;
    use tch::Kind;

    fn parts(tensors: Vec<(String, Tensor)>) -> ModelParts {
        ModelParts::new("m", "{}", "{}", tensors)
    }

    #[test]
    fn the_digest_follows_names_shapes_kinds_and_bytes_not_order() {
        let a = || Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]);
        let b = || Tensor::from_slice(&[5i64, 6]);
        let base = parts(vec![("a".into(), a()), ("b".into(), b())])
            .digest()
            .unwrap();
        assert_eq!(base.split(':').count(), 3, "{base}");
        let swapped = parts(vec![("b".into(), b()), ("a".into(), a())]);
        assert_eq!(swapped.digest().unwrap(), base);
        let reshaped = parts(vec![("a".into(), a().reshape([2, 2])), ("b".into(), b())]);
        assert_ne!(reshaped.digest().unwrap(), base);
        let renamed = parts(vec![("c".into(), a()), ("b".into(), b())]);
        assert_ne!(renamed.digest().unwrap(), base);
        let changed = parts(vec![
            ("a".into(), Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.5])),
            ("b".into(), b()),
        ]);
        assert_ne!(changed.digest().unwrap(), base);
        // The same values stored transposed (not contiguous) hash as the contiguous tensor.
        let t = Tensor::from_slice(&[1.0f32, 3.0, 2.0, 4.0])
            .reshape([2, 2])
            .tr();
        let contiguous = t.contiguous();
        assert_eq!(
            parts(vec![("a".into(), t)]).digest().unwrap(),
            parts(vec![("a".into(), contiguous)]).digest().unwrap()
        );
        let mut with_config = parts(vec![("a".into(), a()), ("b".into(), b())]);
        with_config.tokenizer_config_json = Some("{}".into());
        let d = with_config.digest().unwrap();
        assert_eq!(d.split(':').count(), 4, "{d}");
        assert_ne!(d, base);
    }

    #[test]
    fn a_tensor_longer_than_a_chunk_hashes_every_element() {
        let n = CHUNK_ELEMENTS + 3;
        let zeros = Tensor::zeros([n], (Kind::Uint8, Device::Cpu));
        let last = zeros.copy();
        let _ = last.narrow(0, n - 1, 1).fill_(1);
        assert_ne!(
            parts(vec![("x".into(), zeros)]).digest().unwrap(),
            parts(vec![("x".into(), last)]).digest().unwrap()
        );
    }

    #[test]
    fn cpu_float32_parameters_are_used_in_place_not_copied() {
        // As a training model's parameters are: tracked by autograd.
        let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0])
            .reshape([2, 2])
            .set_requires_grad(true);
        let given = vec![("w".to_owned(), t.shallow_clone())];
        let path = pseudo_path("state_dict", "m");
        let w = Weights::from_tensors(&given, path.clone(), Device::Cpu, Kind::Float).unwrap();
        let loaded = w.get("w", &[2, 2]).unwrap();
        assert_eq!(loaded.data_ptr(), t.data_ptr());
        assert!(!loaded.requires_grad());
        // Another kind is a conversion, hence a copy.
        let w = Weights::from_tensors(&given, path, Device::Cpu, Kind::Double).unwrap();
        assert_ne!(w.get("w", &[2, 2]).unwrap().data_ptr(), t.data_ptr());
    }

    #[test]
    fn debug_names_sizes_not_values() {
        let p = parts(vec![("a".into(), Tensor::from_slice(&[1.0f32; 6]))]);
        let text = format!("{p:?}");
        assert!(text.contains("1 tensors, 6 elements"), "{text}");
        assert_eq!(
            p.pseudo_path("tokenizer"),
            PathBuf::from("<in-memory tokenizer of m>")
        );
    }
}
