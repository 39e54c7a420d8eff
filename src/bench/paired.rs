//! `tenon bench --against`: two binaries timed in one sitting, judged on
//! the ratios of paired runs.
//!
//! Two medians measured minutes apart (`--baseline`) differ by whatever the
//! machine did in between: on a shared 2-core runner that is often 10-20%.
//! Runs of the two binaries interleaved in pairs (A B, B A, A B, ...) share
//! the machine's state of that moment, so the ratio of the two runs of one
//! pair (this / other) cancels most of the load both saw, and alternating
//! which side goes first cancels a drift within the sitting (caches,
//! frequency, a neighbour that starts or stops).
//!
//! A figure is judged on the **median of its pair ratios** with a
//! distribution-free confidence interval: the sign-test interval for a
//! median. With `n` ratios sorted, the interval from the `k`-th smallest to
//! the `k`-th largest holds the true median with probability
//! `1 - 2·P(Bin(n, 1/2) < k)`, whatever the distribution of the ratios
//! (only independence of the pairs is assumed). The largest `k` that keeps
//! that probability at or above the target (95%) is taken; with fewer than
//! 6 pairs not even the widest interval (smallest to largest ratio) reaches
//! 95%, and that widest interval is used with the confidence it has (5
//! pairs: 93.75%), which the report states.
//!
//! A figure **regressed** only when the whole interval lies above
//! `1 + max_regression / 100`: noise that makes some pairs slow and others
//! fast widens the interval and does not fail the gate; a slowdown that
//! shows in nearly every pair does.

/// The confidence `tenon bench --against` aims at.
pub const TARGET_CONFIDENCE: f64 = 0.95;

/// The median of some values, with a distribution-free confidence interval.
#[derive(Debug, Clone, PartialEq)]
pub struct MedianInterval {
    /// The sample median (the mean of the middle two for an even count).
    pub median: f64,
    /// The interval's lower end (an order statistic of the values).
    pub low: f64,
    /// The interval's upper end (an order statistic of the values).
    pub high: f64,
    /// The probability that the interval holds the true median (its exact
    /// sign-test coverage, not the target).
    pub confidence: f64,
    /// Whether `confidence` reaches the target asked for (false: too few
    /// values, so the widest interval was taken).
    pub reaches_target: bool,
}

/// The probability that the `k`-th smallest to the `k`-th largest of `n`
/// independent values hold their median: `1 - 2·P(Bin(n, 1/2) <= k - 1)`
/// (0 when `k` is 0 or the two order statistics cross).
pub fn sign_test_coverage(n: usize, k: usize) -> f64 {
    if k == 0 || 2 * k > n + 1 {
        return 0.0;
    }
    // P(X = j) in logs: no underflow of 0.5^n for large n.
    let mut ln_p = -(n as f64) * std::f64::consts::LN_2;
    let mut tail = ln_p.exp();
    for j in 1..k {
        ln_p += ((n - j + 1) as f64).ln() - (j as f64).ln();
        tail += ln_p.exp();
    }
    (1.0 - 2.0 * tail).max(0.0)
}

/// The median of `values` with the narrowest sign-test interval whose
/// coverage is at least `target` (or the widest one, smallest to largest,
/// when no interval reaches it); `None` without values or with a value
/// that is not a number.
pub fn median_interval(values: &[f64], target: f64) -> Option<MedianInterval> {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    // Coverage falls as k grows: the largest k still at the target.
    let mut k = 1;
    while sign_test_coverage(n, k + 1) >= target {
        k += 1;
    }
    let confidence = sign_test_coverage(n, k);
    Some(MedianInterval {
        median,
        low: v[k - 1],
        high: v[n - k],
        confidence,
        reaches_target: confidence >= target,
    })
}

/// The fewest pairs whose widest interval reaches `target` (6 for 95%).
pub fn pairs_needed(target: f64) -> usize {
    (1..=64)
        .find(|&n| sign_test_coverage(n, 1) >= target)
        .unwrap_or(64)
}

/// One (workload, strategy) timed by both binaries in pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedFigure {
    /// The workload.
    pub workload: String,
    /// The strategy.
    pub strategy: String,
    /// Seconds of this binary's run in each pair, in order.
    pub this_s: Vec<f64>,
    /// Seconds of the other binary's run in each pair, in order.
    pub other_s: Vec<f64>,
}

/// The verdict on one [`PairedFigure`].
#[derive(Debug, Clone, PartialEq)]
pub struct PairedVerdict {
    /// The workload.
    pub workload: String,
    /// The strategy.
    pub strategy: String,
    /// This / other, pair by pair.
    pub ratios: Vec<f64>,
    /// Their median and its interval.
    pub interval: MedianInterval,
    /// The median of this binary's runs, in seconds.
    pub this_median_s: f64,
    /// The median of the other binary's runs, in seconds.
    pub other_median_s: f64,
    /// Whether the whole interval lies above `1 + max_regression / 100`.
    pub regressed: bool,
}

