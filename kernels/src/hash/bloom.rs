//! A key filter in front of a large hash table: most probe rows without a
//! match are dropped after one read of a small bit array, instead of a read
//! of the table.
//!
//! The filter is a register-blocked Bloom filter: each key sets 4 bits of
//! one 64-bit word, so a test is one load and one mask compare, with no
//! branch per bit. At 16 bits per key its false-positive rate is about 0.5%
//! (4 bits of 64 per key, about 16 of a word's 64 bits set on average).
//!
//! The word of a hash is picked by its *top* bits, the same bits that pick a
//! key's partition, so the keys of partition `p` set bits only in words
//! `p * W / P .. (p + 1) * W / P`: partitions fill their own slices of the
//! filter in parallel, without atomics.
//!
//! Whether the filter pays is decided per join by a sample of probe keys
//! ([`KeyFilter::worth_it`]): when most sampled keys pass, the filter is a
//! cost (one more read per row) with nothing to save, and it is not used.
//! The workload it is for is `low_match` (10M probe rows, 1M build keys,
//! 1% match).
//!
//! The same filter, filled from a whole build side without partitioning
//! ([`KeyFilter::with_keys`], [`KeyFilter::insert`]), is the Bloom part of a
//! [`RuntimeFilter`](super::RuntimeFilter), tested by the operators before a
//! join's probe; its own [`FilterStats`] there stop testing once most rows
//! pass ([`FilterStats::with_max_pass_rate`]). A runtime filter is tested
//! on every row of a scan (TPC-H Q3, Q9, Q21: all of lineitem), so its size
//! is capped at 2 MiB, fewer bits per key for the largest build sides: at
//! scale 10 a 4 MiB filter over Q3's 1.46M orders keys made each of the
//! 60M tests a miss beyond L2, and the cap took Q21 from about 1.19 to
//! 1.05 s (Intel Xeon with 2 MiB of L2, 2026-12-03).

use rayon::prelude::*;

use super::partition::Scattered;
use crate::keys::KeySource;

/// Build sides below this many keys get no filter: their tables (or
/// partitions) are small enough that a probe is as cheap as a filter test.
pub(crate) const FILTER_MIN_ROWS: usize = 1 << 16;
/// Words of a runtime filter's Bloom filter at most (2 MiB): beyond a
/// core's L2 cache every test is a miss, which costs more than the false
/// positives a larger filter saves (module docs).
const MAX_RUNTIME_WORDS: usize = 1 << 18;
/// Bits of filter per build key.
const BITS_PER_KEY: usize = 16;
/// Probe keys sampled to decide whether the filter pays.
const SAMPLE: usize = 4096;
/// Use the filter when at most this fraction of the sample passes it.
const MAX_PASS_RATE: f64 = 0.5;

/// A Bloom filter over the build side's keys (see the module docs).
#[derive(Debug)]
pub(crate) struct KeyFilter {
    words: Vec<u64>,
    /// `64 - log2(words.len())`: the shift that gives a hash's word.
    shift: u32,
}

/// The 4 bits a hash sets in its word, from its low 24 bits.
#[inline(always)]
fn mask(h: u64) -> u64 {
    (1u64 << (h & 63))
        | (1u64 << ((h >> 6) & 63))
        | (1u64 << ((h >> 12) & 63))
        | (1u64 << ((h >> 18) & 63))
}

impl KeyFilter {
    /// Bytes a filter over `n` keys holds.
    pub(crate) fn bytes_for(n: usize, partitions: usize) -> usize {
        Self::words_for(n, partitions) * 8
    }

    fn words_for(n: usize, partitions: usize) -> usize {
        (n * BITS_PER_KEY / 64)
            .max(partitions)
            .max(1)
            .next_power_of_two()
    }

    /// An empty filter sized for about `n` keys (one partition; at most
    /// 2 MiB, for a runtime filter), filled by [`KeyFilter::insert`].
    pub(crate) fn with_keys(n: usize) -> Self {
        let n_words = Self::words_for(n, 1).min(MAX_RUNTIME_WORDS);
        KeyFilter {
            words: vec![0u64; n_words],
            shift: 64 - n_words.trailing_zeros(),
        }
    }

    /// Tests up to 64 hashes: bit `j` of the result is set when
    /// `hashes[j]` may be in the filter. Every word is prefetched before
    /// any is read, so the misses of a filter beyond the cache overlap.
    #[inline(always)]
    pub(crate) fn test_word(&self, hashes: &[u64]) -> u64 {
        debug_assert!(hashes.len() <= 64);
        let mut at = [0usize; 64];
        for (a, &h) in at.iter_mut().zip(hashes) {
            *a = word_of(h, self.shift);
        }
        for &a in &at[..hashes.len()] {
            if let Some(w) = self.words.get(a) {
                crate::cpu::prefetch(w);
            }
        }
        let mut out = 0u64;
        for (j, (&a, &h)) in at.iter().zip(hashes).enumerate() {
            let m = mask(h);
            let hit = self.words.get(a).is_some_and(|&w| w & m == m);
            out |= u64::from(hit) << j;
        }
        out
    }

    /// Adds a key of hash `h`.
    #[inline(always)]
    pub(crate) fn insert(&mut self, h: u64) {
        let w = word_of(h, self.shift);
        self.words[w] |= mask(h);
    }

