//! Paraphrase agreement (paraphrase-robustness study §2): hand-counted MPER_AGREE (groups
//! fully agreeing) and paraphrase agreement, near ties, errors, and the paraphrase fixture.

use bias_core::{BiasType, ScoreRow, ScoreTable};
use bias_robust::paraphrase::ScoreScale;
use bias_robust::{mbias, paraphrase_agreement, ParaphraseOptions, RobustError};
use std::path::PathBuf;

fn row(id: &str, group: Option<&str>, bias: BiasType, mdiff: f64) -> ScoreRow {
    ScoreRow::builder(id, bias, -10.0 + mdiff, -10.0)
        .dataset("paraphrase")
        .sentences(format!("{id} stereo"), format!("{id} anti"))
        .scorer("pll")
        .model("m")
        .group(group.map(str::to_owned))
        .build()
}

/// Three groups, chosen MDIFFs:
///
/// | group | type   | original | paraphrases            | agree (hand count)        |
/// |-------|--------|----------|------------------------|---------------------------|
/// | g1    | gender | +0.50 (1)| +0.30, +0.10, −0.05    | 1, 1, 0 → 2 of 3          |
/// | g2    | gender | −0.40 (0)| −0.20, 0.0 (tie → 0)   | 1, 1 → 2 of 2 (MAGREE = 1)|
/// | g3    | age    | +1.00 (1)| −0.30, −0.60, +0.20    | 0, 0, 1 → 1 of 3          |
///
/// Paraphrase agreement = (2 + 2 + 1) / (3 + 2 + 3) = 5/8; MPER_AGREE (groups fully agreeing):
/// g2 only → 1/3.
/// Gender: (2 + 2) / 5 = 4/5, groups 1/2; age: 1/3, groups 0/1.
/// Near ties |MDIFF| < 0.25 over all 11 pairs: 0.10, −0.05, −0.20, 0.0, 0.20 → 5/11.
/// (0.30 and −0.30 are outside; 0.25 exactly would be outside too.)
fn hand_table() -> ScoreTable {
    use BiasType::{Age, Gender};
    ScoreTable::new(vec![
        row("g1", Some("g1"), Gender, 0.5),
        row("g1-p1", Some("g1"), Gender, 0.3),
        row("g1-p2", Some("g1"), Gender, 0.1),
        row("g1-p3", Some("g1"), Gender, -0.05),
        // g2's original carries no group_id: it is the original because others name it.
        row("g2", None, Gender, -0.4),
        row("g2-p1", Some("g2"), Gender, -0.2),
        row("g2-p2", Some("g2"), Gender, 0.0),
        row("g3-p1", Some("g3"), Age, -0.3),
        row("g3", Some("g3"), Age, 1.0),
        row("g3-p2", Some("g3"), Age, -0.6),
        row("g3-p3", Some("g3"), Age, 0.2),
    ])
}

#[test]
fn mper_agree_and_paraphrase_agreement_match_hand_count() {
    let r = paraphrase_agreement(&hand_table(), &ParaphraseOptions::default()).unwrap();
    assert_eq!(r.overall.paraphrases, 8);
    assert_eq!(r.overall.agreeing_paraphrases, 5);
    assert_eq!(r.overall.paraphrase_agree, 5.0 / 8.0);
    assert_eq!(r.overall.groups, 3);
    assert_eq!(r.overall.agreeing_groups, 1);
    assert_eq!(r.overall.mper_agree, 1.0 / 3.0);

    let ids: Vec<&str> = r.groups.iter().map(|g| g.group_id.as_str()).collect();
    assert_eq!(ids, ["g1", "g2", "g3"]);
    let g = &r.groups;
    assert_eq!(
        (g[0].agreeing, g[0].paraphrases, g[0].magreement),
        (2, 3, false)
    );
    assert_eq!(
        (g[1].agreeing, g[1].paraphrases, g[1].magreement),
        (2, 2, true)
    );
    assert_eq!(
        (g[2].agreeing, g[2].paraphrases, g[2].magreement),
        (1, 3, false)
    );
    assert!(g[2].original_mbias && !g[1].original_mbias);

    let gender = &r.by_type[&BiasType::Gender];
    assert_eq!(gender.paraphrase_agree, 4.0 / 5.0);
    assert_eq!(gender.mper_agree, 0.5);
    let age = &r.by_type[&BiasType::Age];
    assert_eq!(age.paraphrase_agree, 1.0 / 3.0);
    assert_eq!(age.mper_agree, 0.0);

    // Per-pair outcomes keep table order; originals carry no agreement flag.
    assert_eq!(r.pairs.len(), 11);
    assert_eq!(r.pairs[0].agrees, None);
    assert_eq!(r.pairs[3].agrees, Some(false));
    assert_eq!(r.pairs[7].group_id, "g3");
    assert!(!r.pairs[7].is_original && r.pairs[8].is_original);
}

