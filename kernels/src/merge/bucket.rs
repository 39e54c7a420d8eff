//! Range partitioning by the top bits of the sort keys: the first pass of
//! a parallel MSD radix sort.
//!
//! Sort keys order like the keys ([`super::order`]; for byte keys in hash
//! order, like their hashes). Both sides are cut by the same bits of their
//! top 64 bits: the `bits` highest bits below those shared by every key of
//! both sides (found from the smallest and largest key). Equal keys therefore land in the same
//! partition, partition `p` holds only keys smaller than partition `p + 1`'s,
//! and each partition is then sorted and merged alone. Compared with hash
//! partitioning followed by building entries, this writes the
//! `(sort key, row)` entries once, in place, and needs no hash of fixed-width keys.
//!
//! Keys that crowd into a narrow part of their range (a hot key, string
//! keys in SQL order sharing a long prefix) make unequal partitions; the
//! large ones are sorted and merged in parallel (see [`super::exec`]).
//!
//! Three phases, as the hash join's scatter: *sink* (a histogram per chunk
//! of rows, in parallel), *combine* (a prefix sum giving every chunk its own
//! range in every partition), *scatter* (in parallel). Chunks are laid out
//! in row order, so the result is stable: a presorted side stays sorted in
//! every partition. Rows whose key is NULL are returned apart, ascending.

use rayon::prelude::*;

use super::order::SideKeys;
use super::sort::{Entry, SortableKey};
use crate::hugepage::huge_vec;
use crate::keys::KeySource;

/// Rows per chunk of the sink phase.
const CHUNK_ROWS: usize = 1 << 16;

/// One side's entries, grouped by partition.
#[derive(Debug, Default)]
pub(crate) struct Buckets<K> {
    /// Entries, partition after partition.
    pub entries: Vec<Entry<K>>,
    /// `offsets[p]..offsets[p + 1]` is partition `p`.
    pub offsets: Vec<usize>,
    /// Rows whose key is NULL, ascending.
    pub null_rows: Vec<u32>,
}

impl<K> Buckets<K> {
    /// Partition `p`'s positions.
    pub(crate) fn range(&self, p: usize) -> std::ops::Range<usize> {
        self.offsets[p]..self.offsets[p + 1]
    }
}

/// The cut shared by both sides: keys are partitioned by
/// `(key >> shift) & mask`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cut {
    shift: u32,
    mask: u64,
}

impl Cut {
    /// The cut into `2^bits` partitions of keys from `lo` to `hi`.
    pub(crate) fn new(lo: u64, hi: u64, bits: u32) -> Self {
        let varying = 64 - (lo ^ hi).leading_zeros();
        let bits = bits.min(varying);
        if bits == 0 {
            return Cut { shift: 0, mask: 0 };
        }
        Cut {
            shift: varying - bits,
            mask: (1u64 << bits) - 1,
        }
    }

    /// Partitions.
    pub(crate) fn partitions(&self) -> usize {
        self.mask as usize + 1
    }

    #[inline(always)]
    fn of(&self, key: u64) -> usize {
        ((key >> self.shift) & self.mask) as usize
    }
}

/// Chunks of a side: (batch, local rows).
fn chunks<S>(side: &SideKeys<'_, S>) -> Vec<(usize, std::ops::Range<usize>)> {
    side.list
        .batches()
        .iter()
        .enumerate()
        .flat_map(|(b, batch)| {
            let n = batch.num_rows();
            (0..n)
                .step_by(CHUNK_ROWS)
                .map(move |s| (b, s..(s + CHUNK_ROWS).min(n)))
        })
        .collect()
}

/// The smallest and largest sort key of a side's non-NULL rows.
pub(crate) fn key_bounds<S: KeySource, K: SortableKey>(
    side: &SideKeys<'_, S>,
    key: impl Fn(&S, usize) -> K + Sync,
) -> Option<(u64, u64)> {
    chunks(side)
        .par_iter()
        .filter_map(|(b, range)| {
            let (keys, nulls) = (&side.keys[*b], side.nulls[*b].as_ref());
            range
                .clone()
                .filter(|&i| nulls.is_none_or(|n| n.is_valid(i)))
                .map(|i| key(keys, i).top_bits())
                .fold(None, |acc: Option<(u64, u64)>, k| {
                    Some(acc.map_or((k, k), |(lo, hi)| (lo.min(k), hi.max(k))))
                })
        })
        .reduce_with(|a, b| (a.0.min(b.0), a.1.max(b.1)))
}

