//! Occupation words for templates (kaneko2023 §3.4, Kurita et al. 2019) (work in progress).
