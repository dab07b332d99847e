//! The word-frequency analysis of Kaneko & Bollegala (2022), "Word Frequency and Social Biases"
//! and Table 2: for each CrowS-Pairs bias type, the words of the advantaged and the
//! disadvantaged group are looked up in a corpus frequency list, the most frequent words of each
//! group are ranked together by frequency, and each group's mean rank is reported (a lower mean
//! rank: the group's words are more frequent).
//!
//! The paper counts Wikipedia (2018-09) + BookCorpus and uses hand-made group word lists that
//! are not published (words with non-stereotypical senses, such as colours, removed by hand).
//! Here the frequencies are wordfreq's ([`bias_data::wordfreq`]) and the group words are rebuilt
//! from CrowS-Pairs ([`group_words`]): the words that differ between a pair's two sentences
//! (difflib's opcodes over normalised whitespace tokens, [`modified_words`]); the stereotypical
//! sentence's (`sent_more`) words go to the disadvantaged group for `stereo` rows and to the
//! advantaged group for `antistereo` rows, the other sentence's to the other group (the split of
//! Table 3, [`crate::advantaged_split`]); only words of letters a–z count, and [`STOP_WORDS`]
//! (function words; personal, possessive and reflexive pronouns are kept: the paper's gender
//! row lists *he*, *his*, *her*, *she*) are dropped. "For words that appear in both groups, we
//! assign them to the group with the higher frequency": here, the group where the word is
//! counted more often; a tie drops the word.
//!
//! ```
//! use bias_robust::frequency_rank::{rank_groups, FrequencyRankOptions, Group};
//!
//! // Frequency buckets (smaller = more frequent), as wordfreq stores them.
//! let bucket = |w: &str| match w { "he" => Some(230), "she" => Some(260), "men" => Some(330),
//!     "women" => Some(340), "nurse" => Some(480), _ => None };
//! let adv = ["he", "men"].map(String::from);
//! let dis = ["she", "women", "nurse"].map(String::from);
//! let r = rank_groups(&adv, &dis, bucket, &FrequencyRankOptions { words_per_group: 2, ..Default::default() });
//! // he 1, she 2, men 3, women 4: Adv (1 + 3) / 2, Dis (2 + 4) / 2.
//! assert_eq!(r.advantaged_mean_rank, Some(2.0));
//! assert_eq!(r.disadvantaged_mean_rank, Some(3.0));
//! assert_eq!(r.top[1].group, Group::Disadvantaged);
//! ```

use std::collections::{BTreeMap, BTreeSet};

use bias_core::{BiasType, Direction};
use bias_data::crows_pairs::CrowsPair;
use bias_data::difflib::align_tokens;

/// The function words dropped from the group words (articles, determiners and quantifiers,
/// prepositions, conjunctions, auxiliaries and modals, negation, common adverbs, interrogative
/// and relative words). Personal, possessive and reflexive pronouns are not in it.
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "across", "after", "again", "against", "all", "along", "already",
    "also", "although", "am", "among", "an", "and", "another", "any", "are", "around", "as", "at",
    "be", "because", "been", "before", "behind", "being", "below", "between", "beyond", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "either",
    "even", "ever", "every", "few", "for", "from", "had", "has", "have", "having", "here", "how",
    "if", "in", "into", "is", "just", "least", "less", "like", "lot", "many", "may", "might",
    "more", "most", "much", "must", "near", "neither", "never", "no", "none", "nor", "not", "now",
    "of", "off", "on", "one", "only", "onto", "or", "other", "out", "over", "per", "quite",
    "really", "several", "shall", "should", "since", "so", "some", "still", "such", "than", "that",
    "the", "then", "there", "these", "this", "those", "though", "through", "to", "too", "toward",
    "towards", "under", "unless", "until", "up", "upon", "very", "via", "was", "were", "what",
    "when", "where", "whereas", "whether", "which", "while", "who", "whom", "whose", "why", "will",
    "with", "within", "without", "would", "yet",
];

