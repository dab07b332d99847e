//! `bias_data::counts` on pairs counted by hand.

use bias_core::{BiasType, Direction, SentencePair};

#[test]
fn counts_of_three_pairs_by_hand() {
    assert_eq!(bias_data::counts(&[]).n_pairs, 0);
    // Three pairs counted by hand: gender 2, age 1; stereo 1, antistereo 2; one group (g1) of 2.
    let pair = |id: &str, bias_type, direction, group: Option<&str>| SentencePair {
        id: id.into(),
        stereo: "a".into(),
        anti: "b".into(),
        bias_type,
        direction,
        group_id: group.map(str::to_owned),
    };
    let pairs = vec![
        pair("1", BiasType::Gender, Direction::Stereo, Some("g1")),
        pair("2", BiasType::Gender, Direction::Antistereo, Some("g1")),
        pair("3", BiasType::Age, Direction::Antistereo, None),
    ];
    let counts = bias_data::counts(&pairs);
    let entries = |e: &[bias_data::CountEntry]| -> Vec<(String, usize)> {
        e.iter().map(|c| (c.label.clone(), c.count)).collect()
    };
    assert_eq!(counts.n_pairs, 3);
    assert_eq!(
        entries(&counts.by_bias_type),
        [("gender".to_owned(), 2), ("age".to_owned(), 1)]
    );
    assert_eq!(
        entries(&counts.by_direction),
        [("antistereo".to_owned(), 2), ("stereo".to_owned(), 1)]
    );
    assert_eq!((counts.n_groups, counts.n_grouped_pairs), (1, 2));
    assert!(counts.sections.is_empty());
}
