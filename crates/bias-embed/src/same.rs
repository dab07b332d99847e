//! SAME, Scoring Association Means of word Embeddings (schroeder2024 §3, Eqs. 11–16).

use ndarray::{Array1, ArrayView1, ArrayView2};

use crate::vector::{check_set, unit_mean};
use crate::EmbedError;

/// Relative tolerance below which a Gram–Schmidt residual counts as linearly dependent and is left
/// out of the bias subspace (schroeder2024 §3.2: "this vector can be left out").
///
/// A direction `d_g = â_g − â_0` is dropped when its residual after removing the components along
/// the previous basis vectors satisfies `‖b'_g‖ ≤ SAME_DEPENDENCE_TOL · ‖d_g‖` (or `d_g = 0`).
pub const SAME_DEPENDENCE_TOL: f64 = 1e-10;

bias_core::choice! {
    /// Which definition of the multi-group SAME score to compute (schroeder2024 and its authors'
    /// code).
    #[derive(Default)]
    pub enum SameVariant: "SAME form" {
        /// The SAME authors' published code (`geometrical_bias`): first direction `b_0 = â_0 −
        /// â_1`; further directions `â_0 − â_g` (g ≥ 2) orthogonalised against the previous ones by
        /// modified Gram–Schmidt but kept unnormalised; sample bias `|cos(w, b_0)| + Σ_{g≥1}
        /// |w·b_g|` with `w = t/‖t‖`. Not bounded by 1 for three or more groups; offered for
        /// reproducing published numbers. One deviation, in the degenerate case only: a linearly
        /// dependent direction (residual ≤ [`SAME_DEPENDENCE_TOL`] relative) is left out as in the
        /// paper variant; the authors' code keeps it (its own term is ≈ 0) but then projects later
        /// directions on the normalised rounding residual, which is not reproducible.
        AuthorsCode = "authors" =>
            "The authors' code (geometrical_bias.SAME), which produced the published numbers.",
        /// schroeder2024 Eqs. 13–16 (the default): directions `â_g − â_0` (g ≥ 1), an orthonormal
        /// basis by Gram–Schmidt with dependent directions dropped, sample bias = L2 norm of the
        /// cosines with the basis vectors (Eq. 15), SAME = their mean over targets (Eq. 16), in [0,
        /// 1].
        #[default]
        Paper = "paper" => "The paper's Eq. 16 (differs for three or more groups).",
    }
}

/// Binary SAME (schroeder2024 Eq. 12 and the aggregate after it).
#[derive(Debug, Clone, PartialEq)]
pub struct SameBinary {
    /// Signed sample bias `b(t, A_0, A_1) = cos(t, â_0 − â_1)` per target (Eq. 12), in [−1, 1];
    /// positive means closer to group 0.
    pub per_target: Vec<f64>,
    /// `SAME(T) = (1/|T|) Σ_t |b(t, A_0, A_1)|`: the mean of the ABSOLUTE sample biases, in [0, 1].
    pub value: f64,
}

/// Multi-group SAME (schroeder2024 Eqs. 13–16, or the authors' code variant).
#[derive(Debug, Clone, PartialEq)]
pub struct SameMulti {
    /// The variant computed.
    pub variant: SameVariant,
    /// Dimension of the bias subspace (number of basis vectors kept).
    pub basis_dim: usize,
    /// Per target, the components `w_B` (Eq. 14): cosines with each basis vector `b_k`. For
    /// [`SameVariant::AuthorsCode`]: `cos(w, b_0)` then `w·b_g` for g ≥ 1 (signed).
    pub per_target: Vec<Vec<f64>>,
    /// Per target, the sample bias: `‖w_B‖` (Eq. 15) or, for the authors' code, the sum of the
    /// absolute components.
    pub per_target_bias: Vec<f64>,
    /// `SAME(T)`: the mean of `per_target_bias` (Eq. 16); in [0, 1] for [`SameVariant::Paper`].
    pub value: f64,
}