#[test]
fn near_tie_share_and_custom_tau() {
    let t = hand_table();
    let r = paraphrase_agreement(&t, &ParaphraseOptions::default()).unwrap();
    assert_eq!(r.near_tie, 0.25);
    assert_eq!((r.overall.near_tie_pairs, r.overall.pairs), (5, 11));
    assert_eq!(r.overall.near_tie_share, 5.0 / 11.0);
    // Gender pairs: 0.5, 0.3, 0.1, −0.05, −0.4, −0.2, 0.0 → 4 of 7; age: 0.2 → 1 of 4.
    assert_eq!(r.by_type[&BiasType::Gender].near_tie_pairs, 4);
    assert_eq!(r.by_type[&BiasType::Age].near_tie_share, 0.25);

    // τ = 0.35 adds 0.30 and −0.30: 7 of 11.
    let wide = paraphrase_agreement(
        &t,
        &ParaphraseOptions {
            near_tie: 0.35,
            scale: None,
        },
    )
    .unwrap();
    assert_eq!(wide.overall.near_tie_pairs, 7);
}

#[test]
fn ties_are_not_stereotypical() {
    assert!(!mbias(0.0));
    assert!(!mbias(-0.0));
    assert!(mbias(1e-12));
}

#[test]
fn errors() {
    use BiasType::Gender;
    let opts = ParaphraseOptions::default();
    // A group without its original.
    let t = ScoreTable::new(vec![
        row("a", None, Gender, 0.1),
        row("a-p1", Some("a"), Gender, 0.1),
        row("b-p1", Some("b"), Gender, 0.1),
    ]);
    match paraphrase_agreement(&t, &opts) {
        Err(RobustError::MissingOriginal { group }) => assert_eq!(group, "b"),
        other => panic!("expected MissingOriginal, got {other:?}"),
    }
    // An original with no paraphrase.
    let t = ScoreTable::new(vec![
        row("a", None, Gender, 0.1),
        row("a-p1", Some("a"), Gender, 0.1),
        row("c", None, Gender, 0.1),
    ]);
    assert!(matches!(
        paraphrase_agreement(&t, &opts),
        Err(RobustError::InvalidParameter { .. })
    ));
    // A repeated pair id.
    let t = ScoreTable::new(vec![
        row("a", None, Gender, 0.1),
        row("a-p1", Some("a"), Gender, 0.1),
        row("a-p1", Some("a"), Gender, 0.2),
    ]);
    assert!(paraphrase_agreement(&t, &opts).is_err());
    // A paraphrase of another bias type.
    let t = ScoreTable::new(vec![
        row("a", None, Gender, 0.1),
        row("a-p1", Some("a"), BiasType::Age, 0.1),
    ]);
    assert!(paraphrase_agreement(&t, &opts).is_err());
    // Two scorers.
    let mut other = row("a-p1", Some("a"), Gender, 0.1);
    other.scorer = "other".into();
    let t = ScoreTable::new(vec![row("a", None, Gender, 0.1), other]);
    assert!(paraphrase_agreement(&t, &opts).is_err());
    // Empty table, bad τ, NaN score.
    assert!(paraphrase_agreement(&ScoreTable::default(), &opts).is_err());
    for tau in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        let opts = ParaphraseOptions {
            near_tie: tau,
            scale: None,
        };
        assert!(paraphrase_agreement(&hand_table(), &opts).is_err());
    }
    let t = ScoreTable::new(vec![
        row("a", None, Gender, 0.1),
        row("a-p1", Some("a"), Gender, f64::NAN),
    ]);
    assert!(paraphrase_agreement(&t, &opts).is_err());
}

