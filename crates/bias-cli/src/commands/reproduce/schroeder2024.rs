//! `bias reproduce schroeder2024`'s settings (Schröder, Schulz & Hammer 2024).

use bias_embed::protocol::{CrowsFilter, DefiningSetsSource, GroupOrder, Masking, TargetSplit};
use bias_embed::{SameVariant, SubspaceVectors};
use bias_papers::{Figure1Reading, StereoLabels, Table3Pairs};
use bias_robust::{RetestOptions, SubsetDraw};
use clap::Args;

use crate::commands::embed::{ddof_of, CrowsProtocolArgs};

use crate::choice::choice;
use crate::error::CliError;

/// `bias reproduce schroeder2024`'s options (Schröder, Schulz & Hammer 2024 §4.3.4, §4.1.1,
/// §4.1.3); the defaults are the authors'.
#[derive(Debug, Clone, Args)]
pub struct Schroeder2024Args {
    /// schroeder2024: which CrowS-Pairs pairs are kept (authors or single-span).
    #[arg(long = "schroeder2024-filter", value_parser = choice::<CrowsFilter>(), default_value = "authors")]
    pub filter: CrowsFilter,
    /// schroeder2024: the group a target counts for (authors: sent_less for antistereo rows;
    /// sent-more).
    #[arg(long = "schroeder2024-split", value_parser = choice::<TargetSplit>(), default_value = "authors")]
    pub split: TargetSplit,
    /// schroeder2024: one mask per differing token (authors) or per word span.
    #[arg(long = "schroeder2024-masking", value_parser = choice::<Masking>(), default_value = "per-token")]
    pub masking: Masking,
    /// schroeder2024: SAME as the authors' code computes it (authors) or as the paper defines
    /// it (paper, Eq. 16); the two differ for three or more groups.
    #[arg(long = "schroeder2024-same", value_parser = choice::<SameVariant>(), default_value = "authors")]
    pub same: SameVariant,
    /// schroeder2024: WEAT effect size standard deviation, 1 (the authors' code) or 0.
    #[arg(long = "schroeder2024-ddof", default_value_t = 1)]
    pub ddof: u8,
    /// schroeder2024: DirectBias strictness c (Eq. 25).
    #[arg(long = "schroeder2024-c", default_value_t = 1.0)]
    pub c: f64,
    /// schroeder2024: the vectors of DirectBias's PCA (raw, the authors'; unit, Bolukbasi's).
    #[arg(long = "schroeder2024-subspace", value_parser = choice::<SubspaceVectors>(), default_value = "raw")]
    pub subspace: SubspaceVectors,
    /// schroeder2024: the sign of the PLL difference and the CPS bias (authors: every pair read
    /// as antistereo, as their code does and the published numbers show; intended).
    #[arg(long = "schroeder2024-labels", value_parser = choice::<StereoLabels>(), default_value = "authors")]
    pub labels: StereoLabels,
    /// schroeder2024: which terms a target group is paired with (authors: data order against
    /// file order; file: its own group's).
    #[arg(long = "schroeder2024-group-order", value_parser = choice::<GroupOrder>(), default_value = "authors")]
    pub group_order: GroupOrder,
    /// schroeder2024 Figure 1 (right): the authors' |own-pair score| vs |PLL difference| with
    /// p < 0.05, or the signed all-group reading.
    #[arg(long = "schroeder2024-figure1", value_parser = choice::<Figure1Reading>(), default_value = "authors")]
    pub figure1: Figure1Reading,
    /// schroeder2024 Table 3: low-high (the authors': low-bias × high-bias models) or
    /// all-selected (every pair of selected models).
    #[arg(long = "schroeder2024-table3", value_parser = choice::<Table3Pairs>(), default_value = "low-high")]
    pub table3: Table3Pairs,
    /// schroeder2024 Table 3: models whose CPS bias deviates from the mean by more than this many
    /// standard deviations are compared (§4.1.1: 1).
    #[arg(long = "schroeder2024-sd-threshold", default_value_t = 1.0)]
    pub sd_threshold: f64,
    /// schroeder2024 Figure 3: random subsets per share (the authors' robustness.py: 50).
    #[arg(long = "schroeder2024-retest-repeats", default_value_t = 50)]
    pub retest_repeats: usize,
    /// schroeder2024 Figure 3: the shares of the targets (the authors': 0.01 0.03 0.05 0.1 0.2).
    #[arg(long = "schroeder2024-retest-shares", num_args = 1.., default_values_t = [0.01, 0.03, 0.05, 0.1, 0.2])]
    pub retest_shares: Vec<f64>,
    /// schroeder2024 Figure 3: nested prefixes of one shuffle per repeat (the authors') or
    /// independent subsets.
    #[arg(long = "schroeder2024-retest-draw", value_parser = choice::<SubsetDraw>(), default_value = "nested")]
    pub retest_draw: SubsetDraw,
    /// schroeder2024 Figure 3: the seed of the subsets.
    #[arg(long = "schroeder2024-seed", default_value_t = 0)]
    pub seed: u64,
}

impl Schroeder2024Args {
    /// The library options.
    ///
    /// # Errors
    /// [`CliError::Usage`] for a ddof other than 0 or 1.
    pub fn options(&self) -> Result<bias_papers::SchroederOptions, CliError> {
        let p = CrowsProtocolArgs {
            defining_sets: DefiningSetsSource::Authors,
            crows_filter: self.filter,
            target_split: self.split,
            crows_masking: self.masking,
            crows_subspace: self.subspace,
            crows_group_order: self.group_order,
        };
        Ok(bias_papers::SchroederOptions {
            filter: p.filter(),
            split: p.split(),
            masking: p.masking(),
            same: self.same,
            ddof: ddof_of(self.ddof, "--schroeder2024-ddof")?,
            c: self.c,
            subspace: self.subspace,
            labels: self.labels,
            group_order: self.group_order,
            figure1: self.figure1,
            table3: self.table3,
            sd_threshold: self.sd_threshold,
            retest: RetestOptions {
                shares: self.retest_shares.clone(),
                repeats: self.retest_repeats,
                draw: self.retest_draw,
                seed: self.seed,
                ..RetestOptions::default()
            },
        })
    }
}
