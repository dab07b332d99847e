//! The numbers Liu et al. (2024), "Robust evaluation measures for evaluating social biases in
//! masked language models" (AAAI), prints, transcribed from the paper: Tables 1–5, the values
//! its text gives for Figure 4 ("Correlation Analysis") and the red circles of Figure 5
//! ("Robustness Study"). The liu2024 reproduction writes them beside its own numbers, in
//! columns or rows labelled "paper".
//!
//! Each value is kept as printed: a number as a number (to the paper's decimals), a mark as
//! its own string, a sign as the sign of a number (Table 5's ↑/↓), never a composite string.
//!
//! The paper's three models (Setting, footnotes 1–3) are [`MODELS`]: BERT (`bert-base-cased`),
//! RoBERTa (`roberta-large`) and ALBERT (`albert-large-v2`); every per-model array here is in
//! that order.

/// A model of the paper: its name in the tables and the Hugging Face checkpoint of its footnote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaperModel {
    /// The name in the paper's tables.
    pub name: &'static str,
    /// The checkpoint (Liu et al. 2024, Setting, footnotes 1–3).
    pub checkpoint: &'static str,
}

/// The paper's models, in the order of its tables (Liu et al. 2024, Setting).
pub const MODELS: [PaperModel; 3] = [
    PaperModel {
        name: "BERT",
        checkpoint: "bert-base-cased",
    },
    PaperModel {
        name: "RoBERTa",
        checkpoint: "roberta-large",
    },
    PaperModel {
        name: "ALBERT",
        checkpoint: "albert-large-v2",
    },
];

/// One cell of Liu et al. (2024) Table 1: the Shapiro–Wilk test of one model's stereotypical
/// PLL (AUL) scores on one data set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapiroCell {
    /// `SS` (StereoSet) or `CP` (CrowS-Pairs).
    pub data_set: &'static str,
    /// Index into [`MODELS`].
    pub model: usize,
    /// The statistic W (left of the '/').
    pub w: f64,
    /// The p-value (right of the '/').
    pub p_value: f64,
    /// The paper's mark: `‡` (p above 0.01) or `♭` (its superscript b: p above 0.05).
    pub mark: &'static str,
}

const fn sw(
    data_set: &'static str,
    model: usize,
    w: f64,
    p_value: f64,
    mark: &'static str,
) -> ShapiroCell {
    ShapiroCell {
        data_set,
        model,
        w,
        p_value,
        mark,
    }
}

/// Liu et al. (2024) Table 1: "Experimental results of the Shapiro-Wilk test on PLL scores for
/// stereotypical sentences (similar for anti-stereotypes)".
pub const TABLE_1: [ShapiroCell; 6] = [
    sw("SS", 0, 0.994, 0.034, "‡"),
    sw("SS", 1, 0.999, 0.918, "♭"),
    sw("SS", 2, 0.998, 0.693, "♭"),
    sw("CP", 0, 0.998, 0.690, "♭"),
    sw("CP", 1, 0.997, 0.443, "♭"),
    sw("CP", 2, 0.996, 0.141, "♭"),
];

/// One row of Liu et al. (2024) Table 2: a model's four measures on one data set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasuresRow {
    /// `SS` or `CP`.
    pub data_set: &'static str,
    /// Index into [`MODELS`].
    pub model: usize,
    /// SSS on StereoSet, CPS on CrowS-Pairs (Eq. 2 on Eq. 12 / Eq. 13).
    pub prior: f64,
    /// AUL (Eq. 2 on Eq. 14).
    pub aul: f64,
    /// KLS (Eqs. 6, 10).
    pub kls: f64,
    /// JSS (Eqs. 9, 11).
    pub jss: f64,
}

const fn m2(data_set: &'static str, model: usize, v: [f64; 4]) -> MeasuresRow {
    MeasuresRow {
        data_set,
        model,
        prior: v[0],
        aul: v[1],
        kls: v[2],
        jss: v[3],
    }
}

/// Liu et al. (2024) Table 2: "Experimental results of evaluation measures on SS and CP
/// datasets" (RoBERTa underlined, the most biased, on every measure of both data sets).
pub const TABLE_2: [MeasuresRow; 6] = [
    m2("SS", 0, [57.26, 50.28, 51.59, 97.57]),
    m2("SS", 1, [61.97, 59.07, 54.20, 95.76]),
    m2("SS", 2, [58.88, 58.07, 53.79, 96.19]),
    m2("CP", 0, [58.75, 52.92, 53.36, 96.29]),
    m2("CP", 1, [65.45, 62.40, 63.86, 86.60]),
    m2("CP", 2, [60.48, 53.25, 57.22, 94.48]),
];

