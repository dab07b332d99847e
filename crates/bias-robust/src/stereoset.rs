//! StereoSet's own SS, LMS and ICAT (Nadeem et al. 2021) from score tables, for any scorer.
//!
//! Each of an item's three comparisons is read from the score table of its own pair: the
//! (stereotype, anti-stereotype) pair of the usual StereoSet table and the
//! `<id>/stereo-unrelated` and `<id>/anti-unrelated` pairs of
//! `bias_data::stereoset::unrelated_pairs`. For a
//! scorer whose sentence score does not depend on the other sentence (AUL, AULA, all-masked, a
//! causal LM's log-likelihood) this is StereoSet's comparison of three sentence scores; for CPS
//! and SSS, which score what two sentences share or do not, each comparison is that scorer's
//! verdict on that pair. The aggregation is [`bias_metrics::stereoset_scores_of`].

use std::collections::{BTreeMap, HashMap};

use bias_core::{ScoreRow, ScoreTable};
use bias_data::stereoset::StereoSetTriple;
use bias_metrics::{stereoset_scores_of, ItemOutcome, StereoSetScores};
use serde::Serialize;

/// StereoSet's scores of one scorer, and the items it left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScorerStereoSet {
    /// SS, LMS and ICAT overall and per domain.
    #[serde(flatten)]
    pub scores: StereoSetScores,
    /// Items left out because one of their three pairs has no row under this scorer (skipped
    /// because both sentences tokenise identically, or not scorable by this scorer).
    pub excluded: Vec<String>,
}

/// SS, LMS and ICAT per scorer of `pairs` (the (stereotype, anti-stereotype) score table) and
/// `unrelated` (the score table of the comparisons with the unrelated sentence), over the items
/// `triples`.
///
/// An item is counted under a scorer only when all three of its pairs have a row under that
/// scorer; the others are listed in [`ScorerStereoSet::excluded`] (never dropped silently).
///
/// ```
/// use bias_core::{BiasType, Direction, ScoreRow, ScoreTable};
/// use bias_data::stereoset::StereoSetTriple;
/// use bias_robust::stereoset_by_scorer;
///
/// let row = |id: &str, s: f64, a: f64| ScoreRow {
///     pair_id: id.into(), dataset: "stereoset".into(), bias_type: BiasType::Gender,
///     direction: Direction::Stereo, stereo: "x".into(), anti: "y".into(),
///     score_stereo: s, score_anti: a, scorer: "aul".into(), model: "m".into(),
///     tokens_stereo: None, tokens_anti: None, group_id: None,
/// };
/// let triple = StereoSetTriple {
///     id: "i1".into(), target: "mother".into(), domain: "gender".into(),
///     stereo: "x".into(), anti: "y".into(), unrelated: "z".into(),
/// };
/// let pairs = ScoreTable::new(vec![row("i1", -1.0, -2.0)]);
/// let unrelated = ScoreTable::new(vec![
///     row("i1/stereo-unrelated", -1.0, -3.0),
///     row("i1/anti-unrelated", -2.0, -1.5),
/// ]);
/// let by = stereoset_by_scorer(&[triple], &pairs, &unrelated);
/// assert_eq!(by["aul"].scores.overall.ss, 100.0);
/// assert_eq!(by["aul"].scores.overall.lms, 50.0);
/// ```
pub fn stereoset_by_scorer(
    triples: &[StereoSetTriple],
    pairs: &ScoreTable,
    unrelated: &ScoreTable,
) -> BTreeMap<String, ScorerStereoSet> {
    let index = |t: &'_ ScoreTable| -> HashMap<(String, String), f64> {
        t.rows()
            .iter()
            .map(|r: &ScoreRow| {
                (
                    (r.scorer.to_string(), r.pair_id.clone()),
                    r.score_stereo - r.score_anti,
                )
            })
            .collect()
    };
    let (pair_diff, unrelated_diff) = (index(pairs), index(unrelated));
    let mut out = BTreeMap::new();
    for scorer in pairs.scorers() {
        let key = |id: String| (scorer.to_owned(), id);
        let mut outcomes = Vec::new();
        let mut excluded = Vec::new();
        for t in triples {
            let found = (
                pair_diff.get(&key(t.id.clone())),
                unrelated_diff.get(&key(format!("{}/stereo-unrelated", t.id))),
                unrelated_diff.get(&key(format!("{}/anti-unrelated", t.id))),
            );
            match found {
                (Some(sa), Some(su), Some(au)) => outcomes.push(ItemOutcome {
                    target: t.target.clone(),
                    domain: t.domain.clone(),
                    stereo_over_anti: *sa > 0.0,
                    stereo_over_unrelated: *su > 0.0,
                    anti_over_unrelated: *au > 0.0,
                }),
                _ => excluded.push(t.id.clone()),
            }
        }
        out.insert(
            scorer.to_owned(),
            ScorerStereoSet {
                scores: stereoset_scores_of(&outcomes),
                excluded,
            },
        );
    }
    out
}
