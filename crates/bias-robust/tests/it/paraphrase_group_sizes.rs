//! The paper's group sizes (Kwon & Mihindukulasooriya 2022, §2.1 and Table 1): the seeded draw
//! of `paraphrase::draw_paper_group_sizes` keeps exactly the paraphrases a reading of Table 1
//! implies per bias type (counts worked out here from the paper's Table 1 and the originals per
//! type of CrowS-Pairs rows 0–99), is the same for a seed and differs between seeds, and refuses
//! a reading the set cannot meet; the paper's numbers transcribed in `paraphrase::paper`, and
//! the arithmetic `docs/paraphrase_set.md` draws from them.

use std::collections::{BTreeMap, BTreeSet};

use bias_core::{BiasType, Direction, SentencePair};
use bias_robust::paraphrase::{
    crows_pairs_first100, draw_group_sizes, draw_paper_group_sizes, paper,
    paper_paraphrase_targets, GroupSizes, Table1Reading,
};
use bias_robust::RobustError;

/// Per bias type of the shipped set: (originals, paraphrases there, Table 1's count), the
/// originals counted from CrowS-Pairs rows 0–99 and the paraphrases from the provenance file;
/// Table 1's counts typed from the paper.
const SHIPPED: [(&str, usize, usize, usize); 9] = [
    ("race-color", 34, 106, 106),
    ("gender", 20, 100, 109),
    ("sexual-orientation", 3, 11, 11),
    ("religion", 3, 10, 10),
    ("age", 2, 6, 6),
    ("nationality", 10, 32, 32),
    ("disability", 11, 41, 41),
    ("physical-appearance", 7, 30, 30),
    ("socioeconomic", 10, 38, 38),
];

fn is_original(p: &SentencePair) -> bool {
    p.group_id.as_deref().is_none_or(|g| g == p.id)
}

fn group(p: &SentencePair) -> &str {
    p.group_id.as_deref().unwrap_or(&p.id)
}

/// Paraphrases per bias type, and per group, of `pairs`.
fn sizes(pairs: &[SentencePair]) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
    let mut by_type = BTreeMap::new();
    let mut by_group = BTreeMap::new();
    for p in pairs {
        let g = by_group.entry(group(p).to_owned()).or_insert(0);
        if !is_original(p) {
            *g += 1;
            *by_type.entry(p.bias_type.to_string()).or_insert(0) += 1;
        }
    }
    (by_type, by_group)
}

fn ids(pairs: &[SentencePair]) -> Vec<&str> {
    pairs.iter().map(|p| p.id.as_str()).collect()
}

#[test]
fn table_1_as_transcribed() {
    // Table 1: 106 + 109 + 11 + 10 + 6 + 32 + 41 + 30 + 38 = 383, §2.1's "383 samples".
    let counts: Vec<(&str, usize)> = paper::TABLE_1
        .iter()
        .map(|(_, t, n)| (t.as_str(), *n))
        .collect();
    let expected: Vec<(&str, usize)> = SHIPPED.iter().map(|s| (s.0, s.3)).collect();
    assert_eq!(counts, expected);
    assert_eq!(106 + 109 + 11 + 10 + 6 + 32 + 41 + 30 + 38, paper::SAMPLES);
    assert_eq!(counts.iter().map(|c| c.1).sum::<usize>(), 383);
    assert_eq!(paper::ORIGINALS, 100);
    assert_eq!(paper::PARAPHRASES_PER_ORIGINAL, (3, 5));
    assert_eq!(paper::table_1_count(&BiasType::Gender), Some(109));
    assert_eq!(paper::table_1_count(&BiasType::Profession), None);
}

