//! BERT's masked-LM corruption (Devlin et al. 2019, §3.1 and appendix A.1), as
//! `transformers.DataCollatorForLanguageModeling` applies it: each non-special token is selected
//! with probability `p`; a selected token becomes the mask token with probability 0.8, a
//! uniformly random vocabulary id with probability 0.1, and stays itself with probability 0.1.
//! The loss is read at the selected positions only.

use rand::Rng;

/// A tokenised training sentence: ids with the model's special tokens, and which positions are
/// special (never selected).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TokenSeq {
    pub(crate) ids: Vec<i64>,
    pub(crate) special: Vec<bool>,
}

/// One corrupted, padded training batch, flattened row-major to `[rows, len]`: what one
/// optimiser step of [`MlmTrainer`](crate::MlmTrainer) trains on.
///
/// It is public so that another implementation (PyTorch's, in this project's reference
/// fixtures) can train on exactly the batches this trainer draws: set the labels of every
/// position to −100 except `labels[k]` at `positions[k]`, and `transformers`'
/// `BertForMaskedLM` loss equals this trainer's.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TrainingBatch {
    /// Sentences in the batch.
    pub rows: usize,
    /// Padded length (the longest sentence, special tokens included).
    pub len: usize,
    /// Token ids after corruption, padded with the pad id.
    pub input_ids: Vec<i64>,
    /// 1 for a real token, 0 for padding.
    pub attention: Vec<i64>,
    /// Flat indices (`row · len + column`) of the selected positions.
    pub positions: Vec<i64>,
    /// The original ids at `positions`: the MLM targets.
    pub labels: Vec<i64>,
}

/// The token ids a corruption draws on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MaskTokens {
    pub(crate) mask: i64,
    pub(crate) pad: i64,
    pub(crate) vocab: i64,
}

impl MaskTokens {
    /// The mask and pad ids of `tokenizer`, and a vocabulary of `vocab` ids for random
    /// replacements.
    pub(crate) fn of(tokenizer: &crate::PlmTokenizer, vocab: i64) -> Result<Self, crate::PlmError> {
        Ok(MaskTokens {
            mask: tokenizer.mask_id()?,
            pad: tokenizer.pad_id()?,
            vocab,
        })
    }
}

/// Corrupts `seqs` into one padded batch. At least one position is always selected: a batch
/// without targets has no loss (`transformers` would return NaN), so when the draw selects
/// nothing, one non-special position is chosen uniformly.
pub(crate) fn corrupt_batch<R: Rng>(
    seqs: &[&TokenSeq],
    tokens: MaskTokens,
    probability: f64,
    rng: &mut R,
) -> TrainingBatch {
    let len = seqs.iter().map(|s| s.ids.len()).max().unwrap_or(0);
    let mut batch = TrainingBatch {
        rows: seqs.len(),
        len,
        input_ids: vec![tokens.pad; seqs.len() * len],
        attention: vec![0; seqs.len() * len],
        positions: Vec::new(),
        labels: Vec::new(),
    };
    let mut candidates = Vec::new();
    for (row, seq) in seqs.iter().enumerate() {
        for (col, (&id, &special)) in seq.ids.iter().zip(&seq.special).enumerate() {
            let flat = row * len + col;
            batch.input_ids[flat] = id;
            batch.attention[flat] = 1;
            if special {
                continue;
            }
            candidates.push(flat);
            if rng.random::<f64>() < probability {
                select(&mut batch, flat, tokens, rng);
            }
        }
    }
    if batch.positions.is_empty() && !candidates.is_empty() {
        let flat = candidates[rng.random_range(0..candidates.len())];
        select(&mut batch, flat, tokens, rng);
    }
    batch
}

/// Records position `flat` as a target and applies the 80/10/10 replacement.
fn select<R: Rng>(batch: &mut TrainingBatch, flat: usize, tokens: MaskTokens, rng: &mut R) {
    batch.positions.push(flat as i64);
    batch.labels.push(batch.input_ids[flat]);
    let u: f64 = rng.random();
    if u < 0.8 {
        batch.input_ids[flat] = tokens.mask;
    } else if u < 0.9 {
        batch.input_ids[flat] = rng.random_range(0..tokens.vocab);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::abs_diff_eq;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const TOKENS: MaskTokens = MaskTokens {
        mask: 103,
        pad: 0,
        vocab: 1000,
    };

    fn seq(n: usize) -> TokenSeq {
        let mut ids = vec![101];
        ids.extend((0..n as i64).map(|i| 200 + i));
        ids.push(102);
        let mut special = vec![true];
        special.extend(std::iter::repeat_n(false, n));
        special.push(true);
        TokenSeq { ids, special }
    }

    #[test]
    fn pads_and_never_selects_special_tokens() {
        let (a, b) = (seq(3), seq(1));
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let batch = corrupt_batch(&[&a, &b], TOKENS, 1.0, &mut rng);
        assert_eq!((batch.rows, batch.len), (2, 5));
        assert_eq!(batch.attention, vec![1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
        assert_eq!(&batch.input_ids[8..], &[0, 0]);
        // p = 1 selects exactly the 4 ordinary tokens, with their original ids as labels.
        assert_eq!(batch.positions, vec![1, 2, 3, 6]);
        assert_eq!(batch.labels, vec![200, 201, 202, 200]);
        assert_eq!(
            (batch.input_ids[0], batch.input_ids[4], batch.input_ids[5]),
            (101, 102, 101)
        );
    }

    #[test]
    fn shares_follow_15_80_10_10() {
        let long = seq(200_000);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let batch = corrupt_batch(&[&long], TOKENS, 0.15, &mut rng);
        let n = batch.positions.len() as f64;
        let selected = n / 200_000.0;
        let masked = batch
            .positions
            .iter()
            .filter(|&&p| batch.input_ids[p as usize] == TOKENS.mask)
            .count() as f64;
        let kept = batch
            .positions
            .iter()
            .zip(&batch.labels)
            .filter(|(&p, &l)| batch.input_ids[p as usize] == l)
            .count() as f64;
        // Binomial standard errors are below 0.001 (selection) and 0.003 (shares) here.
        assert!(abs_diff_eq!(selected, 0.15, epsilon = 0.005), "{selected}");
        assert!(
            abs_diff_eq!(masked / n, 0.8, epsilon = 0.01),
            "{}",
            masked / n
        );
        // Kept = the 10 % left alone plus random draws that hit the original id (1/1000).
        assert!(abs_diff_eq!(kept / n, 0.1, epsilon = 0.01), "{}", kept / n);
    }

    #[test]
    fn always_selects_one_position() {
        let s = seq(2);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let batch = corrupt_batch(&[&s], TOKENS, 0.0, &mut rng);
        assert_eq!(batch.positions.len(), 1);
        assert!(batch.positions[0] == 1 || batch.positions[0] == 2);
    }
}
