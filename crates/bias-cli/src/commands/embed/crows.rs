//! `bias embed --dataset crows-pairs`: the CrowS-Pairs protocol of Schröder, Schulz & Hammer
//! (2024) on a model's encoder, one row per measure and bias type.

use bias_embed::protocol::CrowsMeasureOptions;
use bias_embed::protocol::{
    authors_sets, crows_measures, crows_targets_with, mask_spans, same_paper_sets, CrowsFilter,
    CrowsTargets, DefiningSets, GroupOrder, Masking, TargetSplit,
};
use bias_embed::{Ddof, DynEmbedder, SameVariant, SubspaceVectors};

use super::{ddof, permutation_options, EmbedArgs, Row};
use crate::error::CliError;
use clap::Args;

/// The defining sets of the CrowS-Pairs protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DefiningSetsArg {
    /// The authors' `protected_groups.json` (Schröder et al. 2024 Table 1; shipped with its MIT
    /// licence).
    Authors,
    /// The sets written for this project before the authors' file was shipped.
    Project,
}

/// Which CrowS-Pairs pairs are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CrowsFilterArg {
    /// The authors' code: several differing spans allowed, all terms of one group per side.
    Authors,
    /// One differing span whose two sides are terms of two different groups.
    SingleSpan,
}

/// Which group a target counts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TargetSplitArg {
    /// The authors' code: the `sent_less` group for antistereo rows.
    Authors,
    /// The `sent_more` group whatever the direction.
    SentMore,
}

/// How the group terms are removed from a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MaskingArg {
    /// One mask per differing token, with the model's tokenizer (the authors' code).
    PerToken,
    /// One mask per differing word span.
    PerSpan,
}

/// The vectors DirectBias's bias subspace is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SubspaceArg {
    /// The term embeddings as they are (the authors' `pca_bias_subspace`).
    Raw,
    /// Each term embedding unit-normalised first (Bolukbasi et al. 2016's code).
    Unit,
}

impl SubspaceArg {
    /// The library's choice.
    pub fn vectors(self) -> SubspaceVectors {
        match self {
            SubspaceArg::Raw => SubspaceVectors::Raw,
            SubspaceArg::Unit => SubspaceVectors::Unit,
        }
    }
}

/// Which attribute set a target group is paired with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GroupOrderArg {
    /// The authors' code: target groups numbered in the order they appear in the data,
    /// attribute sets in the file's order (differs for religion).
    Authors,
    /// Every target paired with its own group's terms.
    File,
}

impl GroupOrderArg {
    /// The library's choice.
    pub fn order(self) -> GroupOrder {
        match self {
            GroupOrderArg::Authors => GroupOrder::AuthorsCode,
            GroupOrderArg::File => GroupOrder::File,
        }
    }
}

/// The CrowS-Pairs protocol of Schröder, Schulz & Hammer (2024, §4.2.3, §4.3.4), the authors'
/// choices by default.
#[derive(Debug, Clone, Args)]
pub struct CrowsProtocolArgs {
    /// CrowS-Pairs: the defining sets (attributes, and the terms a pair must swap).
    #[arg(long, value_enum, default_value_t = DefiningSetsArg::Authors)]
    pub defining_sets: DefiningSetsArg,
    /// CrowS-Pairs: which pairs are kept (authors: several differing spans, all terms of one
    /// group per side; single-span: this project's earlier protocol).
    #[arg(long, value_enum, default_value_t = CrowsFilterArg::Authors)]
    pub crows_filter: CrowsFilterArg,
    /// CrowS-Pairs: the group a target counts for in WEAT/gWEAT (authors: the sent_less group
    /// for antistereo rows; sent-more: always the sent_more group).
    #[arg(long, value_enum, default_value_t = TargetSplitArg::Authors)]
    pub target_split: TargetSplitArg,
    /// CrowS-Pairs: how the group terms are masked (per-token: one mask per differing token, as
    /// the authors; per-span: one per differing word span).
    #[arg(long, value_enum, default_value_t = MaskingArg::PerToken)]
    pub crows_masking: MaskingArg,
    /// CrowS-Pairs: the vectors of DirectBias's PCA (raw: the term embeddings as they are, as the
    /// authors' code; unit: unit-normalised first, as Bolukbasi et al.'s code).
    #[arg(long, value_enum, default_value_t = SubspaceArg::Raw)]
    pub crows_subspace: SubspaceArg,
    /// CrowS-Pairs: which attribute set a target group is paired with (authors: groups numbered
    /// in data order against the file's order of attribute sets, as their code; file: its own).
    #[arg(long, value_enum, default_value_t = GroupOrderArg::Authors)]
    pub crows_group_order: GroupOrderArg,
}

