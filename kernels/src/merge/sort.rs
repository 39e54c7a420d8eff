//! Sorting one side's entries `(sort key, row)`.
//!
//! `u64` sort keys (every single fixed-width key, and the prefixes or hashes
//! of byte keys) are sorted by an MSD radix sort whose digit starts at the
//! highest bit in which the keys differ (keys drawn from a narrow range,
//! such as small integers, skip their constant high bits) and is as wide as
//! it takes to leave about [`BUCKET_ENTRIES`] random keys per bucket, up to
//! 12 bits: a cache-sized partition of 10K random keys is one scatter pass
//! into 2048 buckets, finished by insertion sorts. Buckets of at most
//! [`SMALL_SORT`] entries are insertion-sorted. A large input (a hot
//! partition) recurses into its buckets in parallel.
//!
//! `u128` sort keys (`Decimal128`) use the standard library's sort. Byte
//! keys then sort each group of equal sort keys by their bytes.

use rayon::prelude::*;

use super::order::{SideKeys, SortKey};

/// One row of one side: its sort key and its (global) row number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Entry<K> {
    /// The sort key (see [`super::order`]).
    pub key: K,
    /// The row.
    pub row: u32,
}

/// Buckets up to this size are insertion-sorted.
pub(crate) const SMALL_SORT: usize = 24;
/// A radix pass aims at buckets of about this many random keys, which the
/// insertion sort then finishes: one pass for a cache-sized partition.
const BUCKET_ENTRIES: usize = 4;
/// Narrowest radix digit (narrower passes do too little per pass).
const MIN_DIGIT_BITS: u32 = 4;
/// Widest radix digit: 4096 buckets, a 16 KiB histogram that stays in L1,
/// and few enough scatter targets for the TLB and the write buffers.
const MAX_DIGIT_BITS: u32 = 12;
/// Buckets of at least this many entries recurse in parallel.
const PAR_SORT_MIN: usize = 1 << 15;

/// A sort key type and how to sort entries by it.
pub(crate) trait SortableKey: Copy + Ord + Default + Send + Sync + std::fmt::Debug {
    /// The top 64 bits, which order like the key (for range partitioning).
    fn top_bits(self) -> u64;

    /// Sorts `v` by key (not stably), with `scratch` as room to scatter into.
    fn sort(v: &mut [Entry<Self>], scratch: &mut Vec<Entry<Self>>, parallel: bool) {
        if parallel {
            v.par_sort_unstable_by_key(|e| e.key);
        } else {
            v.sort_unstable_by_key(|e| e.key);
        }
        let _ = scratch;
    }
}

impl SortableKey for u128 {
    #[inline(always)]
    fn top_bits(self) -> u64 {
        (self >> 64) as u64
    }
}

impl SortableKey for u64 {
    #[inline(always)]
    fn top_bits(self) -> u64 {
        self
    }

    fn sort(v: &mut [Entry<u64>], scratch: &mut Vec<Entry<u64>>, parallel: bool) {
        if v.len() <= SMALL_SORT {
            v.sort_unstable_by_key(|e| e.key);
            return;
        }
        scratch.clear();
        scratch.resize(v.len(), Entry::default());
        radix(v, scratch, parallel);
    }
}

