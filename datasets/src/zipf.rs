//! Zipf sampling by exact inverse-CDF lookup.
//!
//! [`ZipfTable`] stores the cumulative weights `C(r) = sum_{i <= r} i^-s` of
//! all `n` ranks (built once, `n` `f64`s). A uniform `u` in `[0, 1)` maps to
//! the first rank whose cumulative weight exceeds `u * C(n)`, so rank `r`
//! (1-based) is drawn with probability `r^-s / C(n)`, exact up to `f64`
//! rounding. To shorten the binary search, a small guide table (the cutpoint
//! method of Chen and Asau, 1974; [`GUIDE_BUCKETS`] entries, so it stays in
//! cache) gives for each equal slice of probability mass the range of ranks
//! it covers; the search runs inside that range, and a final linear
//! correction makes the result identical to a full binary search.

/// Number of guide-table entries (at most one per rank).
const GUIDE_BUCKETS: usize = 1 << 16;

/// An inverse-CDF sampler for Zipf(`s`) over ranks `0..n` (rank 0 is the
/// most frequent).
#[derive(Clone, Debug)]
pub(crate) struct ZipfTable {
    /// `cumulative[r]` = sum of `(i + 1)^-s` for `i` in `0..=r`.
    cumulative: Vec<f64>,
    /// `guide[b]` = first rank whose cumulative weight exceeds
    /// `b / guide.len()` of the total.
    guide: Vec<u32>,
}

impl ZipfTable {
    /// Builds the table for `n >= 1` ranks and exponent `s > 0`.
    pub(crate) fn new(n: usize, s: f64) -> Self {
        assert!(n >= 1, "Zipf needs at least one rank");
        assert!(u32::try_from(n).is_ok(), "Zipf ranks must fit in u32");
        assert!(s > 0.0 && s.is_finite(), "Zipf exponent must be positive");
        let mut acc = 0.0f64;
        let cumulative: Vec<f64> = (1..=n)
            .map(|r| {
                acc += (r as f64).powf(-s);
                acc
            })
            .collect();
        let total = acc;
        let buckets = n.min(GUIDE_BUCKETS);
        let mut guide = Vec::with_capacity(buckets);
        let mut rank = 0;
        for b in 0..buckets {
            let threshold = b as f64 / buckets as f64 * total;
            while rank + 1 < n && cumulative[rank] <= threshold {
                rank += 1;
            }
            guide.push(rank as u32);
        }
        Self { cumulative, guide }
    }

    /// Number of ranks.
    pub(crate) fn len(&self) -> usize {
        self.cumulative.len()
    }

    /// Probability of drawing `rank` (0-based).
    #[cfg(test)]
    pub(crate) fn probability(&self, rank: usize) -> f64 {
        let below = if rank == 0 {
            0.0
        } else {
            self.cumulative[rank - 1]
        };
        (self.cumulative[rank] - below) / self.total()
    }

    fn total(&self) -> f64 {
        self.cumulative[self.len() - 1]
    }

    /// The rank (0-based) for a uniform `u` in `[0, 1)`: the first rank whose
    /// cumulative weight exceeds `u` times the total.
    #[inline]
    pub(crate) fn sample(&self, u: f64) -> usize {
        let n = self.len();
        let target = u * self.total();
        let bucket = ((u * self.guide.len() as f64) as usize).min(self.guide.len() - 1);
        let lo = self.guide[bucket] as usize;
        let hi = self.guide.get(bucket + 1).map_or(n - 1, |&r| r as usize);
        let mut rank = (lo + self.cumulative[lo..=hi].partition_point(|&c| c <= target)).min(n - 1);
        // Rounding at bucket edges can leave the answer just outside the guide
        // bracket; walk to the exact first rank with cumulative > target.
        while rank > 0 && self.cumulative[rank - 1] > target {
            rank -= 1;
        }
        while rank + 1 < n && self.cumulative[rank] <= target {
            rank += 1;
        }
        rank
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Reference answer: binary search over the whole table.
    fn full_search(table: &ZipfTable, u: f64) -> usize {
        let target = u * table.total();
        table
            .cumulative
            .partition_point(|&c| c <= target)
            .min(table.len() - 1)
    }

    #[test]
    fn guided_sample_equals_full_binary_search() {
        for &(n, s) in &[
            (1usize, 1.1),
            (2, 1.1),
            (10, 0.5),
            (1_000, 1.1),
            (5_000, 2.0),
            // More ranks than guide buckets: buckets span many ranks.
            (300_000, 1.1),
        ] {
            let table = ZipfTable::new(n, s);
            let mut rng = SplitMix64::new(n as u64);
            for _ in 0..20_000 {
                let u = rng.unit_f64();
                assert_eq!(table.sample(u), full_search(&table, u), "n={n} s={s} u={u}");
            }
            let edge = 1.0 - f64::EPSILON / 2.0;
            assert_eq!(table.sample(0.0), 0);
            assert_eq!(table.sample(edge), full_search(&table, edge));
        }
    }

    #[test]
    fn probabilities_follow_power_law_and_sum_to_one() {
        let table = ZipfTable::new(1_000, 1.1);
        let sum: f64 = (0..1_000).map(|r| table.probability(r)).sum();
        assert!((sum - 1.0).abs() < 1e-12);
        let ratio = table.probability(0) / table.probability(1);
        assert!((ratio - 2f64.powf(1.1)).abs() < 1e-9);
    }

    #[test]
    fn sample_frequencies_match_probabilities() {
        let table = ZipfTable::new(100, 1.1);
        let mut counts = [0usize; 100];
        let mut rng = SplitMix64::new(5);
        let draws = 200_000;
        for _ in 0..draws {
            counts[table.sample(rng.unit_f64())] += 1;
        }
        for rank in [0, 1, 2, 9, 49] {
            let expected = table.probability(rank) * draws as f64;
            let tolerance = 5.0 * expected.sqrt();
            assert!(
                (counts[rank] as f64 - expected).abs() < tolerance,
                "rank {rank}: {} vs {expected}",
                counts[rank]
            );
        }
    }
}