/// The group a word is assigned to (Kaneko & Bollegala 2022, Table 2: advantaged words
/// underlined, disadvantaged in italics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    /// The advantaged group ("Adv").
    Advantaged,
    /// The disadvantaged group ("Dis").
    Disadvantaged,
}

impl Group {
    /// `A` or `D`, the mark this workspace prints after a word.
    pub fn mark(self) -> char {
        match self {
            Group::Advantaged => 'A',
            Group::Disadvantaged => 'D',
        }
    }
}

bias_core::choice! {
    /// Whether [`STOP_WORDS`] are dropped from the group words.
    #[derive(Default)]
    pub enum StopWords: "stop words" {
        /// Drop them (default: the paper's tables list content words and pronouns only).
        #[default]
        Drop = "drop" => "Drop the function words (the default)",
        /// Keep every word of letters a–z.
        Keep = "keep" => "Keep them",
    }
}

/// The choices of the word-frequency analysis (Kaneko & Bollegala 2022, Table 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrequencyRankOptions {
    /// How many of each group's most frequent words are ranked together (default 4, the caption
    /// of Table 2: "four high-frequency words in the advantaged group and disadvantaged group").
    pub words_per_group: usize,
    /// Whether [`STOP_WORDS`] are dropped (default [`StopWords::Drop`]).
    pub stop_words: StopWords,
}

impl Default for FrequencyRankOptions {
    fn default() -> Self {
        Self {
            words_per_group: 4,
            stop_words: StopWords::Drop,
        }
    }
}

/// A whitespace token lowercased, with characters other than `a-z` / `0-9` stripped from both
/// ends and a final possessive `'s` / `’s` removed (`"Women's,"` → `women`).
pub fn normalise_token(token: &str) -> String {
    let lower = token.to_lowercase();
    let t = lower.trim_matches(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()));
    let t = t
        .strip_suffix("'s")
        .or_else(|| t.strip_suffix("\u{2019}s"))
        .unwrap_or(t);
    t.to_owned()
}

/// The normalised non-empty tokens of a sentence ([`normalise_token`]).
pub fn tokens(sentence: &str) -> Vec<String> {
    sentence
        .split_whitespace()
        .map(normalise_token)
        .filter(|t| !t.is_empty())
        .collect()
}

/// The modified words of a pair: the tokens of `more` and of `less` inside every non-equal
/// opcode of `difflib.SequenceMatcher(None, more, less)` over their [`tokens`].
pub fn modified_words(more: &str, less: &str) -> (Vec<String>, Vec<String>) {
    let (a, b) = (tokens(more), tokens(less));
    let al = align_tokens(&a, &b);
    let pick = |words: &[String], at: &[usize]| at.iter().map(|&i| words[i].clone()).collect();
    (pick(&a, &al.modified_a), pick(&b, &al.modified_b))
}

/// The group words of one bias type, after the both-groups rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupWords {
    /// The advantaged words, sorted.
    pub advantaged: Vec<String>,
    /// The disadvantaged words, sorted.
    pub disadvantaged: Vec<String>,
    /// Words counted in both groups that went to the group where they occur more often.
    pub in_both: usize,
    /// Words counted equally often in both groups (dropped), sorted.
    pub ties: Vec<String>,
    /// Modified-word occurrences dropped as stop words.
    pub stop_words_dropped: usize,
    /// Modified-word occurrences dropped for other characters than a–z (numbers, hyphens,
    /// apostrophes inside the word).
    pub non_letters_dropped: usize,
    /// The pairs of this bias type.
    pub pairs: usize,
}

