//! Group ids of one fixed-width key column (1, 2, 4 or 8 bytes): the
//! grouping table's `Word` kind.
//!
//! A key is its value's bits, zero-extended to a `u64` word. While the
//! words seen so far stay *dense*, a word's group id is looked up by its
//! offset from the smallest word in an array of ids, kept in pages of
//! [`PAGE`] slots that are allocated when a key first falls in them: no
//! hashing, and keys that arrive in order (TPC-H's `l_orderkey`, 1.5M
//! groups over 6M values) touch the pages in order instead of jumping
//! around a hash table larger than the caches. Pages make the array's
//! memory follow the keys actually seen: a thread of a parallel
//! aggregation that takes batches from far apart parts of a sorted input
//! holds the pages of those parts only. Dense means at most
//! [`DENSE_SPREAD`] slots of allocated pages per group (beyond
//! [`DENSE_MIN_SLOTS`]) and a span of keys of at most [`MAX_PAGES`] pages;
//! the first batch that breaks either moves every group into a `HashMap`
//! from word to id, which serves the table from then on. Either way a run
//! of equal keys (input sorted or clustered by the key) costs one lookup.
//!
//! The spread is judged only once the table has seen at least one row per
//! allocated slot (or holds more than [`DENSE_UNJUDGED_SLOTS`]): keys
//! drawn at random from a dense range touch every page of it long before
//! they have made most of its groups. TPC-H Q15 groups 2.3M rows by
//! `l_suppkey` (100,000 keys in `1..=100000`, 25 pages) in batches of
//! about 300 rows after its filter: judged after the first batch, 300
//! groups over 25 pages looked sparse, and the table hashed every row from
//! then on. Keys that arrive a hash partition at a time are sparser still
//! at first: TPC-H Q13 groups the output of a partitioned join by
//! `c_custkey` (150,000 keys, 32 partitions of spread keys, one after the
//! other); judged sooner, the first partitions' keys would look sparse
//! and every later row would be hashed into a table beyond L2.
//!
//! NULL is a group of its own, outside both.
//!
//! Memory: the pages hold at most [`DENSE_SPREAD`] 4-byte slots per group
//! (32 bytes), in line with what the aggregate charges its budget for a
//! group's slot and state, or, while the spread is not judged yet, at most
//! [`DENSE_UNJUDGED_SLOTS`] slots (4 MiB); the page directory at most
//! [`MAX_PAGES`] pointers.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use ahash::RandomState;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::{NullBuffer, ScalarBuffer};

use super::groups::new_group;
use crate::exec::error::Result;

/// Slots a page of the dense array.
const PAGE: usize = 1 << PAGE_BITS;
const PAGE_BITS: u32 = 12;

/// The most allocated slots per group (beyond [`DENSE_MIN_SLOTS`]) before
/// the table moves to a hash map.
const DENSE_SPREAD: usize = 8;

/// Slots the pages may always hold, however few the groups (256 KiB).
const DENSE_MIN_SLOTS: usize = 1 << 16;

/// Slots past which the spread is judged however few rows came (4 MiB).
const DENSE_UNJUDGED_SLOTS: usize = 1 << 20;

/// The widest span of keys the dense array covers, in pages (2^26 keys;
/// a directory of 128 KiB).
const MAX_PAGES: u64 = 1 << 14;

/// One fixed-width key column's groups; see the module docs.
#[derive(Debug)]
pub(super) struct WordTable {
    /// Bytes a value: 1, 2, 4 or 8.
    width: usize,
    /// The dense array, until the keys are too sparse for it.
    dense: Option<DenseIds>,
    /// Word to group id, once the keys are too sparse for the array.
    map: HashMap<u64, u32, RandomState>,
    null_group: Option<u32>,
    /// Each group's key bits (0 for the NULL group).
    words: Vec<u64>,
    /// Rows interned so far.
    rows_seen: usize,
}

/// Group ids by word offset: slot `w - base` (in page `(w - base) /
/// PAGE`) is the group of word `w` plus one, 0 where no group has that
/// word.
#[derive(Debug, Default)]
struct DenseIds {
    /// The first word of page 0 (a multiple of [`PAGE`]).
    base: u64,
    pages: Vec<Option<Box<[u32]>>>,
    /// Pages allocated.
    allocated: usize,
}

