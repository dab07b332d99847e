//! The tables and figures of kaneko2023 (see [`super::Paper`]).

use super::{Reproduction, Study};
use crate::RobustError;

/// Writes kaneko2023's tables and figures into `out`.
pub(super) fn reproduce(study: &mut Study<'_>, out: &mut Reproduction) -> Result<(), RobustError> {
    let _ = (study, out);
    Err(RobustError::InvalidConfig(
        "the reproduction of kaneko2023 is being written".into(),
    ))
}
