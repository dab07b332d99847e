//! numpy's default quantile (`method="linear"`), shared by every interval and spread in the
//! workspace.

/// Quantile `q ∈ [0, 1]` of the ascending, non-empty slice `sorted`, by linear interpolation
/// between order statistics: numpy's default `np.quantile(x, q)` / `np.percentile(x, 100·q)`
/// (`method="linear"`, Hyndman–Fan type 7).
///
/// With `n = sorted.len()`, `h = (n − 1)·q`, `i = ⌊h⌋`, `j = min(i + 1, n − 1)` and `t = h − i`:
///
/// ```text
/// Q(q) = x[i] + t·(x[j] − x[i])
/// ```
///
/// so `Q(0)` is the minimum, `Q(1)` the maximum, and `Q(0.025)` of `[1, 2, 3, 4, 5]` is
/// `1 + 0.1·1 = 1.1`.
///
/// Agreement with numpy (checked against numpy 2.4.6 in this module's tests):
/// - for `t < 0.5` the value is bit-for-bit numpy's; for `t ≥ 0.5` numpy evaluates the same line
///   from the other end, `x[j] − (1 − t)·(x[j] − x[i])`, so the two may differ by rounding, a
///   few ε times the magnitude of `x[i]`, `x[j]` (e.g. `2e-17` for `q = 0.975` of three values,
///   interpolating between −0.19 and −0.02). This function keeps the one-sided form that every
///   bootstrap interval, robustness spread and committed fixture of the workspace was computed
///   with.
/// - an infinite neighbour at `t = 0` gives NaN (`0·∞`), as in numpy
///   (`np.percentile([1, inf], 0)` is `nan`).
/// - NaN is not special-cased: numpy returns NaN when any value is NaN; here a NaN only matters
///   when it is one of the two interpolated order statistics (sorted with [`f64::total_cmp`],
///   NaNs sit at the ends). Callers pass finite values.
///
/// Why not `ndarray-stats` (`QuantileExt::quantile_axis_skipnan_mut` with
/// `interpolate::Linear`): it computes `x[⌊h⌋] + fract(h)·(x[⌈h⌉] − x[⌊h⌋])`, the same value for
/// finite input, but it needs an owned, mutable array (every caller already holds a sorted
/// slice), it drops NaNs instead (changing `n`), and with `⌈h⌉` as the upper index it returns
/// `x[i]` where numpy returns NaN for an infinite neighbour at `t = 0`; it is not closer to numpy.
///
/// # Panics
///
/// If `sorted` is empty or `q` is outside `[0, 1]`. The input is not checked to be ascending.
pub fn quantile_linear(sorted: &[f64], q: f64) -> f64 {
    assert!(
        !sorted.is_empty(),
        "quantile_linear needs at least one value"
    );
    assert!(
        (0.0..=1.0).contains(&q),
        "quantile_linear needs q in [0, 1], got {q}"
    );
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::quantile_linear;
    use approx::assert_abs_diff_eq;

    /// Equal to numpy's value, or (only where `t ≥ 0.5`) within rounding of it: 4 ε times the
    /// largest magnitude in `x` (the subtraction `x[j] − x[i]` rounds at that scale).
    fn rounding(x: &[f64]) -> f64 {
        4.0 * f64::EPSILON * x.iter().fold(0.0_f64, |m, v| m.max(v.abs()))
    }

    #[test]
    fn matches_numpy_linear() {
        // numpy 2.4.6: [np.quantile([1, 2, 3, 4, 5], q) for q in
        //   (0.025, 0.975, 0.05, 0.25, 0.5, 0.95)] = [1.1, 4.9, 1.2, 2.0, 3.0, 4.8].
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        for (q, v) in [
            (0.025, 1.1),
            (0.975, 4.9),
            (0.05, 1.2),
            (0.25, 2.0),
            (0.5, 3.0),
            (0.95, 4.8),
        ] {
            if q < 0.5 {
                assert_eq!(quantile_linear(&x, q), v);
            } else {
                assert_abs_diff_eq!(quantile_linear(&x, q), v, epsilon = rounding(&x));
            }
        }
        // np.percentile([0.3, -0.7, 2.9, 1.1, 0.0, -2.2, 4.4], [2.5, 5, 25, 50, 75, 95, 97.5])
        //   = [-1.975, -1.75, -0.35, 0.3, 2.0, 3.9499999999999993, 4.175].
        let y = [-2.2, -0.7, 0.0, 0.3, 1.1, 2.9, 4.4];
        for (q, v, exact) in [
            (0.025, -1.975, true),
            (0.05, -1.75, true),
            (0.25, -0.35, false),
            (0.5, 0.3, true),
            (0.75, 2.0, true),
            (0.95, 3.9499999999999993, false),
            (0.975, 4.175, false),
        ] {
            if exact {
                assert_eq!(quantile_linear(&y, q), v);
            } else {
                assert_abs_diff_eq!(quantile_linear(&y, q), v, epsilon = rounding(&y));
            }
        }
        // np.percentile([1, 2, 3, 4], 25) = 1.75; 97.5 → 3.925; 0 → 1; 100 → 4; one value.
        let z = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_linear(&z, 0.25), 1.75);
        assert_abs_diff_eq!(quantile_linear(&z, 0.975), 3.925, epsilon = rounding(&z));
        assert_eq!(quantile_linear(&z, 0.0), 1.0);
        assert_eq!(quantile_linear(&z, 1.0), 4.0);
        assert_eq!(quantile_linear(&[7.0], 0.3), 7.0);
    }

    #[test]
    fn last_bits_differ_from_numpy_only_above_one_half() {
        // np.quantile(w, 0.975) = -0.02844699371149569 (t = 0.95: numpy's other-end form);
        // np.quantile(w, 0.025) = -1.3633994693026077 (t = 0.05: bit-for-bit).
        let w = [
            -1.4250901432432643,
            -0.19127666443013225,
            -0.019877011042093756,
        ];
        assert_eq!(quantile_linear(&w, 0.025), -1.3633994693026077);
        let hi = quantile_linear(&w, 0.975);
        assert_eq!(hi, -0.02844699371149567);
        assert_abs_diff_eq!(hi, -0.02844699371149569, epsilon = rounding(&w));
    }

    #[test]
    fn infinite_neighbour_at_an_order_statistic_is_nan_as_in_numpy() {
        // np.percentile([1, inf], 0) = nan; np.percentile([-inf, 1], 100) = 1.0.
        assert!(quantile_linear(&[1.0, f64::INFINITY], 0.0).is_nan());
        assert_eq!(quantile_linear(&[f64::NEG_INFINITY, 1.0], 1.0), 1.0);
    }

    #[test]
    #[should_panic(expected = "at least one value")]
    fn empty_panics() {
        quantile_linear(&[], 0.5);
    }
}