impl DenseIds {
    /// Grows the directory to cover `lo..=hi`, or returns false when that
    /// span is wider than [`MAX_PAGES`].
    fn cover(&mut self, lo: u64, hi: u64) -> bool {
        let page_of = |w: u64| w >> PAGE_BITS;
        let (first, last) = if self.pages.is_empty() {
            (page_of(lo), page_of(hi))
        } else {
            let start = page_of(self.base);
            let end = start + self.pages.len() as u64 - 1;
            (page_of(lo).min(start), page_of(hi).max(end))
        };
        if last - first >= MAX_PAGES {
            return false;
        }
        if self.pages.is_empty() {
            self.base = first << PAGE_BITS;
        } else if first < page_of(self.base) {
            let more = (page_of(self.base) - first) as usize;
            self.pages
                .splice(0..0, std::iter::repeat_with(|| None).take(more));
            self.base = first << PAGE_BITS;
        }
        let len = (last - first + 1) as usize;
        if len > self.pages.len() {
            self.pages.resize_with(len, || None);
        }
        true
    }

    /// The slot of word `w` (covered by [`DenseIds::cover`]), its page
    /// allocated if it was not.
    #[inline]
    fn slot(&mut self, w: u64) -> &mut u32 {
        let at = (w - self.base) as usize;
        let page = &mut self.pages[at >> PAGE_BITS];
        if page.is_none() {
            self.allocated += 1;
        }
        let page = page.get_or_insert_with(|| vec![0u32; PAGE].into_boxed_slice());
        &mut page[at & (PAGE - 1)]
    }
}

impl WordTable {
    /// An empty table for values of `width` bytes.
    pub(super) fn new(width: usize, state: RandomState) -> Self {
        WordTable {
            width,
            dense: Some(DenseIds::default()),
            map: HashMap::with_hasher(state),
            null_group: None,
            words: Vec::new(),
            rows_seen: 0,
        }
    }

    /// The NULL key's group, once there is one.
    pub(super) fn null_group(&self) -> Option<u32> {
        self.null_group
    }

    /// Group `g`'s key bits (0 for the NULL group).
    pub(super) fn word(&self, g: usize) -> u64 {
        self.words[g]
    }

    /// Pushes the group id of each row of `key` onto `ids`, creating groups
    /// (numbered from `next`, their rows pushed onto `new_rows`) for new
    /// keys.
    pub(super) fn intern(
        &mut self,
        key: &ArrayRef,
        next: &mut usize,
        ids: &mut Vec<u32>,
        new_rows: &mut Vec<u32>,
    ) -> Result<()> {
        let data = key.to_data();
        let (buffer, offset, len) = (data.buffers()[0].clone(), data.offset(), data.len());
        let nulls = key.logical_nulls();
        let nulls = nulls.as_ref().filter(|n| n.null_count() > 0);
        match self.width {
            1 => self.intern_values(
                &ScalarBuffer::<u8>::new(buffer, offset, len),
                nulls,
                next,
                ids,
                new_rows,
            ),
            2 => self.intern_values(
                &ScalarBuffer::<u16>::new(buffer, offset, len),
                nulls,
                next,
                ids,
                new_rows,
            ),
            4 => self.intern_values(
                &ScalarBuffer::<u32>::new(buffer, offset, len),
                nulls,
                next,
                ids,
                new_rows,
            ),
            _ => self.intern_values(
                &ScalarBuffer::<u64>::new(buffer, offset, len),
                nulls,
                next,
                ids,
                new_rows,
            ),
        }
    }

    fn intern_values<W: Copy + Into<u64>>(
        &mut self,
        values: &[W],
        nulls: Option<&NullBuffer>,
        next: &mut usize,
        ids: &mut Vec<u32>,
        new_rows: &mut Vec<u32>,
    ) -> Result<()> {
        self.keep_dense_for(values, nulls);
        // The previous row's non-NULL key and group: input sorted or
        // clustered by the key (lineitem by l_orderkey) repeats it, and a
        // repeat costs no lookup.
        let mut last: Option<(u64, u32)> = None;
        for (i, &v) in values.iter().enumerate() {
            let id = if nulls.is_some_and(|n| n.is_null(i)) {
                match self.null_group {
                    Some(g) => g,
                    None => {
                        let g = new_group(next, i, new_rows)?;
                        self.words.push(0);
                        self.null_group = Some(g);
                        g
                    }
                }
            } else {
                let w: u64 = v.into();
                match last {
                    Some((lw, lg)) if lw == w => lg,
                    _ => {
                        let g = match &mut self.dense {
                            Some(dense) => {
                                let slot = dense.slot(w);
                                match *slot {
                                    0 => {
                                        let g = new_group(next, i, new_rows)?;
                                        self.words.push(w);
                                        *slot = g + 1;
                                        g
                                    }
                                    id => id - 1,
                                }
                            }
                            None => match self.map.entry(w) {
                                Entry::Occupied(e) => *e.get(),
                                Entry::Vacant(e) => {
                                    let g = new_group(next, i, new_rows)?;
                                    self.words.push(w);
                                    *e.insert(g)
                                }
                            },
                        };
                        last = Some((w, g));
                        g
                    }
                }
            };
            ids.push(id);
        }
        self.rows_seen += values.len();
        if let Some(dense) = &self.dense {
            let slots = dense.allocated * PAGE;
            let judged = self.rows_seen >= slots || slots > DENSE_UNJUDGED_SLOTS;
            if judged && slots > DENSE_MIN_SLOTS + DENSE_SPREAD * self.words.len() {
                self.move_to_map();
            }
        }
        Ok(())
    }

