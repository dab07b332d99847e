//! The numbers Kwon & Mihindukulasooriya (2022), *An Empirical Study on Pseudo-log-likelihood
//! Bias Measures for Masked Language Models Using Paraphrased Sentences* (TrustNLP 2022; key
//! `paraphrase2022`), print, transcribed in one place from its text: §2.1 (the data), Table 1
//! (samples per bias type), Table 2 (MDIFF of one example), §2.2 (MPER_AGREE, read off
//! Figures 2 and 3) and §3 (the near-tie band).
//!
//! Only numbers the paper prints as numbers are here: the bars of Figures 2–4 carry no other
//! printed value. The reproduction (`bias reproduce paraphrase`) shows them in rows or columns
//! labelled "paper" beside the values measured here; `docs/paraphrase_set.md` works through what
//! they imply for the group sizes.

use bias_core::BiasType;

/// §2.1: "we selected the first hundred samples" of CrowS-Pairs.
pub const ORIGINALS: usize = 100;

/// §2.1: "we produced 3 to 5 paraphrased target phrases per each" original (least, most).
pub const PARAPHRASES_PER_ORIGINAL: (usize, usize) = (3, 5);

/// §2.1: "we generated 383 samples in total"; the total row of Table 1. The paper does not say
/// whether the 100 originals are among them ([`crate::paraphrase::Table1Reading`]).
pub const SAMPLES: usize = 383;

/// Table 1, "The summary of the subset of CrowS-Pairs used in the experiment": the paper's
/// label of each bias type, the CrowS-Pairs type it names, and its "Sentence Pairs" (summing to
/// [`SAMPLES`]).
pub const TABLE_1: [(&str, BiasType, usize); 9] = [
    ("Race", BiasType::RaceColor, 106),
    ("Gender", BiasType::Gender, 109),
    ("Sexual Orientation", BiasType::SexualOrientation, 11),
    ("Religion", BiasType::Religion, 10),
    ("Age", BiasType::Age, 6),
    ("Nationality", BiasType::Nationality, 32),
    ("Disability", BiasType::Disability, 41),
    ("Physical appearance", BiasType::PhysicalAppearance, 30),
    ("Socioeconomic status", BiasType::Socioeconomic, 38),
];

/// Table 1's count for a CrowS-Pairs bias type, `None` for a type the table does not list.
pub fn table_1_count(bias_type: &BiasType) -> Option<usize> {
    TABLE_1
        .iter()
        .find(|(_, t, _)| t == bias_type)
        .map(|&(_, _, n)| n)
}

/// The five models of §2.1, as the paper names them (BERT-base, RoBERTa-large, ALBERT-XXL-v2,
/// DistilBERT-base, MPNet-base), in the order of Table 2.
pub const MODELS: [&str; 5] = [
    "ALBERT-XXL-v2",
    "BERT-base",
    "DistilBERT-base",
    "MPNet-base",
    "RoBERTa-large",
];

/// Table 2's three target characteristics, in its column order (the originals' "attacked" and
/// the paraphrases "assaulted" and "ambushed" of CrowS-Pairs row 3).
pub const TABLE_2_WORDS: [&str; 3] = ["attacked", "assaulted", "ambushed"];

/// Table 2, "Log-likelihood differences (MDIFF) within the paired sentences": MDIFF per model
/// for [`TABLE_2_WORDS`]. (The BERT-base and RoBERTa-large rows are printed equal but for one
/// digit.)
pub const TABLE_2: [(&str, [f64; 3]); 5] = [
    ("ALBERT-XXL-v2", [0.0177, 0.0609, -0.1344]),
    ("BERT-base", [-0.0242, 0.0145, -0.0671]),
    ("DistilBERT-base", [-0.0436, -0.0155, -0.0521]),
    ("MPNet-base", [0.0096, 0.0412, 0.0207]),
    ("RoBERTa-large", [-0.0242, 0.0146, -0.0671]),
];

/// §2.2 on Figure 2: pairs "agree with each other in less than 80% of cases" — MPER_AGREE, in
/// percent, is below this for every model.
pub const MPER_AGREE_BELOW: f64 = 80.0;

/// §2.2 on Figure 2: the overall MPER_AGREE (percent) the text prints — "75% for
/// DistilBERTBase and 57% for MPNetBase". The other three models' values are only drawn.
pub const MPER_AGREE_OVERALL: [(&str, f64); 2] = [("DistilBERT-base", 75.0), ("MPNet-base", 57.0)];

/// §2.2 on Figure 3, the gender attribute: "ALBERTXXL-v2, MPNetBase, and RoBERTaLarge show
/// agreement levels of 38%, 43%, and 43%"; "BERTBase and DistilBERTBase show agreement levels
/// of 67% and 71%" (MPER_AGREE in percent).
pub const MPER_AGREE_GENDER: [(&str, f64); 5] = [
    ("ALBERT-XXL-v2", 38.0),
    ("MPNet-base", 43.0),
    ("RoBERTa-large", 43.0),
    ("BERT-base", 67.0),
    ("DistilBERT-base", 71.0),
];

/// §2.2 and §3: "the differences within each pair tend to be very small between -.25 and .25"
/// (the near-tie half-width on the sum scale; [`crate::paraphrase::DEFAULT_NEAR_TIE`]).
pub const NEAR_TIE: f64 = 0.25;
