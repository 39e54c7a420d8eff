//! Build sides keyed by dense integers: the key itself is the address.
//!
//! Most joins of real schemas are on surrogate keys: integers handed out
//! in order, so a build side's keys fill much of the range between their
//! smallest and largest value (TPC-H's `partkey`, `suppkey`, `custkey`,
//! `nationkey` are `1..=N`, `orderkey` a quarter of its range). For such a
//! key a hash table is wasted work: hashing, a bucket of four compares, and
//! a table of 16-byte entries at 1.5x to 3x the rows, where the key minus
//! the smallest key can index an array directly. Two structures use that:
//!
//! ```text
//!  DirectIndex   rows[key - min] = build row + 1 (0: no row)   unique keys whose
//!                                                              range is at most
//!                                                              4x the rows (or 64K)
//!  KeyBits       bit (key - min) set when some build row has  any other range up to
//!                that key: an exact filter in front of the    2^23 (1 MiB of bits)
//!                hash table
//! ```
//!
//! A [`DirectIndex`] replaces the hash table: a probe is one subtraction, one
//! compare and one read of 4 bytes (the array is at most 16 bytes a build
//! row, smaller than the table it replaces). It needs unique keys, since a
//! slot holds one row; a repeated key makes the build fall back to the hash
//! table. [`KeyBits`] serves selective joins whose build side is a sparse
//! subset of the key range (a filtered dimension, as TPC-H Q8's 1451 parts
//! of 200K): most probe rows are dropped after reading one bit of an array
//! that fits in the L1 or L2 cache, with no hash computed, and no false
//! positives, unlike the Bloom filter of large tables.
//!
//! Keys are compared as signed 64-bit integers (the key encoding widens
//! signed columns with their sign), so a range around zero is dense too;
//! `key - min` is computed with wrapping arithmetic and compared against the
//! range's length, which rejects every key outside it in one comparison.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use rayon::prelude::*;

use super::probe::{Cursor, ProbeKeys};
use crate::hugepage::reserve_huge;

/// A direct index is built when the key range is at most this many slots
/// per build row (4 bytes a slot: at most 16 bytes a row, less than the
/// hash table's 24 to 48).
pub(crate) const DIRECT_SLOTS_PER_ROW: u64 = 4;
/// ... or when the range is at most this long, whatever the rows (256 KiB).
pub(crate) const DIRECT_SMALL_RANGE: u64 = 1 << 16;
/// Key bits are built for ranges up to this many keys (1 MiB).
pub(crate) const MAX_KEY_BITS: u64 = 1 << 23;
/// Build sides below this many rows fill their index on one thread.
const SERIAL_ROWS: usize = 1 << 16;

/// The smallest key and the number of keys from it to the largest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeyRange {
    pub min: u64,
    pub len: u64,
}

impl KeyRange {
    /// The range of `keys` (as signed integers), `None` when there are none
    /// or the range does not fit in a `u64` count.
    pub(crate) fn of(keys: impl Iterator<Item = u64>) -> Option<KeyRange> {
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let mut any = false;
        for k in keys {
            let k = k as i64;
            lo = lo.min(k);
            hi = hi.max(k);
            any = true;
        }
        if !any {
            return None;
        }
        let len = (i128::from(hi) - i128::from(lo) + 1).try_into().ok()?;
        Some(KeyRange {
            min: lo as u64,
            len,
        })
    }

    /// The offset of `key` in the range, or `None` outside it.
    #[inline(always)]
    fn offset(&self, key: u64) -> Option<usize> {
        let d = key.wrapping_sub(self.min);
        (d < self.len).then_some(d as usize)
    }

    /// Whether a direct index over `rows` build rows with this range is
    /// small enough (see the module docs).
    pub(crate) fn suits_direct(&self, rows: usize) -> bool {
        self.len <= DIRECT_SMALL_RANGE
            || self.len <= DIRECT_SLOTS_PER_ROW.saturating_mul(rows as u64)
    }

    /// Whether key bits over this range are small enough.
    pub(crate) fn suits_bits(&self) -> bool {
        self.len <= MAX_KEY_BITS
    }
}

/// Build rows addressed by key: see the module docs.
#[derive(Debug)]
pub(crate) struct DirectIndex {
    range: KeyRange,
    /// `rows[key - min]` is the build row plus one; 0 for none.
    rows: Vec<AtomicU32>,
}

impl DirectIndex {
    /// Bytes an index over `range` holds.
    pub(crate) fn bytes_for(range: KeyRange) -> usize {
        range.len as usize * 4
    }

