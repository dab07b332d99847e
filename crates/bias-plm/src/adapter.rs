//! LoRA adapters (Hu et al. 2022, "LoRA: Low-Rank Adaptation of Large Language Models") saved by
//! `peft` — a folder with `adapter_config.json` and `adapter_model.safetensors` — merged onto
//! their base model at load, as `peft`'s `merge_and_unload` merges them:
//! `W ← W + s · B A` for every adapted linear layer (`(B A)ᵀ` for GPT-2's `Conv1D`, whose
//! weights are stored transposed: `fan_in_fan_out`), and `E ← E + s · (B A)ᵀ` for an adapted
//! embedding, with `s = lora_alpha / r` (`lora_alpha / √r` with `use_rslora`), `r` and
//! `lora_alpha` per module from `rank_pattern` and `alpha_pattern`. The update is computed in
//! float32, cast to the weight's stored kind and added in that kind (`LoraLayer.merge` and
//! `get_delta_weight`).
//!
//! The base model is `base_model_name_or_path`: a folder relative to the working directory (as
//! `peft` reads it) or to the adapter's folder, else a Hugging Face id resolved through the
//! cache ([`crate::resolve_model`]). The adapter's own tokenizer files, when it has them, are
//! used instead of the base model's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tch::{Kind, Tensor};

use crate::PlmError;

/// The file that makes a folder an adapter.
pub const ADAPTER_CONFIG: &str = "adapter_config.json";
/// The adapter's weights.
pub const ADAPTER_WEIGHTS: &str = "adapter_model.safetensors";
/// The prefix `peft` gives every saved key (`PeftModel` → `LoraModel` → the base model).
const KEY_PREFIX: &str = "base_model.model.";

/// A LoRA adapter's settings (`peft.LoraConfig`, as `adapter_config.json` holds them).
#[derive(Debug, Clone, PartialEq)]
pub struct LoraConfig {
    /// `base_model_name_or_path`.
    pub base_model: String,
    /// `r`: the default rank.
    pub r: f64,
    /// `lora_alpha`: the default scale numerator.
    pub lora_alpha: f64,
    /// `use_rslora`: scale by `lora_alpha / √r` (Kalajdzievski 2023) instead of `lora_alpha / r`.
    pub use_rslora: bool,
    /// `fan_in_fan_out`: the adapted weights are stored `[in, out]` (GPT-2's `Conv1D`).
    pub fan_in_fan_out: bool,
    /// `rank_pattern`: ranks of the modules whose name ends with a key.
    pub rank_pattern: Vec<(String, f64)>,
    /// `alpha_pattern`: `lora_alpha` of the modules whose name ends with a key.
    pub alpha_pattern: Vec<(String, f64)>,
}

impl LoraConfig {
    /// Parses `adapter_config.json`; `path` names it in errors.
    ///
    /// # Errors
    /// [`PlmError::ConfigJson`] for invalid JSON; [`PlmError::Adapter`] for an adapter that is
    /// not LoRA, uses DoRA, or lacks `r`, `lora_alpha` or `base_model_name_or_path`.
    pub fn from_json_str(text: &str, path: &Path) -> Result<Self, PlmError> {
        let raw: Value = serde_json::from_str(text).map_err(|source| PlmError::ConfigJson {
            path: path.to_path_buf(),
            source,
        })?;
        let bad = |reason: String| PlmError::Adapter {
            path: path.to_path_buf(),
            reason,
        };
        let get = |key: &str| raw.get(key).filter(|v| !v.is_null());
        let peft_type = get("peft_type").and_then(Value::as_str).unwrap_or("LORA");
        if peft_type != "LORA" {
            return Err(bad(format!(
                "peft_type {peft_type:?}: only LoRA adapters are merged"
            )));
        }
        if get("use_dora").and_then(Value::as_bool) == Some(true) {
            return Err(bad("use_dora: DoRA adapters are not implemented".into()));
        }
        // Variants of LoRA whose update is not `s · B A` on the saved modules.
        for key in [
            "lora_bias",
            "target_parameters",
            "layer_replication",
            "alora_invocation_tokens",
            "trainable_token_indices",
        ] {
            if get(key).is_some_and(|v| v != &Value::Bool(false)) {
                return Err(bad(format!(
                    "`{key}` is set: only plain LoRA updates (s · B A) are merged"
                )));
            }
        }
        let number = |key: &str| {
            get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| bad(format!("`{key}` must be a number")))
        };
        let pattern = |key: &str| -> Result<Vec<(String, f64)>, PlmError> {
            match get(key) {
                None => Ok(Vec::new()),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| {
                        v.as_f64()
                            .map(|v| (k.clone(), v))
                            .ok_or_else(|| bad(format!("`{key}.{k}` must be a number")))
                    })
                    .collect(),
                Some(other) => Err(bad(format!("`{key}` must be an object, not {other}"))),
            }
        };
        let flag = |key: &str| get(key).and_then(Value::as_bool).unwrap_or(false);
        Ok(LoraConfig {
            base_model: get("base_model_name_or_path")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .ok_or_else(|| bad("no `base_model_name_or_path` names the base model".into()))?
                .to_owned(),
            r: number("r")?,
            lora_alpha: number("lora_alpha")?,
            use_rslora: flag("use_rslora"),
            fan_in_fan_out: flag("fan_in_fan_out"),
            rank_pattern: pattern("rank_pattern")?,
            alpha_pattern: pattern("alpha_pattern")?,
        })
    }

    /// `s` for `module`: its `alpha_pattern` / `rank_pattern` entries (a key matches a module
    /// named by it or ending with `.key`), else `lora_alpha` and `r`.
    pub fn scaling(&self, module: &str) -> f64 {
        let matching = |pattern: &[(String, f64)], default: f64| {
            pattern
                .iter()
                .find(|(k, _)| module == k || module.ends_with(&format!(".{k}")))
                .map_or(default, |(_, v)| *v)
        };
        let r = matching(&self.rank_pattern, self.r);
        let alpha = matching(&self.alpha_pattern, self.lora_alpha);
        if self.use_rslora {
            alpha / r.sqrt()
        } else {
            alpha / r
        }
    }
}