#[test]
fn figure_3_gender_percentages_are_counts_of_21_originals() {
    // §2.2: 38, 43, 43, 67, 71 % (ALBERT, MPNet, RoBERTa, BERT, DistilBERT) on gender.
    let printed: Vec<f64> = paper::MPER_AGREE_GENDER.iter().map(|m| m.1).collect();
    assert_eq!(printed, [38.0, 43.0, 43.0, 67.0, 71.0]);
    // By hand: 8/21 = 38.10 %, 9/21 = 42.86 %, 14/21 = 66.67 %, 15/21 = 71.43 %.
    for (k, pct) in [(8, 38.0), (9, 43.0), (9, 43.0), (14, 67.0), (15, 71.0)] {
        assert_eq!((100.0 * k as f64 / 21.0).round(), pct, "{k}/21");
    }
    // Of 20 originals (the gender pairs of CrowS-Pairs rows 0–99) every share is a multiple of
    // 5 %: none is 38 or 43 %.
    for k in 0..=20 {
        let pct = (100.0 * k as f64 / 20.0).round();
        assert!(
            pct != 38.0 && pct != 43.0 && pct != 67.0 && pct != 71.0,
            "{k}/20"
        );
    }
    // Nor does any count below 21 give all four.
    for n in 1..21 {
        let fits = |pct: f64| (0..=n).any(|k| (100.0 * k as f64 / n as f64).round() == pct);
        assert!(
            !(fits(38.0) && fits(43.0) && fits(67.0) && fits(71.0)),
            "{n} originals"
        );
    }
    // 109 gender samples over 21 originals: 5.19 each (all paraphrases), or (109 − 21) / 21 =
    // 4.19 (originals included).
    assert_eq!(format!("{:.2}", 109.0 / 21.0), "5.19");
    assert_eq!(format!("{:.2}", 88.0 / 21.0), "4.19");
    // §2.2 on Figure 2.
    assert_eq!(
        paper::MPER_AGREE_OVERALL,
        [("DistilBERT-base", 75.0), ("MPNet-base", 57.0)]
    );
    assert_eq!(paper::MPER_AGREE_BELOW, 80.0);
}

#[test]
fn targets_of_both_readings_by_hand() {
    let set = crows_pairs_first100();
    let with = paper_paraphrase_targets(&set, Table1Reading::IncludesOriginals).unwrap();
    let only = paper_paraphrase_targets(&set, Table1Reading::ParaphrasesOnly).unwrap();
    for (ty, originals, _, table_1) in SHIPPED {
        let t: BiasType = ty.parse().unwrap();
        assert_eq!(with[&t], table_1 - originals, "{ty}");
        assert_eq!(only[&t], table_1, "{ty}");
    }
    // 383 − 100 = 283 paraphrases, 2.83 per original; 383 paraphrases, 3.83 per original.
    assert_eq!(with.values().sum::<usize>(), 283);
    assert_eq!(only.values().sum::<usize>(), 383);
    assert_eq!(with.len(), 9);
}

#[test]
fn paper_draw_keeps_the_reading_exactly_per_type() {
    let set = crows_pairs_first100();
    let originals: Vec<&str> = set
        .iter()
        .filter(|p| is_original(p))
        .map(|p| p.id.as_str())
        .collect();
    let all_ids: BTreeSet<&str> = ids(&set).into_iter().collect();
    for seed in [0, 1, 7, 12345] {
        let drawn = draw_paper_group_sizes(&set, Table1Reading::IncludesOriginals, seed).unwrap();
        let (by_type, by_group) = sizes(&drawn);
        // Table 1 less the originals, per type: race-color 106 − 34 = 72, gender 109 − 20 = 89,
        // sexual-orientation 8, religion 7, age 4, nationality 22, disability 30,
        // physical-appearance 23, socioeconomic 28.
        let expected: BTreeMap<String, usize> = SHIPPED
            .iter()
            .map(|&(ty, o, _, t1)| (ty.to_owned(), t1 - o))
            .collect();
        assert_eq!(by_type, expected, "seed {seed}");
        assert_eq!(drawn.len(), 100 + 283, "seed {seed}");
        // Every original is kept, in order, and nothing is invented.
        let kept_originals: Vec<&str> = drawn
            .iter()
            .filter(|p| is_original(p))
            .map(|p| p.id.as_str())
            .collect();
        assert_eq!(kept_originals, originals);
        assert!(ids(&drawn).iter().all(|id| all_ids.contains(id)));
        let order: Vec<usize> = drawn
            .iter()
            .map(|p| set.iter().position(|q| q.id == p.id).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "input order");
        // Sizes within a type differ by at most one (no group of the shipped set runs short:
        // e.g. gender's 89 over 20 is 4 or 5, and every gender group has 5), and every
        // original keeps one at least.
        for &(ty, o, _, t1) in &SHIPPED {
            let group_sizes: Vec<usize> = drawn
                .iter()
                .filter(|p| is_original(p) && p.bias_type.as_str() == ty)
                .map(|p| by_group[&p.id])
                .collect();
            assert_eq!(group_sizes.len(), o);
            let (lo, hi) = (
                *group_sizes.iter().min().unwrap(),
                *group_sizes.iter().max().unwrap(),
            );
            assert!(hi - lo <= 1 && lo >= 1, "{ty}: {group_sizes:?}");
            assert_eq!(lo, (t1 - o) / o, "{ty}: floor of the mean");
        }
    }
}

