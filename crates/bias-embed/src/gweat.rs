//! gWEAT, the generalised WEAT statistic of Swinger et al. (schroeder2024 §2.1.2, Eq. 3).

use ndarray::{Array1, ArrayView2};

use crate::same::group_mean;
use crate::vector::check_set;
use crate::EmbedError;

/// The gWEAT statistic and its per-group terms (schroeder2024 Eq. 3).
#[derive(Debug, Clone, PartialEq)]
pub struct Gweat {
    /// `(X̄_i − μ)·(Ā_i − Ā)` for each pair `(X_i, A_i)`.
    pub terms: Vec<f64>,
    /// `g(X_1, A_1, …, X_n, A_n) = Σ_i (X̄_i − μ)·(Ā_i − Ā)`.
    pub value: f64,
}

/// gWEAT of target sets `X_1..X_n` paired with attribute sets `A_1..A_n` (n ≥ 2)
/// (Swinger et al.; schroeder2024 Eq. 3):
/// `g = Σ_i (X̄_i − μ)·(Ā_i − Ā)` with `X̄_i`, `Ā_i` the means of the UNIT-normalised rows (as
/// schroeder2024 applies it, aligning with WEAT's cosine), `μ = (1/n) Σ_i X̄_i` and the overall
/// attribute mean `Ā = (1/n) Σ_i Ā_i` (the mean of the group means, schroeder2024 and its authors' code).
///
/// # Errors
/// [`EmbedError::InvalidParameter`] if fewer than two pairs are given, the two slices differ in
/// length or a matrix has no rows; [`EmbedError::DimensionMismatch`]; [`EmbedError::ZeroVector`]
/// if a vector is zero.
pub fn gweat(
    targets: &[ArrayView2<'_, f64>],
    attributes: &[ArrayView2<'_, f64>],
) -> Result<Gweat, EmbedError> {
    if targets.len() < 2 || targets.len() != attributes.len() {
        return Err(EmbedError::InvalidParameter {
            name: "target/attribute sets".to_string(),
            value: format!(
                "{} target and {} attribute",
                targets.len(),
                attributes.len()
            ),
            expected: "the same number n ≥ 2 of target sets and attribute sets".to_string(),
        });
    }
    let dim = targets[0].ncols();
    let means = |sets: &[ArrayView2<'_, f64>], what: &str| {
        sets.iter()
            .enumerate()
            .map(|(i, m)| {
                check_set(&format!("{what}[{i}]"), m, dim)?;
                group_mean(m)
            })
            .collect::<Result<Vec<Array1<f64>>, EmbedError>>()
    };
    let xs = means(targets, "targets")?;
    let attrs = means(attributes, "attributes")?;
    let n = xs.len() as f64;
    let mu = xs.iter().fold(Array1::<f64>::zeros(dim), |acc, x| acc + x) / n;
    let abar = attrs
        .iter()
        .fold(Array1::<f64>::zeros(dim), |acc, a| acc + a)
        / n;
    let terms: Vec<f64> = xs
        .iter()
        .zip(&attrs)
        .map(|(x, a)| (x - &mu).dot(&(a - &abar)))
        .collect();
    let value = terms.iter().sum();
    Ok(Gweat { terms, value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;
    use ndarray::array;

    #[test]
    fn two_groups_hand_value() {
        // X̄_1 = e1, X̄_2 = e2, μ = (½, ½); Ā_1 = e1, Ā_2 = e2, Ā = (½, ½).
        let x1 = array![[2.0, 0.0]];
        let x2 = array![[0.0, 3.0]];
        let g = gweat(&[x1.view(), x2.view()], &[x1.view(), x2.view()]).unwrap();
        assert_abs_diff_eq!(g.value, 1.0, epsilon = 1e-15);
        assert!(gweat(&[x1.view()], &[x1.view()]).is_err());
    }
}
