//! One rate of the bias-controlled meta-evaluation (kaneko2023 §3.2–3.4): what every fine-tuned
//! model is measured on. Written once, against the capabilities [`DatasetScorer`] and
//! [`MaskFiller`], for `bias controlled` and `bias reproduce kaneko2023` alike.

use std::path::Path;

use bias_core::run::RunSummary;
use bias_core::{DatasetScorer, GenderTemplates, MaskFiller, ScoreTable, SentencePair};

use super::study::{Probe, RateEvaluation};
use crate::RobustError;

/// What every rate's model is measured on.
#[derive(Debug, Clone, Copy)]
pub struct RateInputs<'a> {
    /// The data set's name in the score table and the run's fingerprint.
    pub dataset: &'static str,
    /// The pairs to score (the CrowS-Pairs gender pairs: kaneko2023 §3.2).
    pub pairs: &'a [SentencePair],
    /// The occupations that fill TBS's templates and the he/she probe (kaneko2023 §3.4,
    /// Appendix A).
    pub targets: &'a [String],
    /// The sentence with one `[MASK]` and the words whose probabilities are read there
    /// (kaneko2023 Figure 3), if measured.
    pub mask_probe: Option<(&'a str, &'a [String])>,
}

/// What one rate's model gave ([`measure_rate`]).
#[derive(Debug, Clone)]
pub struct RateMeasurement {
    /// The model's name.
    pub model: String,
    /// The pairs as scored (stereotypical against anti-stereotypical, not yet oriented by
    /// gender).
    pub scores: ScoreTable,
    /// How the resumable scoring run went.
    pub run: RunSummary,
    /// TBS per occupation and the he/she probe.
    pub templates: GenderTemplates,
    /// The probabilities of [`RateInputs::mask_probe`]'s words, in order (empty without one).
    pub mask: Vec<f64>,
}

impl RateMeasurement {
    /// This rate as an input of [`super::controlled_study`]: `pairs` (the scores, oriented or
    /// not), with TBS when `with_templates`, and the he/she probe.
    pub fn evaluation(&self, rate: f64, pairs: ScoreTable, with_templates: bool) -> RateEvaluation {
        RateEvaluation {
            rate,
            model: self.model.clone(),
            pairs,
            templates: if with_templates {
                self.templates.tbs.clone()
            } else {
                Vec::new()
            },
            probe: Some(Probe {
                he: self.templates.he,
                she: self.templates.she,
            }),
        }
    }
}

/// Measures one rate's model (kaneko2023 §3.2–3.4): scores `inputs.pairs` into the score table
/// `scores` (resumably: a rerun reuses what is there), then TBS and the he/she probe over
/// `inputs.targets`, then the mask probabilities of `inputs.mask_probe`.
///
/// # Errors
/// [`RobustError::Io`] creating the folder of `scores`; [`RobustError::Model`] with the model's
/// error; [`RobustError::Core`] reading the score table back.
pub fn measure_rate<M: DatasetScorer + MaskFiller>(
    model: &mut M,
    inputs: &RateInputs<'_>,
    scores: &Path,
) -> Result<RateMeasurement, RobustError> {
    if let Some(dir) = scores.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| RobustError::Io {
            action: "create",
            path: dir.to_owned(),
            source,
        })?;
    }
    let name = model.name().to_owned();
    let err = |e| RobustError::model(&name, inputs.dataset, e);
    let run = model
        .score_into(inputs.dataset, inputs.pairs, scores)
        .map_err(err)?;
    let table = ScoreTable::read_csv_path(scores)?;
    let templates = model.gender_templates(inputs.targets).map_err(err)?;
    let mask = match inputs.mask_probe {
        Some((sentence, words)) => model.mask_probabilities(sentence, words).map_err(err)?,
        None => Vec::new(),
    };
    Ok(RateMeasurement {
        model: name,
        scores: table,
        run,
        templates,
        mask,
    })
}