    /// Before a batch: grows the dense directory to cover the batch's
    /// words, or, when their span is too wide for it (module docs), moves
    /// every group into the hash map for good.
    fn keep_dense_for<W: Copy + Into<u64>>(&mut self, values: &[W], nulls: Option<&NullBuffer>) {
        let Some(dense) = &mut self.dense else {
            return;
        };
        let mut range: Option<(u64, u64)> = None;
        let mut widen = |w: u64| {
            range = Some(match range {
                None => (w, w),
                Some((lo, hi)) => (lo.min(w), hi.max(w)),
            });
        };
        match nulls {
            None => values.iter().for_each(|&v| widen(v.into())),
            Some(n) => values
                .iter()
                .zip(n.iter())
                .filter(|(_, valid)| *valid)
                .for_each(|(&v, _)| widen(v.into())),
        }
        if let Some((lo, hi)) = range
            && !dense.cover(lo, hi)
        {
            self.move_to_map();
        }
    }

    /// Every group into the hash map, which serves the table from now on.
    fn move_to_map(&mut self) {
        self.map.reserve(self.words.len());
        for (g, &w) in self.words.iter().enumerate() {
            if self.null_group != Some(g as u32) {
                self.map.insert(w, g as u32);
            }
        }
        self.dense = None;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Int8Array, Int64Array, UInt64Array};
    use proptest::prelude::*;

    use super::*;

    /// The group ids a naive map gives: dense, in order of first
    /// appearance, NULL a group of its own.
    fn reference(batches: &[Vec<Option<i64>>]) -> Vec<Vec<u32>> {
        let mut seen: HashMap<Option<i64>, u32> = HashMap::new();
        batches
            .iter()
            .map(|b| {
                b.iter()
                    .map(|k| {
                        let n = seen.len() as u32;
                        *seen.entry(*k).or_insert(n)
                    })
                    .collect()
            })
            .collect()
    }

    fn interned(batches: &[Vec<Option<i64>>]) -> (Vec<Vec<u32>>, bool) {
        let mut t = WordTable::new(8, RandomState::new());
        let mut next = 0;
        let out = batches
            .iter()
            .map(|b| {
                let key: ArrayRef = Arc::new(Int64Array::from(b.clone()));
                let (mut ids, mut rows) = (Vec::new(), Vec::new());
                t.intern(&key, &mut next, &mut ids, &mut rows).unwrap();
                ids
            })
            .collect();
        (out, t.dense.is_some())
    }

    #[test]
    fn ordered_keys_stay_dense_and_spread_keys_move_to_the_map() {
        // l_orderkey's shape: ascending, every fourth value, repeated.
        let ordered: Vec<Vec<Option<i64>>> = (0..40)
            .map(|b| (0..1000).map(|i| Some((b * 1000 + i) / 4 * 4)).collect())
            .collect();
        let (ids, dense) = interned(&ordered);
        assert!(dense);
        assert_eq!(ids, reference(&ordered));
        // Keys far apart, and negative keys next to positive ones (their
        // bits are far apart), leave the array after groups were made.
        for far in [1i64 << 40, -3] {
            let batches = vec![
                vec![Some(5), None, Some(7), Some(5)],
                vec![Some(far), Some(6), None, Some(7)],
                vec![Some(far), Some(5), Some(8)],
            ];
            let (ids, dense) = interned(&batches);
            assert!(!dense, "{far}");
            assert_eq!(ids, reference(&batches), "{far}");
        }
    }

    /// A thread of a parallel aggregation over a sorted input: runs of
    /// keys from far apart parts of a wide range stay dense (pages only
    /// where the keys are).
    #[test]
    fn runs_from_far_apart_parts_stay_dense() {
        let batches: Vec<Vec<Option<i64>>> = (0..20)
            .map(|b| {
                let start = (b * 7919 % 20) * 300_000;
                (0..4000).map(|i| Some(start + i / 4 * 4)).collect()
            })
            .collect();
        let (ids, dense) = interned(&batches);
        assert!(dense);
        assert_eq!(ids, reference(&batches));
    }

