//! The precision a model's weights and activations run in.

use bias_core::{Choice, Named};
use tch::Kind;

/// The precision of a model's weights and activations: float32, the reference that every
/// result of this workspace is checked in, or a half precision (on CUDA; the CPU refuses them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    /// float32: the reference precision.
    #[default]
    F32,
    /// bfloat16 (CUDA only).
    Bf16,
    /// float16 (CUDA only).
    F16,
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
}

impl Choice for Precision {
    const WHAT: &'static str = "dtype";
    const CHOICES: &'static [Named<Self>] = &[
        Named::new(Precision::F32, "f32", "float32: the reference precision").aliases(&["float32"]),
        Named::new(Precision::Bf16, "bf16", "bfloat16 (CUDA only)").aliases(&["bfloat16"]),
        Named::new(Precision::F16, "f16", "float16 (CUDA only)").aliases(&["float16"]),
    ];
}
