//! Batched masked-LM evaluation: the one place that runs forward passes.
//!
//! Every PLL scorer reduces to *jobs*: a token sequence, a set of positions to replace by the mask
//! token, and target positions at which to read `log P(token)` for some token ids. The engine
//! sorts jobs by length, packs them into batches under a token budget (padding on the right with
//! an attention mask, so padding changes no result), runs the encoder once per batch, and applies
//! the vocabulary projection only at the target positions. Log-probabilities are returned in f64.

use std::ops::Range;

use tch::{Device, Kind, Tensor};

use crate::model::{EncodeRequest, MaskedLanguageModel};
use crate::PlmError;

/// Positions projected onto the vocabulary at once (about 16 MB of f32 logits for a 30k
/// vocabulary).
const PROJECTION_SLICE: usize = 128;

/// One position to read: `log P(t | masked sequence)` for each `t` in `tokens`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    /// Position in the sequence.
    pub position: usize,
    /// Token ids whose log-probabilities are read (the original token first).
    pub tokens: Vec<i64>,
}

/// One masked copy of a sentence to evaluate.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Token ids with special tokens.
    pub ids: Vec<i64>,
    /// Positions replaced by the mask token.
    pub masked: Vec<usize>,
    /// Positions to read.
    pub targets: Vec<Target>,
    /// Also return the attention each position receives (AULA).
    pub attention: bool,
}

/// What a job produced.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResult {
    /// Per target, the log-probabilities of its `tokens`, in order.
    pub log_probs: Vec<Vec<f64>>,
    /// Per target, whether the arg-max token equals the target's first token.
    pub correct: Vec<bool>,
    /// With `attention`: per position, the attention it receives, averaged over layers, heads and
    /// (non-padding) query positions (kaneko2022 Eq. 5).
    pub attention_received: Option<Vec<f64>>,
}

/// Batching settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOptions {
    /// At most this many sequences per forward pass.
    pub max_batch: usize,
    /// At most this many (padded) tokens per forward pass.
    pub max_tokens: usize,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            max_batch: 64,
            max_tokens: 4096,
        }
    }
}

/// Counters of the work done (for `bias bench`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Forward passes of the encoder.
    pub forward_passes: u64,
    /// Sequences encoded.
    pub sequences: u64,
    /// Non-padding tokens encoded.
    pub tokens: u64,
    /// Padded tokens encoded (tokens + padding).
    pub padded_tokens: u64,
    /// Positions projected onto the vocabulary.
    pub projected: u64,
}

impl EngineStats {
    /// The work done since `earlier` (counters taken from the same engine).
    pub fn since(self, earlier: EngineStats) -> EngineStats {
        EngineStats {
            forward_passes: self.forward_passes - earlier.forward_passes,
            sequences: self.sequences - earlier.sequences,
            tokens: self.tokens - earlier.tokens,
            padded_tokens: self.padded_tokens - earlier.padded_tokens,
            projected: self.projected - earlier.projected,
        }
    }
}

/// Runs jobs on a model.
#[derive(Debug)]
pub struct Engine<'m> {
    model: &'m dyn MaskedLanguageModel,
    mask_id: i64,
    pad_id: i64,
    device: Device,
    options: BatchOptions,
    stats: EngineStats,
}

impl<'m> Engine<'m> {
    /// An engine on `model`, placing inputs on `device`.
    pub fn new(
        model: &'m dyn MaskedLanguageModel,
        mask_id: i64,
        pad_id: i64,
        device: Device,
        options: BatchOptions,
    ) -> Self {
        Engine {
            model,
            mask_id,
            pad_id,
            device,
            options,
            stats: EngineStats::default(),
        }
    }

    /// Work counters so far.
    pub fn stats(&self) -> EngineStats {
        self.stats
    }

