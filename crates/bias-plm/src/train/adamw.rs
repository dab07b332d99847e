//! AdamW (Loshchilov & Hutter 2019) exactly as `torch.optim.AdamW` computes it, the linear
//! warm-up and decay schedule of `transformers.get_linear_schedule_with_warmup`, and global
//! gradient-norm clipping (`torch.nn.utils.clip_grad_norm_`).
//!
//! Written here rather than taken from `tch::nn::Optimizer` because resuming a run exactly needs
//! the first and second moments, which the C++ optimiser behind `tch` does not expose: here they
//! are ordinary tensors, saved and restored with the checkpoint.

use std::collections::HashMap;

use tch::Tensor;

use crate::PlmError;

/// One trained tensor and its moments.
#[derive(Debug)]
struct Slot {
    name: String,
    param: Tensor,
    m: Tensor,
    v: Tensor,
    decay: bool,
}

/// AdamW over named parameters.
#[derive(Debug)]
pub(crate) struct AdamW {
    slots: Vec<Slot>,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    step: i64,
}

/// Whether `transformers`' Trainer decays a parameter: not biases and not layer-norm weights.
pub(crate) fn decays(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    !(lower.ends_with("bias") || lower.contains("layernorm") || lower.contains("layer_norm"))
}

impl AdamW {
    /// AdamW with `torch`'s defaults (β = (0.9, 0.999), ε = 1e-8) over `params`, which must
    /// track gradients.
    pub(crate) fn new(params: &[(String, Tensor)], weight_decay: f64) -> Result<Self, PlmError> {
        let slots = params
            .iter()
            .map(|(name, p)| {
                Ok(Slot {
                    name: name.clone(),
                    param: p.shallow_clone(),
                    m: p.f_zeros_like()?,
                    v: p.f_zeros_like()?,
                    decay: decays(name),
                })
            })
            .collect::<Result<Vec<_>, PlmError>>()?;
        Ok(AdamW {
            slots,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay,
            step: 0,
        })
    }

    /// Clips the global L2 norm of the gradients to `max_norm` and returns the norm before
    /// clipping (`clip_grad_norm_`: scale by `max_norm / (norm + 1e-6)` when that is below 1).
    pub(crate) fn clip_grad_norm(&mut self, max_norm: f64) -> Result<f64, PlmError> {
        let _guard = tch::no_grad_guard();
        let mut squares = 0.0;
        let grads: Vec<Tensor> = self.slots.iter().map(|s| s.param.grad()).collect();
        for g in grads.iter().filter(|g| g.defined()) {
            let n = g.f_norm()?.f_double_value(&[])?;
            squares += n * n;
        }
        let norm = squares.sqrt();
        let coef = max_norm / (norm + 1e-6);
        if max_norm > 0.0 && coef < 1.0 {
            for mut g in grads.into_iter().filter(|g| g.defined()) {
                let _ = g.f_mul_scalar_(coef)?;
            }
        }
        Ok(norm)
    }

    /// One update at learning rate `lr`, then the gradients are zeroed.
    pub(crate) fn step(&mut self, lr: f64) -> Result<(), PlmError> {
        let _guard = tch::no_grad_guard();
        self.step += 1;
        let bc1 = 1.0 - self.beta1.powi(self.step as i32);
        let bc2 = 1.0 - self.beta2.powi(self.step as i32);
        for slot in &mut self.slots {
            let mut grad = slot.param.grad();
            if !grad.defined() {
                continue;
            }
            if slot.decay && self.weight_decay > 0.0 {
                let _ = slot.param.f_mul_scalar_(1.0 - lr * self.weight_decay)?;
            }
            let _ = slot.m.f_mul_scalar_(self.beta1)?;
            let _ = slot.m.f_add_(&grad.f_mul_scalar(1.0 - self.beta1)?)?;
            let _ = slot.v.f_mul_scalar_(self.beta2)?;
            let _ = slot
                .v
                .f_add_(&grad.f_square()?.f_mul_scalar(1.0 - self.beta2)?)?;
            let denom = slot
                .v
                .f_sqrt()?
                .f_div_scalar(bc2.sqrt())?
                .f_add_scalar(self.eps)?;
            let update = slot.m.f_div(&denom)?.f_mul_scalar(lr / bc1)?;
            let _ = slot.param.f_sub_(&update)?;
            let _ = grad.f_zero_()?;
        }
        Ok(())
    }

    /// Steps taken so far.
    #[cfg(test)]
    pub(crate) fn steps(&self) -> i64 {
        self.step
    }

    /// The moments as named tensors (`m.{name}`, `v.{name}`) for a checkpoint.
    pub(crate) fn state(&self) -> Vec<(String, Tensor)> {
        self.slots
            .iter()
            .flat_map(|s| {
                [
                    (format!("m.{}", s.name), s.m.shallow_clone()),
                    (format!("v.{}", s.name), s.v.shallow_clone()),
                ]
            })
            .collect()
    }