/// A pointer that chunks write through at disjoint positions.
struct Out<K>(*mut Entry<K>);

// SAFETY: `Out` is only used inside `partition`, where every chunk writes a
// range of positions no other chunk writes (see the prefix sum), and the
// vector outlives the parallel loop.
unsafe impl<K: Send> Send for Out<K> {}
// SAFETY: as above: shared between threads, written at disjoint positions.
unsafe impl<K: Send> Sync for Out<K> {}

/// Partitions one side's non-NULL rows by `cut`, as `(sort key, row)`
/// entries.
pub(crate) fn partition<S: KeySource, K: SortableKey>(
    side: &SideKeys<'_, S>,
    cut: Cut,
    key: impl Fn(&S, usize) -> K + Sync,
) -> Buckets<K> {
    let parts = cut.partitions();
    let chunks = chunks(side);
    let offsets_of = side.list.offsets();
    // Sink: a histogram and the NULL rows of every chunk.
    let sunk: Vec<(Vec<u32>, Vec<u32>)> = chunks
        .par_iter()
        .map(|(b, range)| {
            let (keys, nulls) = (&side.keys[*b], side.nulls[*b].as_ref());
            let mut hist = vec![0u32; parts];
            let mut null_rows = Vec::new();
            for i in range.clone() {
                if nulls.is_some_and(|n| n.is_null(i)) {
                    null_rows.push((offsets_of[*b] + i) as u32);
                    continue;
                }
                hist[cut.of(key(keys, i).top_bits())] += 1;
            }
            (hist, null_rows)
        })
        .collect();
    // Combine: each chunk's start in each partition.
    let mut offsets = Vec::with_capacity(parts + 1);
    let mut starts = vec![vec![0usize; parts]; sunk.len()];
    let mut at = 0;
    for p in 0..parts {
        offsets.push(at);
        for (start, (hist, _)) in starts.iter_mut().zip(&sunk) {
            start[p] = at;
            at += hist[p] as usize;
        }
    }
    offsets.push(at);
    let total = at;
    // Scatter.
    let mut entries: Vec<Entry<K>> = huge_vec(total);
    let out = Out(entries.as_mut_ptr());
    chunks
        .par_iter()
        .zip(starts.into_par_iter())
        .for_each(|((b, range), mut pos)| {
            let out = &out;
            let (keys, nulls) = (&side.keys[*b], side.nulls[*b].as_ref());
            let base = offsets_of[*b];
            for i in range.clone() {
                if nulls.is_some_and(|n| n.is_null(i)) {
                    continue;
                }
                let k = key(keys, i);
                let p = cut.of(k.top_bits());
                // SAFETY: `pos[p]` stays inside this chunk's own range of
                // partition p (its histogram count), which is inside
                // `0..total`, the vector's capacity.
                unsafe {
                    out.0.add(pos[p]).write(Entry {
                        key: k,
                        row: (base + i) as u32,
                    });
                }
                pos[p] += 1;
            }
        });
    // SAFETY: every position in 0..total was written exactly once: the
    // histograms count every non-NULL row and the ranges tile 0..total.
    unsafe { entries.set_len(total) };
    let null_rows = sunk.into_iter().flat_map(|(_, n)| n).collect();
    Buckets {
        entries,
        offsets,
        null_rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_use_the_bits_below_the_shared_prefix() {
        let c = Cut::new(0x8000_0000_0000_0010, 0x8000_0000_0000_00ff, 4);
        assert_eq!(c.partitions(), 16);
        assert_eq!(c.of(0x8000_0000_0000_0010), 1);
        assert_eq!(c.of(0x8000_0000_0000_001f), 1);
        assert_eq!(c.of(0x8000_0000_0000_0020), 2);
        assert_eq!(c.of(0x8000_0000_0000_00ff), 15);
        // Fewer varying bits than asked: fewer partitions.
        let c = Cut::new(5, 6, 10);
        assert_eq!(c.partitions(), 4);
        let c = Cut::new(7, 7, 10);
        assert_eq!(c.partitions(), 1);
        assert_eq!(c.of(7), 0);
    }
}