    /// Evaluates every job; results are in job order.
    ///
    /// # Errors
    /// [`PlmError::Torch`] on a libtorch failure; [`PlmError::Shape`] for a target outside its
    /// sequence.
    pub fn run(&mut self, jobs: &[Job]) -> Result<Vec<JobResult>, PlmError> {
        for (i, job) in jobs.iter().enumerate() {
            let n = job.ids.len();
            if job
                .masked
                .iter()
                .chain(job.targets.iter().map(|t| &t.position))
                .any(|&p| p >= n)
            {
                return Err(PlmError::Shape(format!(
                    "job {i}: a masked or target position lies outside its {n} tokens"
                )));
            }
        }
        // Longest first, so the first batch shows the memory peak early; the sort is stable,
        // so equal lengths keep job order.
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(jobs[i].ids.len()));
        let mut results: Vec<Option<JobResult>> = vec![None; jobs.len()];
        for range in self.batches(&order, jobs) {
            let batch: Vec<usize> = order[range].to_vec();
            let out = tch::no_grad(|| self.run_batch(&batch, jobs))?;
            for (i, r) in batch.into_iter().zip(out) {
                results[i] = Some(r);
            }
        }
        Ok(results
            .into_iter()
            .map(|r| r.expect("every job is in one batch"))
            .collect())
    }

    /// Splits `order` (sorted by decreasing length) into batches within the budget.
    fn batches(&self, order: &[usize], jobs: &[Job]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let width = jobs[order[start]].ids.len().max(1);
            let by_tokens = (self.options.max_tokens / width).max(1);
            let size = by_tokens.min(self.options.max_batch.max(1));
            let end = (start + size).min(order.len());
            out.push(start..end);
            start = end;
        }
        out
    }

    fn run_batch(&mut self, batch: &[usize], jobs: &[Job]) -> Result<Vec<JobResult>, PlmError> {
        let width = batch.iter().map(|&i| jobs[i].ids.len()).max().unwrap_or(0);
        let b = batch.len();
        let mut ids = vec![self.pad_id; b * width];
        let mut mask = vec![0i64; b * width];
        let mut flat_targets: Vec<i64> = Vec::new();
        for (row, &j) in batch.iter().enumerate() {
            let job = &jobs[j];
            let base = row * width;
            ids[base..base + job.ids.len()].copy_from_slice(&job.ids);
            mask[base..base + job.ids.len()].fill(1);
            for &p in &job.masked {
                ids[base + p] = self.mask_id;
            }
            flat_targets.extend(job.targets.iter().map(|t| (base + t.position) as i64));
            self.stats.tokens += job.ids.len() as u64;
        }
        self.stats.forward_passes += 1;
        self.stats.sequences += b as u64;
        self.stats.padded_tokens += (b * width) as u64;
        self.stats.projected += flat_targets.len() as u64;

        let shape = [b as i64, width as i64];
        let input = Tensor::from_slice(&ids)
            .reshape(shape)
            .to_device(self.device);
        let attn_mask = Tensor::from_slice(&mask)
            .reshape(shape)
            .to_device(self.device);
        let want_attention = batch.iter().any(|&j| jobs[j].attention);
        let out = self.model.encode(
            &input,
            &attn_mask,
            EncodeRequest {
                attentions: want_attention,
                all_hidden: false,
            },
        )?;
        let hidden_size = out.last_hidden.size()[2];
        let index = Tensor::from_slice(&flat_targets).to_device(self.device);
        let picked = out
            .last_hidden
            .f_reshape([(b * width) as i64, hidden_size])?
            .f_index_select(0, &index)?;
        let (log_probs, argmax) = self.project(&picked, batch, jobs)?;
        let received = match &out.attentions {
            Some(layers) if want_attention => Some(attention_received(layers, &attn_mask)?),
            _ => None,
        };

        let mut results = Vec::with_capacity(b);
        let mut k = 0;
        for (row, &j) in batch.iter().enumerate() {
            let job = &jobs[j];
            let n_t = job.targets.len();
            let lp = log_probs[k..k + n_t].to_vec();
            let correct = job
                .targets
                .iter()
                .zip(&argmax[k..k + n_t])
                .map(|(t, &a)| t.tokens.first() == Some(&a))
                .collect();
            k += n_t;
            let attention_received = match (&received, job.attention) {
                (Some(r), true) => Some(r[row * width..row * width + job.ids.len()].to_vec()),
                _ => None,
            };
            results.push(JobResult {
                log_probs: lp,
                correct,
                attention_received,
            });
        }
        Ok(results)
    }

    /// Applies the MLM head to the picked hidden states in slices of [`PROJECTION_SLICE`]
    /// positions (a `[positions, vocab]` logits tensor larger than the cache costs more in memory
    /// traffic than in arithmetic), returning per target the log-probabilities of its tokens and
    /// the arg-max token.
    fn project(
        &self,
        picked: &Tensor,
        batch: &[usize],
        jobs: &[Job],
    ) -> Result<(Vec<Vec<f64>>, Vec<i64>), PlmError> {
        let targets: Vec<&Target> = batch.iter().flat_map(|&j| jobs[j].targets.iter()).collect();
        let mut log_probs = Vec::with_capacity(targets.len());
        let mut argmax = Vec::with_capacity(targets.len());
        for start in (0..targets.len()).step_by(PROJECTION_SLICE) {
            let end = (start + PROJECTION_SLICE).min(targets.len());
            let hidden = picked.f_narrow(0, start as i64, (end - start) as i64)?;
            // log P(t) = logit_t − logsumexp(logits): log_softmax's value without writing a
            // second [positions, vocab] tensor.
            let logits = crate::logprob::at_least_f32(self.model.mlm_logits(&hidden)?)?;
            let lse = logits.f_logsumexp(&[-1i64][..], true)?;
            argmax.extend(Vec::<i64>::try_from(
                &logits.f_argmax(-1, false)?.f_to_device(Device::Cpu)?,
            )?);
            log_probs.extend(self.read_tokens(&logits, &lse, &targets[start..end])?);
        }
        Ok((log_probs, argmax))
    }

    /// Gathers, for each target (in order), the log-probabilities of its tokens.
    fn read_tokens(
        &self,
        logits: &Tensor,
        lse: &Tensor,
        targets: &[&Target],
    ) -> Result<Vec<Vec<f64>>, PlmError> {
        let widest = targets.iter().map(|t| t.tokens.len()).max().unwrap_or(0);
        if widest == 0 {
            return Ok(vec![Vec::new(); targets.len()]);
        }
        let vocab = logits.size()[1];
        let mut index = Vec::with_capacity(targets.len() * widest);
        for t in targets {
            if let Some(bad) = t.tokens.iter().find(|&&id| id < 0 || id >= vocab) {
                return Err(PlmError::Shape(format!(
                    "token id {bad} outside the vocabulary of {vocab}"
                )));
            }
            index.extend(t.tokens.iter().copied());
            index.extend(std::iter::repeat_n(
                t.tokens[0].max(0),
                widest - t.tokens.len(),
            ));
        }
        let index = Tensor::from_slice(&index)
            .reshape([targets.len() as i64, widest as i64])
            .to_device(logits.device());
        let gathered = logits
            .f_gather(1, &index, false)?
            .f_sub(lse)?
            .f_to_kind(Kind::Double)?
            .f_to_device(Device::Cpu)?
            .f_reshape([-1])?;
        let flat = Vec::<f64>::try_from(&gathered)?;
        Ok(targets
            .iter()
            .enumerate()
            .map(|(i, t)| flat[i * widest..i * widest + t.tokens.len()].to_vec())
            .collect())
    }
}

