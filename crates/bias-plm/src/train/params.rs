//! The trainable parameters of a masked LM under their Hugging Face names: read from a model
//! folder (optionally with a new masked-LM head on a bare encoder), turned into the model the
//! scorers use (sharing the tensors, so gradients reach them), and saved back as a folder that
//! both this crate and `transformers` load.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use tch::{Device, Kind, Tensor};

use crate::config::ModelType;
use crate::model::{checkpoint_files, Weights};
use crate::{ModelConfig, PlmError, PlmModel};

/// Tokenizer files copied next to a saved model, when the base folder has them.
const TOKENIZER_FILES: &[&str] = &[
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spiece.model",
    "sentencepiece.bpe.model",
];

/// Decoder weights that duplicate the word embeddings when `tie_word_embeddings` is set;
/// `transformers` re-ties them at load and does not save them.
const TIED_DECODERS: &[&str] = &[
    "cls.predictions.decoder.weight",
    "lm_head.decoder.weight",
    "predictions.decoder.weight",
    "vocab_projector.weight",
    "generator_lm_head.weight",
];

/// Parameters by Hugging Face name (with the base-model prefix), on one device, in f32.
#[derive(Debug)]
pub(crate) struct Parameters {
    pub(crate) map: BTreeMap<String, Tensor>,
    pub(crate) config: ModelConfig,
    /// The base folder's `config.json`, rewritten on save.
    config_json: serde_json::Value,
    base: PathBuf,
}

impl Parameters {
    /// Reads the model in `base`; with `new_head`, `base` must be a bare BERT encoder and gets
    /// a freshly initialised masked-LM head (seeded by `seed`).
    pub(crate) fn load(
        base: &Path,
        device: Device,
        new_head: bool,
        seed: u64,
    ) -> Result<Self, PlmError> {
        let config = ModelConfig::from_dir(base)?;
        if config.model_type == ModelType::ModernBert {
            // Its weight-decay groups (transformers exempts every `norm`) and dropouts are not
            // checked against transformers.
            return Err(PlmError::Training(format!(
                "fine-tuning is not implemented for ModernBERT ({}); it can be scored and \
                 embedded",
                base.display()
            )));
        }
        let config_path = base.join("config.json");
        let text = std::fs::read_to_string(&config_path).map_err(|source| PlmError::Io {
            path: config_path.clone(),
            source,
        })?;
        let config_json: serde_json::Value =
            serde_json::from_str(&text).map_err(|source| PlmError::ConfigJson {
                path: config_path,
                source,
            })?;
        let (files, _) = checkpoint_files(base)?;
        let mut map = BTreeMap::new();
        for file in &files {
            for (name, t) in Tensor::read_safetensors(file)? {
                // Integer buffers (position ids) are recomputed by every implementation.
                if t.is_floating_point() {
                    map.insert(name, t.f_to_kind(Kind::Float)?.f_to_device(device)?);
                }
            }
        }
        let mut params = Parameters {
            map,
            config,
            config_json,
            base: base.to_path_buf(),
        };
        params.canonicalise(new_head, seed, device)?;
        for t in params.map.values_mut() {
            *t = t.f_detach()?.set_requires_grad(true);
        }
        Ok(params)
    }

    /// Prefixes a bare encoder's names, adds the head if asked, and drops tied duplicates.
    fn canonicalise(&mut self, new_head: bool, seed: u64, device: Device) -> Result<(), PlmError> {
        let prefix = format!("{}.", self.config.model_type.base_prefix());
        let bare = !self.map.keys().any(|k| k.starts_with(&prefix));
        if new_head {
            if self.config.model_type != ModelType::Bert {
                return Err(PlmError::Training(format!(
                    "a new masked-LM head can be added to BERT encoders only; {} is {}",
                    self.base.display(),
                    self.config.model_type_name
                )));
            }
            if !bare
                || self
                    .map
                    .contains_key("cls.predictions.transform.dense.weight")
            {
                return Err(PlmError::HeadExists {
                    base: self.base.to_path_buf(),
                });
            }
        }
        if bare {
            self.map = std::mem::take(&mut self.map)
                .into_iter()
                // A bare BertModel's pooler has no place in BertForMaskedLM.
                .filter(|(k, _)| !k.starts_with("pooler."))
                .map(|(k, t)| (format!("{prefix}{k}"), t))
                .collect();
        }
        if new_head {
            self.add_bert_head(seed, device)?;
        }
        if self.config.tie_word_embeddings {
            for name in TIED_DECODERS {
                self.map.remove(*name);
            }
        }
        Ok(())
    }