/// The attribute group mean `â` of the unit-normalised rows (schroeder2024 Eq. 11).
pub(crate) fn group_mean(m: &ArrayView2<'_, f64>) -> Result<Array1<f64>, EmbedError> {
    let rows: Vec<ArrayView1<'_, f64>> = m.rows().into_iter().collect();
    unit_mean(&rows)
}

/// Unit vectors of the target rows; errors on a zero target.
fn unit_rows(targets: &ArrayView2<'_, f64>) -> Result<Vec<Array1<f64>>, EmbedError> {
    targets
        .rows()
        .into_iter()
        .map(|t| {
            let n = t.dot(&t).sqrt();
            if n == 0.0 {
                Err(EmbedError::ZeroVector)
            } else {
                Ok(t.to_owned() / n)
            }
        })
        .collect()
}

/// Binary SAME of targets (rows of `targets`) with respect to attribute groups `a0` and `a1`
/// (schroeder2024 Eq. 12 and the aggregate that follows it).
///
/// `â_g` is the mean of the unit-normalised rows of group g; the sample bias of target `t` is the
/// signed `cos(t, â_0 − â_1)` and `SAME(T) = (1/|T|) Σ_t |cos(t, â_0 − â_1)|` (mean of absolute
/// values, in [0, 1]). Equals [`same_multi`] with groups `[a0, a1]` in value.
///
/// # Errors
/// [`EmbedError::InvalidParameter`] if a matrix has no rows; [`EmbedError::DimensionMismatch`] if
/// the column counts differ; [`EmbedError::ZeroVector`] if a vector is zero or `â_0 = â_1`
/// (no bias direction).
pub fn same_binary(
    targets: ArrayView2<'_, f64>,
    a0: ArrayView2<'_, f64>,
    a1: ArrayView2<'_, f64>,
) -> Result<SameBinary, EmbedError> {
    let dim = targets.ncols();
    check_set("targets", &targets, dim)?;
    check_set("a0", &a0, dim)?;
    check_set("a1", &a1, dim)?;
    let d = group_mean(&a0)? - group_mean(&a1)?;
    let dn = d.dot(&d).sqrt();
    if dn == 0.0 {
        return Err(EmbedError::ZeroVector);
    }
    let per_target: Vec<f64> = unit_rows(&targets)?
        .iter()
        .map(|w| w.dot(&d) / dn)
        .collect();
    let value = per_target.iter().map(|v| v.abs()).sum::<f64>() / per_target.len() as f64;
    Ok(SameBinary { per_target, value })
}