/// One row of Liu et al. (2024) Table 3: KLS and JSS of the three models on one bias type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TypeRow {
    /// `SS` or `CP`.
    pub data_set: &'static str,
    /// The bias type's label in this workspace ([`bias_core::BiasType::as_str`]).
    pub bias_type: &'static str,
    /// The label the paper prints (`race`, `sexual-orient.`, …).
    pub paper_label: &'static str,
    /// KLS (left of the '/') per model of [`MODELS`].
    pub kls: [f64; 3],
    /// JSS (right of the '/') per model of [`MODELS`].
    pub jss: [f64; 3],
}

const fn t3(
    data_set: &'static str,
    bias_type: &'static str,
    paper_label: &'static str,
    v: [(f64, f64); 3],
) -> TypeRow {
    TypeRow {
        data_set,
        bias_type,
        paper_label,
        kls: [v[0].0, v[1].0, v[2].0],
        jss: [v[0].1, v[1].1, v[2].1],
    }
}

/// Liu et al. (2024) Table 3: "Experimental results of evaluation measures … for specific bias
/// types", KLS / JSS per model, in the paper's row order.
pub const TABLE_3: [TypeRow; 13] = [
    t3(
        "SS",
        "profession",
        "profession",
        [(50.41, 99.46), (55.22, 94.51), (54.73, 95.62)],
    ),
    t3(
        "SS",
        "race",
        "race",
        [(50.84, 98.74), (53.49, 96.57), (53.21, 96.43)],
    ),
    t3(
        "SS",
        "gender",
        "gender",
        [(56.19, 89.59), (54.10, 96.57), (53.28, 96.78)],
    ),
    t3(
        "SS",
        "religion",
        "religion",
        [(57.85, 89.51), (52.76, 96.27), (52.85, 97.26)],
    ),
    t3(
        "CP",
        "race-color",
        "race",
        [(50.44, 99.61), (58.63, 94.20), (53.30, 97.85)],
    ),
    t3(
        "CP",
        "socioeconomic",
        "socioeconomic",
        [(54.62, 96.19), (84.53, 49.71), (53.54, 98.06)],
    ),
    t3(
        "CP",
        "gender",
        "gender",
        [(60.44, 86.04), (61.05, 91.72), (56.37, 94.52)],
    ),
    t3(
        "CP",
        "disability",
        "disability",
        [(52.14, 98.38), (54.17, 97.68), (71.79, 81.68)],
    ),
    t3(
        "CP",
        "nationality",
        "nationality",
        [(52.55, 97.80), (58.73, 95.36), (59.92, 93.61)],
    ),
    t3(
        "CP",
        "sexual-orientation",
        "sexual-orient.",
        [(54.24, 96.10), (71.04, 82.55), (67.00, 86.84)],
    ),
    t3(
        "CP",
        "physical-appearance",
        "physical-appear.",
        [(51.83, 98.80), (85.51, 57.62), (80.92, 71.64)],
    ),
    t3(
        "CP",
        "religion",
        "religion",
        [(50.83, 99.35), (54.20, 96.96), (50.94, 99.49)],
    ),
    t3(
        "CP",
        "age",
        "age",
        [(52.36, 98.07), (67.58, 87.76), (56.23, 95.49)],
    ),
];

/// One row of Liu et al. (2024) Table 4: the stereotype and anti-stereotype sample groups of a
/// model's AUL scores on CrowS-Pairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreGroupsRow {
    /// Index into [`MODELS`].
    pub model: usize,
    /// Stereotype sample group: average stereotypical score.
    pub st_mean_stereo: f64,
    /// Stereotype sample group: average anti-stereotypical score.
    pub st_mean_anti: f64,
    /// `|Δst|`.
    pub st_abs_delta: f64,
    /// Anti-stereotype sample group: average stereotypical score.
    pub at_mean_stereo: f64,
    /// Anti-stereotype sample group: average anti-stereotypical score.
    pub at_mean_anti: f64,
    /// `|Δat|`.
    pub at_abs_delta: f64,
    /// `|Δst| − |Δat|`.
    pub delta_difference: f64,
}

const fn t4(model: usize, v: [f64; 7]) -> ScoreGroupsRow {
    ScoreGroupsRow {
        model,
        st_mean_stereo: v[0],
        st_mean_anti: v[1],
        st_abs_delta: v[2],
        at_mean_stereo: v[3],
        at_mean_anti: v[4],
        at_abs_delta: v[5],
        delta_difference: v[6],
    }
}

