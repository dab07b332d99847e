//! Streaming a large word2vec binary file: the loader's memory growth, measured from this
//! process's peak RSS. Its own test binary (not a module of `tests/it`): the measurement would
//! count the allocations of the tests running beside it in the same process.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use bias_embed::{CasePolicy, VectorFormat, WordVectors};

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "bias-embed-vectors-memory-{}-{name}",
            std::process::id()
        ));
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Deterministic value of row `i`, column `j` of the generated file.
fn generated(i: usize, j: usize) -> f32 {
    let h = (i as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F));
    ((h >> 40) as f32 / (1u64 << 24) as f32) - 0.5
}

fn proc_status_kib(field: &str) -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn streams_a_large_binary_file() {
    const WORDS: usize = 200_000;
    const DIM: usize = 50;
    let dir = TempDir::new("large");
    let path = dir.0.join("large.bin");
    {
        let mut w = BufWriter::new(fs::File::create(&path).unwrap());
        writeln!(w, "{WORDS} {DIM}").unwrap();
        for i in 0..WORDS {
            write!(w, "w{i} ").unwrap();
            for j in 0..DIM {
                w.write_all(&generated(i, j).to_le_bytes()).unwrap();
            }
            // Every other record without its optional line break.
            if i % 2 == 0 {
                w.write_all(b"\n").unwrap();
            }
        }
        w.flush().unwrap();
    }

    // Reset the peak RSS (Linux: writing 5 to clear_refs resets VmHWM) when allowed.
    let peak_reset = fs::write("/proc/self/clear_refs", "5").is_ok();
    let before = proc_status_kib("VmRSS:");
    let v = WordVectors::load(&path, VectorFormat::Auto, CasePolicy::Keep).unwrap();
    let after = proc_status_kib(if peak_reset { "VmHWM:" } else { "VmRSS:" });

    assert_eq!(v.len(), WORDS);
    assert_eq!(v.dim(), DIM);
    assert_eq!(
        v.load_report().unwrap().format,
        VectorFormat::Word2VecBinary
    );
    for i in [0, 1, 2, 99_999, 123_457, WORDS - 1] {
        let row = v.get(&format!("w{i}")).unwrap();
        assert_eq!(v.index(&format!("w{i}")), Some(i));
        for j in [0, 1, 17, DIM - 1] {
            assert_eq!(row[j].to_bits(), generated(i, j).to_bits(), "w{i}[{j}]");
        }
    }

    let matrix_bytes = (WORDS * DIM * 4) as u64;
    match (before, after) {
        (Some(before), Some(after)) => {
            let growth = after.saturating_sub(before) * 1024;
            eprintln!(
                "{} growth while loading: {:.1} MB (matrix {:.1} MB)",
                if peak_reset { "peak RSS" } else { "RSS" },
                growth as f64 / 1e6,
                matrix_bytes as f64 / 1e6
            );
            assert!(
                growth < 3 * matrix_bytes + 64 * 1024 * 1024,
                "memory grew by {growth} bytes for a {matrix_bytes}-byte matrix"
            );
        }
        _ => eprintln!("/proc/self/status unavailable: memory growth not measured"),
    }
}
