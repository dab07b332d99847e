//! The tables and figures of paraphrase (see [`super::Paper`]).

use super::{Reproduction, Study};
use crate::RobustError;

/// Writes paraphrase's tables and figures into `out`.
pub(super) fn reproduce(study: &mut Study<'_>, out: &mut Reproduction) -> Result<(), RobustError> {
    let _ = (study, out);
    Err(RobustError::InvalidConfig(
        "the reproduction of paraphrase is being written".into(),
    ))
}
