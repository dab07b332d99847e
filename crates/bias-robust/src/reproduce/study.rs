//! The models under study and their score tables: each (model, data set) is scored once into
//! `<scores>/<model>/<data set>.csv` (resumable) and reused by every table that needs it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bias_core::{ScoreTable, SentencePair, StudyModel};
use bias_data::stereoset::Section;

use crate::report::file_part;
use crate::RobustError;

/// A data set a reproduction scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DataSet {
    /// CrowS-Pairs (Nangia et al. 2020), every pair.
    CrowsPairs,
    /// StereoSet intrasentence dev (Nadeem et al. 2021): (stereotype, anti-stereotype) pairs.
    StereoSet,
    /// StereoSet intrasentence dev, each item's two comparisons with its unrelated sentence:
    /// pairs `<id>/stereo-unrelated` (stereotype, unrelated) and `<id>/anti-unrelated`
    /// (anti-stereotype, unrelated), for StereoSet's LMS.
    StereoSetUnrelated,
    /// The first 100 CrowS-Pairs pairs and their hand-written paraphrases, shipped with this
    /// crate ([`crate::paraphrase::crows_pairs_first100`]; the paraphrase-robustness study).
    Paraphrases,
}

impl DataSet {
    /// The name written to score tables and file names.
    pub fn name(self) -> &'static str {
        match self {
            DataSet::CrowsPairs => "crows-pairs",
            DataSet::StereoSet => "stereoset",
            DataSet::StereoSetUnrelated => "stereoset-unrelated",
            DataSet::Paraphrases => crate::paraphrase::CROWS_PAIRS_FIRST100_NAME,
        }
    }
}

/// The pairs of StereoSet's comparisons with the unrelated sentence (see
/// [`DataSet::StereoSetUnrelated`]), two per item, in item order.
///
/// # Errors
/// [`RobustError::Data`] if the file cannot be read or an item lacks a sentence.
pub fn stereoset_unrelated_pairs(path: &Path) -> Result<Vec<SentencePair>, RobustError> {
    let set = bias_data::stereoset::read_stereoset_path(path)?;
    let source = path.display().to_string();
    let mut pairs = Vec::new();
    for item in set.items(Section::Intrasentence) {
        let base = item.sentence_pair(&source)?;
        let t = item.triple(&source)?;
        for (suffix, sentence) in [("stereo-unrelated", &t.stereo), ("anti-unrelated", &t.anti)] {
            pairs.push(SentencePair {
                id: format!("{}/{suffix}", t.id),
                stereo: sentence.clone(),
                anti: t.unrelated.clone(),
                ..base.clone()
            });
        }
    }
    Ok(pairs)
}

/// The models of a reproduction, where the data sets are, and the score tables computed so far.
pub struct Study<'m> {
    models: Vec<Box<dyn StudyModel + 'm>>,
    data_dir: PathBuf,
    scores_dir: PathBuf,
    max_pairs: Option<usize>,
    pairs: BTreeMap<DataSet, Vec<SentencePair>>,
    tables: BTreeMap<(usize, DataSet), ScoreTable>,
}

impl std::fmt::Debug for Study<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Study")
            .field("models", &self.model_names())
            .field("data_dir", &self.data_dir)
            .field("scores_dir", &self.scores_dir)
            .field("max_pairs", &self.max_pairs)
            .finish_non_exhaustive()
    }
}

impl<'m> Study<'m> {
    /// A study of `models` on the data under `data_dir` (laid out as
    /// [`bias_data::layout`] says), keeping score tables under `scores_dir`.
    ///
    /// # Errors
    /// [`RobustError::InvalidConfig`] if two models share a name (their score tables would
    /// collide: give the folders different names).
    pub fn new(
        models: Vec<Box<dyn StudyModel + 'm>>,
        data_dir: impl Into<PathBuf>,
        scores_dir: impl Into<PathBuf>,
    ) -> Result<Self, RobustError> {
        let mut seen = std::collections::BTreeSet::new();
        for m in &models {
            if !seen.insert(file_part(m.name())) {
                return Err(RobustError::InvalidConfig(format!(
                    "two models are named {:?}: their score tables would share a file; \
                     give the model folders different names",
                    m.name()
                )));
            }
        }
        Ok(Study {
            models,
            data_dir: data_dir.into(),
            scores_dir: scores_dir.into(),
            max_pairs: None,
            pairs: BTreeMap::new(),
            tables: BTreeMap::new(),
        })
    }

