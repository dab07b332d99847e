//! `bias embed --dataset crows-pairs`: the CrowS-Pairs protocol of Schröder, Schulz & Hammer
//! (2024) on a model's encoder, one row per measure and bias type.

use bias_embed::protocol::CrowsMeasureOptions;
use bias_embed::protocol::{
    crows_measures, crows_targets_with, mask_spans, CrowsFilter, CrowsTargets, DefiningSets,
    DefiningSetsSource, GroupOrder, Masking, TargetSplit,
};
use bias_embed::{Ddof, DynEmbedder, SameVariant, SubspaceVectors};

use super::{ddof, permutation_options, EmbedArgs, Row};
use crate::choice::choice;
use crate::error::CliError;
use clap::Args;

/// The CrowS-Pairs protocol of Schröder, Schulz & Hammer (2024, §4.2.3, §4.3.4), the authors'
/// choices by default.
#[derive(Debug, Clone, Args)]
pub struct CrowsProtocolArgs {
    /// CrowS-Pairs: the defining sets (attributes, and the terms a pair must swap).
    #[arg(long, value_parser = choice::<DefiningSetsSource>(), default_value = "authors")]
    pub defining_sets: DefiningSetsSource,
    /// CrowS-Pairs: which pairs are kept (authors: several differing spans, all terms of one
    /// group per side; single-span: this project's earlier protocol).
    #[arg(long, value_parser = choice::<CrowsFilter>(), default_value = "authors")]
    pub crows_filter: CrowsFilter,
    /// CrowS-Pairs: the group a target counts for in WEAT/gWEAT (authors: the sent_less group
    /// for antistereo rows; sent-more: always the sent_more group).
    #[arg(long, value_parser = choice::<TargetSplit>(), default_value = "authors")]
    pub target_split: TargetSplit,
    /// CrowS-Pairs: how the group terms are masked (per-token: one mask per differing token, as
    /// the authors; per-span: one per differing word span).
    #[arg(long, value_parser = choice::<Masking>(), default_value = "per-token")]
    pub crows_masking: Masking,
    /// CrowS-Pairs: the vectors of DirectBias's PCA (raw: the term embeddings as they are, as the
    /// authors' code; unit: unit-normalised first, as Bolukbasi et al.'s code).
    #[arg(long, value_parser = choice::<SubspaceVectors>(), default_value = "raw")]
    pub crows_subspace: SubspaceVectors,
    /// CrowS-Pairs: which attribute set a target group is paired with (authors: groups numbered
    /// in data order against the file's order of attribute sets, as their code; file: its own).
    #[arg(long, value_parser = choice::<GroupOrder>(), default_value = "authors")]
    pub crows_group_order: GroupOrder,
}

impl CrowsProtocolArgs {
    /// The defining sets chosen.
    ///
    /// # Errors
    /// The authors' file's parse error (it is shipped well-formed).
    pub fn sets(&self) -> Result<Vec<DefiningSets>, CliError> {
        Ok(self.defining_sets.sets()?)
    }

    /// The filter chosen.
    pub fn filter(&self) -> CrowsFilter {
        self.crows_filter
    }

    /// The split chosen.
    pub fn split(&self) -> TargetSplit {
        self.target_split
    }

    /// The masking chosen.
    pub fn masking(&self) -> Masking {
        self.crows_masking
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
            a.protocol.crows_group_order,
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
        subspace: a.protocol.crows_subspace,
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
