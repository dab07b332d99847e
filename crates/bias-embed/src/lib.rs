//! Bias in embedding spaces: SAME, WEAT, gWEAT and DirectBias for static word vectors and
//! sentence embeddings, as Schröder, Schulz & Hammer (2024, the SAME score; key
//! `schroeder2024`) define and compare them.
//!
//! Every measure takes the vectors as `ndarray` matrices (one row per word or text), so they
//! apply to any embedding: word2vec / GloVe files ([`WordVectors`]), or sentence embeddings of
//! any [`bias_core::Embedder`] such as the mean-pooled embeddings of `bias-plm` ([`DynEmbedder`]
//! takes either).
//!
//! - [`same_binary`], [`same_multi`]: SAME (schroeder2024 §3, Eqs. 11–16), the paper's
//!   definition or the authors' code ([`SameVariant`]);
//! - [`weat`], [`weat_effect_size`], [`weat_permutation_test`]: WEAT (Caliskan et al. 2017; the
//!   effect size with a chosen [`Ddof`], exact or sampled permutation tests);
//! - [`gweat`]: the generalised WEAT for more than two groups (schroeder2024 §2.1.2);
//! - [`direct_bias`], [`bias_subspace`], [`hard_debias`]: DirectBias, the PCA bias subspace and
//!   hard debiasing (Bolukbasi et al. 2016);
//! - [`tpr_gap`]: the downstream true-positive-rate gap (De-Arteaga et al. 2019) that
//!   schroeder2024 (§4.3.3) compares the scores with;
//! - [`protocol`]: texts into target and attribute sets: SEAT-style templates, the bias subspace
//!   of a pair set, and schroeder2024's CrowS-Pairs protocol (§4.2.3, §4.3.1);
//! - [`cosine`], [`unit_mean`]: the primitives (attribute group means are means of unit vectors,
//!   as in schroeder2024 Eq. 11 and the authors' code).
//!
//! Every formula, option and degenerate case: `bias_metrics::docs`, section "Embedding measures".
//!
//! # Example
//!
//! ```
//! use bias_embed::{same_binary, weat, Ddof};
//! use ndarray::array;
//!
//! // Two attribute groups along the axes: the bias direction is â_0 − â_1 = (1, −1).
//! let a0 = array![[1.0, 0.0]];
//! let a1 = array![[0.0, 1.0]];
//! // cos(t, (1, −1)) is 1/√2, −1/√2 and 0 for these targets, so SAME = (2/√2)/3 = √2/3.
//! let targets = array![[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]];
//! let same = same_binary(targets.view(), a0.view(), a1.view())?;
//! assert!((same.per_target[0] - 0.5f64.sqrt()).abs() < 1e-12);
//! assert!((same.value - 2f64.sqrt() / 3.0).abs() < 1e-12);
//!
//! // WEAT with targets X near group A and Y near group B: a positive effect size.
//! let x = array![[1.0, 0.1], [0.9, 0.0]];
//! let y = array![[0.1, 1.0], [0.0, 0.8]];
//! let a = array![[1.0, 0.0], [0.8, 0.2]];
//! let b = array![[0.0, 1.0], [0.2, 0.8]];
//! let w = weat(x.view(), y.view(), a.view(), b.view(), Ddof::One)?;
//! assert!(w.effect_size > 0.0);
//! # Ok::<(), bias_embed::EmbedError>(())
//! ```
//!
//! # Papers
//!
//! Schröder, Schulz & Hammer (2024, IJCNN), Caliskan et al. (2017, *Science*) and Bolukbasi et
//! al. (2016, NeurIPS); full citations in [`bias_core::references`] (also `docs/references.md`
//! in the repository).
#![deny(missing_docs)]

mod debias;
mod direct_bias;
mod dyn_embedder;
mod error;
mod gweat;
pub mod protocol;
mod same;
mod tpr;
mod vector;
mod vectors;
mod weat;

bias_core::choice! {
    /// The embedding bias measures of schroeder2024, by name: what `bias embed --measure` and
    /// `bias robust retest --measure` take.
    #[derive(Default)]
    pub enum EmbeddingMeasure: "embedding measure" {
        /// SAME (schroeder2024 Eqs. 11–16): binary with two attribute sets, multi-group otherwise.
        #[default]
        Same = "same" =>
            "SAME (schroeder2024 Eqs. 11–16): binary with two attribute sets, multi-group otherwise",
        /// WEAT effect size and permutation test (Caliskan et al. 2017; schroeder2024 Eqs. 1–2).
        Weat = "weat" =>
            "WEAT effect size and permutation test (Caliskan et al.; schroeder2024 Eqs. 1–2)",
        /// Generalised WEAT (Swinger et al. 2019; schroeder2024 Eq. 3).
        Gweat = "gweat" => "Generalised WEAT (Swinger et al.; schroeder2024 Eq. 3)",
        /// DirectBias (Bolukbasi et al. 2016; schroeder2024 Eq. 25).
        DirectBias = "direct-bias" => "DirectBias (Bolukbasi et al.; schroeder2024 Eq. 25)",
    }
}

pub use debias::{hard_debias, hard_debias_matrix, python_title, HardDebiasReport};
pub use direct_bias::{
    bias_subspace, bias_subspace_with, direct_bias, direct_bias_terms, BiasSubspace,
    SubspaceVectors,
};
pub use dyn_embedder::DynEmbedder;
pub use error::EmbedError;
pub use gweat::{gweat, Gweat};
pub use same::{same_binary, same_multi, SameBinary, SameMulti, SameVariant, SAME_DEPENDENCE_TOL};
pub use tpr::{load_tpr_csv, tpr_gap, ClassGap, TprGap, TprRecord};
pub use vector::{cosine, unit_mean};
pub use vectors::{CasePolicy, LoadReport, LookedUp, VectorFormat, WordVectors};
pub use weat::{
    weat, weat_association, weat_effect_size, weat_permutation_test, Ddof, PermutationMethod,
    PermutationOptions, PermutationTest, TailCount, Weat, WEAT_STAT_TOL,
};
