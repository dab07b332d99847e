//! The names of the sentence scorers, spelled once: the `scorer` column of a score table, the
//! CLI's `--scorers`, and every table that picks a scorer's rows use [`Scorer::name`].

use std::str::FromStr;

use crate::CoreError;

crate::choice! {
    /// A sentence scorer of a masked LM (kaneko2022 Eqs. 2–5 and Table 3; Nangia et al. 2020;
    /// Salazar et al. 2020) or of a causal LM (summed or mean token log-likelihood).
    #[derive(PartialOrd, Ord)]
    pub enum Scorer: "scorer" {
        /// All Unmasked Likelihood (kaneko2022 Eq. 4).
        Aul = "aul" => "All Unmasked Likelihood (kaneko2022 Eq. 4)",
        /// AUL with attention weights (kaneko2022 Eq. 5).
        Aula = "aula" => "AUL with attention weights (kaneko2022 Eq. 5)",
        /// CrowS-Pairs Score (Nangia et al. 2020; kaneko2022 Eq. 3).
        Cps = "cps" => "CrowS-Pairs score (Nangia et al. 2020)",
        /// StereoSet Score (kaneko2022 Eq. 2).
        Sss = "sss" => "StereoSet score (kaneko2022 Eq. 2)",
        /// All-masked (kaneko2022 Table 3).
        AllMasked = "all-masked" | "allmasked" | "all_masked" =>
            "Every token masked at once (kaneko2022 Table 3)",
        /// Pseudo-log-likelihood (Salazar et al. 2020; liu2024 Eq. 1).
        Pll = "pll" => "Pseudo-log-likelihood (Salazar et al. 2020)",
        /// A causal LM's summed token log-likelihood.
        LlSum = "ll-sum" | "ll_sum" =>
            "Causal LMs: the sentence log-likelihood given the BOS token, summed over its tokens \
            (lm-evaluation-harness's loglikelihood; its crows_pairs task compares it)",
        /// A causal LM's mean token log-likelihood.
        LlMean = "ll-mean" | "ll_mean" =>
            "Causal LMs: ll-sum divided by the sentence's token count",
    }
}

impl Scorer {
    /// Whether a causal LM computes it.
    pub const fn is_causal(self) -> bool {
        matches!(self, Scorer::LlSum | Scorer::LlMean)
    }
}

impl FromStr for Scorer {
    type Err = CoreError;

    /// A name as [`Scorer::name`] writes it, case and `_`/`-` aside (`all_masked`, `AUL`);
    /// `allmasked` too.
    fn from_str(s: &str) -> Result<Self, CoreError> {
        let norm = s.trim().to_ascii_lowercase().replace('_', "-");
        Scorer::ALL
            .into_iter()
            .find(|k| k.name() == norm || (norm == "allmasked" && *k == Scorer::AllMasked))
            .ok_or_else(|| CoreError::UnknownScorer(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for s in Scorer::ALL {
            assert_eq!(s.name().parse::<Scorer>().unwrap(), s);
            assert_eq!(s.to_string(), s.name());
        }
        assert_eq!("ALL_MASKED".parse::<Scorer>().unwrap(), Scorer::AllMasked);
        assert_eq!("allmasked".parse::<Scorer>().unwrap(), Scorer::AllMasked);
        assert!(
            matches!("bleu".parse::<Scorer>(), Err(CoreError::UnknownScorer(s)) if s == "bleu")
        );
        assert!(Scorer::LlMean.is_causal() && !Scorer::Pll.is_causal());
    }
}
