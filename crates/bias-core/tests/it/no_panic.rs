//! Parsers that never panic (issue 13): arbitrary bytes and mutated slices of a committed score
//! table (`fixtures/scores/crows_pairs_unigram.csv`) fed to [`ScoreTable::read_csv`] and, as
//! JSON, to [`ScoreTable::from_json`]. Every input gives `Ok` or an error whose message names the
//! input; a panic fails the property.

use std::path::PathBuf;
use std::sync::OnceLock;

use bias_core::{CoreError, ScoreTable};
use proptest::prelude::*;

const NAME: &str = "fuzz-scores";
/// Cases per property: 256, fast in a debug build (`make test`); set `NO_PANIC_CASES` for a
/// longer run (`NO_PANIC_CASES=20000 cargo test -p <crate> --test no_panic --release`).
fn cases() -> u32 {
    std::env::var("NO_PANIC_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

fn fixture() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scores/crows_pairs_unigram.csv"
    ))
}

/// The header and first 8 rows of the fixture.
fn csv_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let bytes = std::fs::read(fixture()).unwrap();
        let end = bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .nth(8)
            .map_or(bytes.len(), |(i, _)| i + 1);
        bytes[..end].to_vec()
    })
}

/// The same rows as the table's own JSON.
fn json_seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        ScoreTable::read_csv(csv_seed(), NAME)
            .unwrap()
            .to_json()
            .unwrap()
            .into_bytes()
    })
}

fn check<T>(result: Result<T, CoreError>) -> Result<(), TestCaseError> {
    if let Err(e) = result {
        let message = e.to_string();
        prop_assert!(
            message.contains(NAME),
            "the error does not name the input: {message}"
        );
    }
    Ok(())
}

use bias_testkit::mutation;
use mutation::{mutate, Edit};

/// Mutations of the seeds: bytes mostly from what this crate's readers parse.
fn edit() -> impl Strategy<Value = Edit> {
    mutation::edit(b"\",\n\r -.eE0123456789[]{}:naif\x00\xff", 40)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check(ScoreTable::read_csv(bytes.as_slice(), NAME))?;
        check(ScoreTable::from_json(&String::from_utf8_lossy(&bytes), NAME))?;
    }

    #[test]
    fn mutated_csv_never_panics(e in prop::collection::vec(edit(), 1..6)) {
        check(ScoreTable::read_csv(mutate(csv_seed(), &e).as_slice(), NAME))?;
    }

    #[test]
    fn mutated_json_never_panics(e in prop::collection::vec(edit(), 1..6)) {
        let bytes = mutate(json_seed(), &e);
        check(ScoreTable::from_json(&String::from_utf8_lossy(&bytes), NAME))?;
    }
}

/// The seeds are valid: the properties start from tables the readers accept.
#[test]
fn seeds_are_read() {
    assert_eq!(ScoreTable::read_csv(csv_seed(), NAME).unwrap().len(), 8);
    let json = std::str::from_utf8(json_seed()).unwrap();
    assert_eq!(ScoreTable::from_json(json, NAME).unwrap().len(), 8);
}