    /// `BertOnlyMLMHead` initialised as `BertPreTrainedModel._init_weights` does: the dense
    /// weight from N(0, 0.02²), biases 0, layer norm (1, 0); the decoder is tied to the word
    /// embeddings.
    fn add_bert_head(&mut self, seed: u64, device: Device) -> Result<(), PlmError> {
        let (h, v) = (self.config.hidden_size, self.config.vocab_size);
        tch::manual_seed(seed as i64);
        let opts = (Kind::Float, Device::Cpu);
        let head = [
            (
                "cls.predictions.transform.dense.weight",
                Tensor::f_randn([h, h], opts)?.f_mul_scalar(0.02)?,
            ),
            (
                "cls.predictions.transform.dense.bias",
                Tensor::f_zeros([h], opts)?,
            ),
            (
                "cls.predictions.transform.LayerNorm.weight",
                Tensor::f_ones([h], opts)?,
            ),
            (
                "cls.predictions.transform.LayerNorm.bias",
                Tensor::f_zeros([h], opts)?,
            ),
            ("cls.predictions.bias", Tensor::f_zeros([v], opts)?),
        ];
        for (name, t) in head {
            self.map.insert(name.to_string(), t.f_to_device(device)?);
        }
        self.config.tie_word_embeddings = true;
        let json = self.config_json.as_object_mut().ok_or_else(|| {
            PlmError::Training(format!(
                "{}/config.json is not an object",
                self.base.display()
            ))
        })?;
        json.insert(
            "architectures".into(),
            serde_json::json!(["BertForMaskedLM"]),
        );
        json.insert("tie_word_embeddings".into(), serde_json::json!(true));
        Ok(())
    }

    /// The model the scorers use, built on these very tensors.
    pub(crate) fn model(&self, device: Device) -> Result<PlmModel, PlmError> {
        let shared: HashMap<String, Tensor> = self
            .map
            .iter()
            .map(|(k, t)| (k.clone(), t.shallow_clone()))
            .collect();
        let weights = Weights::from_map(shared, self.base.clone(), device, Kind::Float);
        PlmModel::from_weights(&self.base, self.config.clone(), &weights, true)
    }

    /// The parameters that receive gradients, by name.
    pub(crate) fn named(&self) -> Vec<(String, Tensor)> {
        self.map
            .iter()
            .map(|(k, t)| (k.clone(), t.shallow_clone()))
            .collect()
    }

    /// Replaces the values of every parameter with those saved in `file` (a checkpoint).
    pub(crate) fn restore(&mut self, file: &Path) -> Result<(), PlmError> {
        let saved: HashMap<String, Tensor> = Tensor::read_safetensors(file)?.into_iter().collect();
        let _guard = tch::no_grad_guard();
        for (name, t) in self.map.iter_mut() {
            let value = saved.get(name).ok_or_else(|| {
                PlmError::Training(format!("checkpoint {} lacks {name}", file.display()))
            })?;
            t.f_copy_(value)?;
        }
        Ok(())
    }

    /// Writes the parameters to `file` (safetensors, on the CPU, names sorted).
    pub(crate) fn write_weights(&self, file: &Path) -> Result<(), PlmError> {
        write_tensors(&self.named(), file)
    }

    /// Saves a complete Hugging Face folder: `config.json`, `model.safetensors` and the base
    /// folder's tokenizer files.
    pub(crate) fn save_folder(&self, dir: &Path) -> Result<(), PlmError> {
        create_dir(dir)?;
        self.write_weights(&dir.join("model.safetensors"))?;
        let config_path = dir.join("config.json");
        let config = serde_json::to_string_pretty(&self.config_json).map_err(|source| {
            PlmError::WriteJson {
                path: config_path.clone(),
                source,
            }
        })?;
        write_file(&config_path, config.as_bytes())?;
        for name in TOKENIZER_FILES {
            let src = self.base.join(name);
            if src.is_file() {
                let dst = dir.join(name);
                std::fs::copy(&src, &dst).map_err(|source| PlmError::Io { path: dst, source })?;
            }
        }
        Ok(())
    }
}

/// Writes named tensors to a safetensors file (detached, contiguous, on the CPU).
pub(crate) fn write_tensors(tensors: &[(String, Tensor)], file: &Path) -> Result<(), PlmError> {
    let cpu = tensors
        .iter()
        .map(|(k, t)| {
            Ok((
                k.clone(),
                t.f_detach()?.f_to_device(Device::Cpu)?.f_contiguous()?,
            ))
        })
        .collect::<Result<Vec<_>, PlmError>>()?;
    Ok(Tensor::write_safetensors(&cpu, file)?)
}

/// Creates `dir` and its parents.
pub(crate) fn create_dir(dir: &Path) -> Result<(), PlmError> {
    std::fs::create_dir_all(dir).map_err(|source| PlmError::Io {
        path: dir.to_path_buf(),
        source,
    })
}

/// Writes `bytes` to `path`.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), PlmError> {
    std::fs::write(path, bytes).map_err(|source| PlmError::Io {
        path: path.to_path_buf(),
        source,
    })
}
