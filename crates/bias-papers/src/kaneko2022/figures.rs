//! kaneko2022's Figure 1 (agreement with the human annotations) and the equal-subtokens check.

use super::*;
use crate::PaperError;

/// Figure 1: ROC of each scorer's score difference against the human "biased" label, per model
/// (`figure-1` for the first model, `figure-1-<model>` for the others), and their AUCs.
pub(super) fn figure_1<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
    options: Kaneko2022Options,
) -> Result<(), PaperError> {
    let path = bias_data::layout::crows_pairs(study.data_dir());
    let records = bias_data::crows_pairs::read_crows_pairs_path(&path)?;
    let mut aucs = Table::new(&["MLM", "scorer", "pairs", "biased", "not biased", "AUC"]);
    let title = "ROC curves and AUC of AUL, AULA, CPS and SSS against the CrowS-Pairs human \
                 annotations";
    let mut drawn = 0;
    for i in 0..study.len() {
        let name = study.model_names()[i].clone();
        let table = study.scores(i, DataSet::CrowsPairs)?.clone();
        let mut curves = Vec::new();
        for (scorer, label) in [
            (Scorer::Aul.name(), "AUL"),
            (Scorer::Aula.name(), "AULA"),
            (Scorer::Cps.name(), "CPS"),
            (Scorer::Sss.name(), "SSS"),
        ] {
            let Some(sl) = slice(&table, scorer) else {
                continue;
            };
            let kept = records_scored_in(&records, &sl);
            match human_agreement_by(&kept, &sl, DEFAULT_MIN_MATCHING, options.label_rule) {
                Ok(h) => {
                    aucs.row(vec![
                        Cell::Text(name.clone()),
                        Cell::Text(label.into()),
                        h.n.into(),
                        h.biased.into(),
                        h.not_biased.into(),
                        Cell::num(h.auc, 4),
                    ]);
                    curves.push((format!("{label} ({name})"), h));
                }
                // Every pair with one label (a short --max-pairs run): no curve.
                Err(RobustError::Metrics(e)) => {
                    aucs.note(format!("{name} {label}: no ROC curve ({e})."));
                }
                Err(e) => return Err(e.into()),
            }
        }
        if curves.is_empty() {
            continue;
        }
        let id = if drawn == 0 {
            "figure-1".to_owned()
        } else {
            format!("figure-1-{}", file_part(&name))
        };
        let refs: Vec<(&str, &bias_metrics::stats::RocCurve, f64)> = curves
            .iter()
            .map(|(l, h)| (l.as_str(), &h.roc, h.auc))
            .collect();
        bias_report::figures::roc_curves(&refs, out.figure_stem(&id))?;
        out.figure(&id, &format!("{title} ({name})"), Status::Reproduced);
        drawn += 1;
    }
    aucs.note(format!(
        "A pair is biased when at least {DEFAULT_MIN_MATCHING} of its five validators' \
         annotations {} (label rule `{}`); the score of a pair is f(sent_more) − f(sent_less). \
         Pairs a scorer left out of its table are not in its curve.",
        match options.label_rule {
            LabelRule::MatchingBiasType => "name its bias type, as the paper counts them",
            LabelRule::AnyAnnotation => {
                "are non-empty, as the initial commit of the authors' preprocess.py (6a7ab8c, \
                 removed in 8defce5) counted them"
            }
        },
        options.label_rule.name()
    ));
    if let Some(n) = study.conventions_note() {
        aucs.note(n);
    }
    if drawn == 0 {
        out.out_of_reach(
            "figure-1",
            title,
            "no model has a masked-LM scorer with both human labels among its scored pairs",
        );
    }
    out.table(
        "figure-1-auc",
        "The AUCs of Figure 1, every model",
        Status::Reproduced,
        &aucs,
    )
}

/// The count of StereoSet items whose candidates have the same number of subtokens: the two
/// sentences differ only in the candidate, so the items whose AUL rows score as many tokens in
/// both sentences (plus the items skipped because both sentences tokenise identically).
pub(super) fn equal_subtokens<M: DatasetScorer + MaybeTokenPredictor>(
    study: &mut Study<M>,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let mut t = Table::new(&["MLM", "items", "equal subtokens", "different"]);
    let items = study.pairs(DataSet::StereoSet)?.len();
    for i in 0..study.len() {
        let name = study.model_names()[i].clone();
        let table = study.scores(i, DataSet::StereoSet)?.clone();
        let tally = study.tally(i, DataSet::StereoSet)?;
        let rows = table.for_scorer(Scorer::Aul.name());
        let counted: Option<Vec<bool>> = rows
            .rows()
            .iter()
            .map(|r| Some(r.tokens_stereo? == r.tokens_anti?))
            .collect();
        match counted {
            Some(c) if !rows.is_empty() => {
                let equal = c.iter().filter(|&&e| e).count() + tally.skipped_identical.len();
                t.row(vec![
                    Cell::Text(name),
                    items.into(),
                    equal.into(),
                    (items - equal).into(),
                ]);
            }
            _ => {
                t.row(vec![
                    Cell::Text(name),
                    items.into(),
                    Cell::Missing,
                    Cell::Missing,
                ]);
                t.note("`–`: the model has no AUL rows with token counts (not a masked LM).");
            }
        }
    }
    for (m, equal) in published::EQUAL_SUBTOKENS.iter().enumerate() {
        t.row(vec![
            Cell::Text(published::row_label(published::MODELS[m])),
            published::STEREOSET_ITEMS.into(),
            (*equal).into(),
            (published::STEREOSET_ITEMS - equal).into(),
        ]);
    }
    t.note(
        "An item's two candidates have the same number of subtokens exactly when its \
         stereotype and anti-stereotype sentences do (the context is shared): counted from the \
         AUL rows' token counts, plus the items whose sentences tokenise identically.",
    );
    out.table(
        "analysis-equal-subtokens",
        "StereoSet intrasentence items whose two candidates have the same number of subtokens \
         (section \"Token Prediction Accuracy\")",
        Status::Reproduced,
        &t,
    )
}