#[test]
fn same_seed_same_draw_other_seed_other_draw() {
    let set = crows_pairs_first100();
    let draw = |seed| draw_paper_group_sizes(&set, Table1Reading::IncludesOriginals, seed).unwrap();
    assert_eq!(draw(3), draw(3));
    assert_ne!(ids(&draw(0)), ids(&draw(1)));
    let distinct: BTreeSet<Vec<String>> = (0..20)
        .map(|s| draw(s).into_iter().map(|p| p.id).collect())
        .collect();
    assert_eq!(distinct.len(), 20);
}

#[test]
fn a_reading_the_set_cannot_meet_is_refused() {
    // 383 read as paraphrases: gender needs 109, the set has 100 (20 originals × 5).
    let set = crows_pairs_first100();
    let e = draw_paper_group_sizes(&set, Table1Reading::ParaphrasesOnly, 0).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, RobustError::InvalidParameter { .. }), "{e:?}");
    for part in [
        "bias type gender",
        "109",
        "100 paraphrases",
        "20 originals",
        "fewer paraphrases than the reading needs",
        "paraphrases only",
    ] {
        assert!(msg.contains(part), "{part:?} not in {msg}");
    }
}

fn pair(id: &str, group: &str, ty: BiasType) -> SentencePair {
    SentencePair {
        id: id.into(),
        stereo: format!("{id} s"),
        anti: format!("{id} a"),
        bias_type: ty,
        direction: Direction::Stereo,
        group_id: Some(group.into()),
    }
}

/// g1 (gender) has 3 paraphrases, g2 (gender) 1, a1 (age) 2.
fn small() -> Vec<SentencePair> {
    vec![
        pair("g1", "g1", BiasType::Gender),
        pair("g1-p1", "g1", BiasType::Gender),
        pair("g1-p2", "g1", BiasType::Gender),
        pair("g1-p3", "g1", BiasType::Gender),
        pair("g2", "g2", BiasType::Gender),
        pair("g2-p1", "g2", BiasType::Gender),
        pair("a1", "a1", BiasType::Age),
        pair("a1-p1", "a1", BiasType::Age),
        pair("a1-p2", "a1", BiasType::Age),
    ]
}

fn targets(gender: usize, age: usize) -> BTreeMap<BiasType, usize> {
    [(BiasType::Gender, gender), (BiasType::Age, age)]
        .into_iter()
        .collect()
}