/// `a_j`: attention received by each position, averaged over layers, heads and the non-padding
/// query positions of its sequence (kaneko2022 Eq. 5). Returns `[batch · width]` values, row-major.
fn attention_received(layers: &[Tensor], attn_mask: &Tensor) -> Result<Vec<f64>, PlmError> {
    let query_mask = attn_mask.f_to_kind(Kind::Double)?; // [B, T]
    let mut total: Option<Tensor> = None;
    for layer in layers {
        // [B, H, Tq, Tk] → sum over heads and (masked) queries → [B, Tk]
        let a = layer.f_to_kind(Kind::Double)?;
        let per_query = a.f_sum_dim_intlist(&[1i64][..], false, Kind::Double)?; // [B, Tq, Tk]
        let weighted = per_query.f_mul(&query_mask.f_unsqueeze(2)?)?;
        let received = weighted.f_sum_dim_intlist(&[1i64][..], false, Kind::Double)?;
        total = Some(match total {
            None => received,
            Some(t) => t.f_add(&received)?,
        });
    }
    let heads = layers.first().map_or(1, |l| l.size()[1]) as f64;
    let n_layers = layers.len().max(1) as f64;
    let queries = query_mask.f_sum_dim_intlist(&[1i64][..], true, Kind::Double)?; // [B, 1]
    let total =
        total.ok_or_else(|| PlmError::Shape("the model returned no attention layers".into()))?;
    let mean = total
        .f_div(&queries)?
        .f_div_scalar(heads * n_layers)?
        .f_to_device(Device::Cpu)?
        .f_reshape([-1])?;
    Ok(Vec::<f64>::try_from(&mean)?)
}