/// Judges `figure` at a threshold of `max_regression_pct` (see the module
/// docs); `None` when it has no pair with both times above zero.
pub fn judge(figure: &PairedFigure, max_regression_pct: f64) -> Option<PairedVerdict> {
    let ratios: Vec<f64> = figure
        .this_s
        .iter()
        .zip(&figure.other_s)
        .filter(|(t, o)| **t > 0.0 && **o > 0.0)
        .map(|(t, o)| t / o)
        .collect();
    let interval = median_interval(&ratios, TARGET_CONFIDENCE)?;
    let median_of = |v: &[f64]| median_interval(v, TARGET_CONFIDENCE).map_or(0.0, |m| m.median);
    let regressed = interval.low > 1.0 + max_regression_pct / 100.0;
    Some(PairedVerdict {
        workload: figure.workload.clone(),
        strategy: figure.strategy.clone(),
        this_median_s: median_of(&figure.this_s),
        other_median_s: median_of(&figure.other_s),
        ratios,
        interval,
        regressed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_matches_the_binomial_tables() {
        // n = 5, widest: 1 - 2/32
        assert!((sign_test_coverage(5, 1) - 0.9375).abs() < 1e-12);
        // n = 6: 1 - 2/64
        assert!((sign_test_coverage(6, 1) - 0.96875).abs() < 1e-12);
        // n = 10, k = 2: 1 - 2 * 11/1024
        assert!((sign_test_coverage(10, 2) - (1.0 - 22.0 / 1024.0)).abs() < 1e-12);
        // n = 10, k = 3: 1 - 2 * 56/1024 (below 95%)
        assert!((sign_test_coverage(10, 3) - (1.0 - 112.0 / 1024.0)).abs() < 1e-12);
        assert_eq!(sign_test_coverage(4, 3), 0.0);
        // large n does not underflow
        assert!(sign_test_coverage(2000, 900) > 0.99);
        assert_eq!(pairs_needed(0.95), 6);
    }

    #[test]
    fn the_interval_is_the_widest_order_statistics_at_95_percent() {
        let v: Vec<f64> = (1..=10).map(f64::from).rev().collect();
        let m = median_interval(&v, 0.95).unwrap();
        assert_eq!((m.median, m.low, m.high), (5.5, 2.0, 9.0));
        assert!(m.reaches_target && m.confidence > 0.978 && m.confidence < 0.979);
        // 20 values: k = 6 (P(X <= 5) = 0.0207, P(X <= 6) = 0.0577)
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        let m = median_interval(&v, 0.95).unwrap();
        assert_eq!((m.low, m.high), (6.0, 15.0));
    }

    #[test]
    fn too_few_values_take_the_widest_interval_and_say_so() {
        let m = median_interval(&[1.2, 0.9, 1.0, 1.1, 1.05], 0.95).unwrap();
        assert_eq!((m.low, m.median, m.high), (0.9, 1.05, 1.2));
        assert!(!m.reaches_target);
        assert!((m.confidence - 0.9375).abs() < 1e-12);
        let one = median_interval(&[1.3], 0.95).unwrap();
        assert_eq!((one.low, one.high, one.confidence), (1.3, 1.3, 0.0));
        assert!(median_interval(&[], 0.95).is_none());
        assert!(median_interval(&[f64::NAN], 0.95).is_none());
    }

    fn figure(this: &[f64], other: &[f64]) -> PairedFigure {
        PairedFigure {
            workload: "fk_small".into(),
            strategy: "BROADCAST".into(),
            this_s: this.to_vec(),
            other_s: other.to_vec(),
        }
    }

    #[test]
    fn a_slowdown_in_nearly_every_pair_regresses() {
        let other = [0.10, 0.20, 0.11, 0.15, 0.10, 0.30, 0.12, 0.10, 0.11, 0.10];
        let mut this: Vec<f64> = other.iter().map(|o| o * 1.3).collect();
        // one pair the other way round (a hiccup of the other side)
        this[3] = 0.15 * 0.8;
        let v = judge(&figure(&this, &other), 10.0).unwrap();
        assert!(v.regressed, "{v:?}");
        assert!((v.interval.median - 1.3).abs() < 1e-9, "{v:?}");
        assert!(!judge(&figure(&this, &other), 40.0).unwrap().regressed);
    }

    #[test]
    fn noise_in_both_directions_does_not() {
        // medians minutes apart would differ by +30%; pair by pair they agree
        let other = [0.10, 0.13, 0.10, 0.13, 0.10, 0.13, 0.10, 0.13, 0.10, 0.13];
        let this = [0.13, 0.10, 0.13, 0.10, 0.13, 0.10, 0.13, 0.10, 0.13, 0.10];
        let v = judge(&figure(&this, &other), 10.0).unwrap();
        assert!(!v.regressed, "{v:?}");
        assert!(v.interval.low < 1.0 && v.interval.high > 1.0, "{v:?}");
        // pairs with a zero time are left out
        assert!(judge(&figure(&[0.0], &[0.1]), 10.0).is_none());
    }
}
