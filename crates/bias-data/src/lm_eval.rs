//! lm-evaluation-harness's per-sample logs (`lm_eval ... --log_samples`; Gao et al. 2023/2024)
//! of its CrowS-Pairs tasks (`crows_pairs_english`, `crows_pairs_french` and their per-bias-type
//! variants, after Nangia et al. 2020 and Névéol et al. 2022) read into a score table, so that a
//! model the harness already ran gets this project's measures, intervals, sub-sampling study and
//! report without being run again.
//!
//! Each line of a `samples_<task>_<time>.jsonl` file is one document: its `doc` (`sent_more`,
//! `sent_less`, `stereo_antistereo`, `bias_type`), the two `loglikelihood` requests the task made
//! (`arguments`: context `""`, continuation `sent_more`, then `sent_less`) and the harness's
//! answers to them (`resps`: `[[[log-likelihood, is-greedy]], [[...]]]`, numbers written as
//! strings by the harness's JSON writer). A row of the table is one document: the stereotypical
//! sentence is `sent_more` and the anti-stereotypical one `sent_less`, for both directions (the
//! harness's `pct_stereotype` counts `ll(sent_more) > ll(sent_less)`), with the direction kept;
//! the scores are the harness's log-likelihoods exactly as logged, under the scorer `ll-sum`
//! (a sentence's log-likelihood with an empty context, what `bias_plm::CausalScorer`'s `ll-sum`
//! computes). `bias_metrics::lm_eval_crows` on the table gives back the harness's
//! `pct_stereotype` and `likelihood_diff`.

use std::io::BufRead;
use std::path::Path;

use bias_core::{BiasType, Direction, ScoreRow, ScoreTable};
use serde_json::Value;

use crate::DataError;

/// The scorer name of the rows: the harness's request is a sentence log-likelihood.
pub const SCORER: &str = "ll-sum";

/// Reads an lm-evaluation-harness samples file of a CrowS-Pairs task into a score table whose
/// rows carry `dataset` and `model`. A row's pair id is the document's own id when its data set
/// has one (`id`, or the index column `Unnamed: 0` of a CSV), else the harness's `doc_id`.
///
/// # Errors
/// [`DataError::Core`] for an unreadable file; [`DataError::MalformedJson`] for a line that is
/// not JSON; [`DataError::InvalidRecord`] naming the line for a document that is not a
/// CrowS-Pairs one (no `sent_more` / `sent_less`), whose responses are not two finite
/// log-likelihoods, whose direction or bias type is unreadable, or whose id repeats; and for a
/// file with no document.
pub fn read_lm_eval_samples(
    path: &Path,
    dataset: &str,
    model: &str,
) -> Result<ScoreTable, DataError> {
    let file = std::fs::File::open(path).map_err(|source| bias_core::CoreError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut rows = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|source| bias_core::CoreError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let number = index as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        let sample: Value =
            serde_json::from_str(&line).map_err(|source| DataError::MalformedJson {
                path: path.to_path_buf(),
                line: number,
                column: source.column(),
                expected: "each line of an lm-eval samples file is one JSON object".into(),
                source,
            })?;
        let row = row_of(&sample, dataset, model).map_err(|message| DataError::InvalidRecord {
            path: path.to_path_buf(),
            location: format!("line {number}"),
            message,
        })?;
        if !seen.insert(row.pair_id.clone()) {
            return Err(DataError::InvalidRecord {
                path: path.to_path_buf(),
                location: format!("line {number}"),
                message: format!(
                    "document {} appears twice; give one task's samples file at a time",
                    row.pair_id
                ),
            });
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(DataError::InvalidRecord {
            path: path.to_path_buf(),
            location: "the file".into(),
            message: "no document: expected lm-eval's samples_<task>_<time>.jsonl of a \
                      crows_pairs task (written by `lm_eval ... --log_samples`)"
                .into(),
        });
    }
    Ok(ScoreTable::new(rows))
}

/// The score row of one logged document, or what is wrong with it.
fn row_of(sample: &Value, dataset: &str, model: &str) -> Result<ScoreRow, String> {
    let doc = sample
        .get("doc")
        .ok_or("no `doc`: not a line of an lm-eval samples file")?;
    let text = |key: &str| -> Result<String, String> {
        doc.get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                format!("the document has no `{key}`: not a CrowS-Pairs task (crows_pairs_*)")
            })
    };
    let (more, less) = (text("sent_more")?, text("sent_less")?);
    let (ll_more, ll_less) = log_likelihoods(sample)?;
    let direction: Direction = doc
        .get("stereo_antistereo")
        .and_then(Value::as_str)
        .unwrap_or("stereo")
        .parse()
        .map_err(|e| format!("`stereo_antistereo`: {e}"))?;
    let bias_type: BiasType = doc
        .get("bias_type")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .parse()
        .map_err(|e| format!("`bias_type`: {e}"))?;
    Ok(
        ScoreRow::builder(pair_id(sample, doc)?, bias_type, ll_more, ll_less)
            .dataset(dataset)
            .direction(direction)
            .sentences(more, less)
            .scorer(SCORER)
            .model(model)
            .build(),
    )
}