    /// Indexes `n` build rows, `row_key(i)` giving the `i`-th one's row and
    /// key (all within `range`). `None` when a key repeats.
    pub(crate) fn build(
        range: KeyRange,
        n: usize,
        row_key: impl Fn(usize) -> (u32, u64) + Sync,
    ) -> Option<DirectIndex> {
        let len = range.len as usize;
        let mut rows: Vec<AtomicU32> = Vec::new();
        reserve_huge(&mut rows, len);
        rows.resize_with(len, || AtomicU32::new(0));
        let repeated = AtomicBool::new(false);
        let fill = |chunk: std::ops::Range<usize>| {
            for i in chunk {
                let (row, key) = row_key(i);
                let Some(at) = range.offset(key) else {
                    repeated.store(true, Ordering::Relaxed); // not in range: a bug upstream
                    return;
                };
                // Relaxed: the slots are only read after the build's join.
                let slot = &rows[at];
                if slot
                    .compare_exchange(0, row + 1, Ordering::Relaxed, Ordering::Relaxed)
                    .is_err()
                {
                    repeated.store(true, Ordering::Relaxed);
                    return;
                }
                if i % 4096 == 0 && repeated.load(Ordering::Relaxed) {
                    return;
                }
            }
        };
        if n <= SERIAL_ROWS {
            fill(0..n);
        } else {
            let chunks: Vec<_> = (0..n)
                .step_by(SERIAL_ROWS)
                .map(|s| s..(s + SERIAL_ROWS).min(n))
                .collect();
            chunks.into_par_iter().for_each(fill);
        }
        (!repeated.into_inner()).then_some(DirectIndex { range, rows })
    }

    /// The build row of `key`.
    #[inline(always)]
    pub(crate) fn get(&self, key: u64) -> Option<u32> {
        let at = self.range.offset(key)?;
        let r = self.rows[at].load(Ordering::Relaxed);
        r.checked_sub(1)
    }
}

/// Which keys of a range the build side holds: see the module docs.
#[derive(Debug)]
pub(crate) struct KeyBits {
    range: KeyRange,
    words: Vec<u64>,
}

impl KeyBits {
    /// Bytes the bits over `range` hold.
    pub(crate) fn bytes_for(range: KeyRange) -> usize {
        (range.len as usize).div_ceil(64) * 8
    }

    /// The bytes the bits hold.
    pub(crate) fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// The bits of `keys` (all within `range`).
    pub(crate) fn build(range: KeyRange, keys: impl Iterator<Item = u64>) -> KeyBits {
        let mut words = vec![0u64; (range.len as usize).div_ceil(64)];
        for k in keys {
            if let Some(at) = range.offset(k) {
                words[at / 64] |= 1 << (at % 64);
            }
        }
        KeyBits { range, words }
    }

    /// Whether some build row has `key`.
    #[inline(always)]
    pub(crate) fn contains(&self, key: u64) -> bool {
        match self.range.offset(key) {
            Some(at) => self.words[at / 64] & (1 << (at % 64)) != 0,
            None => false,
        }
    }
}

/// Probes a direct index from `cur` on, appending (build row, probe row)
/// pairs until `limit` pairs are held or the input ends; `true` when the
/// input is done. The probe positions' tags are keys (`word` reads one).
/// Compiled for the CPU's instruction-set level (see `crate::cpu`).
#[inline]
pub(crate) fn probe_direct<T: Copy, P: ProbeKeys<T>>(
    index: &DirectIndex,
    input: &P,
    word: impl Fn(T) -> u64,
    cur: &mut Cursor,
    limit: usize,
    build_rows: &mut Vec<u32>,
    probe_rows: &mut Vec<u32>,
) -> bool {
    crate::cpu::dispatch!(probe_direct_loop(
        index, input, &word, cur, limit, build_rows, probe_rows
    ))
}

