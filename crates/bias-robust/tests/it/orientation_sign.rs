//! The sign of a pair measure on male-oriented pairs (kaneko2023 §3.3), on a hand-built table
//! whose answer is known: an indicator above 50 must mean that the model prefers the male
//! sentence, whichever side of the CrowS-Pairs pair the male sentence was written on.

use approx::abs_diff_eq;
use bias_core::{BiasMeasure, BiasType, ScoreRow, ScoreTable};
use bias_metrics::Indicator;
use bias_robust::controlled::orient_by_gender;

fn row(id: &str, stereo: &str, anti: &str, s: f64, a: f64) -> ScoreRow {
    ScoreRow::builder(id, BiasType::Gender, s, a)
        .dataset("crows-pairs")
        .sentences(stereo, anti)
        .scorer("cps")
        .model("hand")
        .tokens(Some(5), Some(5))
        .build()
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn the_male_sentence_scoring_higher_counts_as_male_bias_on_either_side() {
    let table = ScoreTable::new(vec![
        // Male sentence written as sent_more, scoring higher: male preferred.
        row("1", "He is a nurse.", "She is a nurse.", -10.0, -12.0),
        // Male sentence written as sent_less, scoring higher (−3 > −5): male preferred.
        row("2", "She cooks dinner.", "He cooks dinner.", -5.0, -3.0),
        // Female sentence written as sent_less, scoring higher: female preferred.
        row(
            "3",
            "The man left early.",
            "The woman left early.",
            -8.0,
            -7.0,
        ),
        // Male sentence as sent_less, scoring lower: female preferred.
        row("4", "Her sister sings.", "His brother sings.", -6.0, -9.0),
        // Not a gender-word swap (a name): left out.
        row("5", "John is a pilot.", "Mary is a pilot.", -1.0, -2.0),
    ]);
    let male = words(&["he", "man", "his", "brother"]);
    let female = words(&["she", "woman", "her", "sister"]);
    let (oriented, left_out) = orient_by_gender(&table, &male, &female);
    assert_eq!(left_out.len(), 1);
    assert_eq!(left_out[0].pair_id, "5");
    // Rows 2 and 4 are swapped: stereo now holds the male sentence with its own score.
    let r2 = &oriented.rows()[1];
    assert_eq!(
        (r2.stereo.as_str(), r2.score_stereo),
        ("He cooks dinner.", -3.0)
    );
    assert_eq!(
        (r2.anti.as_str(), r2.score_anti),
        ("She cooks dinner.", -5.0)
    );
    // Male preferred in pairs 1 and 2 of the 4 oriented: 50 %.
    let m = Indicator::default().measure(&oriented).unwrap();
    assert_eq!(m.n, 4);
    assert!(abs_diff_eq!(m.value, 50.0, epsilon = 1e-12), "{}", m.value);
    // Pairs 1 to 3 alone: 2 of 3 male preferred, 66.67 %, above 50 = male bias.
    let three = ScoreTable::new(table.rows()[..3].to_vec());
    let (oriented, _) = orient_by_gender(&three, &male, &female);
    let m = Indicator::default().measure(&oriented).unwrap();
    assert!(
        abs_diff_eq!(m.value, 200.0 / 3.0, epsilon = 1e-9),
        "{}",
        m.value
    );
}