/// Liu et al. (2024) Table 4: "Comparison of the difference between the stereotype and
/// anti-stereotype sample group".
pub const TABLE_4: [ScoreGroupsRow; 3] = [
    t4(
        0,
        [-0.5449, -0.6574, 0.1125, -0.6349, -0.5416, 0.0933, 0.0192],
    ),
    t4(
        1,
        [-0.0228, -0.0768, 0.0540, -0.0656, -0.0231, 0.0425, 0.0115],
    ),
    t4(
        2,
        [-0.0489, -0.1004, 0.0515, -0.1024, -0.0566, 0.0458, 0.0057],
    ),
];

/// The sampling rates of Liu et al. (2024) Table 5 and Figure 5 ("Robustness Study").
pub const RATES: [f64; 6] = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8];

/// One cell of Liu et al. (2024) Table 5: `|Δst| − |Δat|` of a model at one sampling rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubsampleCell {
    /// Index into [`MODELS`].
    pub model: usize,
    /// The sampling rate.
    pub rate: f64,
    /// `|Δst| − |Δat|` on the sampled data set.
    pub value: f64,
    /// `Δsp` with its sign: the paper prints `|Δsp|` as a subscript and the sign as an arrow
    /// (↑ positive, ↓ negative).
    pub shift: f64,
}

const fn t5(model: usize, rate: f64, value: f64, shift: f64) -> SubsampleCell {
    SubsampleCell {
        model,
        rate,
        value,
        shift,
    }
}

/// Liu et al. (2024) Table 5: "The difference between `|Δst| − |Δat|` of the sampled datasets
/// and the original dataset", per model and rate (↑ as a positive, ↓ as a negative `shift`).
pub const TABLE_5: [SubsampleCell; 18] = [
    t5(0, 0.3, 0.0413, 0.0221),
    t5(0, 0.4, 0.0073, -0.0119),
    t5(0, 0.5, 0.0187, -0.0005),
    t5(0, 0.6, 0.0270, 0.0078),
    t5(0, 0.7, 0.0244, 0.0052),
    t5(0, 0.8, 0.0224, 0.0032),
    t5(1, 0.3, -0.0074, -0.0189),
    t5(1, 0.4, 0.0221, 0.0106),
    t5(1, 0.5, 0.0095, -0.0020),
    t5(1, 0.6, 0.0343, 0.0228),
    t5(1, 0.7, 0.0126, 0.0011),
    t5(1, 0.8, 0.0202, 0.0087),
    t5(2, 0.3, 0.0072, 0.0015),
    t5(2, 0.4, 0.0019, -0.0038),
    t5(2, 0.5, 0.0187, 0.0130),
    t5(2, 0.6, 0.0116, 0.0059),
    t5(2, 0.7, -0.0018, -0.0075),
    t5(2, 0.8, 0.0107, 0.0050),
];

/// The one Pearson r Liu et al. (2024) print in the text of Figure 4 ("Correlation Analysis"):
/// KLS against SSS on StereoSet, "r = 0.84" (Figure 4 itself is a heat map). From Table 2's
/// printed values r = 0.8497, so the paper's two decimals are truncated, not rounded.
pub const FIGURE_4_PEARSON: [(&str, &str, &str, f64); 1] = [("SS", "KLS", "SSS", 0.84)];

/// The mutual information Liu et al. (2024) print for Figure 4's measures ("Correlation
/// Analysis"): "the MI between the measures is 0.50, except in the SS dataset where the MI
/// between SSS and the other evaluation measures is 0.17".
pub const FIGURE_4_MI: f64 = 0.50;
/// Figure 4's mutual information between SSS and any other measure on StereoSet (Liu et al.
/// 2024, "Correlation Analysis"): 0.17.
pub const FIGURE_4_MI_SSS: f64 = 0.17;

/// The neighbours of the Kraskov–Stögbauer–Grassberger estimator that give Figure 4's 0.50 and
/// 0.17 from Table 2's values: scikit-learn's `mutual_info_regression(x, y, n_neighbors=1)`
/// (each variable scaled to unit variance) gives 0.5 and 1/6 on every pair, and its default
/// `n_neighbors=3` cannot run on three models.
pub const FIGURE_4_MI_NEIGHBORS: usize = 1;

/// Figure 4's mutual information between measures `a` and `b` (labels `SSS`, `CPS`, `AUL`,
/// `KLS`, `JSS`) on data set `data_set` (`SS` or `CP`), as Liu et al. (2024) state it; `None`
/// for a pair the paper does not compare (a measure of the other data set).
pub fn figure_4_mi(data_set: &str, a: &str, b: &str) -> Option<f64> {
    let prior = match data_set {
        "SS" => "SSS",
        "CP" => "CPS",
        _ => return None,
    };
    let known = |m: &str| [prior, "AUL", "KLS", "JSS"].contains(&m);
    if a == b || !known(a) || !known(b) {
        return None;
    }
    Some(if data_set == "SS" && (a == "SSS" || b == "SSS") {
        FIGURE_4_MI_SSS
    } else {
        FIGURE_4_MI
    })
}