/// The advantaged and disadvantaged words of each bias type of `pairs` (see the module
/// documentation for every rule).
pub fn group_words(
    pairs: &[CrowsPair],
    options: &FrequencyRankOptions,
) -> BTreeMap<String, GroupWords> {
    let stop: BTreeSet<&str> = STOP_WORDS.iter().copied().collect();
    // bias type → word → [advantaged count, disadvantaged count]
    let mut counts: BTreeMap<String, (BTreeMap<String, [usize; 2]>, GroupWords)> = BTreeMap::new();
    for p in pairs {
        let (more, less) = modified_words(&p.sent_more, &p.sent_less);
        let (adv, dis) = match p.direction {
            Direction::Stereo => (less, more),
            Direction::Antistereo => (more, less),
        };
        let entry = counts.entry(p.bias_type.as_str().to_owned()).or_default();
        entry.1.pairs += 1;
        for (side, words) in [(0, adv), (1, dis)] {
            for w in words {
                if !w.bytes().all(|b| b.is_ascii_lowercase()) {
                    entry.1.non_letters_dropped += 1;
                } else if options.stop_words == StopWords::Drop && stop.contains(w.as_str()) {
                    entry.1.stop_words_dropped += 1;
                } else {
                    entry.0.entry(w).or_default()[side] += 1;
                }
            }
        }
    }
    counts
        .into_iter()
        .map(|(ty, (words, mut g))| {
            for (w, [na, nd]) in words {
                if na > 0 && nd > 0 {
                    if na == nd {
                        g.ties.push(w);
                        continue;
                    }
                    g.in_both += 1;
                }
                if na > nd {
                    g.advantaged.push(w);
                } else {
                    g.disadvantaged.push(w);
                }
            }
            (ty, g)
        })
        .collect()
}

/// One word of the ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankedWord {
    /// The word.
    pub word: String,
    /// Its group.
    pub group: Group,
    /// Its frequency bucket (wordfreq: frequency `10^(-bucket/100)`; smaller is more frequent).
    pub bucket: u32,
    /// Its rank among the ranked words, from 1.
    pub rank: usize,
}

/// One row of Table 2.
#[derive(Debug, Clone, PartialEq)]
pub struct FrequencyRanking {
    /// The [`FrequencyRankOptions::words_per_group`] most frequent words of each group, ordered
    /// by frequency (ties alphabetically).
    pub top: Vec<RankedWord>,
    /// The mean rank of the advantaged words in `top` (`None` if it has none).
    pub advantaged_mean_rank: Option<f64>,
    /// The mean rank of the disadvantaged words in `top`.
    pub disadvantaged_mean_rank: Option<f64>,
    /// Group words the frequency list does not know (left out).
    pub unknown: usize,
}

/// Ranks the most frequent words of each group together (Kaneko & Bollegala 2022, Table 2):
/// `bucket` gives a word's frequency bucket (smaller is more frequent; `None` for an unknown
/// word, which is left out); the [`FrequencyRankOptions::words_per_group`] most frequent words of
/// each group (equal buckets broken alphabetically) are merged, ordered the same way and ranked
/// from 1, and each group's mean rank is the mean of its words' ranks.
pub fn rank_groups(
    advantaged: &[String],
    disadvantaged: &[String],
    bucket: impl Fn(&str) -> Option<u32>,
    options: &FrequencyRankOptions,
) -> FrequencyRanking {
    let mut unknown = 0;
    let mut top = Vec::new();
    for (group, words) in [
        (Group::Advantaged, advantaged),
        (Group::Disadvantaged, disadvantaged),
    ] {
        let mut known: Vec<(u32, &String)> = words
            .iter()
            .filter_map(|w| {
                let b = bucket(w);
                unknown += usize::from(b.is_none());
                b.map(|b| (b, w))
            })
            .collect();
        known.sort();
        top.extend(
            known
                .into_iter()
                .take(options.words_per_group)
                .map(|(bucket, w)| RankedWord {
                    word: w.clone(),
                    group,
                    bucket,
                    rank: 0,
                }),
        );
    }
    top.sort_by(|x, y| (x.bucket, &x.word).cmp(&(y.bucket, &y.word)));
    for (i, w) in top.iter_mut().enumerate() {
        w.rank = i + 1;
    }
    let mean = |g: Group| {
        let ranks: Vec<usize> = top
            .iter()
            .filter(|w| w.group == g)
            .map(|w| w.rank)
            .collect();
        (!ranks.is_empty()).then(|| ranks.iter().sum::<usize>() as f64 / ranks.len() as f64)
    };
    FrequencyRanking {
        advantaged_mean_rank: mean(Group::Advantaged),
        disadvantaged_mean_rank: mean(Group::Disadvantaged),
        top,
        unknown,
    }
}

