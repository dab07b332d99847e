//! Reading the JSON that references and runs write: a file, and its arrays as Rust vectors.

use std::path::Path;

use serde_json::Value;

/// The JSON file at `path`, failing with the path.
#[track_caller]
pub fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The JSON file at `rel` under the repository's root.
#[track_caller]
pub fn at_root(rel: &str) -> Value {
    read(&crate::root().join(rel))
}

/// The numbers of a JSON array.
#[track_caller]
pub fn floats(v: &Value) -> Vec<f64> {
    array(v).iter().map(|x| x.as_f64().unwrap()).collect()
}

/// The integers of a JSON array.
#[track_caller]
pub fn ints(v: &Value) -> Vec<i64> {
    array(v).iter().map(|x| x.as_i64().unwrap()).collect()
}

/// The strings of a JSON array.
#[track_caller]
pub fn strings(v: &Value) -> Vec<String> {
    array(v)
        .iter()
        .map(|x| x.as_str().unwrap().to_owned())
        .collect()
}

#[track_caller]
fn array(v: &Value) -> &Vec<Value> {
    v.as_array().unwrap_or_else(|| panic!("not an array: {v}"))
}

/// The largest absolute difference of two equally long lists.
#[track_caller]
pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}
