//! `bias reproduce paraphrase`'s settings (Kwon & Mihindukulasooriya 2022): the group sizes of
//! the paraphrase sets.

use crate::choice::choice;
use bias_papers::Paraphrase2022Options;
use bias_robust::paraphrase::{GroupSizes, Table1Reading};
use clap::Args;

/// The paraphrase options of `bias reproduce paraphrase` (Kwon & Mihindukulasooriya 2022, §2.1
/// and Table 1: "3 to 5" paraphrases per original, 383 samples): which group sizes Figures 2–4
/// and `analysis-2.2` count, and the seeded paper-sized draws `analysis-2.2-group-sizes` sets
/// beside every paraphrase.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "paraphrase (group sizes)")]
pub struct ParaphraseArgs {
    /// paraphrase: the group sizes of Figures 2–4 and analysis-2.2: `all` (default) every
    /// paraphrase of the shipped set (3.74 per original), `paper` the paper-sized draw of
    /// `--paraphrase-seed` (Table 1 per bias type, read as `--paraphrase-reading`).
    #[arg(
        long = "paraphrase-group-sizes",
        id = "paraphrase-group-sizes",
        value_parser = choice::<GroupSizes>(),
        default_value = "all"
    )]
    pub group_sizes: GroupSizes,
    /// paraphrase: how Table 1's 383 samples are read for the paper-sized draw:
    /// `includes-originals` (default; 283 paraphrases) or `paraphrases-only` (383 paraphrases:
    /// the shipped set has 100 gender paraphrases of the 109 it needs, and the run fails).
    #[arg(
        long = "paraphrase-reading",
        id = "paraphrase-reading",
        value_parser = choice::<Table1Reading>(),
        default_value = "includes-originals"
    )]
    pub reading: Table1Reading,
    /// paraphrase: the seed of the paper-sized draw (the draws of analysis-2.2-group-sizes take
    /// this seed and the next ones).
    #[arg(long = "paraphrase-seed", id = "paraphrase-seed", default_value_t = 0)]
    pub seed: u64,
    /// paraphrase: seeded paper-sized draws the mean and spread of MPER_AGREE are taken over.
    #[arg(long = "paraphrase-draws", id = "paraphrase-draws", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub draws: u32,
}

impl ParaphraseArgs {
    /// The library options.
    pub fn options(&self) -> Paraphrase2022Options {
        Paraphrase2022Options {
            group_sizes: self.group_sizes,
            reading: self.reading,
            seed: self.seed,
            draws: self.draws as usize,
        }
    }
}
