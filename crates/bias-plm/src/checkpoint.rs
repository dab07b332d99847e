//! A checkpoint read by the same steps for masked and causal models: the folder checked, its
//! adapter found, `config.json` parsed by the family's configuration type, then the parameters
//! read (with the adapter merged), whether from a folder or from parts held in memory.

use std::path::{Path, PathBuf};

use tch::Kind;

use crate::adapter::ModelFolder;
use crate::config::read_config_json;
use crate::model::{read_weights, require_folder, TensorSource, Weights};
use crate::{CausalConfig, DeviceSpec, ModelConfig, ModelParts, PlmError};

/// A family's `config.json` type ([`ModelConfig`], [`CausalConfig`]).
pub(crate) trait ConfigFile: Sized {
    /// Parses and validates the text of a `config.json`; `path` names it in errors.
    fn parse(text: &str, path: &Path) -> Result<Self, PlmError>;
}

impl ConfigFile for ModelConfig {
    fn parse(text: &str, path: &Path) -> Result<Self, PlmError> {
        ModelConfig::from_json_str(text, path)
    }
}

impl ConfigFile for CausalConfig {
    fn parse(text: &str, path: &Path) -> Result<Self, PlmError> {
        CausalConfig::from_json_str(text, path)
    }
}

/// A checkpoint's configuration and parameters, ready for a family's loader.
pub(crate) struct Checkpoint<C> {
    /// The folder holding `config.json` and the weights (an adapter's base model), or the
    /// pseudo-path `<in-memory model of NAME>` of parts held in memory.
    pub(crate) model_dir: PathBuf,
    /// The parsed configuration.
    pub(crate) config: C,
    /// The parameters on their device in their kind, any adapter merged.
    pub(crate) weights: Weights,
}

impl<C: ConfigFile> Checkpoint<C> {
    /// Reads the model folder (or adapter folder over its base) `dir`.
    pub(crate) fn from_folder(
        dir: &Path,
        device: DeviceSpec,
        kind: Kind,
    ) -> Result<Self, PlmError> {
        require_folder(dir)?;
        let folder = ModelFolder::of(dir)?;
        let (text, path) = read_config_json(&folder.model)?;
        let config = C::parse(&text, &path)?;
        let source = TensorSource::Folder(&folder.model);
        let weights = read_weights(source, folder.adapter.as_ref(), device, kind)?;
        Ok(Checkpoint {
            model_dir: folder.model,
            config,
            weights,
        })
    }

    /// Takes the configuration from [`ModelParts::config_json`] and the parameters from
    /// [`ModelParts::tensors`].
    pub(crate) fn from_parts(
        parts: &ModelParts,
        device: DeviceSpec,
        kind: Kind,
    ) -> Result<Self, PlmError> {
        let config = C::parse(&parts.config_json, &parts.pseudo_path("config.json"))?;
        let source = TensorSource::Memory(&parts.tensors, &parts.name);
        let weights = read_weights(source, None, device, kind)?;
        Ok(Checkpoint {
            model_dir: parts.pseudo_path("model"),
            config,
            weights,
        })
    }
}