/// Multi-group SAME of targets with respect to attribute groups `A_0, …, A_n` (n ≥ 1)
/// (schroeder2024 Eqs. 13–16), in the chosen [`SameVariant`].
///
/// Paper definition: directions `â_g − â_0` (g = 1..n) are made orthonormal by modified
/// Gram–Schmidt; a direction whose residual is below [`SAME_DEPENDENCE_TOL`] relative to its
/// length is dropped. Per target `w_B = (cos(t, b_1), …, cos(t, b_k))` (Eq. 14), sample bias
/// `‖w_B‖` (Eq. 15), `SAME(T)` the mean (Eq. 16), in [0, 1]. With two groups it equals
/// [`same_binary`]'s value.
///
/// # Errors
/// [`EmbedError::InvalidParameter`] if fewer than two groups are given or a matrix has no rows;
/// [`EmbedError::DimensionMismatch`]; [`EmbedError::ZeroVector`] if a vector is zero or every
/// group mean equals `â_0` (empty bias subspace; for the authors' code: `â_0 = â_1`).
pub fn same_multi(
    targets: ArrayView2<'_, f64>,
    groups: &[ArrayView2<'_, f64>],
    variant: SameVariant,
) -> Result<SameMulti, EmbedError> {
    if groups.len() < 2 {
        return Err(EmbedError::InvalidParameter {
            name: "groups".to_string(),
            value: groups.len().to_string(),
            expected: "at least two attribute groups".to_string(),
        });
    }
    let dim = targets.ncols();
    check_set("targets", &targets, dim)?;
    for (g, m) in groups.iter().enumerate() {
        check_set(&format!("groups[{g}]"), m, dim)?;
    }
    let means = groups
        .iter()
        .map(group_mean)
        .collect::<Result<Vec<_>, _>>()?;
    let units = unit_rows(&targets)?;
    let (per_target, per_target_bias, basis_dim): (Vec<Vec<f64>>, Vec<f64>, usize) = match variant {
        SameVariant::Paper => {
            let mut basis: Vec<Array1<f64>> = Vec::new();
            for m in &means[1..] {
                let d = m - &means[0];
                let dn = d.dot(&d).sqrt();
                let mut v = d;
                for b in &basis {
                    let c = v.dot(b);
                    v.scaled_add(-c, b);
                }
                let vn = v.dot(&v).sqrt();
                if dn == 0.0 || vn <= SAME_DEPENDENCE_TOL * dn {
                    continue;
                }
                basis.push(v / vn);
            }
            if basis.is_empty() {
                return Err(EmbedError::ZeroVector);
            }
            let comps: Vec<Vec<f64>> = units
                .iter()
                .map(|w| basis.iter().map(|b| w.dot(b)).collect())
                .collect();
            let bias = comps
                .iter()
                .map(|c| c.iter().map(|x| x * x).sum::<f64>().sqrt())
                .collect();
            (comps, bias, basis.len())
        }
        SameVariant::AuthorsCode => {
            let first = &means[0] - &means[1];
            let first_norm = first.dot(&first).sqrt();
            if first_norm == 0.0 {
                return Err(EmbedError::ZeroVector);
            }
            let mut pairs: Vec<Array1<f64>> = vec![first];
            for m in &means[2..] {
                let d = &means[0] - m;
                let dn = d.dot(&d).sqrt();
                let mut v = d;
                for p in &pairs {
                    let pn = p.dot(p).sqrt();
                    let c = v.dot(p) / pn;
                    v.scaled_add(-c / pn, p);
                }
                let vn = v.dot(&v).sqrt();
                if dn == 0.0 || vn <= SAME_DEPENDENCE_TOL * dn {
                    continue;
                }
                pairs.push(v);
            }
            let comps: Vec<Vec<f64>> = units
                .iter()
                .map(|w| {
                    pairs
                        .iter()
                        .enumerate()
                        .map(|(k, p)| {
                            if k == 0 {
                                w.dot(p) / first_norm
                            } else {
                                w.dot(p)
                            }
                        })
                        .collect()
                })
                .collect();
            let bias = comps
                .iter()
                .map(|c| c.iter().map(|x| x.abs()).sum::<f64>())
                .collect();
            (comps, bias, pairs.len())
        }
    };
    let value = mean(&per_target_bias);
    Ok(SameMulti {
        variant,
        basis_dim,
        per_target,
        per_target_bias,
        value,
    })
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;
    use ndarray::array;

    #[test]
    fn binary_hand_values() {
        let a0 = array![[1.0, 0.0, 0.0]];
        let a1 = array![[0.0, 2.0, 0.0]];
        let t = array![[1.0, 0.0, 0.0], [0.0, 0.0, 3.0]];
        let r = same_binary(t.view(), a0.view(), a1.view()).unwrap();
        assert_abs_diff_eq!(r.per_target[0], 0.5f64.sqrt(), epsilon = 1e-15);
        assert_eq!(r.per_target[1], 0.0);
        assert_abs_diff_eq!(r.value, 0.5f64.sqrt() / 2.0, epsilon = 1e-15);
        let m = same_multi(t.view(), &[a0.view(), a1.view()], SameVariant::Paper).unwrap();
        assert_abs_diff_eq!(m.value, r.value, epsilon = 1e-15);
        assert_eq!(m.basis_dim, 1);
    }

    #[test]
    fn identical_groups_have_no_direction() {
        let a = array![[1.0, 0.0]];
        let t = array![[1.0, 1.0]];
        assert!(matches!(
            same_binary(t.view(), a.view(), a.view()),
            Err(EmbedError::ZeroVector)
        ));
        assert!(matches!(
            same_multi(t.view(), &[a.view()], SameVariant::Paper),
            Err(EmbedError::InvalidParameter { .. })
        ));
    }
}