/// A LoRA adapter folder and the folder of its base model.
#[derive(Debug, Clone)]
pub struct LoraAdapter {
    /// The adapter's folder.
    pub dir: PathBuf,
    /// The base model's folder.
    pub base: PathBuf,
    /// Its settings.
    pub config: LoraConfig,
}

impl LoraAdapter {
    /// The adapter in `dir`, or `None` when `dir` is a model folder (it has `config.json`) or
    /// has no `adapter_config.json`.
    ///
    /// # Errors
    /// [`PlmError::Io`] / those of [`LoraConfig::from_json_str`] for an unreadable
    /// `adapter_config.json`; [`PlmError::MissingFile`] when the adapter's weights or its base
    /// model cannot be found.
    pub fn find(dir: &Path) -> Result<Option<Self>, PlmError> {
        let path = dir.join(ADAPTER_CONFIG);
        if dir.join("config.json").is_file() || !path.is_file() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path).map_err(|source| PlmError::Io {
            path: path.clone(),
            source,
        })?;
        let config = LoraConfig::from_json_str(&text, &path)?;
        if !dir.join(ADAPTER_WEIGHTS).is_file() {
            return Err(PlmError::MissingFile {
                path: dir.join(ADAPTER_WEIGHTS),
                hint: "a LoRA adapter folder holds adapter_config.json and \
                       adapter_model.safetensors (peft's save_pretrained)"
                    .into(),
            });
        }
        let base = base_folder(dir, &config.base_model)?;
        Ok(Some(LoraAdapter {
            dir: dir.to_path_buf(),
            base,
            config,
        }))
    }

    /// Adds the adapter's updates to the base weights `map` (CPU tensors, by name).
    ///
    /// # Errors
    /// [`PlmError::Adapter`] for a key that is not a LoRA factor, a factor without its partner,
    /// a module the base model lacks, or shapes that do not agree; [`PlmError::Torch`].
    pub(crate) fn merge(&self, map: &mut HashMap<String, Tensor>) -> Result<(), PlmError> {
        let path = self.dir.join(ADAPTER_WEIGHTS);
        let bad = |reason: String| PlmError::Adapter {
            path: path.clone(),
            reason,
        };
        let factors: HashMap<String, Tensor> =
            Tensor::read_safetensors(&path)?.into_iter().collect();
        let mut modules: Vec<(&str, Factor)> = Vec::new();
        for key in factors.keys() {
            let Some((module, factor)) = Factor::parse(key) else {
                return Err(bad(format!(
                    "weight {key} is not a LoRA factor (lora_A, lora_B, lora_embedding_A, \
                     lora_embedding_B); adapters with modules_to_save or trained biases are \
                     not merged"
                )));
            };
            if matches!(factor, Factor::A | Factor::EmbeddingA) {
                modules.push((module, factor));
            }
        }
        modules.sort_by_key(|(m, _)| *m);
        let _guard = tch::no_grad_guard();
        for (module, a_factor) in modules {
            let (a_key, b_key) = a_factor.keys(module);
            let a = &factors[&a_key];
            let b = factors
                .get(&b_key)
                .ok_or_else(|| bad(format!("{a_key} has no {b_key}")))?;
            let target = format!("{module}.weight");
            let w = map.get(&target).ok_or_else(|| {
                bad(format!(
                    "the base model {} has no weight {target} for {a_key}",
                    self.base.display()
                ))
            })?;
            let delta = self.delta(module, a_factor, a, b)?;
            if delta.size() != w.size() {
                return Err(bad(format!(
                    "{module}: the update is {:?} but {target} is {:?}",
                    delta.size(),
                    w.size()
                )));
            }
            let merged = w.f_add(&delta.f_to_kind(w.kind())?)?;
            map.insert(target, merged);
        }
        Ok(())
    }

    /// `s · B A` (transposed for `fan_in_fan_out` and embeddings), in float32.
    fn delta(
        &self,
        module: &str,
        factor: Factor,
        a: &Tensor,
        b: &Tensor,
    ) -> Result<Tensor, PlmError> {
        let product = b
            .f_to_kind(Kind::Float)?
            .f_matmul(&a.f_to_kind(Kind::Float)?)?;
        let transposed = factor == Factor::EmbeddingA || self.config.fan_in_fan_out;
        let product = if transposed {
            product.f_transpose(0, 1)?
        } else {
            product
        };
        Ok(product.f_mul_scalar(self.config.scaling(module))?)
    }

    /// The files that define the adapter, for the model digest.
    pub(crate) fn files(&self) -> Vec<PathBuf> {
        [ADAPTER_CONFIG, ADAPTER_WEIGHTS, "tokenizer.json"]
            .iter()
            .map(|f| self.dir.join(f))
            .filter(|p| p.is_file())
            .collect()
    }
}

