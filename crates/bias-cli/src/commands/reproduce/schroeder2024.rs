//! `bias reproduce schroeder2024`'s settings (Schröder, Schulz & Hammer 2024).

use bias_embed::SameVariant;
use clap::Args;

use crate::commands::embed::{
    ddof_of, CrowsFilterArg, CrowsProtocolArgs, DefiningSetsArg, MaskingArg, TargetSplitArg,
};
use crate::error::CliError;

/// `bias reproduce schroeder2024`'s options (Schröder, Schulz & Hammer 2024 §4.3.4, §4.1.1,
/// §4.1.3); the defaults are the authors'.
#[derive(Debug, Clone, Args)]
pub struct Schroeder2024Args {
    /// schroeder2024: which CrowS-Pairs pairs are kept (authors or single-span).
    #[arg(long = "schroeder2024-filter", value_enum, default_value_t = CrowsFilterArg::Authors)]
    pub filter: CrowsFilterArg,
    /// schroeder2024: the group a target counts for (authors: sent_less for antistereo rows;
    /// sent-more).
    #[arg(long = "schroeder2024-split", value_enum, default_value_t = TargetSplitArg::Authors)]
    pub split: TargetSplitArg,
    /// schroeder2024: one mask per differing token (authors) or per word span.
    #[arg(long = "schroeder2024-masking", value_enum, default_value_t = MaskingArg::PerToken)]
    pub masking: MaskingArg,
    /// schroeder2024: SAME as the authors' code computes it rather than as the paper defines it
    /// (Eq. 16).
    #[arg(long = "schroeder2024-same-authors")]
    pub same_authors: bool,
    /// schroeder2024: WEAT effect size standard deviation, 1 (the authors' code) or 0.
    #[arg(long = "schroeder2024-ddof", default_value_t = 1)]
    pub ddof: u8,
    /// schroeder2024: DirectBias strictness c (Eq. 25).
    #[arg(long = "schroeder2024-c", default_value_t = 1.0)]
    pub c: f64,
    /// schroeder2024 Table 3: models whose CPS bias deviates from the mean by more than this many
    /// standard deviations are compared (§4.1.1: 1).
    #[arg(long = "schroeder2024-sd-threshold", default_value_t = 1.0)]
    pub sd_threshold: f64,
    /// schroeder2024 Figure 3: random subsets per share.
    #[arg(long = "schroeder2024-retest-repeats", default_value_t = 100)]
    pub retest_repeats: usize,
    /// schroeder2024 Figure 3: the seed of the subsets.
    #[arg(long = "schroeder2024-seed", default_value_t = 0)]
    pub seed: u64,
}

impl Schroeder2024Args {
    /// The library options.
    ///
    /// # Errors
    /// [`CliError::Usage`] for a ddof other than 0 or 1.
    pub fn options(&self) -> Result<bias_robust::reproduce::SchroederOptions, CliError> {
        let p = CrowsProtocolArgs {
            defining_sets: DefiningSetsArg::Authors,
            crows_filter: self.filter,
            target_split: self.split,
            crows_masking: self.masking,
        };
        Ok(bias_robust::reproduce::SchroederOptions {
            filter: p.filter(),
            split: p.split(),
            masking: p.masking(),
            same: if self.same_authors {
                SameVariant::AuthorsCode
            } else {
                SameVariant::Paper
            },
            ddof: ddof_of(self.ddof, "--schroeder2024-ddof")?,
            c: self.c,
            sd_threshold: self.sd_threshold,
            retest_repeats: self.retest_repeats,
            seed: self.seed,
        })
    }
}
