//! Log-probabilities of original tokens, the quantity every PLL score sums or averages.

use tch::{Kind, Tensor};

use crate::PlmError;

/// `log P(t_i | ·)` for each row `i` of `logits` (`[positions, vocab]`) and target token
/// `targets[i]`: a natural-log `log_softmax` over the full vocabulary, as in the reference code of
/// kaneko2022 (Eqs. 2–5) and Nangia et al. (2020), returned as `f64` so that sums over a
/// sentence are accumulated in double precision.
///
/// The softmax runs in f32 for half-precision logits (`at_least_f32`) and in the logits' own
/// precision otherwise (f32 for the reference results); the gathered values are widened to f64.
///
/// # Errors
/// [`PlmError::Shape`] if `logits` is not 2-D or has a different number of rows than `targets`;
/// [`PlmError::Torch`] if a target id is outside the vocabulary.
pub fn token_log_probs(logits: &Tensor, targets: &[i64]) -> Result<Vec<f64>, PlmError> {
    let size = logits.size();
    if size.len() != 2 || size[0] != targets.len() as i64 {
        return Err(PlmError::Shape(format!(
            "logits of shape {size:?} for {} target tokens (expected [{}, vocab])",
            targets.len(),
            targets.len()
        )));
    }
    let vocab = size[1];
    if let Some(bad) = targets.iter().find(|&&t| t < 0 || t >= vocab) {
        return Err(PlmError::Shape(format!(
            "target token id {bad} outside the vocabulary of {vocab}"
        )));
    }
    let index = Tensor::from_slice(targets)
        .to_device(logits.device())
        .unsqueeze(1);
    let logits = at_least_f32(logits.shallow_clone())?;
    let picked = logits
        .f_log_softmax(-1, logits.kind())?
        .f_gather(1, &index, false)?
        .f_squeeze_dim(1)?
        .f_to_kind(Kind::Double)?
        .f_to_device(tch::Device::Cpu)?;
    Ok(Vec::<f64>::try_from(&picked)?)
}

/// `logits` in f32 when they are in half precision (bf16, f16), unchanged otherwise: every
/// log-softmax, logsumexp and sum of the scorers runs in f32 or wider, whatever the weights'
/// precision (a bf16 logsumexp over a 30k vocabulary loses about two digits).
pub(crate) fn at_least_f32(logits: Tensor) -> Result<Tensor, PlmError> {
    if matches!(logits.kind(), Kind::Half | Kind::BFloat16) {
        Ok(logits.f_to_kind(Kind::Float)?)
    } else {
        Ok(logits)
    }
}
