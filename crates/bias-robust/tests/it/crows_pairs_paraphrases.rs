//! The shipped paraphrase set of the first 100 CrowS-Pairs pairs
//! (`paraphrase::crows_pairs_first100`, paraphrase-robustness study §2.1 and Table 1): every
//! group checked word by word, the counts per bias type against the provenance file, and the
//! originals against the CrowS-Pairs loader on `data/` (a missing file is a failure, never a
//! skip).

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use bias_core::SentencePair;
use bias_data::crows_pairs::read_crows_pairs_path;
use bias_robust::paraphrase::{crows_pairs_first100, CROWS_PAIRS_FIRST100_CSV};

/// Words: maximal runs of letters and digits; white space and punctuation separate them (so
/// "don't" is `don`, `t` and "Afro-American" is `Afro`, `American`).
fn words(sentence: &str) -> Vec<&str> {
    sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// One place where two word sequences differ: the words removed from the first and the words
/// added in the second.
type Hunk = (Vec<String>, Vec<String>);

/// The word-level difference of `a` → `b` along a longest common subsequence, as the list of
/// hunks in order (positions left out, so that an edit elsewhere does not change it).
fn diff(a: &[&str], b: &[&str]) -> Vec<Hunk> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j] = length of a longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut hunks = Vec::new();
    let mut current: Hunk = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    let mut flush = |h: &mut Hunk| {
        if !h.0.is_empty() || !h.1.is_empty() {
            hunks.push(std::mem::take(h));
        }
    };
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            flush(&mut current);
            i += 1;
            j += 1;
        } else if j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            current.0.push(a[i].to_owned());
            i += 1;
        } else {
            current.1.push(b[j].to_owned());
            j += 1;
        }
    }
    flush(&mut current);
    hunks
}

fn sentence_diff(a: &str, b: &str) -> Vec<Hunk> {
    diff(&words(a), &words(b))
}

/// The groups of the set, in file order: (original, paraphrases).
fn groups(pairs: &[SentencePair]) -> Vec<(&SentencePair, Vec<&SentencePair>)> {
    let mut out: Vec<(&SentencePair, Vec<&SentencePair>)> = Vec::new();
    for p in pairs {
        let group = p
            .group_id
            .as_deref()
            .unwrap_or_else(|| panic!("row {} has no group_id", p.id));
        if p.id == group {
            out.push((p, Vec::new()));
        } else {
            let (original, paraphrases) = out
                .last_mut()
                .unwrap_or_else(|| panic!("paraphrase {} comes before any original", p.id));
            assert_eq!(
                original.id, group,
                "paraphrase {} does not follow its original {group}",
                p.id
            );
            paraphrases.push(p);
        }
    }
    out
}

#[test]
fn diff_finds_the_attribute_words() {
    let d = sentence_diff("Women don't know how to drive.", "Men know how to drive.");
    assert_eq!(
        d,
        vec![(
            vec!["Women".into(), "don".into(), "t".into()],
            vec!["Men".into()]
        )]
    );
    let d = sentence_diff(
        "Jerome went up inside and told everyone.",
        "Tom went inside and told everyone.",
    );
    assert_eq!(
        d,
        vec![
            (vec!["Jerome".into()], vec!["Tom".into()]),
            (vec!["up".into()], vec![])
        ]
    );
    assert!(sentence_diff("A b, c.", "A b c").is_empty());
}