/// The document's own id (`id`, a CSV's `Unnamed: 0`), else the harness's `doc_id`.
fn pair_id(sample: &Value, doc: &Value) -> Result<String, String> {
    let id = ["id", "Unnamed: 0"]
        .iter()
        .find_map(|k| doc.get(*k).filter(|v| !v.is_null()))
        .or_else(|| sample.get("doc_id"))
        .ok_or("no document id (`doc.id`, `doc[\"Unnamed: 0\"]` or `doc_id`)")?;
    Ok(match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// `resps[k][0][0]` for the two requests, as numbers (the harness writes them as strings).
fn log_likelihoods(sample: &Value) -> Result<(f64, f64), String> {
    let resps = sample
        .get("resps")
        .and_then(Value::as_array)
        .filter(|r| r.len() == 2)
        .ok_or("`resps` must hold the two requests' answers (sent_more, sent_less)")?;
    let one = |k: usize| -> Result<f64, String> {
        let v = resps[k]
            .get(0)
            .and_then(|answer| answer.get(0))
            .ok_or_else(|| format!("`resps[{k}]` holds no [log-likelihood, is-greedy] answer"))?;
        let x = match v {
            Value::String(s) => s.trim().parse::<f64>().ok(),
            other => other.as_f64(),
        }
        .ok_or_else(|| format!("`resps[{k}][0][0]` = {v} is not a number"))?;
        if !x.is_finite() {
            Err(format!(
                "`resps[{k}][0][0]` = {v} is not finite: the harness's model diverged; rerun it \
                 in float32"
            ))
        } else if x > 0.0 {
            // log P ≤ 0 for any probability: a positive value is not a log-likelihood (a
            // damaged file, or another number in its place).
            Err(format!(
                "`resps[{k}][0][0]` = {v} is positive: a log-likelihood is at most 0; the file \
                 is damaged or not lm-eval's samples log"
            ))
        } else {
            Ok(x)
        }
    };
    Ok((one(0)?, one(1)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(doc_extra: &str, resps: &str) -> Value {
        serde_json::from_str(&format!(
            r#"{{"doc_id": 3, "doc": {{"sent_more": "A", "sent_less": "B",
            "stereo_antistereo": "antistereo", "bias_type": "race-color"{doc_extra}}},
            "resps": {resps}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn a_document_becomes_a_row_with_the_logged_values() {
        let row = row_of(
            &sample("", r#"[[["-12.5", "False"]], [["-14.25", "True"]]]"#),
            "crows-pairs",
            "m",
        )
        .unwrap();
        assert_eq!(row.pair_id, "3");
        assert_eq!((row.score_stereo, row.score_anti), (-12.5, -14.25));
        assert_eq!((row.stereo.as_str(), row.anti.as_str()), ("A", "B"));
        assert_eq!(row.direction, Direction::Antistereo);
        assert_eq!(row.bias_type, BiasType::RaceColor);
        assert_eq!(row.scorer, "ll-sum");
        // The data set's own id wins over the harness's index; numbers as the harness wrote them.
        let row = row_of(
            &sample(
                r#", "Unnamed: 0": 17"#,
                r#"[[[-1.0, false]], [[-2.0, false]]]"#,
            ),
            "d",
            "m",
        )
        .unwrap();
        assert_eq!(row.pair_id, "17");
    }

    #[test]
    fn broken_documents_say_what_is_wrong() {
        for (s, word) in [
            (sample("", r#"[[["-1", "False"]]]"#), "two requests"),
            (
                sample("", r#"[[["x", "False"]], [["-1", "False"]]]"#),
                "not a number",
            ),
            (
                sample("", r#"[[["NaN", "False"]], [["-1", "False"]]]"#),
                "not finite",
            ),
            (
                sample("", r#"[[["1.7e308", "False"]], [["-1", "False"]]]"#),
                "is positive",
            ),
            (
                sample("", r#"[[["-1", "False"]], [[0.25, false]]]"#),
                "is positive",
            ),
            (
                serde_json::json!({"doc": {"question": "q"}, "resps": []}),
                "not a CrowS-Pairs task",
            ),
        ] {
            let e = row_of(&s, "d", "m").unwrap_err();
            assert!(e.contains(word), "{e}");
        }
    }
}
