//! Path helpers shared by the masked-LM examples (each example includes this file with
//! `#[path = "common/mod.rs"] mod common;`; examples cannot depend on each other).

use std::path::{Path, PathBuf};

/// `p` as given if it exists (or is absolute), else relative to the repository root.
pub fn resolve(p: PathBuf) -> PathBuf {
    if p.is_absolute() || p.exists() {
        p
    } else {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(p)
    }
}

/// `data/demo-mlm` (built by `make demo`) if it holds a model, else the tiny random fixture.
#[allow(dead_code)] // not every example has a default model
pub fn default_model() -> PathBuf {
    let demo = resolve("data/demo-mlm".into());
    if demo.join("config.json").is_file() {
        return demo;
    }
    eprintln!(
        "data/demo-mlm not found (built by `make demo`); using the tiny random \
         fixtures/models/bert, whose numbers mean nothing"
    );
    "fixtures/models/bert".into()
}
