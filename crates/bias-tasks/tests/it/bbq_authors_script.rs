//! The BBQ authors' bias-score script (`analysis_scripts/BBQ_calculate_bias_score.R`, nyu-mll/BBQ
//! at bea11bd), run in R, as the reference for `authors_bbq(.., AuthorsDefinition::Script)`.
//!
//! `fixtures/authors/bbq/` (see its README.md) holds what the script computed for two models:
//! `predictions.json`, each example's answer index (`pred_label`) as the script derives it, and
//! `bias_scores.csv`, its table (`dat_acc` joined with `dat_bias`) at full precision. Here the
//! same answers, on this project's copy of the data (`data/bbq`, byte-identical to bea11bd's but
//! for CRLF line ends), go through `BbqDoc::answer` and `authors_bbq`; every row must match:
//! the same (category, condition) rows, n, accuracy and `acc_bias` to 1e-9, and no bias score
//! exactly where the script has no `dat_bias` row.
//!
//! - `deberta_large`: synthetic scores in df_bbq.csv's `deberta-v3-large-race` slot (the
//!   authors' df_bbq.csv is not in the mirror), every example of the eleven categories: names
//!   apart, the 64 examples with two metadata rows, the 16 without a `target_loc`.
//! - `format_race`: UnifiedQA 11B's own predictions (RACE format), in the six categories whose
//!   preds file the mirror has.
//!
//! Not shipped with the package (reads `data/` and `fixtures/`).

use std::collections::BTreeMap;

use bias_data::bbq::{read_bbq_dir, BbqCategory, BbqExample};
use bias_metrics::bbq::{authors_bbq, AuthorsBbqRow, AuthorsDefinition, BbqAnswer, Condition};
use bias_tasks::bbq::BbqDoc;

use bias_testkit::root;

