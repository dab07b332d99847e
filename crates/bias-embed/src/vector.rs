//! Vector primitives in f64.

use ndarray::{Array1, ArrayView1, ArrayView2};

use crate::EmbedError;

fn norm(v: ArrayView1<'_, f64>) -> f64 {
    v.dot(&v).sqrt()
}

/// The dimension check of every measure: [`EmbedError::DimensionMismatch`] `{ left: want,
/// right: got }` unless `got == want`.
pub(crate) fn check_dim(got: usize, want: usize) -> Result<(), EmbedError> {
    if got == want {
        Ok(())
    } else {
        Err(EmbedError::DimensionMismatch {
            left: want,
            right: got,
        })
    }
}

/// The set check of every measure (SAME, WEAT, GWEAT): the set `m` of vectors (rows) named
/// `name` is non-empty ([`EmbedError::InvalidParameter`] `{name} = 0 rows: at least one vector`)
/// and `dim`-dimensional ([`check_dim`]).
pub(crate) fn check_set(name: &str, m: &ArrayView2<'_, f64>, dim: usize) -> Result<(), EmbedError> {
    if m.nrows() == 0 {
        return Err(EmbedError::InvalidParameter {
            name: name.to_string(),
            value: "0 rows".to_string(),
            expected: "at least one vector".to_string(),
        });
    }
    check_dim(m.ncols(), dim)
}

/// Cosine similarity `u·v / (‖u‖‖v‖)` (schroeder2024 §3, used by every measure).
///
/// # Errors
/// [`EmbedError::DimensionMismatch`]; [`EmbedError::ZeroVector`] if either vector is zero.
pub fn cosine(u: ArrayView1<'_, f64>, v: ArrayView1<'_, f64>) -> Result<f64, EmbedError> {
    check_dim(v.len(), u.len())?;
    let (nu, nv) = (norm(u), norm(v));
    if nu == 0.0 || nv == 0.0 {
        return Err(EmbedError::ZeroVector);
    }
    Ok(u.dot(&v) / (nu * nv))
}

/// Mean of the unit-normalised vectors, `â = (1/|A|) Σ a/‖a‖` (the attribute group mean of
/// schroeder2024 Eqs. 11–16; schroeder2024 and its authors' code).
///
/// # Errors
/// [`EmbedError::Empty`], [`EmbedError::DimensionMismatch`], [`EmbedError::ZeroVector`].
pub fn unit_mean(vectors: &[ArrayView1<'_, f64>]) -> Result<Array1<f64>, EmbedError> {
    let first = vectors.first().ok_or(EmbedError::Empty)?;
    let mut sum = Array1::<f64>::zeros(first.len());
    for v in vectors {
        check_dim(v.len(), sum.len())?;
        let n = norm(*v);
        if n == 0.0 {
            return Err(EmbedError::ZeroVector);
        }
        sum.scaled_add(1.0 / n, v);
    }
    Ok(sum / vectors.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;
    use ndarray::array;

    #[test]
    fn cosine_hand_values() {
        let c = cosine(array![3.0, 4.0].view(), array![4.0, 3.0].view()).unwrap();
        assert_abs_diff_eq!(c, 24.0 / 25.0, epsilon = 1e-15);
        let opp = cosine(array![1.0, 2.0].view(), array![-2.0, -4.0].view()).unwrap();
        assert_abs_diff_eq!(opp, -1.0, epsilon = 1e-15);
    }

    #[test]
    fn errors_are_typed() {
        assert!(matches!(
            cosine(array![0.0, 0.0].view(), array![1.0, 0.0].view()),
            Err(EmbedError::ZeroVector)
        ));
        assert!(matches!(
            cosine(array![1.0].view(), array![1.0, 0.0].view()),
            Err(EmbedError::DimensionMismatch { left: 1, right: 2 })
        ));
        assert!(matches!(unit_mean(&[]), Err(EmbedError::Empty)));
    }

    #[test]
    fn set_check_names_the_set_and_the_dimensions() {
        let empty = ndarray::Array2::<f64>::zeros((0, 2));
        let e = check_set("a0", &empty.view(), 2).unwrap_err();
        assert_eq!(e.to_string(), "a0 = 0 rows: at least one vector");
        let e = check_set("a0", &array![[1.0, 2.0, 3.0]].view(), 2).unwrap_err();
        assert!(matches!(
            e,
            EmbedError::DimensionMismatch { left: 2, right: 3 }
        ));
        assert_eq!(e.to_string(), "dimension mismatch: 2 vs 3");
        assert!(check_set("a0", &array![[1.0, 2.0]].view(), 2).is_ok());
    }

    #[test]
    fn unit_mean_ignores_length() {
        let m = unit_mean(&[array![10.0, 0.0].view(), array![0.0, 0.1].view()]).unwrap();
        assert_eq!(m, array![0.5, 0.5]);
    }
}