/// The four kinds of saved LoRA factor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Factor {
    /// `{module}.lora_A.weight` `[r, in]`.
    A,
    /// `{module}.lora_B.weight` `[out, r]`.
    B,
    /// `{module}.lora_embedding_A` `[r, vocab]`.
    EmbeddingA,
    /// `{module}.lora_embedding_B` `[dim, r]`.
    EmbeddingB,
}

impl Factor {
    const SUFFIXES: [(&'static str, Factor); 4] = [
        (".lora_A.weight", Factor::A),
        (".lora_B.weight", Factor::B),
        (".lora_embedding_A", Factor::EmbeddingA),
        (".lora_embedding_B", Factor::EmbeddingB),
    ];

    /// The module a saved key adapts, and which factor it is.
    fn parse(key: &str) -> Option<(&str, Factor)> {
        let rest = key.strip_prefix(KEY_PREFIX)?;
        Self::SUFFIXES
            .iter()
            .find_map(|(suffix, f)| rest.strip_suffix(suffix).map(|m| (m, *f)))
    }

    /// The saved keys of this A factor and its B partner for `module`.
    fn keys(self, module: &str) -> (String, String) {
        let (a, b) = match self {
            Factor::EmbeddingA | Factor::EmbeddingB => (".lora_embedding_A", ".lora_embedding_B"),
            Factor::A | Factor::B => (".lora_A.weight", ".lora_B.weight"),
        };
        (
            format!("{KEY_PREFIX}{module}{a}"),
            format!("{KEY_PREFIX}{module}{b}"),
        )
    }
}

/// The base model's folder: `base` as a path from the working directory, else from the adapter's
/// folder, else a Hugging Face id in the cache.
fn base_folder(adapter: &Path, base: &str) -> Result<PathBuf, PlmError> {
    let path = Path::new(base);
    if path.join("config.json").is_file() {
        return Ok(path.to_path_buf());
    }
    let beside = adapter.join(path);
    if path.is_relative() && beside.join("config.json").is_file() {
        return Ok(beside);
    }
    crate::resolve_model(base)
        .map(|r| r.dir)
        .and_then(|dir| {
            if dir.join("config.json").is_file() {
                Ok(dir)
            } else {
                Err(PlmError::MissingFile {
                    path: dir,
                    hint: String::new(),
                })
            }
        })
        .map_err(|e| PlmError::MissingFile {
            path: adapter.join(ADAPTER_CONFIG),
            hint: format!(
                "its base model {base:?} (base_model_name_or_path) is neither a model folder \
                 (from the working directory or from the adapter's folder) nor a model in the \
                 Hugging Face cache ({e}); put the base model there or edit \
                 base_model_name_or_path"
            ),
        })
}

/// Where the parts of a model argument are: a model folder, or an adapter folder over its base.
#[derive(Debug, Clone)]
pub(crate) struct ModelFolder {
    /// Holds `config.json` and the weights (the base model's for an adapter).
    pub(crate) model: PathBuf,
    /// Holds the tokenizer files (the adapter's own when it has `tokenizer.json`).
    pub(crate) tokenizer: PathBuf,
    /// The adapter merged at load.
    pub(crate) adapter: Option<LoraAdapter>,
}

impl ModelFolder {
    /// The parts of `dir` ([`LoraAdapter::find`]).
    pub(crate) fn of(dir: &Path) -> Result<Self, PlmError> {
        match LoraAdapter::find(dir)? {
            None => Ok(ModelFolder {
                model: dir.to_path_buf(),
                tokenizer: dir.to_path_buf(),
                adapter: None,
            }),
            Some(adapter) => Ok(ModelFolder {
                model: adapter.base.clone(),
                tokenizer: if dir.join("tokenizer.json").is_file() {
                    dir.to_path_buf()
                } else {
                    adapter.base.clone()
                },
                adapter: Some(adapter),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(json: &str) -> Result<LoraConfig, PlmError> {
        LoraConfig::from_json_str(json, Path::new("adapter_config.json"))
    }

    #[test]
    fn scaling_follows_rank_and_alpha_patterns_and_rslora() {
        let c = config(
            r#"{"peft_type": "LORA", "base_model_name_or_path": "b", "r": 8, "lora_alpha": 16,
            "rank_pattern": {"value": 4}, "alpha_pattern": {"layer.0.attention.self.query": 2}}"#,
        )
        .unwrap();
        assert_eq!(c.scaling("bert.encoder.layer.1.attention.self.query"), 2.0);
        assert_eq!(c.scaling("bert.encoder.layer.0.attention.self.query"), 0.25);
        assert_eq!(c.scaling("bert.encoder.layer.0.attention.self.value"), 4.0);
        // `value` does not match `xvalue`.
        assert_eq!(c.scaling("bert.xvalue"), 2.0);
        let c = config(
            r#"{"base_model_name_or_path": "b", "r": 16, "lora_alpha": 8, "use_rslora": true}"#,
        )
        .unwrap();
        assert_eq!(c.scaling("q"), 2.0);
    }

    #[test]
    fn other_adapters_are_refused_by_name() {
        for (json, word) in [
            (
                r#"{"peft_type": "IA3", "base_model_name_or_path": "b"}"#,
                "IA3",
            ),
            (
                r#"{"base_model_name_or_path": "b", "r": 8, "lora_alpha": 8, "use_dora": true}"#,
                "DoRA",
            ),
            (
                r#"{"base_model_name_or_path": "b", "lora_alpha": 8}"#,
                "`r`",
            ),
            (r#"{"r": 8, "lora_alpha": 8}"#, "base_model_name_or_path"),
        ] {
            let e = config(json).unwrap_err().to_string();
            assert!(e.contains(word), "{e}");
        }
    }

    #[test]
    fn saved_keys_name_their_module_and_factor() {
        assert_eq!(
            Factor::parse(
                "base_model.model.bert.encoder.layer.0.attention.self.query.lora_A.weight"
            ),
            Some(("bert.encoder.layer.0.attention.self.query", Factor::A))
        );
        assert_eq!(
            Factor::parse("base_model.model.model.embed_tokens.lora_embedding_B"),
            Some(("model.embed_tokens", Factor::EmbeddingB))
        );
        assert_eq!(Factor::parse("base_model.model.classifier.weight"), None);
        assert_eq!(Factor::parse("bert.lora_A.weight"), None);
    }

    /// A hand calculation: W = 0, A = [[1, 2]], B = [[1], [3]], s = 2 / 1 gives 2·B A.
    #[test]
    fn merge_adds_the_scaled_product() {
        let dir = std::env::temp_dir().join(format!("bias-plm-lora-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = Tensor::from_slice(&[1.0f32, 2.0]).view([1, 2]);
        let b = Tensor::from_slice(&[1.0f32, 3.0]).view([2, 1]);
        Tensor::write_safetensors(
            &[
                ("base_model.model.lin.lora_A.weight", a),
                ("base_model.model.lin.lora_B.weight", b),
            ],
            dir.join(ADAPTER_WEIGHTS),
        )
        .unwrap();
        let adapter = LoraAdapter {
            dir: dir.clone(),
            base: dir.clone(),
            config: config(r#"{"base_model_name_or_path": "b", "r": 1, "lora_alpha": 2}"#).unwrap(),
        };
        let mut map = HashMap::new();
        map.insert(
            "lin.weight".to_owned(),
            Tensor::zeros([2, 2], (Kind::Float, tch::Device::Cpu)),
        );
        adapter.merge(&mut map).unwrap();
        let got: Vec<f32> = map["lin.weight"].view([-1]).try_into().unwrap();
        assert_eq!(got, [2.0, 4.0, 6.0, 12.0]);
        // A base without the module is an error naming it.
        let mut other = HashMap::new();
        other.insert(
            "x.weight".to_owned(),
            Tensor::zeros([2, 2], (Kind::Float, tch::Device::Cpu)),
        );
        let e = adapter.merge(&mut other).unwrap_err().to_string();
        assert!(e.contains("lin.weight"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