/// The stand-in scorer of [`fixture_agreement_is_partial`]: it prefers sentences of 40
/// characters, score(S) = −|chars(S) − 40|. Unlike a monotone length score (whose MDIFF is fixed
/// by the attribute words, so every paraphrase agrees by construction), a paraphrase that moves
/// a sentence across 40 characters can flip MBIAS — as context does to a real PLL.
fn prefers_40_chars(sentence: &str) -> f64 {
    -(sentence.chars().count() as f64 - 40.0).abs()
}

#[test]
fn fixture_loads_and_groups() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/paraphrase/pairs.csv");
    let pairs = bias_data::pairs::read_pairs_path(&path).unwrap();
    assert_eq!(pairs.len(), 84);
    let originals: Vec<_> = pairs
        .iter()
        .filter(|p| p.group_id.as_deref() == Some(&p.id))
        .collect();
    assert_eq!(originals.len(), 21);
    let types: std::collections::BTreeSet<_> =
        originals.iter().map(|p| p.bias_type.clone()).collect();
    for t in [
        BiasType::Gender,
        BiasType::RaceColor,
        BiasType::Religion,
        BiasType::Age,
        BiasType::Nationality,
        BiasType::Socioeconomic,
        BiasType::Disability,
    ] {
        assert!(types.contains(&t), "{t:?} missing");
    }
}

