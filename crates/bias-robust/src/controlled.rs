//! The bias-controlled meta-evaluation of kaneko2023 (work in progress).
