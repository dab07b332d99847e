//! The numbers Kaneko & Bollegala (2022), "Unmasking the Mask – Evaluating Social Biases in
//! Masked Language Models" (AAAI), print in Tables 1, 3, 4 and 5, for bert-base-cased,
//! roberta-large and albert-large-v2, transcribed from the paper; a reproduction shows them
//! beside its own rows.

/// The paper's three models, in its row order (the labels of its tables).
pub const MODELS: [&str; 3] = ["BERT", "RoBERTa", "ALBERT"];

/// Table 1: token-prediction accuracy (%) of CPS, AUL (CP), SSS, AUL (SS); every AUL value is
/// marked † (McNemar, p < 0.01).
pub const TABLE_1: [[f64; 4]; 3] = [
    [62.98, 82.76, 2.20, 92.16],
    [68.11, 99.54, 3.17, 98.88],
    [56.20, 88.01, 2.21, 81.19],
];

/// Table 3: bias score (%) of the advantaged (Adv) and disadvantaged (Dis) groups in CrowS-Pairs
/// and |Diff|, under All Masked (CP), AUL (CP) and AULA (CP), in that order.
pub const TABLE_3: [[f64; 9]; 3] = [
    [54.13, 47.36, 6.77, 49.54, 53.49, 3.95, 50.46, 54.65, 4.19],
    [65.14, 37.05, 28.09, 51.38, 64.26, 12.88, 51.83, 60.78, 8.95],
    [55.05, 45.35, 9.70, 55.05, 52.95, 2.10, 54.13, 52.87, 1.26],
];

/// One cell of Table 4: AUL's accuracy (%), the change against Table 1 (the bracket), and the †
/// of McNemar's test (none for the unrelated sentences, which the paper does not test).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Table4Cell {
    /// The accuracy.
    pub accuracy: f64,
    /// The bracket: the change against the original sentences.
    pub change: f64,
    /// Whether the paper marks it †.
    pub dagger: bool,
}

const fn cell(accuracy: f64, change: f64, dagger: bool) -> Table4Cell {
    Table4Cell {
        accuracy,
        change,
        dagger,
    }
}

/// Table 4: AUL (CP) shuffled, AUL (SS) shuffled, AUL (SS) unrelated.
pub const TABLE_4: [[Table4Cell; 3]; 3] = [
    [
        cell(69.63, -13.13, true),
        cell(62.30, -29.86, true),
        cell(71.67, -20.49, false),
    ],
    [
        cell(80.82, -18.72, true),
        cell(76.49, -22.39, true),
        cell(93.88, -5.00, false),
    ],
    [
        cell(80.86, -7.15, true),
        cell(73.18, -8.01, true),
        cell(76.08, -5.11, false),
    ],
];

/// Table 5: bias scores (Eq. 6) of CPS, AUL (CP), AULA (CP), SSS, AUL (SS), AULA (SS).
pub const TABLE_5: [[f64; 6]; 3] = [
    [58.62, 52.92, 54.05, 57.26, 50.28, 51.38],
    [65.45, 62.40, 59.48, 61.97, 59.07, 55.98],
    [60.41, 53.25, 53.05, 58.88, 58.07, 58.31],
];

/// StereoSet's intrasentence dev items (the "Token Prediction Accuracy" section).
pub const STEREOSET_ITEMS: usize = 2106;

/// The items whose two candidates have the same number of subtokens ("Token Prediction
/// Accuracy" section): BERT, RoBERTa, ALBERT.
pub const EQUAL_SUBTOKENS: [usize; 3] = [1298, 1509, 1490];

/// The label of a paper row of a reproduced table: `paper: BERT`.
pub fn row_label(model: &str) -> String {
    format!("paper: {model}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's own arithmetic holds on the transcription: |Diff| = |Adv − Dis| (Table 3)
    /// and the bracket of Table 4 = the Table 4 accuracy − the Table 1 AUL accuracy.
    #[test]
    fn the_transcription_agrees_with_the_papers_own_arithmetic() {
        for row in TABLE_3 {
            for k in 0..3 {
                let (adv, dis, diff) = (row[3 * k], row[3 * k + 1], row[3 * k + 2]);
                assert!(((adv - dis).abs() - diff).abs() < 0.011, "{row:?}");
            }
        }
        for (m, row) in TABLE_4.iter().enumerate() {
            // AUL (CP) shuffled against Table 1's AUL (CP); both SS columns against AUL (SS).
            let originals = [TABLE_1[m][1], TABLE_1[m][3], TABLE_1[m][3]];
            for (c, original) in row.iter().zip(originals) {
                assert!(
                    (c.accuracy - original - c.change).abs() < 0.011,
                    "{} {c:?} against {original}",
                    MODELS[m]
                );
            }
        }
    }
}