    /// Studies only the first `n` pairs of each data set (a quick check; the numbers are not the
    /// paper's).
    pub fn with_max_pairs(mut self, n: Option<usize>) -> Self {
        self.max_pairs = n;
        self
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The limit on pairs per data set, if any.
    pub fn max_pairs(&self) -> Option<usize> {
        self.max_pairs
    }

    /// The models' names, in order.
    pub fn model_names(&self) -> Vec<String> {
        self.models.iter().map(|m| m.name().to_owned()).collect()
    }

    /// The scorer conventions of model `i` (SSS's average, CPS's rounding), `None` for a model
    /// without those scorers ([`StudyModel::conventions`]).
    pub fn conventions(&self, i: usize) -> Option<bias_core::ScoringConventions> {
        self.models[i].conventions()
    }

    /// A note for a table that shows SSS or CPS bias scores: which conventions each model was
    /// scored with (grouped when models share them); `None` when no model has those scorers.
    pub fn conventions_note(&self) -> Option<String> {
        let mut groups: Vec<(bias_core::ScoringConventions, Vec<String>)> = Vec::new();
        for (i, name) in self.model_names().into_iter().enumerate() {
            let Some(c) = self.conventions(i) else {
                continue;
            };
            match groups.iter_mut().find(|(g, _)| *g == c) {
                Some((_, names)) => names.push(name),
                None => groups.push((c, vec![name])),
            }
        }
        (!groups.is_empty()).then(|| {
            let parts: Vec<String> = groups
                .iter()
                .map(|(c, names)| format!("{}: {}", names.join(", "), c.describe()))
                .collect();
            format!("Scored with (--sss, --cps-round): {}.", parts.join("; "))
        })
    }

    /// How many models.
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Whether there is no model.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// Model `i`, for what a table needs beyond score tables.
    pub fn model_mut(&mut self, i: usize) -> &mut (dyn StudyModel + 'm) {
        &mut *self.models[i]
    }

    /// The pairs of `set` (read once; the first [`Study::with_max_pairs`] of them).
    ///
    /// # Errors
    /// [`RobustError::Data`] if the file cannot be read.
    pub fn pairs(&mut self, set: DataSet) -> Result<&[SentencePair], RobustError> {
        if !self.pairs.contains_key(&set) {
            let mut pairs = match set {
                DataSet::CrowsPairs => {
                    bias_data::load_pairs(bias_data::layout::crows_pairs(&self.data_dir))?.pairs
                }
                DataSet::StereoSet => {
                    bias_data::load_pairs(bias_data::layout::stereoset_dev(&self.data_dir))?.pairs
                }
                DataSet::StereoSetUnrelated => {
                    stereoset_unrelated_pairs(&bias_data::layout::stereoset_dev(&self.data_dir))?
                }
                DataSet::Paraphrases => crate::paraphrase::crows_pairs_first100(),
            };
            if let Some(n) = self.max_pairs {
                // Two comparisons per StereoSet item: keep the items of the first n.
                let keep = match set {
                    DataSet::StereoSetUnrelated => 2 * n,
                    // Whole groups of an original and its paraphrases.
                    DataSet::Paraphrases => crate::paraphrase::whole_groups_within(&pairs, n),
                    _ => n,
                };
                pairs.truncate(keep);
            }
            self.pairs.insert(set, pairs);
        }
        Ok(&self.pairs[&set])
    }

    /// Where the score table of model `i` on `set` is kept: `<scores>/<model>/<set>.csv`, or
    /// `<set>.first<N>.csv` with [`Study::with_max_pairs`] (so that a quick run never meets a
    /// full one's file).
    /// A model scoring with other conventions than the paper's definitions
    /// ([`bias_core::ScoringConventions::file_tag`]) keeps its table apart:
    /// `<set>.sss-matrix.cps-round3.csv`.
    pub fn score_path(&self, i: usize, set: DataSet) -> PathBuf {
        let mut stem = set.name().to_owned();
        if let Some(tag) = self.conventions(i).and_then(|c| c.file_tag()) {
            stem = format!("{stem}.{tag}");
        }
        let file = match self.max_pairs {
            Some(n) => format!("{stem}.first{n}.csv"),
            None => format!("{stem}.csv"),
        };
        self.scores_dir
            .join(file_part(self.models[i].name()))
            .join(file)
    }

    /// The score table of model `i` on `set` under every scorer the model has: scored into
    /// `<scores>/<model>/<set>.csv` the first time (resuming a run left there), then reused.
    ///
    /// # Errors
    /// [`RobustError::Data`] for the data set; [`RobustError::Model`] with the model's error.
    pub fn scores(&mut self, i: usize, set: DataSet) -> Result<&ScoreTable, RobustError> {
        if !self.tables.contains_key(&(i, set)) {
            self.pairs(set)?;
            let name = self.models[i].name().to_owned();
            let out = self.score_path(i, set);
            let dir = out
                .parent()
                .expect("a file under the scores folder")
                .to_owned();
            std::fs::create_dir_all(&dir).map_err(|source| RobustError::Io {
                action: "create",
                path: dir.clone(),
                source,
            })?;
            let pairs = &self.pairs[&set];
            self.models[i]
                .score_into(set.name(), pairs, &out)
                .map_err(|source| RobustError::Model {
                    model: name.clone(),
                    dataset: set.name(),
                    source,
                })?;
            let table = ScoreTable::read_csv_path(&out)?;
            self.tables.insert((i, set), table);
        }
        Ok(&self.tables[&(i, set)])
    }

    /// The tally of model `i`'s run on `set` (pairs skipped as identical, pairs a scorer could
    /// not score, token-prediction counts: [`bias_core::run::Tally`]), read from the run's
    /// progress file; scores first if needed.
    ///
    /// # Errors
    /// As [`Study::scores`]; [`RobustError::InvalidConfig`] if the progress file is missing.
    pub fn tally(&mut self, i: usize, set: DataSet) -> Result<bias_core::run::Tally, RobustError> {
        self.scores(i, set)?;
        let out = self.score_path(i, set);
        let progress = bias_core::run::read_progress(&out)?.ok_or_else(|| {
            RobustError::InvalidConfig(format!(
                "{} has no progress file: delete it and run again",
                out.display()
            ))
        })?;
        Ok(progress.tally)
    }
}