    /// Adds every key of `other`, a filter of the same size.
    pub(crate) fn union(&mut self, other: &KeyFilter) {
        debug_assert_eq!(self.words.len(), other.words.len());
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    /// The bytes the filter holds.
    pub(crate) fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// A filter over the keys of a scattered build side (partitioned by the
    /// top `log2(partitions)` hash bits), built in parallel by partition.
    pub(crate) fn from_scattered<S: KeySource>(sc: &Scattered<S::Tag>) -> Self {
        let parts = sc.partitions();
        let n_words = Self::words_for(sc.tags.len(), parts);
        let wbits = n_words.trailing_zeros();
        let shift = 64 - wbits;
        let mut words = vec![0u64; n_words];
        let per_part = n_words / parts;
        words
            .par_chunks_mut(per_part)
            .enumerate()
            .for_each(|(p, slice)| {
                let tags = &sc.tags[sc.range(p)];
                crate::cpu::dispatch!(set_bits::<S>(slice, p * per_part, shift, tags))
            });
        KeyFilter { words, shift }
    }

    /// Whether a key of hash `h` may be in the build side (`false`: it is
    /// certainly not).
    #[inline(always)]
    pub(crate) fn may_contain(&self, h: u64) -> bool {
        let m = mask(h);
        self.words[word_of(h, self.shift)] & m == m
    }

    /// Whether the filter pays for this probe side: tests up to
    /// [`SAMPLE`] hashes spread evenly over it (`hash_at(i)` for `i` in
    /// `0..n`, `None` for a NULL key) and says yes when at most half pass.
    pub(crate) fn worth_it(&self, n: usize, hash_at: impl Fn(usize) -> Option<u64>) -> bool {
        if n == 0 {
            return false;
        }
        let step = (n / SAMPLE).max(1);
        let (mut seen, mut pass) = (0usize, 0usize);
        for i in (0..n).step_by(step) {
            if let Some(h) = hash_at(i) {
                seen += 1;
                pass += usize::from(self.may_contain(h));
            }
        }
        seen > 0 && (pass as f64) <= MAX_PASS_RATE * seen as f64
    }
}

/// Running pass rate of a filter over the morsels probed so far: morsels
/// use the filter while at most [`MAX_PASS_RATE`] (or the rate given to
/// [`FilterStats::with_max_pass_rate`]) of the rows tested pass (the first
/// morsels always test, which measures it).
#[derive(Debug)]
pub(crate) struct FilterStats {
    tested: std::sync::atomic::AtomicUsize,
    passed: std::sync::atomic::AtomicUsize,
    max_pass_rate: f64,
}

impl Default for FilterStats {
    fn default() -> Self {
        Self::with_max_pass_rate(MAX_PASS_RATE)
    }
}

impl FilterStats {
    /// Stats that keep the filter while at most `rate` of the rows pass.
    pub(crate) fn with_max_pass_rate(rate: f64) -> Self {
        FilterStats {
            tested: Default::default(),
            passed: Default::default(),
            max_pass_rate: rate,
        }
    }

    /// Whether the next morsel should use the filter.
    pub(crate) fn worth_it(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let tested = self.tested.load(Relaxed);
        tested < SAMPLE || self.passed.load(Relaxed) as f64 <= self.max_pass_rate * tested as f64
    }

    /// Rows tested and rows that passed so far.
    pub(crate) fn counts(&self) -> (usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.tested.load(Relaxed), self.passed.load(Relaxed))
    }

    /// Records a morsel of `tested` rows of which `passed` passed.
    pub(crate) fn record(&self, tested: usize, passed: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        self.tested.fetch_add(tested, Relaxed);
        self.passed.fetch_add(passed, Relaxed);
    }
}

/// Sets the bits of `tags` in `slice`, the filter's words from `base` on.
/// Compiled per instruction-set level (see `crate::cpu`).
#[inline(always)]
fn set_bits<S: KeySource>(slice: &mut [u64], base: usize, shift: u32, tags: &[S::Tag]) {
    for &t in tags {
        let h = S::hash(t);
        let w = word_of(h, shift) - base;
        slice[w] |= mask(h);
    }
}

/// The word of hash `h`: its top bits.
#[inline(always)]
fn word_of(h: u64, shift: u32) -> usize {
    h.checked_shr(shift).unwrap_or(0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::partition::scatter;
    use crate::keys::{KeyKind, U64Keys};
    use arrow_array::{ArrayRef, Int64Array};
    use arrow_schema::DataType;
    use std::sync::Arc;

    fn keys(vals: Vec<i64>) -> U64Keys {
        let a: ArrayRef = Arc::new(Int64Array::from(vals));
        let kind = KeyKind::try_new(&[DataType::Int64]).unwrap();
        U64Keys::encode(&kind, std::slice::from_ref(&a)).unwrap()
    }

    #[test]
    fn no_false_negatives_and_few_false_positives() {
        let n = 100_000;
        let build = keys((0..n).map(|i| i * 7919).collect());
        for bits in [0, 3, 6] {
            let sc = scatter(&build, n as usize, None, bits);
            let f = KeyFilter::from_scattered::<U64Keys>(&sc);
            for i in 0..n as usize {
                assert!(f.may_contain(U64Keys::hash(build.tag(i))), "key {i} lost");
            }
            let probe = keys((0..n).map(|i| i * 7919 + 1).collect());
            let fp = (0..n as usize)
                .filter(|&i| f.may_contain(U64Keys::hash(probe.tag(i))))
                .count();
            assert!(fp < n as usize / 50, "{fp} false positives of {n}");
            assert!(f.worth_it(n as usize, |i| Some(U64Keys::hash(probe.tag(i)))));
            assert!(!f.worth_it(n as usize, |i| Some(U64Keys::hash(build.tag(i)))));
        }
    }
}
