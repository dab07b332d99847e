//! The two places where the pseudo-log-likelihood scorers of Kaneko & Bollegala (2022) are
//! computed differently by the paper and by its authors' code, as one value a model reports and a
//! reproduction records: how SSS averages over the modified tokens, and whether CPS rounds each
//! sentence score before the comparison.
//!
//! The paper's definitions are [`Default`]. The authors' code
//! (kanekomasahiro/evaluate_bias_in_mlm, `evaluate.py` at commit 6b10239, 2021-12-02) averages the
//! SSS matrix and rounds CPS to 3 decimals; Liu et al.'s copy of it
//! (nlply/robust-bias-evaluation-measures, `code/evaluation.py` at commit a29a457) averages the
//! matrix and does not round. The published SSS numbers of both papers came from the matrix.

crate::choice! {
    /// How SSS (Kaneko & Bollegala 2022, Eq. 2) averages over the modified tokens of a sentence,
    /// all masked at once.
    #[derive(Default)]
    pub enum SssAverage: "SSS form" {
        /// The mean of `log P(t_i)` at each modified position `i` for its own token (Eq. 2).
        /// Default.
        #[default]
        Diagonal = "diagonal" =>
            "Mean over modified positions of their own token (kaneko2022 Eq. 2)",
        /// The authors' `calculate_sss`: the mean of the whole `n × n` matrix `log P(t_j at
        /// position i)` over modified positions `i` and modified tokens `j` (`log_probs[:,
        /// token_ids]`; the same value when one subword differs). The published SSS numbers of
        /// Kaneko & Bollegala (2022, Table 5) and Liu et al. (2024, Table 2) came from it.
        Matrix = "matrix" =>
            "Kaneko's code: mean of the n×n matrix (liu2024's SSS numbers used it too)",
    }
}

impl SssAverage {
    /// The form in words, for a table's note.
    pub fn describe(self) -> &'static str {
        match self {
            SssAverage::Diagonal => {
                "SSS averages the log-probability of each modified token at its own position \
                 (kaneko2022 Eq. 2, the diagonal)"
            }
            SssAverage::Matrix => {
                "SSS averages the n×n matrix of every masked position × every modified token \
                 (the authors' calculate_sss, which produced the published SSS numbers)"
            }
        }
    }
}

crate::choice! {
    /// Whether CPS rounds each sentence score before the comparison (the `--cps-round` of a
    /// reproduction): [`ScoringConventions::cps_round_3`] as an option.
    pub enum CpsRounding: "CPS rounding" {
        /// Round to 3 decimals (Nangia et al.'s `metric.py` and Kaneko & Bollegala's
        /// `evaluate.py`).
        Three = "3" => "Round to 3 decimals (Nangia's and Kaneko & Bollegala's scripts)",
        /// Compare unrounded scores (the papers' definition; Liu et al.'s `evaluation.py`).
        Unrounded = "none" => "Compare unrounded scores (the papers' definition; Liu et al.'s code)",
    }
}

impl CpsRounding {
    /// Whether scores are rounded to 3 decimals ([`ScoringConventions::cps_round_3`]).
    pub fn rounds_to_3(self) -> bool {
        self == CpsRounding::Three
    }
}

/// The scorer conventions a model's scores were computed with (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ScoringConventions {
    /// SSS's average.
    pub sss: SssAverage,
    /// Whether CPS rounds each sentence score to 3 decimals before the comparison (Nangia et
    /// al.'s `metric.py`, nyu-mll/crows-pairs 8aaac11, and Kaneko & Bollegala's `evaluate.py`,
    /// 6b10239; not Liu et al.'s `evaluation.py`, a29a457).
    pub cps_round_3: bool,
}

impl ScoringConventions {
    /// The paper's definitions: the diagonal SSS, CPS unrounded.
    pub const PAPER: ScoringConventions = ScoringConventions {
        sss: SssAverage::Diagonal,
        cps_round_3: false,
    };

    /// Kaneko & Bollegala's `evaluate.py`: the matrix SSS, CPS rounded to 3 decimals.
    pub const KANEKO_CODE: ScoringConventions = ScoringConventions {
        sss: SssAverage::Matrix,
        cps_round_3: true,
    };

    /// Liu et al.'s `evaluation.py`: the matrix SSS, CPS unrounded.
    pub const LIU_CODE: ScoringConventions = ScoringConventions {
        sss: SssAverage::Matrix,
        cps_round_3: false,
    };

    /// A suffix that keeps score tables of other conventions apart (`None` for the paper's,
    /// whose tables keep the plain name): `sss-matrix`, `cps-round3`, `sss-matrix.cps-round3`.
    pub fn file_tag(self) -> Option<String> {
        let mut parts = Vec::new();
        if self.sss != SssAverage::Diagonal {
            parts.push(format!("sss-{}", self.sss.name()));
        }
        if self.cps_round_3 {
            parts.push("cps-round3".to_owned());
        }
        (!parts.is_empty()).then(|| parts.join("."))
    }

    /// The conventions in words, for a table's note.
    pub fn describe(self) -> String {
        format!(
            "{}; CPS {}",
            self.sss.describe(),
            if self.cps_round_3 {
                "rounds each sentence score to 3 decimals before comparing (the authors' \
                 evaluate.py)"
            } else {
                "compares unrounded sentence scores"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_tags_keep_conventions_apart_and_the_paper_plain() {
        assert_eq!(ScoringConventions::PAPER.file_tag(), None);
        assert_eq!(ScoringConventions::default(), ScoringConventions::PAPER);
        assert_eq!(
            ScoringConventions::KANEKO_CODE.file_tag().as_deref(),
            Some("sss-matrix.cps-round3")
        );
        assert_eq!(
            ScoringConventions::LIU_CODE.file_tag().as_deref(),
            Some("sss-matrix")
        );
        let round_only = ScoringConventions {
            sss: SssAverage::Diagonal,
            cps_round_3: true,
        };
        assert_eq!(round_only.file_tag().as_deref(), Some("cps-round3"));
    }
}