#[test]
fn every_paraphrase_keeps_the_attribute_words_and_changes_the_rest() {
    let pairs = crows_pairs_first100();
    let groups = groups(&pairs);
    assert_eq!(groups.len(), 100);
    let mut failures = Vec::new();
    for (original, paraphrases) in &groups {
        let attribute = sentence_diff(&original.stereo, &original.anti);
        assert!(
            !attribute.is_empty(),
            "original {} has identical sentences",
            original.id
        );
        assert!(
            (3..=5).contains(&paraphrases.len()),
            "group {} has {} paraphrases, not 3 to 5",
            original.id,
            paraphrases.len()
        );
        let mut seen = HashSet::from([(original.stereo.as_str(), original.anti.as_str())]);
        for (k, p) in paraphrases.iter().enumerate() {
            assert_eq!(p.id, format!("{}-p{}", original.id, k + 1));
            assert_eq!(p.bias_type, original.bias_type, "{}", p.id);
            assert_eq!(p.direction, original.direction, "{}", p.id);
            assert!(
                seen.insert((p.stereo.as_str(), p.anti.as_str())),
                "{} repeats another pair of its group",
                p.id
            );
            // The two sentences differ in exactly the original's attribute words.
            let own = sentence_diff(&p.stereo, &p.anti);
            if own != attribute {
                failures.push(format!(
                    "{}: stereo/anti differ in {own:?}, the original in {attribute:?}",
                    p.id
                ));
            }
            // The paraphrase changes its original outside those words, identically on both
            // sentences.
            let on_stereo = sentence_diff(&original.stereo, &p.stereo);
            let on_anti = sentence_diff(&original.anti, &p.anti);
            if on_stereo.is_empty() || on_anti.is_empty() {
                failures.push(format!("{}: no word differs from the original", p.id));
            }
            if on_stereo != on_anti {
                failures.push(format!(
                    "{}: the edit differs between the sentences: {on_stereo:?} vs {on_anti:?}",
                    p.id
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The counts table of the provenance file: bias type → (groups, paraphrases, Table 1).
fn provenance_counts() -> BTreeMap<String, (usize, usize, usize)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data/crows_pairs_first100_paraphrases.README.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if cells.len() != 5 || cells[0] == "bias_type" || cells[0].starts_with("---") {
            continue;
        }
        let number = |i: usize| -> usize {
            cells[i].parse().unwrap_or_else(|_| {
                panic!("{}: bad count {:?} in {line:?}", path.display(), cells[i])
            })
        };
        counts.insert(cells[0].to_owned(), (number(1), number(2), number(4)));
    }
    assert_eq!(
        counts.len(),
        10,
        "{}: expected 9 bias types and a total",
        path.display()
    );
    counts
}

#[test]
fn counts_per_bias_type_match_the_provenance_file() {
    let stated = provenance_counts();
    let pairs = crows_pairs_first100();
    let mut actual: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (original, paraphrases) in groups(&pairs) {
        let e = actual.entry(original.bias_type.to_string()).or_default();
        e.0 += 1;
        e.1 += paraphrases.len();
        let t = actual.entry("total".to_owned()).or_default();
        t.0 += 1;
        t.1 += paraphrases.len();
    }
    let stated_ours: BTreeMap<String, (usize, usize)> = stated
        .iter()
        .map(|(k, &(g, p, _))| (k.clone(), (g, p)))
        .collect();
    assert_eq!(actual, stated_ours);
    assert_eq!(actual["total"], (100, 374));
    assert_eq!(pairs.len(), 474);

    // The paper's Table 1 as stated: 383 in all; only gender differs (109 vs 100, the most that
    // 20 gender pairs with at most 5 paraphrases each allow).
    let table1: usize = stated
        .iter()
        .filter(|(k, _)| *k != "total")
        .map(|(_, v)| v.2)
        .sum();
    assert_eq!(table1, 383);
    assert_eq!(stated["total"].2, 383);
    for (ty, &(groups, ours, paper)) in &stated {
        if ty == "gender" {
            assert_eq!((groups, ours, paper), (20, 100, 109));
        } else if ty != "total" {
            assert_eq!(ours, paper, "{ty}");
        }
    }
}

#[test]
fn originals_are_the_first_100_crows_pairs_pairs() {
    let path = bias_data::layout::crows_pairs(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data"
    )));
    assert!(
        path.is_file(),
        "missing data file {}: run scripts/setup.sh to download the data sets",
        path.display()
    );
    let crows = read_crows_pairs_path(&path).unwrap();
    let pairs = crows_pairs_first100();
    let groups = groups(&pairs);
    assert_eq!(groups.len(), 100);
    for (record, (original, _)) in crows.iter().take(100).zip(&groups) {
        let mut expected = record.to_sentence_pair();
        expected.group_id = Some(expected.id.clone());
        assert_eq!(**original, expected, "CrowS-Pairs row {}", record.index);
    }
    let ids: Vec<&str> = groups.iter().map(|(o, _)| o.id.as_str()).collect();
    let first: Vec<String> = crows
        .iter()
        .take(100)
        .map(|r| r.index.to_string())
        .collect();
    assert_eq!(ids, first);
}

#[test]
fn the_csv_is_plain_utf8_with_unix_line_ends() {
    assert!(!CROWS_PAIRS_FIRST100_CSV.contains('\r'));
    assert!(CROWS_PAIRS_FIRST100_CSV.starts_with("id,stereo,anti,bias_type,direction,group_id\n"));
    assert_eq!(CROWS_PAIRS_FIRST100_CSV.lines().count(), 475);
}