    /// Restores moments saved by [`AdamW::state`] after `step` steps.
    pub(crate) fn restore(
        &mut self,
        state: &HashMap<String, Tensor>,
        step: i64,
    ) -> Result<(), PlmError> {
        let _guard = tch::no_grad_guard();
        for slot in &mut self.slots {
            for (prefix, target) in [("m", &mut slot.m), ("v", &mut slot.v)] {
                let name = format!("{prefix}.{}", slot.name);
                let saved = state.get(&name).ok_or_else(|| {
                    PlmError::Training(format!("the checkpoint's optimiser state lacks {name}"))
                })?;
                target.f_copy_(saved)?;
            }
        }
        self.step = step;
        Ok(())
    }
}

/// `get_linear_schedule_with_warmup`: the learning rate of 0-based step `step` rises linearly
/// over `warmup` steps, then falls linearly to 0 at `total`.
pub(crate) fn linear_schedule(peak: f64, step: usize, warmup: usize, total: usize) -> f64 {
    if step < warmup {
        peak * step as f64 / warmup.max(1) as f64
    } else {
        peak * (total.saturating_sub(step)) as f64 / (total - warmup).max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::{abs_diff_eq, assert_abs_diff_eq};
    use tch::{Device, Kind};

    #[test]
    fn schedule_matches_transformers() {
        // get_linear_schedule_with_warmup(num_warmup_steps=2, num_training_steps=10) multiplies
        // the peak by 0, 0.5, then (10 - s) / 8.
        let lrs: Vec<f64> = (0..10).map(|s| linear_schedule(1.0, s, 2, 10)).collect();
        let expected = [0.0, 0.5, 1.0, 0.875, 0.75, 0.625, 0.5, 0.375, 0.25, 0.125];
        for (a, b) in lrs.iter().zip(expected) {
            assert!(abs_diff_eq!(*a, b, epsilon = 1e-12), "{lrs:?}");
        }
    }

    #[test]
    fn decay_groups() {
        assert!(decays("bert.encoder.layer.0.attention.self.query.weight"));
        assert!(!decays("bert.encoder.layer.0.attention.self.query.bias"));
        assert!(!decays("bert.embeddings.LayerNorm.weight"));
        assert!(!decays(
            "distilbert.transformer.layer.0.sa_layer_norm.weight"
        ));
        assert!(!decays("cls.predictions.bias"));
    }

    #[test]
    fn two_steps_by_hand() {
        // f(w) = w² at w = 1: g = 2w. torch.optim.AdamW(lr=0.1, weight_decay=0.5):
        // step 1: w ← 1·(1 − 0.05) = 0.95; m = 0.2, v = 0.004; m̂ = 2, v̂ = 4;
        //         w ← 0.95 − 0.1·2/(2 + 1e-8) = 0.85.
        // step 2: g = 1.7; w ← 0.85·0.95 = 0.8075; m = 0.9·0.2 + 0.1·1.7 = 0.35;
        //         v = 0.999·0.004 + 0.001·2.89 = 0.006886; m̂ = 0.35/0.19;
        //         v̂ = 0.006886/0.001999; w ← 0.8075 − 0.1·m̂/(√v̂ + 1e-8).
        let w = Tensor::from_slice(&[1.0f64])
            .to_kind(Kind::Double)
            .to_device(Device::Cpu)
            .set_requires_grad(true);
        let mut opt = AdamW::new(&[("w.weight".to_string(), w.shallow_clone())], 0.5).unwrap();
        for _ in 0..2 {
            let loss = w.square().sum(Kind::Double);
            loss.backward();
            opt.step(0.1).unwrap();
        }
        // The same two steps written out (with ε carried, which moves w by ~5e-10).
        let (b1, b2, eps, lr, wd) = (0.9f64, 0.999f64, 1e-8, 0.1, 0.5);
        let (mut x, mut m, mut v) = (1.0f64, 0.0, 0.0);
        for t in 1..=2 {
            let g = 2.0 * x;
            x *= 1.0 - lr * wd;
            m = b1 * m + (1.0 - b1) * g;
            v = b2 * v + (1.0 - b2) * g * g;
            let (m_hat, v_hat) = (m / (1.0 - b1.powi(t)), v / (1.0 - b2.powi(t)));
            x -= lr * m_hat / (v_hat.sqrt() + eps);
        }
        assert_abs_diff_eq!(
            x,
            0.8075 - 0.1 * (0.35 / 0.19) / (0.006886f64 / 0.001999).sqrt(),
            epsilon = 1e-8
        );
        assert!(
            abs_diff_eq!(w.double_value(&[0]), x, epsilon = 1e-14),
            "{} vs {x}",
            w.double_value(&[0])
        );
        assert_eq!(opt.steps(), 2);
    }

    #[test]
    fn clipping_scales_to_the_threshold() {
        let w = Tensor::from_slice(&[3.0f64, 4.0]).set_requires_grad(true);
        let mut opt = AdamW::new(&[("w".to_string(), w.shallow_clone())], 0.0).unwrap();
        // d/dw of Σ w² = 2w = (6, 8): norm 10.
        w.square().sum(Kind::Double).backward();
        let norm = opt.clip_grad_norm(1.0).unwrap();
        assert_abs_diff_eq!(norm, 10.0, epsilon = 1e-12);
        let g = w.grad();
        let clipped = (g.double_value(&[0]).powi(2) + g.double_value(&[1]).powi(2)).sqrt();
        assert_abs_diff_eq!(clipped, 10.0 / (10.0 + 1e-6), epsilon = 1e-9);
    }
}
