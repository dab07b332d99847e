//! What `bias bench` measures, for any front end: a scorer timed on encoded pairs after an
//! untimed warm-up, this machine's matmul peak at the model's own shapes (measured in the same
//! run, so that a share of it compares like with like), and the process's peak resident memory
//! against the size of the weights.

use std::time::Instant;

use bias_core::SentencePair;
use tch::{Device, Kind, Tensor};

use crate::{EngineStats, LanguageModel, MaskedLanguageModel, PlmError, ScoringOptions};

/// Rows of the peak's left operand: a batch of 2,048 tokens (32 sequences of 64), the size of a
/// scoring batch.
pub const PEAK_ROWS: i64 = 2048;

/// The throughput of one matrix product `[rows, inner] @ [inner, cols]` in `kind` on `device`,
/// the best of several timed runs after a warm-up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatmulPeak {
    /// Rows of the left operand.
    pub rows: i64,
    /// The shared dimension (the model's hidden size).
    pub inner: i64,
    /// Columns of the right operand (the model's feed-forward width).
    pub cols: i64,
    /// The floating-point kind of both operands.
    pub kind: Kind,
    /// Floating-point operations per second (two per multiply-add).
    pub flops_per_second: f64,
}

impl MatmulPeak {
    /// Times `[rows, inner] @ [inner, cols]` (random operands) after a warm-up, until a second
    /// has passed or ten runs are done, and keeps the fastest (the warm-up included).
    ///
    /// # Errors
    /// [`PlmError::Torch`] if libtorch cannot allocate or multiply the operands.
    pub fn measure(
        rows: i64,
        inner: i64,
        cols: i64,
        kind: Kind,
        device: Device,
    ) -> Result<Self, PlmError> {
        let _guard = tch::no_grad_guard();
        let a = Tensor::f_randn([rows, inner], (kind, device))?;
        let b = Tensor::f_randn([inner, cols], (kind, device))?;
        let run = || -> Result<f64, PlmError> {
            let started = Instant::now();
            let product = a.f_matmul(&b)?;
            if let Device::Cuda(i) = device {
                tch::Cuda::synchronize(i as i64);
            }
            drop(product);
            Ok(started.elapsed().as_secs_f64().max(1e-12))
        };
        // The warm-up counts where it alone takes a second: a slow kernel (bf16 on a CPU
        // without native support) is timed once, not ten times.
        let warm = run()?;
        let (mut best, mut spent, mut runs) = (warm, if warm >= 1.0 { warm } else { 0.0 }, 0);
        while spent < 1.0 && runs < 10 {
            let secs = run()?;
            best = best.min(secs);
            spent += secs;
            runs += 1;
        }
        Ok(MatmulPeak {
            rows,
            inner,
            cols,
            kind,
            flops_per_second: 2.0 * (rows * inner * cols) as f64 / best,
        })
    }

    /// The peak at `lm`'s feed-forward shape (`[PEAK_ROWS, hidden] @ [hidden, intermediate]`,
    /// each layer's largest product) in its kind on its device; `None` for a model behind a
    /// server, whose weights are not here.
    ///
    /// # Errors
    /// Those of [`MatmulPeak::measure`].
    pub fn of_model(lm: &LanguageModel) -> Result<Option<Self>, PlmError> {
        let (hidden, width, kind, device) = match lm {
            LanguageModel::Masked(m) => {
                let model = m.model();
                let c = model.config();
                (
                    c.hidden_size,
                    c.intermediate_size,
                    model.kind(),
                    model.device(),
                )
            }
            LanguageModel::Causal(m) => match m.model() {
                Some(model) => {
                    let c = model.config();
                    (
                        c.hidden_size,
                        c.intermediate_size,
                        model.kind(),
                        model.device(),
                    )
                }
                None => return Ok(None),
            },
        };
        Self::measure(PEAK_ROWS, hidden, width, kind, device).map(Some)
    }

    /// The shape and kind for a report's line: `2048×768 @ 768×3072, f32`.
    pub fn shape_label(&self) -> String {
        let kind = crate::Precision::of(self.kind)
            .map_or_else(|| format!("{:?}", self.kind), |p| p.name().to_owned());
        format!(
            "{}×{} @ {}×{}, {}",
            self.rows, self.inner, self.inner, self.cols, kind
        )
    }
}