impl CrowsProtocolArgs {
    /// The defining sets chosen.
    ///
    /// # Errors
    /// The authors' file's parse error (it is shipped well-formed).
    pub fn sets(&self) -> Result<Vec<DefiningSets>, CliError> {
        Ok(match self.defining_sets {
            DefiningSetsArg::Authors => authors_sets()?,
            DefiningSetsArg::Project => same_paper_sets(),
        })
    }

    /// The filter chosen.
    pub fn filter(&self) -> CrowsFilter {
        match self.crows_filter {
            CrowsFilterArg::Authors => CrowsFilter::Authors,
            CrowsFilterArg::SingleSpan => CrowsFilter::SingleSpan,
        }
    }

    /// The split chosen.
    pub fn split(&self) -> TargetSplit {
        match self.target_split {
            TargetSplitArg::Authors => TargetSplit::Authors,
            TargetSplitArg::SentMore => TargetSplit::SentMore,
        }
    }

    /// The masking chosen.
    pub fn masking(&self) -> Masking {
        match self.crows_masking {
            MaskingArg::PerToken => Masking::PerToken,
            MaskingArg::PerSpan => Masking::PerSpan,
        }
    }
}

/// schroeder2024's CrowS-Pairs experiment on a model: per bias type, SAME, WEAT or gWEAT, and
/// DirectBias on the masked targets, under the protocol of `--defining-sets`, `--crows-filter`,
/// `--target-split` and `--crows-masking` (the authors' by default).
pub(super) fn crows_rows(a: &EmbedArgs, dataset: &str) -> Result<Vec<Row>, CliError> {
    let model = a.source.open_model("--dataset")?;
    let mask = {
        let t = model.tokenizer();
        t.id_to_token(t.mask_id()?)
            .unwrap_or_else(|| "[MASK]".into())
    };
    let path = bias_data::layout::resolve_dataset(dataset, &a.data_dir);
    let pairs = bias_data::load_pairs(&path)?.pairs;
    let mut found_by_type = Vec::new();
    for sets in a.protocol.sets()? {
        let found = crows_targets_with(
            &pairs,
            &sets,
            a.protocol.filter(),
            a.protocol.split(),
            a.protocol.crows_group_order.order(),
            |p| -> Result<String, CliError> {
                Ok(match a.protocol.masking() {
                    Masking::PerToken => {
                        bias_plm::mask_differing_tokens(model.tokenizer(), &p.stereo, &p.anti)?
                    }
                    Masking::PerSpan => mask_spans(&p.stereo, &p.anti, &mask),
                })
            },
        )?;
        found_by_type.push((sets, found));
    }
    let mut embedder = DynEmbedder::new(model);
    let mut rows = Vec::new();
    for (sets, found) in &found_by_type {
        rows.extend(crows_type_rows(a, &mut embedder, sets, found)?);
    }
    Ok(rows)
}

fn crows_type_rows(
    a: &EmbedArgs,
    embedder: &mut DynEmbedder<'_>,
    sets: &DefiningSets,
    found: &CrowsTargets,
) -> Result<Vec<Row>, CliError> {
    let ty = sets.bias_type.to_string();
    let row = |measure: &str, value: Option<f64>, detail: String| {
        let mut r = Row::new(ty.clone(), measure, detail);
        r.value = value;
        r
    };
    if found.targets.len() < 2 {
        let detail = format!(
            "{} pairs kept, {} excluded: too few targets",
            found.targets.len(),
            found.excluded.len()
        );
        return Ok(vec![row("same", None, detail)]);
    }
    let options = CrowsMeasureOptions {
        ddof: ddof(a, Ddof::One)?,
        permutations: permutation_options(a),
        c: a.c,
        same: if a.same_authors {
            SameVariant::AuthorsCode
        } else {
            SameVariant::Paper
        },
        subspace: a.protocol.crows_subspace.vectors(),
    };
    let m = crows_measures(embedder, sets, found, &options)?;
    let sizes: Vec<String> = m
        .targets_per_group
        .iter()
        .map(ToString::to_string)
        .collect();
    let split = format!("targets per group {}", sizes.join("/"));
    let kept = format!("{} pairs kept, {} excluded", m.kept, m.excluded);
    let mut rows = vec![row("same", Some(m.same), kept)];
    rows.push(match (sets.groups.len(), &m.weat, m.gweat) {
        (2, Some((d, p)), _) => row("weat", Some(*d), split).with_p(p),
        (2, None, _) => row("weat", None, format!("{split}: a group has fewer than 2")),
        (_, _, Some(v)) => row("gweat", Some(v), split),
        (_, _, None) => row("gweat", None, format!("{split}: a group has no targets")),
    });
    let detail = format!(
        "k={} c={} subspace of {} vectors",
        m.k,
        a.c,
        options.subspace.name()
    );
    rows.push(row("direct-bias", Some(m.direct_bias), detail));
    Ok(rows)
}