/// MSD radix sort of `v`, scattering through `scratch` (as long as `v`).
fn radix(v: &mut [Entry<u64>], scratch: &mut [Entry<u64>], parallel: bool) {
    let n = v.len();
    if n <= SMALL_SORT {
        insertion_sort(v);
        return;
    }
    let k0 = v[0].key;
    let diff = v.iter().fold(0u64, |d, e| d | (e.key ^ k0));
    if diff == 0 {
        return;
    }
    // The digit ends at the highest bit in which keys differ (every bit
    // above it is the same in all keys) and is wide enough for buckets of
    // about [`BUCKET_ENTRIES`] random keys.
    let top = 63 - diff.leading_zeros();
    let want = (n / BUCKET_ENTRIES)
        .next_power_of_two()
        .trailing_zeros()
        .clamp(MIN_DIGIT_BITS, MAX_DIGIT_BITS);
    let bits = want.min(top + 1);
    let shift = top + 1 - bits;
    let mask = (1u64 << bits) - 1;
    let digit = |k: u64| ((k >> shift) & mask) as usize;
    let mut counts = vec![0u32; 1 << bits];
    for e in v.iter() {
        counts[digit(e.key)] += 1;
    }
    let mut pos = Vec::with_capacity(counts.len());
    let mut at = 0usize;
    for &c in &counts {
        pos.push(at);
        at += c as usize;
    }
    for e in v.iter() {
        let d = digit(e.key);
        scratch[pos[d]] = *e;
        pos[d] += 1;
    }
    v.copy_from_slice(scratch);
    if shift == 0 {
        return; // the digit held every varying bit
    }
    if parallel && n >= PAR_SORT_MIN {
        let mut parts = Vec::with_capacity(counts.len());
        let (mut rest_v, mut rest_s) = (v, scratch);
        for &c in &counts {
            let (a, b) = rest_v.split_at_mut(c as usize);
            let (x, y) = rest_s.split_at_mut(c as usize);
            if c > 1 {
                parts.push((a, x));
            }
            rest_v = b;
            rest_s = y;
        }
        parts.into_par_iter().for_each(|(a, x)| radix(a, x, true));
    } else {
        let mut at = 0;
        for &c in &counts {
            let c = c as usize;
            if c > 1 {
                radix(&mut v[at..at + c], &mut scratch[at..at + c], false);
            }
            at += c;
        }
    }
}

/// Insertion sort by key, for a few entries.
fn insertion_sort(v: &mut [Entry<u64>]) {
    for i in 1..v.len() {
        let e = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].key > e.key {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}

/// Sorts one side's entries by sort key, then each group of equal sort
/// keys by [`SortKey::tie`] when the encoding needs it.
pub(crate) fn sort_entries<S: SortKey>(
    v: &mut [Entry<S::K>],
    side: &SideKeys<'_, S>,
    scratch: &mut Vec<Entry<S::K>>,
    parallel: bool,
) {
    S::K::sort(v, scratch, parallel);
    if S::TIE {
        let mut start = 0;
        while start < v.len() {
            let k = v[start].key;
            let end = start + v[start..].iter().take_while(|e| e.key == k).count();
            let by_bytes = |a: &Entry<S::K>, b: &Entry<S::K>| S::tie(side, a.row, side, b.row);
            if parallel && end - start >= PAR_SORT_MIN {
                v[start..end].par_sort_unstable_by(by_bytes);
            } else if end - start > 1 {
                v[start..end].sort_unstable_by(by_bytes);
            }
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(keys: Vec<u64>, parallel: bool) {
        let mut v: Vec<Entry<u64>> = keys
            .iter()
            .enumerate()
            .map(|(i, &key)| Entry { key, row: i as u32 })
            .collect();
        let mut want = v.clone();
        want.sort_by_key(|e| (e.key, e.row));
        u64::sort(&mut v, &mut Vec::new(), parallel);
        assert!(v.windows(2).all(|w| w[0].key <= w[1].key));
        v.sort_by_key(|e| (e.key, e.row));
        assert_eq!(v, want);
    }

    #[test]
    fn radix_sort_sorts_random_narrow_and_equal_keys() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let random: Vec<u64> = (0..5000).map(|_| next()).collect();
        check(random.clone(), false);
        check((0..70_000).map(|_| next()).collect(), true);
        check(random.iter().map(|r| r % 300).collect(), false);
        check(random.iter().map(|r| (1 << 63) | (r % 5)).collect(), false);
        check(vec![42; 1000], false);
        check((0..200).rev().collect(), false);
        check(vec![], false);
    }
}
