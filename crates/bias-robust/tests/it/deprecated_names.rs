//! The names renamed in 0.2.0 still compile, as deprecated aliases of the new ones, for one
//! release: `*Config` settings structs became `*Options`, and `bias_data::stats` became
//! `bias_data::counts`.
#![allow(deprecated)]

use bias_core::{BiasType, Direction, SentencePair, TrainingConfig, TrainingOptions};
use bias_robust::{RetestConfig, RetestOptions, RobustnessConfig, RobustnessOptions};

#[test]
fn old_settings_names_are_the_new_types() {
    let retest: RetestOptions = RetestConfig {
        repeats: 3,
        ..RetestConfig::default()
    };
    assert_eq!(retest.repeats, 3);
    let robustness: RobustnessOptions = RobustnessConfig::default();
    assert_eq!(robustness, RobustnessOptions::default());
    let training: TrainingOptions = TrainingConfig::kaneko2023();
    assert_eq!(training, TrainingOptions::kaneko2023());
}

#[test]
fn old_counts_name_gives_the_same_counts() {
    let pairs: Vec<SentencePair> = Vec::new();
    assert_eq!(bias_data::stats(&pairs), bias_data::counts(&pairs));
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
    let old = bias_data::stats(&pairs);
    assert_eq!(old, bias_data::counts(&pairs));
    let entries = |e: &[bias_data::CountEntry]| -> Vec<(String, usize)> {
        e.iter().map(|c| (c.label.clone(), c.count)).collect()
    };
    assert_eq!(old.n_pairs, 3);
    assert_eq!(
        entries(&old.by_bias_type),
        [("gender".to_owned(), 2), ("age".to_owned(), 1)]
    );
    assert_eq!(
        entries(&old.by_direction),
        [("antistereo".to_owned(), 2), ("stereo".to_owned(), 1)]
    );
    assert_eq!((old.n_groups, old.n_grouped_pairs), (1, 2));
    assert!(old.sections.is_empty());
}