    /// Keys drawn at random from a dense range, in small batches (TPC-H
    /// Q15's `l_suppkey` after its date filter): every page is touched
    /// by the first batches, long before most groups exist; the table
    /// stays dense. The same number of keys drawn from a range a hundred
    /// times wider moves to the map once enough rows came.
    #[test]
    fn random_keys_of_a_dense_range_stay_dense() {
        let draw = |span: u64| -> Vec<Vec<Option<i64>>> {
            let mut x = 0x2545_f491_4f6c_dd1d_u64;
            (0..400)
                .map(|_| {
                    (0..300)
                        .map(|_| {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            Some((x % span) as i64 + 1)
                        })
                        .collect()
                })
                .collect()
        };
        let dense_range = draw(100_000);
        let (ids, dense) = interned(&dense_range);
        assert!(dense);
        assert_eq!(ids, reference(&dense_range));
        let (_, dense) = interned(&draw(10_000_000));
        assert!(!dense);
    }

    /// The keys of a dense range arriving a hash partition at a time (the
    /// output of a partitioned join, TPC-H Q13's `c_custkey`): each
    /// partition's keys are spread over the whole range, so the first
    /// partitions alone look sparse; the table stays dense (it moved to the
    /// map after the first three partitions when the spread was judged
    /// after one row per 8 slots).
    #[test]
    fn keys_arriving_a_hash_partition_at_a_time_stay_dense() {
        let keys = 150_000_i64;
        let partitions = 32;
        let part = |k: i64| (tenon_kernels::hash_u64(k as u64) % partitions) as i64;
        let mut rows: Vec<Option<i64>> = Vec::new();
        for p in 0..partitions as i64 {
            // Ten rows a key, as ten orders a customer.
            for _ in 0..10 {
                rows.extend((1..=keys).filter(|&k| part(k) == p).map(Some));
            }
        }
        let batches: Vec<Vec<Option<i64>>> = rows.chunks(8192).map(<[_]>::to_vec).collect();
        let (ids, dense) = interned(&batches);
        assert!(dense);
        assert_eq!(ids, reference(&batches));
    }

    #[test]
    fn keys_below_the_first_batch_shift_the_array() {
        let batches = vec![
            vec![Some(1000), Some(1001)],
            vec![Some(10), Some(1000), Some(12), None],
            vec![Some(3), Some(10), Some(1001)],
        ];
        let (ids, dense) = interned(&batches);
        assert!(dense);
        assert_eq!(ids, reference(&batches));
    }

    #[test]
    fn narrow_and_unsigned_words() {
        let mut t = WordTable::new(1, RandomState::new());
        let (mut next, mut ids, mut rows) = (0, Vec::new(), Vec::new());
        let key: ArrayRef = Arc::new(Int8Array::from(vec![-1, 0, 127, -128, -1, 0]));
        t.intern(&key, &mut next, &mut ids, &mut rows).unwrap();
        assert_eq!(ids, [0, 1, 2, 3, 0, 1]);
        assert_eq!(rows, [0, 1, 2, 3]);
        let mut t = WordTable::new(8, RandomState::new());
        let (mut next, mut ids, mut rows) = (0, Vec::new(), Vec::new());
        let key: ArrayRef = Arc::new(UInt64Array::from(vec![u64::MAX, 0, u64::MAX, 1]));
        t.intern(&key, &mut next, &mut ids, &mut rows).unwrap();
        assert_eq!(ids, [0, 1, 0, 2]);
        assert!(t.dense.is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        /// Any keys, NULLs and batch cuts: the same ids as the reference,
        /// whether the table stays dense or moves to the map.
        #[test]
        fn agrees_with_a_naive_map(
            keys in proptest::collection::vec(
                proptest::option::weighted(
                    0.9,
                    prop_oneof![0i64..50, -20i64..20, 0i64..2_000_000, any::<i64>()],
                ),
                0..300,
            ),
            cuts in proptest::collection::vec(1usize..40, 1..10),
        ) {
            let mut batches = Vec::new();
            let mut rest = keys.as_slice();
            for c in cuts.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (b, r) = rest.split_at((*c).min(rest.len()));
                batches.push(b.to_vec());
                rest = r;
            }
            let (ids, _) = interned(&batches);
            prop_assert_eq!(ids, reference(&batches));
        }
    }
}
