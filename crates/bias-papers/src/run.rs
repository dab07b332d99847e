//! One entry point for a reproduction on a list of models, which every front end calls: the
//! paper's dispatch, the masked-only papers' refusal of a causal LM, the study and its index.

use std::path::PathBuf;

use bias_core::{DatasetScorer, IntoMaskedLm, MaybeTokenPredictor};

use crate::{
    Artifact, Kaneko2022Options, Kaneko2023Options, Liu2024Options, Paper, PaperError,
    Paraphrase2022Options, Reproduction, SchroederOptions, Study,
};

/// Where a reproduction reads its data and keeps its score tables and its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    /// The data sets, laid out as [`bias_data::layout`] says.
    pub data_dir: PathBuf,
    /// The score tables (shared by the reproductions of several papers written side by side).
    pub scores_dir: PathBuf,
    /// The reproduction's own folder: one file per table and figure, and the index.
    pub out: PathBuf,
}

impl Places {
    /// `out` with the score tables beside it, in `<out>/../scores` (`scores` when `out` has
    /// no parent), where the reproductions of several papers into one folder share them.
    pub fn beside(data_dir: impl Into<PathBuf>, out: impl Into<PathBuf>) -> Self {
        let out = out.into();
        let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
        let scores_dir = parent.map_or_else(|| PathBuf::from("scores"), |p| p.join("scores"));
        Places {
            data_dir: data_dir.into(),
            scores_dir,
            out,
        }
    }
}

/// The options of every paper; a reproduction reads its own paper's.
#[derive(Debug, Clone, Default)]
pub struct PaperOptions {
    /// Only the first N pairs of each data set (a quick check: the numbers are not the paper's).
    pub max_pairs: Option<usize>,
    /// Kaneko & Bollegala (2022).
    pub kaneko2022: Kaneko2022Options,
    /// Liu et al. (2024).
    pub liu2024: Liu2024Options,
    /// Kwon & Mihindukulasooriya (2022).
    pub paraphrase: Paraphrase2022Options,
    /// Kaneko, Bollegala & Okazaki (2023).
    pub kaneko2023: Kaneko2023Options,
    /// Schröder, Schulz & Hammer (2024).
    pub schroeder2024: SchroederOptions,
}

/// What a reproduction wrote.
#[derive(Debug, Clone)]
pub struct Reproduced {
    /// Every table and figure of the paper, with its status and files.
    pub artifacts: Vec<Artifact>,
    /// The number of models studied.
    pub models: usize,
}

/// Every table and figure of `paper` on `models`, written under `places.out` with its index
/// (`index.md`, `index.json`, `index.html`). kaneko2023 and schroeder2024 take masked LMs only
/// ([`IntoMaskedLm`]); the other papers take any [`DatasetScorer`], and kaneko2022's token
/// tables leave out the models that predict no tokens, with a note.
///
/// # Errors
/// [`PaperError::MaskedOnly`] naming the first causal LM of a list for kaneko2023 or
/// schroeder2024; otherwise the first error of a data set, a model or a file. The index lists
/// what was written even when a later table failed.
pub fn reproduce_paper<M: IntoMaskedLm>(
    paper: Paper,
    models: Vec<M>,
    places: &Places,
    options: &PaperOptions,
) -> Result<Reproduced, PaperError> {
    let mut out = Reproduction::create(paper, &places.out)?;
    let (result, n) = match paper {
        Paper::Kaneko2023 | Paper::Schroeder2024 => {
            let mut study = study(places, options, masked_only(paper, models)?)?;
            let result = match paper {
                Paper::Kaneko2023 => {
                    crate::reproduce_kaneko2023(&mut study, &mut out, &options.kaneko2023)
                }
                _ => crate::reproduce_schroeder2024_with(
                    &mut study,
                    &mut out,
                    &options.schroeder2024,
                ),
            };
            (result, study.len())
        }
        Paper::Kaneko2022 | Paper::Liu2024 | Paper::Paraphrase => {
            let mut study = study(places, options, models)?;
            let result = match paper {
                Paper::Liu2024 => crate::reproduce_liu2024(&mut study, &mut out, &options.liu2024),
                Paper::Paraphrase => {
                    crate::reproduce_paraphrase(&mut study, &mut out, &options.paraphrase)
                }
                _ => crate::reproduce_kaneko2022(&mut study, &mut out, options.kaneko2022),
            };
            (result, study.len())
        }
    };
    let artifacts = out.finish()?;
    result?;
    Ok(Reproduced {
        artifacts,
        models: n,
    })
}

fn study<M: DatasetScorer + MaybeTokenPredictor>(
    places: &Places,
    options: &PaperOptions,
    models: Vec<M>,
) -> Result<Study<M>, PaperError> {
    Ok(Study::new(models, &places.data_dir, &places.scores_dir)?.with_max_pairs(options.max_pairs))
}

/// The masked LMs of `models`, or an error naming the first that is not one.
fn masked_only<M: IntoMaskedLm>(
    paper: Paper,
    models: Vec<M>,
) -> Result<Vec<M::Masked>, PaperError> {
    models
        .into_iter()
        .map(|m| {
            m.into_masked().map_err(|other| PaperError::MaskedOnly {
                paper,
                model: other.name().to_owned(),
            })
        })
        .collect()
}
