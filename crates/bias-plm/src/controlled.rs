//! What a masked LM contributes to the bias-controlled meta-evaluation of Kaneko et al. (2023,
//! §2–3): a fine-tuned copy per rate of bias ([`fine_tune_study_model`]), the template score
//! TBS and the he/she probe ([`gender_templates`], saved and reused by
//! [`cached_gender_templates`]), and the mask probabilities of Figure 3
//! ([`mask_probabilities`]). [`crate::StudiedMlm`] offers them as the capabilities
//! [`bias_core::FineTuner`] and [`bias_core::MaskFiller`]; the per-rate evaluation built on those
//! (scoring the CrowS-Pairs gender pairs, orienting them and rank-correlating every measure with
//! the rate) is the study's part, in `bias_robust::controlled`, which this crate does not
//! depend on.

use std::path::Path;

use bias_core::{BiasType, CoreError, SentencePair};
use serde::{Deserialize, Serialize};

use crate::template::{gender_probe, template_based_score, ProbeOptions, TbsOptions};
use crate::{MaskedLm, PlmError};

/// TBS per target and the he/she probe of one model, as [`cached_gender_templates`] saves them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SavedTemplates {
    /// Digest of the model that produced them ([`MaskedLm::digest`]).
    model_sha256: String,
    /// The occupations, in order.
    targets: Vec<String>,
    /// TBS per occupation.
    tbs: Vec<f64>,
    /// Mean probability of `he` in the probe's templates.
    he: f64,
    /// Mean probability of `she`.
    she: f64,
}

/// The gender pairs of a data set (kaneko2023 scores CrowS-Pairs' gender pairs only).
///
/// # Errors
/// [`CoreError::InvalidInput`] (in [`PlmError::Core`]) when there is none.
pub fn gender_pairs(pairs: Vec<SentencePair>) -> Result<Vec<SentencePair>, PlmError> {
    let gender: Vec<SentencePair> = pairs
        .into_iter()
        .filter(|p| p.bias_type == BiasType::Gender)
        .collect();
    if gender.is_empty() {
        return Err(CoreError::InvalidInput("the data set has no gender pairs".into()).into());
    }
    Ok(gender)
}

/// [`gender_templates`] of `lm`, read from `path` when it holds them for the same model (by
/// digest) and targets, else computed and saved there (JSON) so that a rerun reuses them.
///
/// # Errors
/// Those of [`gender_templates`], of [`MaskedLm::digest`] and of writing `path`.
pub fn cached_gender_templates(
    lm: &MaskedLm,
    targets: &[String],
    path: &Path,
) -> Result<bias_core::GenderTemplates, PlmError> {
    let digest = lm.digest()?.to_owned();
    if let Ok(saved) = std::fs::read_to_string(path) {
        if let Ok(saved) = serde_json::from_str::<SavedTemplates>(&saved) {
            if saved.model_sha256 == digest && saved.targets == targets {
                return Ok(bias_core::GenderTemplates {
                    tbs: saved.tbs,
                    he: saved.he,
                    she: saved.she,
                });
            }
        }
    }
    let results = gender_templates(lm, targets)?;
    let saved = SavedTemplates {
        model_sha256: digest,
        targets: targets.to_vec(),
        tbs: results.tbs.clone(),
        he: results.he,
        she: results.she,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
    }
    let json = serde_json::to_string_pretty(&saved).map_err(|source| CoreError::Json {
        source_name: path.display().to_string(),
        source,
    })?;
    std::fs::write(path, json).map_err(|e| CoreError::io(path, e))?;
    Ok(results)
}

/// Fine-tunes `base` on `sentences` as `request` says (kaneko2023 §2: one bias-controlled model
/// per rate of bias) with an [`MlmTrainer`](crate::MlmTrainer) on the base's device, no
/// intermediate checkpoints, in blocks of `request.max_length` tokens capped at the model's
/// maximum (as `run_mlm.py` caps them), and opens the result (f32) under `request.name`. A folder that
/// already holds the same run is reused without training. `on_step` hears of every optimiser
/// step (a progress display).
///
/// # Errors
/// Those of [`MlmTrainer`](crate::MlmTrainer) (no sentences, a write failure, ...) and of
/// [`MaskedLm::open`].
pub fn fine_tune_study_model(
    base: &MaskedLm,
    sentences: &[String],
    request: &bias_core::FineTuning,
    on_step: impl FnMut(&crate::StepReport) + 'static,
) -> Result<MaskedLm, PlmError> {
    use bias_core::MaskedLmTrainer;
    let device = match base.device() {
        tch::Device::Cuda(i) => crate::DeviceSpec::Cuda(i),
        _ => crate::DeviceSpec::Cpu,
    };
    // run_mlm.py caps the block length at the model's maximum the same way (a longer block would
    // index past the position table).
    use crate::model::MaskedLanguageModel;
    let model_max = base.model().config().max_tokens().max(3) as usize;
    let mut trainer = crate::MlmTrainer::new(base.dir(), &request.dir, device)
        .max_length(request.max_length.min(model_max))
        .checkpoint_every(0)
        .on_step(on_step);
    trainer.train(sentences, &request.options)?;
    Ok(MaskedLm::open(&request.dir, device, tch::Kind::Float)?.with_name(request.name.clone()))
}

