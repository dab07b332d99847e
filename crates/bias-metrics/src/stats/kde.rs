//! One-dimensional Gaussian kernel density estimation with Scott's bandwidth, as
//! `scipy.stats.gaussian_kde` computes it by default.

use super::validate::{at_least, finite, not_constant};
use crate::MetricsError;

/// Scott's rule bandwidth of a one-dimensional Gaussian KDE (Scott 1992, *Multivariate Density
/// Estimation*: the normal reference rule `σ̂ · n^(−1/(d+4))` with d = 1):
///
/// ```text
/// h = σ̂ · n^(−1/5)
/// ```
///
/// with σ̂ the sample standard deviation (ddof = 1). This is the kernel standard deviation of
/// `scipy.stats.gaussian_kde(values)` (its default `bw_method="scott"`: `factor = n^(−1/5)`,
/// `covariance = cov(values, ddof=1) · factor²`, so `h = sqrt(covariance)`).
///
/// # Errors
/// [`MetricsError::TooFew`] with fewer than 2 values; [`MetricsError::InvalidParameter`] for a
/// non-finite value, for values that are all equal, or when the spread underflows to 0 or
/// overflows.
pub fn scott_bandwidth(values: &[f64]) -> Result<f64, MetricsError> {
    let n = values.len();
    at_least("kernel density: values", 2, n)?;
    finite("values", values)?;
    not_constant("values", values)?;
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let h = var.sqrt() * (n as f64).powf(-0.2);
    if h > 0.0 && h.is_finite() {
        Ok(h)
    } else {
        Err(MetricsError::InvalidParameter {
            name: "values".to_owned(),
            value: format!("sample variance {var}"),
            expected: "a spread that is positive and finite in f64".to_owned(),
        })
    }
}

/// Gaussian kernel density estimate of `values` with Scott's bandwidth `h`
/// ([`scott_bandwidth`]), evaluated at each point of `grid` (the kernel estimator of Silverman
/// 1986, *Density Estimation for Statistics and Data Analysis*, §2.4, with the Gaussian kernel):
///
/// ```text
/// f̂(x) = 1 / (n h √(2π)) · Σᵢ exp(−½ ((x − xᵢ) / h)²)
/// ```
///
/// the value of `scipy.stats.gaussian_kde(values)(grid)`.
///
/// # Errors
/// As [`scott_bandwidth`]; also [`MetricsError::InvalidParameter`] for a non-finite grid point.
pub fn gaussian_kde(values: &[f64], grid: &[f64]) -> Result<Vec<f64>, MetricsError> {
    let h = scott_bandwidth(values)?;
    finite("grid", grid)?;
    let norm = 1.0 / (values.len() as f64 * h * (2.0 * std::f64::consts::PI).sqrt());
    Ok(grid
        .iter()
        .map(|&x| {
            norm * values
                .iter()
                .map(|v| (-0.5 * ((x - v) / h).powi(2)).exp())
                .sum::<f64>()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::{gaussian_kde, scott_bandwidth};
    use crate::MetricsError;
    use approx::{abs_diff_eq, assert_abs_diff_eq};
    use bias_testkit::normals;

    #[test]
    fn kde_integrates_to_one() {
        let values = normals(5, 500);
        let grid: Vec<f64> = (0..2001).map(|i| -8.0 + 16.0 * i as f64 / 2000.0).collect();
        let density = gaussian_kde(&values, &grid).unwrap();
        let area: f64 = density.iter().sum::<f64>() * 16.0 / 2000.0;
        assert!(abs_diff_eq!(area, 1.0, epsilon = 1e-3), "{area}");
        // Scott: σ n^(−1/5).
        let h = scott_bandwidth(&[0.0, 1.0, 2.0, 3.0]).unwrap();
        let sd = (5.0f64 / 3.0).sqrt();
        assert_abs_diff_eq!(h, sd * 4f64.powf(-0.2), epsilon = 1e-12);
    }

    #[test]
    fn matches_scipy_gaussian_kde() {
        // scipy 1.17.1, numpy 2.4.6:
        //   k = scipy.stats.gaussian_kde([-2.1, -1.3, -0.4, 0.0, 0.7, 1.9, 2.4])
        //   sqrt(k.covariance[0, 0]) = 1.1035660774386629
        //   k([-3, -1, 0, 0.5, 2, 4]) = [0.05749095696162534, 0.1778453189038941,
        //     0.19307012804073442, 0.1861424700761768, 0.14108611181530548,
        //     0.027182180607290087]
        let values = [-2.1, -1.3, -0.4, 0.0, 0.7, 1.9, 2.4];
        let h = scott_bandwidth(&values).unwrap();
        assert!(abs_diff_eq!(h, 1.1035660774386629, epsilon = 1e-14), "{h}");
        let grid = [-3.0, -1.0, 0.0, 0.5, 2.0, 4.0];
        let scipy = [
            0.05749095696162534,
            0.1778453189038941,
            0.19307012804073442,
            0.1861424700761768,
            0.14108611181530548,
            0.027182180607290087,
        ];
        for (got, want) in gaussian_kde(&values, &grid).unwrap().iter().zip(scipy) {
            assert!(abs_diff_eq!(*got, want, epsilon = 1e-14), "{got} vs {want}");
        }
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        assert!(matches!(
            scott_bandwidth(&[1.0]),
            Err(MetricsError::TooFew {
                needed: 2,
                got: 1,
                ..
            })
        ));
        assert!(matches!(
            scott_bandwidth(&[1.0, f64::NAN]),
            Err(MetricsError::InvalidParameter { ref name, .. }) if name == "values[1]"
        ));
        assert!(matches!(
            scott_bandwidth(&[2.0, 2.0, 2.0]),
            Err(MetricsError::InvalidParameter { ref name, .. }) if name == "values"
        ));
        assert!(matches!(
            gaussian_kde(&[0.0, 1.0], &[0.0, f64::INFINITY]),
            Err(MetricsError::InvalidParameter { ref name, .. }) if name == "grid[1]"
        ));
    }
}
