//! The template-based score TBS and the he/she probe of kaneko2023 (work in progress).