/// TBS per occupation (Kurita et al. 2019; kaneko2023 Appendix A) and the mean probabilities
/// of *he* and *she* at `"[MASK] is a/an [occupation]."` (kaneko2023 §3.4, Figure 2), with the
/// default options of [`template_based_score`] and [`gender_probe`].
///
/// # Errors
/// Those of [`template_based_score`] and [`gender_probe`].
pub fn gender_templates(
    lm: &MaskedLm,
    targets: &[String],
) -> Result<bias_core::GenderTemplates, PlmError> {
    let (m, t, d) = (lm.model(), lm.tokenizer(), lm.device());
    let tbs = template_based_score(m, t, d, targets, &TbsOptions::default())?;
    let probe = gender_probe(m, t, d, targets, &ProbeOptions::default())?;
    Ok(bias_core::GenderTemplates {
        tbs: tbs.rows.iter().map(|r| r.score).collect(),
        he: probe.means[0],
        she: probe.means[1],
    })
}

/// The literal mask of a sentence given to [`mask_probabilities`].
pub const MASK_PLACEHOLDER: &str = "[MASK]";

/// The probability (softmax over the vocabulary) of each of `words` at the one
/// [`MASK_PLACEHOLDER`] of `sentence`, read by the model's own mask token (kaneko2023 Figure 3:
/// `"[MASK] doesn't have time for the family due to work obligations."`). A word at the start
/// of the sentence is read capitalised where the vocabulary has it (`He`), as the probe of
/// [`gender_probe`] reads it; each word must be one token there.
///
/// The sentence goes through [`gender_probe`] unchanged: its last word after the mask (or
/// before it) takes the probe's target slot and is filled back in, so the model reads exactly
/// `sentence`.
///
/// # Errors
/// [`CoreError::InvalidInput`] (in [`PlmError::Core`]) when `sentence` has no or more than one
/// [`MASK_PLACEHOLDER`], no other word, or a template slot (`[G]`, `[T]`, `[A]`) written out;
/// those of [`gender_probe`] (a word that is not one token, ...).
pub fn mask_probabilities(
    lm: &MaskedLm,
    sentence: &str,
    words: &[String],
) -> Result<Vec<f64>, PlmError> {
    let invalid = |why: &str| -> PlmError {
        CoreError::InvalidInput(format!(
            "mask probabilities of {sentence:?}: {why}; write the sentence with one \
             {MASK_PLACEHOLDER}, e.g. \"[MASK] doesn't have time for the family.\""
        ))
        .into()
    };
    if sentence.matches(MASK_PLACEHOLDER).count() != 1 {
        return Err(invalid("it needs exactly one [MASK]"));
    }
    if ["[G]", "[T]", "[A]"].iter().any(|s| sentence.contains(s)) {
        return Err(invalid("it contains a template slot ([G], [T] or [A])"));
    }
    let mask_at = sentence.find(MASK_PLACEHOLDER).unwrap_or(0);
    let mask_end = mask_at + MASK_PLACEHOLDER.len();
    // The last alphanumeric word outside the mask becomes the target slot.
    let mut words_at: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, c) in sentence
        .char_indices()
        .chain(std::iter::once((sentence.len(), ' ')))
    {
        let inside = (mask_at..mask_end).contains(&i);
        match (c.is_alphanumeric() && !inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words_at.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    let Some(&(ts, te)) = words_at.last() else {
        return Err(invalid("it has no word besides the mask"));
    };
    let template =
        format!("{}[T]{}", &sentence[..ts], &sentence[te..]).replacen(MASK_PLACEHOLDER, "[G]", 1);
    let options = ProbeOptions {
        words: words.to_vec(),
        template: crate::template::Template::new(&template)?,
        ..ProbeOptions::default()
    };
    let target = [sentence[ts..te].to_owned()];
    let probe = gender_probe(lm.model(), lm.tokenizer(), lm.device(), &target, &options)?;
    Ok(probe.rows[0].probabilities.clone())
}
