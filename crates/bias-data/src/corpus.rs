//! Mining gendered sentences from a text corpus for the bias-controlled fine-tuning of
//! kaneko2023 §2 (work in progress).

/// The female words of kaneko2023 §3.1.
pub const KANEKO2023_FEMALE: &[&str] = &[
    "she",
    "woman",
    "female",
    "her",
    "wife",
    "mother",
    "girl",
    "sister",
    "daughter",
    "girlfriend",
];

/// The male words of kaneko2023 §3.1.
pub const KANEKO2023_MALE: &[&str] = &[
    "he",
    "man",
    "male",
    "him",
    "his",
    "husband",
    "father",
    "boy",
    "brother",
    "son",
    "boyfriend",
];