#[test]
fn a_short_group_gives_its_share_to_the_others() {
    // Gender 4 over g1 (3) and g2 (1): round robin gives 1 + 1, then only g1 has one left,
    // so g1 2 more: g1 3, g2 1 whatever the order. Age 1 of a1's 2.
    for seed in 0..10 {
        let drawn = draw_group_sizes(&small(), &targets(4, 1), seed).unwrap();
        let (by_type, by_group) = sizes(&drawn);
        assert_eq!(by_group["g1"], 3, "seed {seed}");
        assert_eq!(by_group["g2"], 1, "seed {seed}");
        assert_eq!(by_group["a1"], 1, "seed {seed}");
        assert_eq!(by_type["gender"], 4);
    }
    // Gender 3: 1 + 1, then the third goes to g1 (g2 has none left): g1 2, g2 1.
    let (_, by_group) = sizes(&draw_group_sizes(&small(), &targets(3, 2), 5).unwrap());
    assert_eq!((by_group["g1"], by_group["g2"], by_group["a1"]), (2, 1, 2));
    // Which of a1's two paraphrases is kept depends on the seed: both occur over 20 seeds.
    let kept: BTreeSet<String> = (0..20)
        .map(|s| {
            draw_group_sizes(&small(), &targets(2, 1), s)
                .unwrap()
                .into_iter()
                .find(|p| p.id.starts_with("a1-"))
                .unwrap()
                .id
        })
        .collect();
    assert_eq!(kept.len(), 2);
}

#[test]
fn draw_errors_are_clear() {
    let err = |pairs: &[SentencePair], t: BTreeMap<BiasType, usize>| {
        draw_group_sizes(pairs, &t, 0).unwrap_err().to_string()
    };
    // More than there are: gender has 4.
    let msg = err(&small(), targets(5, 1));
    assert!(
        msg.contains("bias type gender") && msg.contains("= 5"),
        "{msg}"
    );
    assert!(
        msg.contains("at most the 4 paraphrases its 2 originals have"),
        "{msg}"
    );
    // Fewer than the originals: each keeps one.
    let msg = err(&small(), targets(1, 1));
    assert!(msg.contains("at least one per original (2)"), "{msg}");
    // A type without a target, and a target without a type.
    let mut t = targets(2, 1);
    t.remove(&BiasType::Age);
    let msg = err(&small(), t);
    assert!(
        msg.contains("bias type age") && msg.contains("none given"),
        "{msg}"
    );
    let mut t = targets(2, 1);
    t.insert(BiasType::Religion, 3);
    let msg = err(&small(), t);
    assert!(
        msg.contains("bias type religion") && msg.contains("no original"),
        "{msg}"
    );
    // A paraphrase without its original.
    let mut pairs = small();
    pairs.remove(4); // g2
    let e = draw_group_sizes(&pairs, &targets(2, 1), 0).unwrap_err();
    assert!(
        matches!(&e, RobustError::MissingOriginal { group } if group == "g2"),
        "{e:?}"
    );
    // An original without paraphrases.
    let mut pairs = small();
    pairs.push(pair("g3", "g3", BiasType::Gender));
    let msg = err(&pairs, targets(4, 1));
    assert!(msg.contains("paraphrases of original \"g3\""), "{msg}");
    // A repeated id; a paraphrase of another type than its original.
    let mut pairs = small();
    pairs.push(pair("g1-p1", "g1", BiasType::Gender));
    assert!(err(&pairs, targets(2, 1)).contains("pair id = g1-p1"));
    let mut pairs = small();
    pairs[3].bias_type = BiasType::Age;
    let msg = err(&pairs, targets(2, 1));
    assert!(msg.contains("bias_type of paraphrase \"g1-p3\""), "{msg}");
    // A type Table 1 does not list.
    let pairs = vec![
        pair("x", "x", BiasType::Profession),
        pair("x-p1", "x", BiasType::Profession),
    ];
    let msg = paper_paraphrase_targets(&pairs, Table1Reading::IncludesOriginals)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("bias type = profession"), "{msg}");
}

#[test]
fn names_parse() {
    assert_eq!("paper".parse::<GroupSizes>().unwrap(), GroupSizes::Paper);
    assert_eq!(" ALL ".parse::<GroupSizes>().unwrap(), GroupSizes::All);
    assert_eq!(
        "includes-originals".parse::<Table1Reading>().unwrap(),
        Table1Reading::IncludesOriginals
    );
    assert_eq!(
        "paraphrases-only".parse::<Table1Reading>().unwrap(),
        Table1Reading::ParaphrasesOnly
    );
    let msg = "some".parse::<GroupSizes>().unwrap_err().to_string();
    assert!(msg.contains("one of all, paper"), "{msg}");
}
