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

/// The demo model: `data/demo-mlm` (480 steps, built by `make demo-full`), else
/// `data/demo-mlm-120` (120 steps, built by `make demo`), else the tiny random fixture.
#[allow(dead_code)] // not every example has a default model
pub fn default_model() -> PathBuf {
    for name in ["data/demo-mlm", "data/demo-mlm-120"] {
        let demo = resolve(name.into());
        if demo.join("config.json").is_file() {
            return demo;
        }
    }
    eprintln!(
        "neither data/demo-mlm (`make demo-full`) nor data/demo-mlm-120 (`make demo`) found; \
         using the tiny random fixtures/models/bert, whose numbers mean nothing"
    );
    "fixtures/models/bert".into()
}
