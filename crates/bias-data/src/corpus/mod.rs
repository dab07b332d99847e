//! Mining gendered sentences from a text corpus for the bias-controlled fine-tuning of
//! kaneko2023 §2.
//!
//! kaneko2023 §2 fine-tunes a masked language model on training sets whose *rate of bias* `r` is
//! the share of male sentences. The steps, and the functions that do them:
//!
//! 1. [`GenderWords`]: a list of male words and a list of female words (the paper's lists of §3.1
//!    are [`GenderWords::kaneko2023`]);
//! 2. [`mine_corpus`] / [`mine_sentences`]: keep the sentences that contain words of exactly one
//!    list (sentences with both are excluded), then down-sample the larger side so that
//!    `|F| = |M|`;
//! 3. [`rate_sets`]: for each rate `r` (see [`parse_rates`]), a training set of `n` sentences with
//!    `round(r·n)` male sentences and the rest female; [`write_lines`] saves one.
//!
//! Every random step uses `ChaCha8Rng::seed_from_u64(seed)`, so a seed gives the same sets on any
//! machine.
//!
//! ```
//! use bias_data::corpus::{
//!     mine_sentences, parse_rates, rate_sets, GenderWords, MiningOptions, RateSampling,
//! };
//!
//! let words = GenderWords::kaneko2023();
//! let text = [
//!     "He is a doctor.",
//!     "She is a nurse.",
//!     "His brother cooks.",
//!     "Her sister drives.",
//!     "He met her.",       // both sides: excluded
//!     "The sky is blue.",  // neither: excluded
//! ];
//! let corpus = mine_sentences(text, &words, &MiningOptions::default())?;
//! assert_eq!((corpus.male.len(), corpus.female.len()), (2, 2));
//! assert_eq!((corpus.stats.both, corpus.stats.neither), (1, 1));
//!
//! let rates = parse_rates("0:1:0.5")?;
//! let sets = rate_sets(&corpus, &rates, 2, 7, RateSampling::Independent)?;
//! assert_eq!(sets.iter().map(|s| s.male).collect::<Vec<_>>(), vec![0, 1, 2]);
//! # Ok::<(), bias_data::DataError>(())
//! ```

mod mining;
mod rates;
mod words;

pub use mining::{
    hold_out_dev, mine_corpus, mine_sentences, read_bug_source, read_bug_sources, read_sentences,
    CorpusFormat, MinedCorpus, MiningOptions, MiningStats, BUG_SOURCE_COLUMN,
};
pub use rates::{parse_rates, rate_sets, write_lines, RateSampling, RateSet};
pub use words::{
    sentence_words, Gender, GenderWords, EXTENDED_FEMALE, EXTENDED_MALE, KANEKO2023_FEMALE,
    KANEKO2023_MALE,
};
