//! The neutral CrowS-Pairs targets of Schröder, Schulz & Hammer (2024, §4.3.4): the
//! stereotyped sentence with the tokens that name the group masked, one mask per token.

use bias_data::difflib::{SequenceMatcher, Tag};

use crate::{PlmError, PlmTokenizer};

/// The width both sentences are padded to before the token diff, as the authors' code pads
/// every CrowS-Pairs sentence to 512 tokens (their `get_neutral_samples_by_masking`). The padding
/// matters: with 200 or more ids, difflib's autojunk heuristic treats ids that occur in more than
/// 1 % of the second sequence as popular (`bias_data::difflib`).
pub const NEUTRAL_PAD_WIDTH: usize = 512;

/// `more` with every token that differs from `less` replaced by the tokenizer's mask token and
/// decoded without the outer special tokens (Schröder et al. 2024, §4.3.4: "sample-wise cosine
/// scores after removing modified tokens").
///
/// As the authors' code does: both sentences are tokenised with special tokens, padded to
/// [`NEUTRAL_PAD_WIDTH`] ids, aligned with difflib (`SequenceMatcher(None, more, less)`), every id
/// of `more` in a non-equal opcode is replaced by the mask id, and the ids from position 1 to
/// two before the first padding id are decoded (no padding: all but the first and last), special
/// tokens kept, with `transformers`' `clean_up_tokenization` applied (" ." → ".", " n't" → "n't",
/// …; the default of the `transformers` releases the authors used).
///
/// # Errors
/// [`PlmError::MissingSpecialToken`] without a mask or padding token; [`PlmError::Tokenizer`].
pub fn mask_differing_tokens(
    tokenizer: &PlmTokenizer,
    more: &str,
    less: &str,
) -> Result<String, PlmError> {
    let mask = tokenizer.mask_id()?;
    let pad = tokenizer.pad_id()?;
    let mut a = tokenizer.encode(more)?;
    let mut b = tokenizer.encode(less)?;
    a.truncate(NEUTRAL_PAD_WIDTH);
    b.truncate(NEUTRAL_PAD_WIDTH);
    a.resize(NEUTRAL_PAD_WIDTH, pad);
    b.resize(NEUTRAL_PAD_WIDTH, pad);
    let modified: Vec<usize> = SequenceMatcher::new(&a, &b)
        .opcodes()
        .into_iter()
        .filter(|o| o.tag != Tag::Equal)
        .flat_map(|o| o.i1..o.i2)
        .collect();
    for i in modified {
        a[i] = mask;
    }
    // Python's masked_tokens[1:first_pad - 1], with first_pad = 0 when there is no padding.
    let first_pad = a.iter().position(|&t| t == pad).unwrap_or(0);
    let end = if first_pad == 0 {
        a.len().saturating_sub(1)
    } else {
        first_pad.saturating_sub(1)
    };
    let ids = if end > 1 { &a[1..end] } else { &[][..] };
    Ok(clean_up_tokenization(&tokenizer.decode(ids, false)?))
}

/// `transformers`' `clean_up_tokenization`: removes the space a decoder puts before
/// punctuation and English contractions.
pub fn clean_up_tokenization(text: &str) -> String {
    text.replace(" .", ".")
        .replace(" ?", "?")
        .replace(" !", "!")
        .replace(" ,", ",")
        .replace(" ' ", "'")
        .replace(" n't", "n't")
        .replace(" 'm", "'m")
        .replace(" 's", "'s")
        .replace(" 've", "'ve")
        .replace(" 're", "'re")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_up_matches_transformers() {
        // transformers: clean_up_tokenization("he is n't here , is he ?") == "he isn't here, is he?"
        assert_eq!(
            clean_up_tokenization("he is n't here , is he ?"),
            "he isn't here, is he?"
        );
    }
}