/// The fixture scored with [`prefers_40_chars`]; MDIFF = |c_anti − 40| − |c_stereo − 40| for
/// sentence lengths c (characters), MBIAS = MDIFF > 0. Lengths (c_stereo, c_anti) per group,
/// original first, then p1, p2, p3, and the resulting MBIAS:
///
/// | group | type | original | p1 | p2 | p3 | MBIAS o, p1, p2, p3 |
/// |---|---|---|---|---|---|---|
/// | o01 | gender | 34, 32 | 40, 38 | 27, 25 | 35, 33 | 1, 1, 1, 1 (MDIFF 2 each) |
/// | o02 | gender | 42, 41 | 43, 42 | **39, 38** | 44, 43 | 0, 0, **1**, 0 (−1, −1, 2 − 1 = 1, −1) |
/// | o03 | gender | 43, 45 | 41, 43 | 44, 46 | **39, 41** | 1, 1, 1, **0** (2, 2, 2, 1 − 1 = 0: a tie) |
/// | o04–o06 | race-color | equal lengths in every row | | | | 0 (MDIFF 0) |
/// | o07–o09 | religion | anti 3 longer, all ≥ 40 | | | | 1 (MDIFF 3) |
/// | o10 | age | 50, 52 | 45, 47 | 48, 50 | 44, 46 | 1 (MDIFF 2) |
/// | o11 | age | 46, 43 | 44, 41 | 57, 54 | 46, 43 | 0 (MDIFF −3) |
/// | o12 | age | 53, 51 | 54, 52 | 55, 53 | 58, 56 | 0 (MDIFF −2) |
/// | o13 | nationality | 48, 49 | 48, 49 | 48, 49 | 54, 55 | 1 (MDIFF 1) |
/// | o14 | nationality | equal lengths | | | | 0 (MDIFF 0) |
/// | o15 | nationality | 47, 48 | 54, 55 | 53, 54 | 56, 57 | 1 (MDIFF 1) |
/// | o16 | socioeconomic | equal lengths | | | | 0 (MDIFF 0) |
/// | o17 | socioeconomic | 42, 41 | **40, 39** | 42, 41 | 46, 45 | 0, **1**, 0, 0 (−1, 1 − 0 = 1, −1, −1) |
/// | o18 | socioeconomic | equal lengths | | | | 0 (MDIFF 0) |
/// | o19 | disability | 49, 51 | 53, 55 | 45, 47 | 43, 45 | 1 (MDIFF 2) |
/// | o20 | disability | 38, 41 | **47, 50** | 38, 41 | **48, 51** | 0, **1**, 0, **1** (−1, 3, −1, 3: below) |
/// | o21 | disability | 43, 46 | 45, 48 | 45, 48 | 42, 45 | 1 (MDIFF 3) |
///
/// o20: original |41 − 40| − |38 − 40| = 1 − 2 = −1 (MBIAS 0); p1 |50 − 40| − |47 − 40| =
/// 10 − 7 = 3 (1); p2 = original (0); p3 |51 − 40| − |48 − 40| = 11 − 8 = 3 (1).
///
/// Disagreeing paraphrases (bold): o02-p2, o03-p3, o17-p1, o20-p1, o20-p3 = 5 of 63.
/// Paraphrase agreement = (63 − 5) / 63 = 58/63; MPER_AGREE (groups fully agreeing) = 21 − 4
/// (o02, o03, o17, o20) =
/// 17 → 17/21.
/// Per type: gender (3 + 2 + 2) / 9 = 7/9, groups 1/3; socioeconomic (3 + 2 + 3) / 9 = 8/9,
/// groups 2/3; disability (3 + 1 + 3) / 9 = 7/9, groups 2/3; every other type 1, groups 1.
/// Near ties (|MDIFF| < 0.25 on the sum scale, i.e. MDIFF = 0 here): the 4 rows of each of
/// o04, o05, o06, o14, o16, o18 (24) and o03-p3 (1) = 25 of 84.
#[test]
fn fixture_agreement_is_partial() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/paraphrase/pairs.csv");
    let pairs = bias_data::pairs::read_pairs_path(&path).unwrap();
    let rows: Vec<ScoreRow> = pairs
        .iter()
        .map(|p| ScoreRow {
            pair_id: p.id.clone(),
            dataset: "paraphrase".into(),
            bias_type: p.bias_type.clone(),
            direction: p.direction,
            stereo: p.stereo.clone(),
            anti: p.anti.clone(),
            score_stereo: prefers_40_chars(&p.stereo),
            score_anti: prefers_40_chars(&p.anti),
            scorer: "prefers-40-chars".into(),
            model: "none".into(),
            tokens_stereo: None,
            tokens_anti: None,
            group_id: p.group_id.clone(),
        })
        .collect();
    // The stand-in's scores are not log-probabilities of a known scorer: say which scale τ is on.
    let options = ParaphraseOptions {
        near_tie: 0.25,
        scale: Some(ScoreScale::Sum),
    };
    let r = paraphrase_agreement(&ScoreTable::new(rows), &options).unwrap();
    assert_eq!(r.overall.groups, 21);
    assert_eq!(r.overall.paraphrases, 63);
    assert!(r.groups.iter().all(|g| g.paraphrases == 3));
    assert_eq!(r.overall.agreeing_paraphrases, 58);
    assert_eq!(r.overall.paraphrase_agree, 58.0 / 63.0);
    assert_eq!(r.overall.agreeing_groups, 17);
    assert_eq!(r.overall.mper_agree, 17.0 / 21.0);
    let disagreeing: Vec<&str> = r
        .pairs
        .iter()
        .filter(|p| p.agrees == Some(false))
        .map(|p| p.pair_id.as_str())
        .collect();
    assert_eq!(
        disagreeing,
        ["o02-p2", "o03-p3", "o17-p1", "o20-p1", "o20-p3"]
    );
    let not_full: Vec<&str> = r
        .groups
        .iter()
        .filter(|g| !g.magreement)
        .map(|g| g.group_id.as_str())
        .collect();
    assert_eq!(not_full, ["o02", "o03", "o17", "o20"]);
    assert_eq!(r.by_type.len(), 7);
    for (ty, para, groups) in [
        (BiasType::Gender, 7.0 / 9.0, 1.0 / 3.0),
        (BiasType::Socioeconomic, 8.0 / 9.0, 2.0 / 3.0),
        (BiasType::Disability, 7.0 / 9.0, 2.0 / 3.0),
        (BiasType::RaceColor, 1.0, 1.0),
        (BiasType::Religion, 1.0, 1.0),
        (BiasType::Age, 1.0, 1.0),
        (BiasType::Nationality, 1.0, 1.0),
    ] {
        let s = &r.by_type[&ty];
        assert_eq!((s.paraphrase_agree, s.mper_agree), (para, groups), "{ty:?}");
    }
    assert_eq!(r.overall.near_tie_pairs, 25);
    assert_eq!(r.overall.pairs, 84);
}