/// Figure 4's Pearson r between `a` and `b` on `data_set` where the paper's text prints it
/// (only KLS–SSS on StereoSet, [`FIGURE_4_PEARSON`]), in either order.
pub fn figure_4_pearson(data_set: &str, a: &str, b: &str) -> Option<f64> {
    FIGURE_4_PEARSON
        .iter()
        .find(|(s, x, y, _)| *s == data_set && ((*x, *y) == (a, b) || (*x, *y) == (b, a)))
        .map(|&(.., r)| r)
}

/// The rates at which Liu et al. (2024) Figure 5 rings a measure red (the order of the models
/// differs from the full data), as the "Robustness Study" text lists them: CPS at 30 % and
/// 60 %; AUL at every rate but 80 % (at 40 % BERT and ALBERT tie); KLS and JSS never.
pub const FIGURE_5_ORDER_CHANGED: [(&str, &[f64]); 4] = [
    ("CPS", &[0.3, 0.6]),
    ("AUL", &[0.3, 0.4, 0.5, 0.6, 0.7]),
    ("KLS", &[]),
    ("JSS", &[]),
];

/// Whether Liu et al. (2024) Figure 5 rings `measure` (`CPS`, `AUL`, `KLS`, `JSS`) red at
/// `rate` ([`FIGURE_5_ORDER_CHANGED`]); `None` for another measure or a rate the paper does not
/// sample.
pub fn figure_5_order_changed(measure: &str, rate: f64) -> Option<bool> {
    let (_, rates) = FIGURE_5_ORDER_CHANGED.iter().find(|(m, _)| *m == measure)?;
    RATES
        .iter()
        .any(|r| (r - rate).abs() < 1e-9)
        .then(|| rates.iter().any(|r| (r - rate).abs() < 1e-9))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Transcription checks: the paper's numbers agree with each other to its 4 decimals.

    #[test]
    fn table_4_differences_add_up() {
        for r in TABLE_4 {
            let st = (r.st_mean_stereo - r.st_mean_anti).abs();
            let at = (r.at_mean_stereo - r.at_mean_anti).abs();
            assert!((st - r.st_abs_delta).abs() < 1.5e-4, "{r:?}");
            assert!((at - r.at_abs_delta).abs() < 1.5e-4, "{r:?}");
            assert!(
                (r.st_abs_delta - r.at_abs_delta - r.delta_difference).abs() < 1.5e-4,
                "{r:?}"
            );
        }
    }

    #[test]
    fn table_5_shifts_are_the_value_minus_table_4() {
        for c in TABLE_5 {
            let full = TABLE_4[c.model].delta_difference;
            assert!((c.value - full - c.shift).abs() < 1.5e-4, "{c:?}");
        }
        for m in 0..3 {
            let rates: Vec<f64> = TABLE_5
                .iter()
                .filter(|c| c.model == m)
                .map(|c| c.rate)
                .collect();
            assert_eq!(rates, RATES);
        }
    }

    #[test]
    fn figure_4_values_as_stated() {
        assert_eq!(figure_4_mi("SS", "SSS", "KLS"), Some(0.17));
        assert_eq!(figure_4_mi("SS", "JSS", "SSS"), Some(0.17));
        assert_eq!(figure_4_mi("SS", "AUL", "KLS"), Some(0.50));
        assert_eq!(figure_4_mi("CP", "CPS", "JSS"), Some(0.50));
        assert_eq!(figure_4_mi("CP", "SSS", "AUL"), None);
        assert_eq!(figure_4_mi("SS", "KLS", "KLS"), None);
        assert_eq!(figure_4_pearson("SS", "SSS", "KLS"), Some(0.84));
        assert_eq!(figure_4_pearson("CP", "CPS", "KLS"), None);
    }

    #[test]
    fn figure_5_rings_as_stated() {
        let ringed: Vec<(&str, f64)> = ["CPS", "AUL", "KLS", "JSS"]
            .iter()
            .flat_map(|m| RATES.iter().map(move |r| (*m, *r)))
            .filter(|(m, r)| figure_5_order_changed(m, *r) == Some(true))
            .collect();
        assert_eq!(ringed.len(), 7);
        assert_eq!(figure_5_order_changed("AUL", 0.8), Some(false));
        assert_eq!(figure_5_order_changed("CPS", 0.9), None);
        assert_eq!(figure_5_order_changed("SSS", 0.3), None);
    }
}
