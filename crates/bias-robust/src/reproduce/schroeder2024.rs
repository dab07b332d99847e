//! The tables and figures of schroeder2024 (see [`super::Paper`]).

use super::{Reproduction, Study};
use crate::RobustError;

/// Writes schroeder2024's tables and figures into `out`.
pub(super) fn reproduce(study: &mut Study<'_>, out: &mut Reproduction) -> Result<(), RobustError> {
    let _ = (study, out);
    Err(RobustError::InvalidConfig(
        "the reproduction of schroeder2024 is being written".into(),
    ))
}
