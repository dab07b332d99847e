//! The precision a model's weights and activations run in.

use tch::Kind;

bias_core::choice! {
    /// The precision of a model's weights and activations: float32, the reference that every
    /// result of this workspace is checked in, or a half precision (on CUDA; the CPU refuses them).
    #[derive(Default)]
    pub enum Precision: "dtype" {
        /// float32: the reference precision.
        #[default]
        F32 = "f32" | "float32" => "float32: the reference precision",
        /// bfloat16 (CUDA or CPU; log-softmax and sums in f32 and f64).
        Bf16 = "bf16" | "bfloat16" => "bfloat16 (CUDA or CPU: half the memory)",
        /// float16 (CUDA only).
        F16 = "f16" | "float16" => "float16 (CUDA only)",
    }
}

impl Precision {
    /// The libtorch kind of the weights.
    pub const fn kind(self) -> Kind {
        match self {
            Precision::F32 => Kind::Float,
            Precision::Bf16 => Kind::BFloat16,
            Precision::F16 => Kind::Half,
        }
    }

    /// What this precision is measured to keep of f32's verdicts (`docs/precision.md`,
    /// `scripts/precision_agreement.sh`), for a run in it to say; `None` for f32, the reference.
    pub const fn agreement_note(self) -> Option<&'static str> {
        match self {
            Precision::F32 => None,
            Precision::Bf16 => Some(
                "bf16 kept 94.3-100 % of f32's verdicts per scorer on the fixture models and \
                 89.7 % of CPS's on a MiniLM-shaped model (docs/precision.md); use f32 for \
                 numbers compared with published ones",
            ),
            Precision::F16 => Some(
                "f16 kept 86.2 % of f32's CPS verdicts on a MiniLM-shaped model on an H100 \
                 (docs/gpu.md); use f32 for numbers compared with published ones",
            ),
        }
    }

    /// The precision of a libtorch kind; `None` for a kind models are not run in.
    pub fn of(kind: Kind) -> Option<Self> {
        match kind {
            Kind::Float => Some(Precision::F32),
            Kind::BFloat16 => Some(Precision::Bf16),
            Kind::Half => Some(Precision::F16),
            _ => None,
        }
    }
}

/// The libtorch kind of a PyTorch dtype as `str(tensor.dtype)` writes it (`torch.float32`,
/// `torch.bfloat16`, `torch.int64`, ...; the `torch.` prefix and PyTorch's aliases `float`,
/// `half`, `double`, `long`, `int` optional): how a `state_dict` handed over from Python is
/// read. `None` for a dtype no checkpoint of this workspace holds (complex, quantised, ...).
pub fn torch_dtype_kind(dtype: &str) -> Option<Kind> {
    Some(match dtype.trim_start_matches("torch.") {
        "float32" | "float" => Kind::Float,
        "float16" | "half" => Kind::Half,
        "bfloat16" => Kind::BFloat16,
        "float64" | "double" => Kind::Double,
        "int64" | "long" => Kind::Int64,
        "int32" | "int" => Kind::Int,
        "int16" => Kind::Int16,
        "int8" => Kind::Int8,
        "uint8" => Kind::Uint8,
        "bool" => Kind::Bool,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bias_core::Choice;

    #[test]
    fn names_and_torch_dtypes() {
        assert_eq!(
            Precision::parse_choice("bfloat16").unwrap(),
            Precision::Bf16
        );
        assert_eq!(Precision::F16.kind(), Kind::Half);
        assert!(Precision::parse_choice("f64").is_err());
        assert_eq!(torch_dtype_kind("torch.bfloat16"), Some(Kind::BFloat16));
        assert_eq!(torch_dtype_kind("long"), Some(Kind::Int64));
        assert_eq!(torch_dtype_kind("torch.complex64"), None);
    }
}
