//! The order of training batches: a seeded shuffle, then grouping by length within
//! megabatches (as `transformers`' `group_by_length` sampler does), so that a batch pads little
//! while the order stays random. The order of every epoch is a pure function of
//! `(seed, epoch)`, which is what lets a resumed run see exactly the batches an uninterrupted
//! run would.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Batches per megabatch (`transformers`' `get_length_grouped_indices` uses 50).
const MEGABATCH: usize = 50;

/// The batches of epoch `epoch`: indices into `lengths`, every index exactly once, each batch
/// at most `batch_size` long.
pub(crate) fn epoch_batches(
    lengths: &[usize],
    batch_size: usize,
    seed: u64,
    epoch: usize,
) -> Vec<Vec<usize>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (epoch as u64 + 1).wrapping_mul(0x9E37_79B9));
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.shuffle(&mut rng);
    let mut batches: Vec<Vec<usize>> = Vec::new();
    for mega in order.chunks(MEGABATCH * batch_size.max(1)) {
        let mut mega = mega.to_vec();
        mega.sort_by_key(|&i| std::cmp::Reverse(lengths[i]));
        batches.extend(mega.chunks(batch_size.max(1)).map(<[usize]>::to_vec));
    }
    batches.shuffle(&mut rng);
    batches
}

/// Batches per epoch for `n` sentences.
pub(crate) fn batches_per_epoch(n: usize, batch_size: usize) -> usize {
    n.div_ceil(batch_size.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_once_and_grouped_by_length() {
        let lengths: Vec<usize> = (0..1000).map(|i| (i * 37) % 61 + 3).collect();
        let batches = epoch_batches(&lengths, 8, 5, 0);
        assert_eq!(batches.len(), batches_per_epoch(1000, 8));
        let mut seen: Vec<usize> = batches.concat();
        seen.sort_unstable();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>());
        // Within a megabatch of 400 sentences spread over 59 lengths, a batch of 8 sorted
        // neighbours spans at most a few lengths; a random batch would span ~45.
        let spread: usize = batches
            .iter()
            .map(|b| {
                let l: Vec<usize> = b.iter().map(|&i| lengths[i]).collect();
                l.iter().max().unwrap() - l.iter().min().unwrap()
            })
            .sum();
        assert!(spread / batches.len() <= 3, "{}", spread / batches.len());
    }

    #[test]
    fn order_is_a_function_of_seed_and_epoch() {
        let lengths = vec![5; 100];
        assert_eq!(
            epoch_batches(&lengths, 4, 1, 2),
            epoch_batches(&lengths, 4, 1, 2)
        );
        assert_ne!(
            epoch_batches(&lengths, 4, 1, 2),
            epoch_batches(&lengths, 4, 1, 3)
        );
        assert_ne!(
            epoch_batches(&lengths, 4, 1, 2),
            epoch_batches(&lengths, 4, 2, 2)
        );
    }
}
