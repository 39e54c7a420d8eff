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

use std::sync::atomic::{AtomicU64, Ordering};

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

/// A Bloom-style filter over the top bits of one side's sort keys: rows of
/// the other side whose key is certainly absent are left out of the
/// partitions (a semi-join reduction before the sort). Equal keys have
/// equal top bits, so a row it rules out has no equal key; it may let a
/// row through that has none (false positive, about 1% at 16 bits a key).
pub(crate) struct KeyBits {
    words: Vec<u64>,
    mask: usize,
}

impl KeyBits {
    /// Rows of the sampled side tested before the filter is used.
    const SAMPLE: usize = 4096;

    #[inline(always)]
    fn locate(x: u64) -> (usize, u64) {
        let h = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let h = h ^ (h >> 29);
        (
            (h >> 32) as usize,
            (1u64 << (h & 63)) | (1u64 << ((h >> 6) & 63)),
        )
    }

    /// Bytes of the filter for a side of `rows` rows.
    pub(crate) fn bytes_for(rows: usize) -> usize {
        (rows * 16 / 64).max(1).next_power_of_two() * 8
    }

    /// The filter of `side`'s non-NULL keys.
    pub(crate) fn build<S: KeySource, K: SortableKey>(
        side: &SideKeys<'_, S>,
        key: impl Fn(&S, usize) -> K + Sync,
    ) -> Self {
        let n_words = Self::bytes_for(side.num_rows()) / 8;
        let words: Vec<AtomicU64> = (0..n_words).map(|_| AtomicU64::new(0)).collect();
        let mask = n_words - 1;
        chunks(side).into_par_iter().for_each(|(b, range)| {
            let (keys, nulls) = (&side.keys[b], side.nulls[b].as_ref());
            for i in range {
                if nulls.is_some_and(|n| n.is_null(i)) {
                    continue;
                }
                let (w, bits) = Self::locate(key(keys, i).top_bits());
                words[w & mask].fetch_or(bits, Ordering::Relaxed);
            }
        });
        KeyBits {
            words: words.into_iter().map(AtomicU64::into_inner).collect(),
            mask,
        }
    }

    /// Whether a key with these top bits may be in the filtered side.
    #[inline(always)]
    pub(crate) fn may_contain(&self, top_bits: u64) -> bool {
        let (w, bits) = Self::locate(top_bits);
        self.words[w & self.mask] & bits == bits
    }

    /// Whether the filter would drop at least half of `side`'s rows, judged
    /// on its first few thousand non-NULL rows.
    pub(crate) fn worth_it<S: KeySource, K: SortableKey>(
        &self,
        side: &SideKeys<'_, S>,
        key: impl Fn(&S, usize) -> K + Sync,
    ) -> bool {
        let (mut tested, mut passed) = (0usize, 0usize);
        'outer: for (b, range) in chunks(side) {
            let (keys, nulls) = (&side.keys[b], side.nulls[b].as_ref());
            for i in range {
                if tested == Self::SAMPLE {
                    break 'outer;
                }
                if nulls.is_some_and(|n| n.is_null(i)) {
                    continue;
                }
                tested += 1;
                passed += usize::from(self.may_contain(key(keys, i).top_bits()));
            }
        }
        tested > 0 && passed * 2 <= tested
    }
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
    keep: Option<&KeyBits>,
) -> Buckets<K> {
    if let Some(filter) = keep {
        return partition_filtered(side, cut, key, filter);
    }
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
    let (offsets, starts, total) = layout(parts, sunk.iter().map(|(h, _)| h));
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

/// Each partition's start (and the end), each chunk's start in each
/// partition, and the total, from the chunks' histograms.
fn layout<'a>(
    parts: usize,
    hists: impl Iterator<Item = &'a Vec<u32>> + Clone,
) -> (Vec<usize>, Vec<Vec<usize>>, usize) {
    let n = hists.clone().count();
    let mut offsets = Vec::with_capacity(parts + 1);
    let mut starts = vec![vec![0usize; parts]; n];
    let mut at = 0;
    for p in 0..parts {
        offsets.push(at);
        for (start, hist) in starts.iter_mut().zip(hists.clone()) {
            start[p] = at;
            at += hist[p] as usize;
        }
    }
    offsets.push(at);
    (offsets, starts, at)
}

/// [`partition`] of the rows `filter` lets through: one pass over the side
/// tests each key once and keeps the survivors' entries per chunk (few,
/// when the filter is used), which are then placed by partition.
fn partition_filtered<S: KeySource, K: SortableKey>(
    side: &SideKeys<'_, S>,
    cut: Cut,
    key: impl Fn(&S, usize) -> K + Sync,
    filter: &KeyBits,
) -> Buckets<K> {
    let parts = cut.partitions();
    let chunks = chunks(side);
    let offsets_of = side.list.offsets();
    type Sunk<K> = (Vec<u32>, Vec<Entry<K>>, Vec<u32>);
    let sunk: Vec<Sunk<K>> = chunks
        .par_iter()
        .map(|(b, range)| {
            let (keys, nulls) = (&side.keys[*b], side.nulls[*b].as_ref());
            let mut hist = vec![0u32; parts];
            let mut kept = Vec::new();
            let mut null_rows = Vec::new();
            for i in range.clone() {
                let row = (offsets_of[*b] + i) as u32;
                if nulls.is_some_and(|n| n.is_null(i)) {
                    null_rows.push(row);
                    continue;
                }
                let k = key(keys, i);
                if filter.may_contain(k.top_bits()) {
                    hist[cut.of(k.top_bits())] += 1;
                    kept.push(Entry { key: k, row });
                }
            }
            (hist, kept, null_rows)
        })
        .collect();
    let (offsets, starts, total) = layout(parts, sunk.iter().map(|(h, _, _)| h));
    let mut entries: Vec<Entry<K>> = Vec::with_capacity(total);
    entries.resize(
        total,
        Entry {
            key: K::default(),
            row: 0,
        },
    );
    for ((_, kept, _), mut pos) in sunk.iter().zip(starts) {
        for e in kept {
            let p = cut.of(e.key.top_bits());
            entries[pos[p]] = *e;
            pos[p] += 1;
        }
    }
    let null_rows = sunk.into_iter().flat_map(|(_, _, n)| n).collect();
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
