//! The CrowS-Pairs protocol of Schröder, Schulz & Hammer (2024) against the Python fixture of the
//! authors' procedure (`scripts/fixtures/schroeder2024_crows.py`): the kept pairs, their groups
//! and target groups on the whole data set, and the named options that change them.

use bias_testkit::json;
use std::collections::BTreeMap;

use bias_embed::protocol::{
    authors_diff, authors_sets, mask_spans, select_pairs, CrowsFilter, TargetSplit,
};

use bias_testkit::root;

fn fixture() -> serde_json::Value {
    let text = std::fs::read_to_string(root().join("fixtures/embed/schroeder2024_crows.json"))
        .expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

fn crows() -> Vec<bias_core::SentencePair> {
    bias_data::load_pairs(root().join("data/crows-pairs/crows_pairs_anonymized.csv"))
        .expect("data/crows-pairs")
        .pairs
}

#[test]
fn the_authors_sets_have_the_counts_of_table_1() {
    let sets = authors_sets().unwrap();
    let counts: Vec<(String, usize, usize)> = sets
        .iter()
        .map(|s| (s.bias_type.to_string(), s.groups.len(), s.tuples.len()))
        .collect();
    // Schröder et al. 2024 Table 1: race 3 groups / 15 sets, religion 5 / 14, gender 2 / 25,
    // age 2 / 8.
    assert_eq!(
        counts,
        vec![
            ("race-color".into(), 3, 15),
            ("religion".into(), 5, 14),
            ("gender".into(), 2, 25),
            ("age".into(), 2, 8),
        ]
    );
}

#[test]
fn kept_pairs_and_groups_match_the_authors_procedure() {
    let fx = fixture();
    let pairs = crows();
    for s in authors_sets().unwrap() {
        let ty = s.bias_type.to_string();
        let (kept, _) = select_pairs(&pairs, &s, CrowsFilter::Authors, TargetSplit::Authors);
        let ours: Vec<(String, u64, u64, u64)> = kept
            .iter()
            .map(|k| {
                (
                    k.pair_id.clone(),
                    k.group_more as u64,
                    k.group_less as u64,
                    k.target_group as u64,
                )
            })
            .collect();
        let theirs: Vec<(String, u64, u64, u64)> = fx["kept"][&ty]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| {
                (
                    k[0].as_str().unwrap().to_owned(),
                    k[1].as_u64().unwrap(),
                    k[2].as_u64().unwrap(),
                    k[3].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(ours, theirs, "{ty}");
    }
}

#[test]
fn the_named_options_change_the_pairs_and_groups() {
    let pairs = crows();
    let mut touched = BTreeMap::new();
    for s in authors_sets().unwrap() {
        let ty = s.bias_type.to_string();
        let (a, _) = select_pairs(&pairs, &s, CrowsFilter::Authors, TargetSplit::Authors);
        let (b, _) = select_pairs(&pairs, &s, CrowsFilter::SingleSpan, TargetSplit::Authors);
        let (c, _) = select_pairs(&pairs, &s, CrowsFilter::Authors, TargetSplit::SentMore);
        let moved = a
            .iter()
            .zip(&c)
            .filter(|(x, y)| x.target_group != y.target_group)
            .count();
        // Antistereo rows with two different groups are exactly the ones the split moves.
        let antistereo = a
            .iter()
            .filter(|k| {
                pairs[k.index].direction == bias_core::Direction::Antistereo
                    && k.group_more != k.group_less
            })
            .count();
        assert_eq!(moved, antistereo, "{ty}");
        touched.insert(ty, (a.len(), b.len(), moved));
    }
    eprintln!("kept (authors, single-span, targets moved by the split): {touched:?}");
    // The single-span filter keeps fewer gender pairs (several differing spans such as
    // "he … his" are the authors' and not its), and the split moves some targets.
    let (authors, single, moved) = touched["gender"];
    assert!(single < authors, "{touched:?}");
    assert!(moved > 0, "{touched:?}");
}

#[test]
fn the_authors_diff_splits_on_spaces_and_strips_punctuation_but_hyphens() {
    let (a, b) = authors_diff(
        "The African-American man, he ran.",
        "The white man, she ran.",
    );
    assert_eq!(a, vec!["african-american", "he"]);
    assert_eq!(b, vec!["white", "she"]);
    assert_eq!(
        mask_spans(
            "His mind wondered, he said.",
            "Her mind wondered, she said.",
            "[M]"
        ),
        "[M] mind wondered, [M] said."
    );
}

/// The kept pairs, the group order their dataset class builds from the data and every target's
/// group ids equal what the authors' code returned (`fixtures/authors/schroeder2024/minilm.json`,
/// `CrowSPairsDataset` of PLMBiasMeasureBenchmark `ijcnn24`, run unmodified).
#[test]
fn kept_pairs_and_group_ids_equal_the_authors_code() {
    use bias_embed::protocol::{data_group_order, GroupOrder};
    let text = std::fs::read_to_string(root().join("fixtures/authors/schroeder2024/minilm.json"))
        .expect("fixture");
    let authors: serde_json::Value = serde_json::from_str(&text).expect("fixture JSON");
    let pairs = crows();
    for sets in authors_sets().unwrap() {
        let ty = sets.bias_type.to_string();
        let theirs = &authors["models"]["minilm"]["bias_types"][&ty];
        let (mut kept, _) = select_pairs(&pairs, &sets, CrowsFilter::Authors, TargetSplit::Authors);
        let ids: Vec<i64> = kept.iter().map(|k| k.pair_id.parse().unwrap()).collect();
        let want: Vec<i64> = json::ints(&theirs["pair_ids"]);
        assert_eq!(ids, want, "{ty}");
        let order: Vec<&str> = data_group_order(&kept)
            .into_iter()
            .map(|g| sets.groups[g].as_str())
            .collect();
        assert_eq!(
            serde_json::json!(order),
            theirs["groups_data_order"],
            "{ty}"
        );
        GroupOrder::AuthorsCode.apply(&mut kept);
        let ids = |f: fn(&bias_embed::protocol::KeptPair) -> usize| -> serde_json::Value {
            serde_json::json!(kept.iter().map(f).collect::<Vec<_>>())
        };
        assert_eq!(ids(|k| k.target_group), theirs["group_ids"], "{ty}");
        assert_eq!(ids(|k| k.other_group), theirs["group_cf_ids"], "{ty}");
    }
}
