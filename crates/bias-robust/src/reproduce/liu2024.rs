//! The tables and figures of liu2024 (see [`super::Paper`]).

use super::{Reproduction, Study};
use crate::RobustError;

/// Writes liu2024's tables and figures into `out`.
pub(super) fn reproduce(study: &mut Study<'_>, out: &mut Reproduction) -> Result<(), RobustError> {
    let _ = (study, out);
    Err(RobustError::InvalidConfig(
        "the reproduction of liu2024 is being written".into(),
    ))
}