/// The CrowS-Pairs bias types in the row order of Kaneko & Bollegala (2022), Table 2.
pub const TABLE_2_ORDER: [BiasType; 9] = [
    BiasType::RaceColor,
    BiasType::Gender,
    BiasType::SexualOrientation,
    BiasType::Religion,
    BiasType::Age,
    BiasType::Nationality,
    BiasType::Disability,
    BiasType::PhysicalAppearance,
    BiasType::Socioeconomic,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(more: &str, less: &str, dir: Direction, ty: BiasType) -> CrowsPair {
        CrowsPair {
            index: 0,
            sent_more: more.into(),
            sent_less: less.into(),
            direction: dir,
            bias_type: ty,
            annotations: vec![],
            writer: String::new(),
            annotators: vec![],
        }
    }

    #[test]
    fn tokens_are_normalised() {
        assert_eq!(normalise_token("Women's,"), "women");
        assert_eq!(normalise_token("\"Jamal\u{2019}s"), "jamal");
        assert_eq!(normalise_token("--"), "");
        assert_eq!(normalise_token("African-American."), "african-american");
        assert_eq!(tokens("He said: \"no!\""), ["he", "said", "no"]);
    }

    #[test]
    fn modified_words_follow_difflib() {
        let (a, b) = modified_words("Most black kids are poor.", "Most white kids are poor.");
        assert_eq!((a, b), (vec!["black".to_owned()], vec!["white".to_owned()]));
        // An insertion: only `less` has modified words.
        let (a, b) = modified_words("She ran.", "She ran away.");
        assert!(a.is_empty());
        assert_eq!(b, ["away"]);
    }

    #[test]
    fn groups_follow_the_direction_and_the_both_groups_rule() {
        let g = BiasType::Gender;
        let pairs = [
            // stereo: sent_more's words are the disadvantaged group's.
            pair(
                "She can't drive.",
                "He can't drive.",
                Direction::Stereo,
                g.clone(),
            ),
            pair(
                "Her car is a wreck.",
                "His car is a wreck.",
                Direction::Stereo,
                g.clone(),
            ),
            // antistereo: sent_more's words are the advantaged group's.
            pair(
                "He cried at the film.",
                "She cried at the film.",
                Direction::Antistereo,
                g.clone(),
            ),
            pair(
                "The men were 2 nurses.",
                "The women were 3 nurses.",
                Direction::Antistereo,
                g.clone(),
            ),
            // "the" and "a": stop words.
            pair(
                "His the job.",
                "Her a job.",
                Direction::Antistereo,
                g.clone(),
            ),
        ];
        let words = group_words(&pairs, &FrequencyRankOptions::default());
        let w = &words["gender"];
        // she: Dis (pairs 1, 3); he: Adv (pairs 1, 3); his: Adv (pairs 2, 5); her: Dis (2, 5).
        assert_eq!(w.advantaged, ["he", "his", "men"]);
        assert_eq!(w.disadvantaged, ["her", "she", "women"]);
        assert!(w.ties.is_empty());
        assert_eq!(w.in_both, 0);
        assert_eq!(w.non_letters_dropped, 2); // "2", "3"
        assert_eq!(w.stop_words_dropped, 2); // "the", "a"
        assert_eq!(w.pairs, 5);
        // A word on both sides: the group where it occurs more often, a tie dropped.
        let pairs = [
            pair(
                "Tom is kind.",
                "Ann is kind.",
                Direction::Antistereo,
                g.clone(),
            ),
            pair(
                "Tom is rude.",
                "Ann is rude.",
                Direction::Antistereo,
                g.clone(),
            ),
            pair("Tom is shy.", "Ann is shy.", Direction::Stereo, g.clone()),
            pair("Bob is shy.", "Sue is shy.", Direction::Stereo, g.clone()),
            pair("Bob is shy.", "Sue is shy.", Direction::Antistereo, g),
        ];
        let w = &group_words(&pairs, &FrequencyRankOptions::default())["gender"];
        // tom: Adv 2, Dis 1 → Adv; ann: Dis 2, Adv 1 → Dis; bob (Dis in the stereo pair, Adv in
        // the antistereo one) and sue: once on each side → ties.
        assert_eq!(w.advantaged, ["tom"]);
        assert_eq!(w.disadvantaged, ["ann"]);
        assert_eq!(w.ties, ["bob", "sue"]);
        assert_eq!(w.in_both, 2);
        // Keeping stop words keeps "the" and "a".
        let keep = FrequencyRankOptions {
            stop_words: StopWords::Keep,
            ..Default::default()
        };
        let pairs = [pair(
            "His the job.",
            "Her a job.",
            Direction::Antistereo,
            BiasType::Age,
        )];
        let w = &group_words(&pairs, &keep)["age"];
        assert_eq!(w.advantaged, ["his", "the"]);
        assert_eq!(w.disadvantaged, ["a", "her"]);
    }

    #[test]
    fn ranking_by_hand() {
        let s = |v: &[&str]| v.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        let bucket = |w: &str| {
            Some(match w {
                "he" => 200,
                "his" => 210,
                "her" => 220,
                "she" => 230,
                "men" => 300,
                "woman" => 310,
                "him" => 320,
                "women" => 330,
                "king" => 400,
                "queen" => 400,
                "lad" => 500,
                _ => return None,
            })
        };
        let adv = s(&["men", "his", "him", "he", "king", "lad"]);
        let dis = s(&["women", "queen", "woman", "she", "her", "zzz"]);
        let r = rank_groups(&adv, &dis, bucket, &FrequencyRankOptions::default());
        // Top 4 of each: Adv he his men him, Dis her she woman women; ranks 1..8 as in the
        // paper's gender row: Adv (1 + 2 + 5 + 7) / 4 = 3.75, Dis (3 + 4 + 6 + 8) / 4 = 5.25.
        let order: Vec<String> = r
            .top
            .iter()
            .map(|w| format!("{}{}", w.word, w.group.mark()))
            .collect();
        assert_eq!(
            order,
            ["heA", "hisA", "herD", "sheD", "menA", "womanD", "himA", "womenD"]
        );
        assert_eq!(r.advantaged_mean_rank, Some(3.75));
        assert_eq!(r.disadvantaged_mean_rank, Some(5.25));
        assert_eq!(r.unknown, 1);
        // Five per group: king and queen share a bucket and go alphabetically (king 9, queen 10).
        let five = FrequencyRankOptions {
            words_per_group: 5,
            ..Default::default()
        };
        let r = rank_groups(&adv, &dis, bucket, &five);
        assert_eq!(
            (r.top[8].word.as_str(), r.top[9].word.as_str()),
            ("king", "queen")
        );
        assert_eq!(
            r.advantaged_mean_rank,
            Some((1 + 2 + 5 + 7 + 9) as f64 / 5.0)
        );
        assert_eq!(
            r.disadvantaged_mean_rank,
            Some((3 + 4 + 6 + 8 + 10) as f64 / 5.0)
        );
        // A group with no known word has no mean rank.
        let r = rank_groups(&adv, &s(&["zzz"]), bucket, &FrequencyRankOptions::default());
        assert_eq!(r.disadvantaged_mean_rank, None);
        assert_eq!(r.advantaged_mean_rank, Some(2.5));
    }
}