/// One scorer timed on a set of encoded pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct ScorerBench {
    /// The scorer's name.
    pub scorer: String,
    /// Sentences scored (two per pair).
    pub sentences: usize,
    /// Tokens of those sentences.
    pub tokens: usize,
    /// Wall-clock seconds of the timed run.
    pub seconds: f64,
    /// The engine's work counters over the timed run.
    pub stats: EngineStats,
    /// Multiply-adds of that work ([`LanguageModel::multiply_adds`]).
    pub multiply_adds: f64,
    /// The process's peak resident memory after the run ([`peak_rss_bytes`]).
    pub peak_rss_bytes: Option<u64>,
}

impl ScorerBench {
    /// Times scorer `name` on `pairs` (encoded by [`LanguageModel::encode`]): an untimed
    /// warm-up on the first four pairs (allocator, oneDNN kernels), then one timed run of a
    /// fresh scorer over all of them.
    ///
    /// # Errors
    /// Those of [`LanguageModel::scorer`] and [`crate::LmScorer::score_tokenised`].
    pub fn run(
        lm: &LanguageModel,
        name: &str,
        options: ScoringOptions,
        pairs: &[(&SentencePair, Vec<i64>, Vec<i64>)],
    ) -> Result<Self, PlmError> {
        lm.scorer(&[name], options)?
            .score_tokenised(&pairs[..pairs.len().min(4)])?;
        let mut scorer = lm.scorer(&[name], options)?;
        let started = Instant::now();
        scorer.score_tokenised(pairs)?;
        let seconds = started.elapsed().as_secs_f64().max(1e-9);
        let stats = scorer.stats();
        Ok(ScorerBench {
            scorer: name.to_owned(),
            sentences: 2 * pairs.len(),
            tokens: pairs.iter().map(|(_, s, a)| s.len() + a.len()).sum(),
            seconds,
            stats,
            multiply_adds: lm.multiply_adds(&stats),
            peak_rss_bytes: peak_rss_bytes(),
        })
    }

    /// Billions of multiply-adds per second.
    pub fn gmac_per_second(&self) -> f64 {
        self.multiply_adds / self.seconds / 1e9
    }

    /// The share of `peak` the run reached: its floating-point operations per second (two per
    /// multiply-add) over the peak's.
    pub fn share_of(&self, peak: &MatmulPeak) -> f64 {
        2.0 * self.multiply_adds / self.seconds / peak.flops_per_second
    }
}

/// The peak resident memory of this process (Linux `VmHWM` of `/proc/self/status`); `None`
/// where the file is not there.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A product of known size is timed (a positive, finite rate) and labelled with its shape.
    #[test]
    fn a_matmul_peak_is_a_positive_rate_with_its_shape() {
        let peak = MatmulPeak::measure(64, 32, 48, Kind::Float, Device::Cpu).unwrap();
        assert!(peak.flops_per_second.is_finite() && peak.flops_per_second > 0.0);
        assert_eq!(peak.shape_label(), "64×32 @ 32×48, f32");
    }

    /// The share of the peak is twice the multiply-adds per second over the peak's rate
    /// (hand figures: 5e9 MACs in 2 s against 10 GFLOP/s is a share of 0.5).
    #[test]
    fn the_share_of_peak_counts_two_operations_per_multiply_add() {
        let bench = ScorerBench {
            scorer: "cps".into(),
            sentences: 2,
            tokens: 10,
            seconds: 2.0,
            stats: EngineStats::default(),
            multiply_adds: 5e9,
            peak_rss_bytes: None,
        };
        let peak = MatmulPeak {
            rows: 1,
            inner: 1,
            cols: 1,
            kind: Kind::Float,
            flops_per_second: 1e10,
        };
        assert_eq!(bench.share_of(&peak), 0.5);
        assert_eq!(bench.gmac_per_second(), 2.5);
    }

    #[test]
    fn peak_rss_is_read_on_linux() {
        assert!(peak_rss_bytes().is_some_and(|b| b > 0));
    }
}
