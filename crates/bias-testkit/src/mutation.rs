//! Byte-level mutations of a valid seed file, shared by the no-panic property tests of
//! bias-core, bias-data and bias-embed.
//!
//! Each edit overwrites a byte, deletes a run, inserts bytes or truncates, at a position taken
//! modulo the current length; bytes are drawn mostly from `special` (the characters a reader's
//! grammar cares about) and sometimes from any byte.

use proptest::prelude::*;

/// One edit of a byte string.
#[derive(Debug, Clone)]
pub enum Edit {
    /// Replace the byte at (position mod length).
    Overwrite(usize, u8),
    /// Delete up to `n` bytes from (position mod length + 1).
    Delete(usize, usize),
    /// Insert bytes at (position mod length + 1).
    Insert(usize, Vec<u8>),
    /// Cut at (position mod length + 1).
    Truncate(usize),
}

/// Edits whose bytes come 3 times in 4 from `special`, deleting runs of 1 to `max_delete - 1`.
pub fn edit(special: &'static [u8], max_delete: usize) -> impl Strategy<Value = Edit> {
    let special = prop::sample::select(special.to_vec());
    let byte = prop_oneof![3 => special, 1 => any::<u8>()];
    prop_oneof![
        4 => (any::<usize>(), byte.clone()).prop_map(|(p, b)| Edit::Overwrite(p, b)),
        2 => (any::<usize>(), 1usize..max_delete).prop_map(|(p, n)| Edit::Delete(p, n)),
        2 => (any::<usize>(), prop::collection::vec(byte, 1..12))
            .prop_map(|(p, b)| Edit::Insert(p, b)),
        1 => any::<usize>().prop_map(Edit::Truncate),
    ]
}

/// `seed` with `edits` applied in order.
pub fn mutate(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for e in edits {
        let at = |p: usize, len: usize| p % (len + 1);
        match e {
            Edit::Overwrite(p, b) if !bytes.is_empty() => {
                let i = p % bytes.len();
                bytes[i] = *b;
            }
            Edit::Overwrite(..) => {}
            Edit::Delete(p, n) => {
                let i = at(*p, bytes.len());
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
            Edit::Insert(p, b) => {
                let i = at(*p, bytes.len());
                bytes.splice(i..i, b.iter().copied());
            }
            Edit::Truncate(p) => {
                let i = at(*p, bytes.len());
                bytes.truncate(i);
            }
        }
    }
    bytes
}

#[test]
fn mutate_applies_each_edit_in_order() {
    let seed = b"abcdef";
    assert_eq!(mutate(seed, &[Edit::Overwrite(8, b'X')]), b"abXdef"); // 8 mod 6 = 2
    assert_eq!(mutate(seed, &[Edit::Delete(1, 2)]), b"adef");
    // Positions for insertions and cuts run over length + 1 = 7: 13 mod 7 = 6, the end.
    assert_eq!(
        mutate(seed, &[Edit::Insert(13, b"zz".to_vec())]),
        b"abcdefzz"
    );
    assert_eq!(mutate(seed, &[Edit::Truncate(10)]), b"abc");
    // In order: delete "ab", then overwrite position 0 of "cdef".
    assert_eq!(
        mutate(seed, &[Edit::Delete(0, 2), Edit::Overwrite(0, b'Y')]),
        b"Ydef"
    );
    assert!(mutate(b"", &[Edit::Overwrite(3, b'X')]).is_empty());
}
