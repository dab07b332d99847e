//! Benchmark files damaged the ways users have met (issue 40): an empty WinoBias sentence or
//! mention, a log-likelihood that cannot be one in lm-evaluation-harness's samples log, BBQ
//! examples that `additional_metadata.csv` does not cover; each alone and mixed. Every damaged
//! file is refused with the error kind of its damage, naming the file and the first damaged line
//! (or, for the metadata, the first example without a row and its file), never read in part.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bias_data::bbq::{read_bbq_dir, BbqCategory};
use bias_data::{load_named, read_lm_eval_samples, DataError};
use proptest::prelude::*;
use serde_json::Value;

use crate::no_panic::{head_lines, repo};

/// A fresh folder for one case.
fn case_dir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("bias-damage-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The refusal's file and location, with its message; anything but
/// [`DataError::InvalidRecord`] fails the case.
fn invalid_record<T: std::fmt::Debug>(
    result: Result<T, DataError>,
) -> Result<(PathBuf, String, String), TestCaseError> {
    match result {
        Err(e @ DataError::InvalidRecord { .. }) => {
            let message = e.to_string();
            let DataError::InvalidRecord { path, location, .. } = e else {
                unreachable!()
            };
            Ok((path, location, message))
        }
        other => Err(TestCaseError::fail(format!(
            "expected an invalid-record error, got {other:?}"
        ))),
    }
}

/// Whether `location` (`line 12`, `line 12 (number 12)`) names line `line`.
fn names_line(location: &str, line: usize) -> bool {
    location
        .strip_prefix("line ")
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .is_some_and(|n| n == line.to_string())
}

// --- WinoBias --------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum WinoDamage {
    /// `N [] []`: the mentions but no sentence.
    EmptySentence,
    /// The first mention emptied: `[]` in a real sentence.
    EmptyMention,
}

fn wino_damage() -> impl Strategy<Value = WinoDamage> {
    prop_oneof![
        Just(WinoDamage::EmptySentence),
        Just(WinoDamage::EmptyMention)
    ]
}

const WINO_LINES: usize = 12;

fn damage_wino_line(line: &str, damage: WinoDamage) -> String {
    let number = line.split_whitespace().next().unwrap();
    match damage {
        WinoDamage::EmptySentence => format!("{number} [] []"),
        WinoDamage::EmptyMention => {
            let (open, close) = (line.find('[').unwrap(), line.find(']').unwrap());
            format!("{}[]{}", &line[..open], &line[close + 1..])
        }
    }
}

// --- lm-evaluation-harness ---------------------------------------------------------------------