fn fixture(name: &str) -> String {
    let path = root().join("fixtures/authors/bbq").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One row of the script's table.
#[derive(Debug)]
struct ScriptRow {
    n: usize,
    accuracy: f64,
    /// neg_Target + neg_Non-target + nonneg_Target + nonneg_Non-target; `None` without a
    /// `dat_bias` row.
    non_unknown: Option<usize>,
    acc_bias: Option<f64>,
}

/// `bias_scores.csv` by model, then by (category, condition).
fn script_table() -> BTreeMap<String, BTreeMap<(String, Condition), ScriptRow>> {
    let text = fixture("bias_scores.csv");
    let mut lines = text.lines();
    let header: Vec<String> = split(lines.next().unwrap());
    assert_eq!(
        header,
        [
            "model",
            "category",
            "context_condition",
            "n",
            "accuracy",
            "neg_Target",
            "neg_Non-target",
            "nonneg_Target",
            "nonneg_Non-target",
            "new_bias_score",
            "acc_bias",
        ]
    );
    let mut table: BTreeMap<String, BTreeMap<_, _>> = BTreeMap::new();
    for line in lines {
        let f = split(line);
        let opt = |s: &str| (s != "NA").then(|| s.parse::<f64>().unwrap());
        let counts: Option<Vec<usize>> = f[5..9]
            .iter()
            .map(|s| (s != "NA").then(|| s.parse().unwrap()))
            .collect();
        let condition = match f[2].as_str() {
            "ambig" => Condition::Ambiguous,
            "disambig" => Condition::Disambiguated,
            other => panic!("context_condition {other}"),
        };
        let row = ScriptRow {
            n: f[3].parse().unwrap(),
            accuracy: f[4].parse().unwrap(),
            non_unknown: counts.map(|c| c.iter().sum()),
            acc_bias: opt(&f[10]),
        };
        let previous = table
            .entry(f[0].clone())
            .or_default()
            .insert((f[1].clone(), condition), row);
        assert!(previous.is_none(), "{line}");
    }
    table
}

/// A CSV line of R's `write.csv`: fields without commas, strings quoted.
fn split(line: &str) -> Vec<String> {
    line.split(',')
        .map(|f| f.trim_matches('"').to_owned())
        .collect()
}

/// Each model's answers: the script's `pred_label` of each example mapped to the doc's choice.
fn answers_by_model(examples: &[BbqExample]) -> BTreeMap<String, Vec<BbqAnswer>> {
    let by_key: BTreeMap<(&str, u64), &BbqExample> = examples
        .iter()
        .map(|e| ((e.category.name(), e.example_id), e))
        .collect();
    let predictions: BTreeMap<String, BTreeMap<String, String>> =
        serde_json::from_str(&fixture("predictions.json")).unwrap();
    predictions
        .into_iter()
        .map(|(model, by_category)| {
            let mut answers = Vec::new();
            for (category, labels) in &by_category {
                let count = examples
                    .iter()
                    .filter(|e| e.category.name() == category)
                    .count();
                assert_eq!(labels.len(), count, "{model} {category}");
                for (id, label) in labels.chars().enumerate() {
                    let Some(index) = label.to_digit(10) else {
                        assert_eq!(label, '-');
                        continue;
                    };
                    let e = by_key[&(category.as_str(), id as u64)];
                    let doc = BbqDoc::new(e).unwrap();
                    // The choice (of lm-eval's twelve) that is answer `index`: 2 stands for the
                    // example's unknown answer.
                    let choice = (0..3)
                        .find(|&c| doc.answer_index(c) == index as usize)
                        .unwrap();
                    answers.push(doc.answer(choice));
                }
            }
            (model, answers)
        })
        .collect()
}

/// The largest difference between our rows and the script's, or the first mismatch.
fn compare(
    ours: &[AuthorsBbqRow],
    script: &BTreeMap<(String, Condition), ScriptRow>,
) -> Result<f64, String> {
    let keys: Vec<_> = ours
        .iter()
        .map(|r| (r.category.clone(), r.condition))
        .collect();
    if keys != script.keys().cloned().collect::<Vec<_>>() {
        return Err(format!("rows {keys:?} vs the script's {:?}", script.keys()));
    }
    let mut largest = 0.0_f64;
    for r in ours {
        let s = &script[&(r.category.clone(), r.condition)];
        let what = format!("{} {:?}", r.category, r.condition);
        if r.n != s.n {
            return Err(format!("{what}: n {} vs {}", r.n, s.n));
        }
        if s.non_unknown.is_some_and(|k| k != r.non_unknown) {
            return Err(format!(
                "{what}: {} non-unknown vs {:?}",
                r.non_unknown, s.non_unknown
            ));
        }
        let mut diffs = vec![(r.accuracy - s.accuracy).abs()];
        match (r.bias_score, s.acc_bias) {
            (Some(a), Some(b)) => diffs.push((a - b).abs()),
            (None, None) => {}
            (a, b) => return Err(format!("{what}: bias score {a:?} vs {b:?}")),
        }
        for d in diffs {
            if d.is_nan() || d > 1e-9 {
                return Err(format!("{what}: {r:?} vs {s:?}"));
            }
            largest = largest.max(d);
        }
    }
    Ok(largest)
}

#[test]
fn authors_bbq_equals_the_authors_script() {
    let examples = read_bbq_dir(
        bias_data::layout::bbq_dir(root().join("data")),
        &BbqCategory::ALL,
    )
    .unwrap();
    let script = script_table();
    let answers = answers_by_model(&examples);
    assert_eq!(
        answers.keys().collect::<Vec<_>>(),
        script.keys().collect::<Vec<_>>()
    );
    // Every example predicted: 58,492 (all), 11,956 (six categories).
    assert_eq!(answers["deberta_large"].len(), 58_492);
    assert_eq!(answers["format_race"].len(), 11_956);
    for (model, answers) in &answers {
        let table = &script[model];
        let ours = authors_bbq(answers, AuthorsDefinition::Script);
        match compare(&ours, table) {
            Ok(largest) => eprintln!(
                "{model}: {} rows, largest difference {largest:e}",
                ours.len()
            ),
            Err(e) => panic!("{model}: {e}"),
        }
        // The fixture tells the definitions apart: the paper text's gives other scores.
        let paper = authors_bbq(answers, AuthorsDefinition::PaperText);
        assert!(compare(&paper, table).is_err(), "{model}");
    }
    // Names apart, and the 64 examples with two metadata rows counted twice and the 16 without
    // a target_loc left out, as the script's merge does: 58,492 + 64 − 16.
    let n: usize = script["deberta_large"].values().map(|r| r.n).sum();
    assert_eq!((script["deberta_large"].len(), n), (30, 58_540));
}