/// [`probe_direct`] at one instruction-set level.
#[inline(always)]
fn probe_direct_loop<T: Copy, P: ProbeKeys<T>>(
    index: &DirectIndex,
    input: &P,
    word: &impl Fn(T) -> u64,
    cur: &mut Cursor,
    limit: usize,
    build_rows: &mut Vec<u32>,
    probe_rows: &mut Vec<u32>,
) -> bool {
    let n = input.len();
    while cur.i < n {
        let room = limit - build_rows.len();
        if room == 0 {
            return false;
        }
        let end = n.min(cur.i + room);
        for j in cur.i..end {
            let (tag, prow) = input.get(j);
            if let Some(row) = tag.and_then(|t| index.get(word(t))) {
                build_rows.push(row);
                probe_rows.push(prow);
            }
        }
        cur.i = end;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Keys(Vec<Option<u64>>);

    impl ProbeKeys<u64> for Keys {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn get(&self, i: usize) -> (Option<u64>, u32) {
            (self.0[i], i as u32)
        }
    }

    fn signed(v: i64) -> u64 {
        v as u64
    }

    #[test]
    fn ranges_are_signed_and_reject_what_is_outside() {
        let r = KeyRange::of([signed(-3), 5, 2].into_iter()).unwrap();
        assert_eq!(
            r,
            KeyRange {
                min: signed(-3),
                len: 9
            }
        );
        assert_eq!(r.offset(signed(-3)), Some(0));
        assert_eq!(r.offset(5), Some(8));
        assert_eq!(r.offset(6), None);
        assert_eq!(r.offset(signed(-4)), None);
        assert_eq!(r.offset(u64::MAX / 2), None);
        assert_eq!(KeyRange::of(std::iter::empty()), None);
        // The whole i64 range does not fit a count of keys below 2^64.
        assert_eq!(
            KeyRange::of([signed(i64::MIN), signed(i64::MAX)].into_iter()),
            None
        );
        let wide = KeyRange::of([signed(i64::MIN), 0].into_iter()).unwrap();
        assert_eq!(wide.len, (1 << 63) + 1);
        assert!(!wide.suits_direct(1_000_000) && !wide.suits_bits());
    }

    #[test]
    fn direct_index_finds_each_row_and_nothing_else() {
        for n in [1usize, 7, 70_000, 200_000] {
            // Keys 10, 13, 16, ... in reverse row order, some negative.
            let key = |i: usize| signed(3 * (n - 1 - i) as i64 - 50);
            let range = KeyRange::of((0..n).map(key)).unwrap();
            let index = DirectIndex::build(range, n, |i| (i as u32, key(i))).unwrap();
            for i in (0..n).step_by(97) {
                assert_eq!(index.get(key(i)), Some(i as u32));
                assert_eq!(index.get(key(i).wrapping_add(1)), None);
            }
            assert_eq!(index.get(signed(-51)), None);
            assert_eq!(index.get(key(0) + 3), None);
        }
    }

    #[test]
    fn a_repeated_key_is_refused() {
        for n in [10usize, 300_000] {
            let key = |i: usize| (i % (n - 1)) as u64; // the last row repeats key 0
            let range = KeyRange::of((0..n).map(key)).unwrap();
            assert!(DirectIndex::build(range, n, |i| (i as u32, key(i))).is_none());
        }
    }

    #[test]
    fn key_bits_are_exact() {
        let keys: Vec<u64> = (0..1000u64).map(|i| i * i % 7919 + 100).collect();
        let range = KeyRange::of(keys.iter().copied()).unwrap();
        let bits = KeyBits::build(range, keys.iter().copied());
        for k in 0..9000u64 {
            assert_eq!(bits.contains(k), keys.contains(&k), "key {k}");
        }
        assert!(!bits.contains(u64::MAX));
    }

    #[test]
    fn probing_resumes_where_it_stopped() {
        let index = DirectIndex::build(KeyRange { min: 0, len: 10 }, 5, |i| {
            (i as u32, 2 * i as u64)
        })
        .unwrap();
        let input = Keys(vec![
            Some(0),
            None,
            Some(2),
            Some(3),
            Some(8),
            Some(100),
            Some(4),
        ]);
        let (mut b, mut p) = (Vec::new(), Vec::new());
        let mut cur = Cursor::default();
        let mut calls = 0;
        loop {
            calls += 1;
            let done = probe_direct(&index, &input, |t| t, &mut cur, 2, &mut b, &mut p);
            if done {
                break;
            }
            assert_eq!(b.len(), 2);
            b.clear();
            p.clear();
        }
        assert!(calls >= 2);
        // All pairs over the calls: (0,0) (1,2) (4,4) (2,6).
        let mut all = Vec::new();
        let mut cur = Cursor::default();
        let (mut b, mut p) = (Vec::new(), Vec::new());
        assert!(probe_direct(
            &index,
            &input,
            |t| t,
            &mut cur,
            100,
            &mut b,
            &mut p
        ));
        all.extend(b.iter().zip(&p).map(|(&x, &y)| (x, y)));
        assert_eq!(all, vec![(0, 0), (1, 2), (4, 4), (2, 6)]);
    }
}