#[derive(Debug, Clone)]
enum LogLikDamage {
    /// A positive value (at most 1.7e308), which no log-likelihood is.
    Positive(f64),
    /// `NaN` or an infinity, as a diverged model writes them.
    NonFinite(&'static str),
}

fn loglik_damage() -> impl Strategy<Value = LogLikDamage> {
    prop_oneof![
        (1e-9f64..1.7e308).prop_map(LogLikDamage::Positive),
        prop_oneof![Just("NaN"), Just("inf"), Just("-inf")].prop_map(LogLikDamage::NonFinite),
    ]
}

const LM_EVAL_LINES: usize = 10;
const LM_EVAL_LOG: &str =
    "fixtures/lm_eval/gpt2_crows_pairs_english/samples_crows_pairs_english_local.jsonl";

fn damage_sample(line: &str, damage: &LogLikDamage, request: usize) -> String {
    let mut sample: Value = serde_json::from_str(line).unwrap();
    let text = match damage {
        LogLikDamage::Positive(v) => v.to_string(),
        LogLikDamage::NonFinite(s) => (*s).to_owned(),
    };
    sample["resps"][request][0][0] = Value::String(text);
    serde_json::to_string(&sample).unwrap()
}

// --- BBQ ---------------------------------------------------------------------------------------

const BBQ_EXAMPLES: usize = 8;

/// The header and the metadata records (a record may span lines) of Race_x_gender's examples
/// `0..BBQ_EXAMPLES`, by example id.
fn bbq_metadata_records() -> (String, BTreeMap<usize, String>) {
    let text = std::fs::read_to_string(repo("data/bbq/additional_metadata.csv")).unwrap();
    let mut lines = text.split_inclusive('\n');
    let header = lines.next().unwrap().to_owned();
    let mut records: BTreeMap<usize, String> = BTreeMap::new();
    let mut current: Option<usize> = None;
    for line in lines {
        if line.starts_with('"') {
            let id = line.split(',').nth(2).and_then(|s| s.parse::<usize>().ok());
            current = id.filter(|&i| line.starts_with("\"Race_x_gender\",") && i < BBQ_EXAMPLES);
        }
        if let Some(id) = current {
            records.entry(id).or_default().push_str(line);
        }
    }
    (header, records)
}

#[derive(Debug, Clone, Copy)]
enum MetadataDamage {
    /// The example's row removed.
    Removed,
    /// Its category misspelt, so that it joins no example.
    Misspelt,
}

fn metadata_damage() -> impl Strategy<Value = MetadataDamage> {
    prop_oneof![
        Just(MetadataDamage::Removed),
        Just(MetadataDamage::Misspelt)
    ]
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Damaged WinoBias lines in the pro file, the anti file or both: the pro file is read
    /// first, so its first damaged line is named, else the anti file's.
    #[test]
    fn damaged_winobias_lines_name_their_file_and_the_first_damaged_line(
        damages in prop::collection::btree_map(
            (any::<bool>(), 0..WINO_LINES),
            wino_damage(),
            1..5,
        ),
    ) {
        let root = case_dir("winobias");
        let wino = root.join("winobias");
        std::fs::create_dir_all(&wino).unwrap();
        let mut files = Vec::new();
        for pro in [true, false] {
            let side = if pro { "pro" } else { "anti" };
            let name = format!("{side}_stereotyped_type1.txt.dev");
            let head = head_lines(&format!("data/winobias/{name}"), WINO_LINES);
            let mut lines: Vec<String> =
                String::from_utf8(head).unwrap().lines().map(str::to_owned).collect();
            for (&(in_pro, i), &damage) in &damages {
                if in_pro == pro {
                    lines[i] = damage_wino_line(&lines[i], damage);
                }
            }
            write(&wino.join(&name), &(lines.join("\n") + "\n"));
            files.push(name);
        }
        let (path, location, message) =
            invalid_record(load_named("winobias-type1-dev", &root))?;
        let (&(in_pro, i), _) = damages
            .iter()
            .find(|((in_pro, _), _)| *in_pro)
            .or_else(|| damages.iter().next())
            .unwrap();
        let file = &files[usize::from(!in_pro)];
        prop_assert!(path.ends_with(file), "{message}");
        prop_assert!(message.contains(file.as_str()), "{message}");
        prop_assert!(names_line(&location, i + 1), "line {}: {message}", i + 1);
        std::fs::remove_dir_all(&root).ok();
    }

    /// Log-likelihoods that cannot be ones, on either request of any document: the first
    /// damaged line is named, and no table comes back.
    #[test]
    fn impossible_log_likelihoods_name_the_log_and_the_first_damaged_line(
        damages in prop::collection::btree_map(
            0..LM_EVAL_LINES,
            (loglik_damage(), 0usize..2),
            1..4,
        ),
    ) {
        let dir = case_dir("lm-eval");
        let head = String::from_utf8(head_lines(LM_EVAL_LOG, LM_EVAL_LINES)).unwrap();
        let lines: Vec<String> = head
            .lines()
            .enumerate()
            .map(|(i, line)| match damages.get(&i) {
                Some((damage, request)) => damage_sample(line, damage, *request),
                None => line.to_owned(),
            })
            .collect();
        let log = dir.join("samples_crows_pairs_english_damaged.jsonl");
        write(&log, &(lines.join("\n") + "\n"));
        let (path, location, message) =
            invalid_record(read_lm_eval_samples(&log, "crows-pairs", "m"))?;
        let (&first, (damage, _)) = damages.iter().next().unwrap();
        prop_assert_eq!(&path, &log);
        prop_assert!(message.contains("samples_crows_pairs_english_damaged.jsonl"), "{message}");
        prop_assert!(names_line(&location, first + 1), "line {}: {message}", first + 1);
        let why = match damage {
            LogLikDamage::Positive(_) => "is positive",
            LogLikDamage::NonFinite(_) => "not finite",
        };
        prop_assert!(message.contains(why), "{why}: {message}");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Metadata rows removed or misspelt for any set of examples: the refusal names the
    /// metadata file, the first example (in file order) without a row and its file, and how
    /// many lack one.
    #[test]
    fn bbq_examples_the_metadata_does_not_cover_are_named(
        damages in prop::collection::btree_map(0..BBQ_EXAMPLES, metadata_damage(), 1..BBQ_EXAMPLES),
    ) {
        let dir = case_dir("bbq");
        let examples = head_lines("data/bbq/Race_x_gender.jsonl", BBQ_EXAMPLES);
        std::fs::write(dir.join("Race_x_gender.jsonl"), examples).unwrap();
        let (header, records) = bbq_metadata_records();
        prop_assert_eq!(records.len(), BBQ_EXAMPLES);
        let mut metadata = header;
        for (id, record) in &records {
            match damages.get(id) {
                Some(MetadataDamage::Removed) => {}
                Some(MetadataDamage::Misspelt) => {
                    metadata.push_str(&record.replacen("\"Race_x_gender\"", "\"Race_x_gendr\"", 1));
                }
                None => metadata.push_str(record),
            }
        }
        let metadata_file = dir.join("additional_metadata.csv");
        write(&metadata_file, &metadata);
        let (path, location, message) =
            invalid_record(read_bbq_dir(&dir, &[BbqCategory::RaceXGender]))?;
        let first = damages.keys().next().unwrap();
        prop_assert_eq!(&path, &metadata_file);
        prop_assert!(
            location.starts_with(&format!("example_id {first} of "))
                && location.ends_with("Race_x_gender.jsonl"),
            "{location}"
        );
        let count = format!("({} of the {BBQ_EXAMPLES} examples read have none)", damages.len());
        prop_assert!(message.contains(&count), "{count}: {message}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
