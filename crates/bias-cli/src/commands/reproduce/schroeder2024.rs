//! `bias reproduce schroeder2024`'s settings (Schröder, Schulz & Hammer 2024).

use bias_embed::SameVariant;
use bias_papers::{Figure1Reading, StereoLabels, Table3Pairs};
use bias_robust::{RetestOptions, SubsetDraw};
use clap::{Args, ValueEnum};

use crate::commands::embed::{
    ddof_of, CrowsFilterArg, CrowsProtocolArgs, DefiningSetsArg, GroupOrderArg, MaskingArg,
    SubspaceArg, TargetSplitArg,
};

/// SAME's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SameArg {
    /// The authors' code (geometrical_bias.SAME), which produced the published numbers.
    Authors,
    /// The paper's Eq. 16 (differs for three or more groups).
    Paper,
}

/// The sign of the PLL difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LabelsArg {
    /// The authors' code: every pair read as antistereo (their 'stereotype' test never matches
    /// the data's 'stereo'), as in the published numbers.
    Authors,
    /// Stereotypical minus anti-stereotypical sentence, as intended.
    Intended,
}

/// Figure 1 (right)'s quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Figure1Arg {
    /// The authors' notebook: |own-pair score| against |PLL difference|, models with p < 0.05.
    Authors,
    /// Signed all-group per-sample scores against the signed PLL difference, every model.
    Signed,
}

/// Table 3's model pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Table3Arg {
    /// The authors' notebook: low-bias × high-bias models, both orders.
    LowHigh,
    /// Every pair of selected models, once.
    AllSelected,
}

/// How Figure 3's subsets are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DrawArg {
    /// The authors' robustness.py: one shuffle per repeat, nested prefixes of int(share · n).
    Nested,
    /// A fresh subset per share and repeat, at least 2 targets.
    Independent,
}
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
    /// schroeder2024: SAME as the authors' code computes it (authors) or as the paper defines
    /// it (paper, Eq. 16); the two differ for three or more groups.
    #[arg(long = "schroeder2024-same", value_enum, default_value_t = SameArg::Authors)]
    pub same: SameArg,
    /// schroeder2024: WEAT effect size standard deviation, 1 (the authors' code) or 0.
    #[arg(long = "schroeder2024-ddof", default_value_t = 1)]
    pub ddof: u8,
    /// schroeder2024: DirectBias strictness c (Eq. 25).
    #[arg(long = "schroeder2024-c", default_value_t = 1.0)]
    pub c: f64,
    /// schroeder2024: the vectors of DirectBias's PCA (raw, the authors'; unit, Bolukbasi's).
    #[arg(long = "schroeder2024-subspace", value_enum, default_value_t = SubspaceArg::Raw)]
    pub subspace: SubspaceArg,
    /// schroeder2024: the sign of the PLL difference and the CPS bias (authors: every pair read
    /// as antistereo, as their code does and the published numbers show; intended).
    #[arg(long = "schroeder2024-labels", value_enum, default_value_t = LabelsArg::Authors)]
    pub labels: LabelsArg,
    /// schroeder2024: which terms a target group is paired with (authors: data order against
    /// file order; file: its own group's).
    #[arg(long = "schroeder2024-group-order", value_enum, default_value_t = GroupOrderArg::Authors)]
    pub group_order: GroupOrderArg,
    /// schroeder2024 Figure 1 (right): the authors' |own-pair score| vs |PLL difference| with
    /// p < 0.05, or the signed all-group reading.
    #[arg(long = "schroeder2024-figure1", value_enum, default_value_t = Figure1Arg::Authors)]
    pub figure1: Figure1Arg,
    /// schroeder2024 Table 3: low-high (the authors': low-bias × high-bias models) or
    /// all-selected (every pair of selected models).
    #[arg(long = "schroeder2024-table3", value_enum, default_value_t = Table3Arg::LowHigh)]
    pub table3: Table3Arg,
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
    #[arg(long = "schroeder2024-retest-draw", value_enum, default_value_t = DrawArg::Nested)]
    pub retest_draw: DrawArg,
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
            defining_sets: DefiningSetsArg::Authors,
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
            same: match self.same {
                SameArg::Authors => SameVariant::AuthorsCode,
                SameArg::Paper => SameVariant::Paper,
            },
            ddof: ddof_of(self.ddof, "--schroeder2024-ddof")?,
            c: self.c,
            subspace: self.subspace.vectors(),
            labels: match self.labels {
                LabelsArg::Authors => StereoLabels::AuthorsCode,
                LabelsArg::Intended => StereoLabels::Intended,
            },
            group_order: self.group_order.order(),
            figure1: match self.figure1 {
                Figure1Arg::Authors => Figure1Reading::AuthorsCode,
                Figure1Arg::Signed => Figure1Reading::Signed,
            },
            table3: match self.table3 {
                Table3Arg::LowHigh => Table3Pairs::LowHigh,
                Table3Arg::AllSelected => Table3Pairs::AllSelected,
            },
            sd_threshold: self.sd_threshold,
            retest: RetestOptions {
                shares: self.retest_shares.clone(),
                repeats: self.retest_repeats,
                draw: match self.retest_draw {
                    DrawArg::Nested => SubsetDraw::NestedPrefixes,
                    DrawArg::Independent => SubsetDraw::Independent,
                },
                seed: self.seed,
                ..RetestOptions::default()
            },
        })
    }
}
