//! StereoSet's own SS, LMS and ICAT in `bias evaluate` (Nadeem et al. 2021): the comparisons
//! with the unrelated sentence scored as their own pairs, then `bias_robust::stereoset_by_scorer`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bias_core::ScoreTable;
use bias_robust::{stereoset_by_scorer, ScorerStereoSet};

use super::EvaluateArgs;
use crate::commands::score::ScoreRun;
use crate::error::CliError;
use crate::output::{fixed, Grid};

/// The score table of StereoSet's comparisons with the unrelated sentence, next to `out`:
/// `stereoset.csv` → `stereoset.unrelated.csv`.
pub fn stereoset_out(out: &Path) -> PathBuf {
    out.with_extension("unrelated.csv")
}

/// Scores StereoSet's comparisons with the unrelated sentence (resumable) and computes SS, LMS
/// and ICAT per scorer.
pub(super) fn stereoset_scores(
    args: &EvaluateArgs,
    lm: &bias_plm::LanguageModel,
) -> Result<BTreeMap<String, ScorerStereoSet>, CliError> {
    let m = &args.score.model;
    let data = bias_data::layout::resolve_dataset(&m.dataset, &m.data_dir);
    let mut pairs = bias_data::stereoset::unrelated_pairs(&data)?;
    let mut triples = bias_data::stereoset::read_stereoset_triples(
        &data,
        bias_data::stereoset::Section::Intrasentence,
    )?;
    if let Some(n) = m.limit {
        pairs.truncate(2 * n);
        triples.truncate(n);
    }
    let unrelated_out = stereoset_out(&args.score.out);
    let run = ScoreRun {
        origins: &[],
        scorers: &crate::model_args::scorer_names(&args.score.scorers, lm),
        options: m.options(),
        dataset: "stereoset-unrelated",
        chunk: args.score.chunk,
        shard: None,
    };
    run.write(lm, &pairs, &unrelated_out)?;
    let table = ScoreTable::read_csv_path(&args.score.out)?;
    let unrelated = ScoreTable::read_csv_path(&unrelated_out)?;
    Ok(stereoset_by_scorer(&triples, &table, &unrelated))
}

/// SS, LMS and ICAT per scorer, overall and per domain.
pub fn stereoset_grid(by_scorer: &BTreeMap<String, ScorerStereoSet>) -> Grid {
    let mut g = Grid::new([
        "scorer", "domain", "items", "targets", "ss", "lms", "icat", "excluded",
    ]);
    for (scorer, s) in by_scorer {
        let rows = std::iter::once(("overall", &s.scores.overall))
            .chain(s.scores.by_domain.iter().map(|(d, v)| (d.as_str(), v)));
        for (domain, v) in rows {
            g.push(vec![
                scorer.clone(),
                domain.to_owned(),
                v.n_items.to_string(),
                v.n_targets.to_string(),
                fixed(v.ss, 2),
                fixed(v.lms, 2),
                fixed(v.icat, 2),
                if domain == "overall" {
                    s.excluded.len().to_string()
                } else {
                    String::new()
                },
            ]);
        }
    }
    g
}
