//! Radix partitioning of one side's keys by the top bits of their hash.
//!
//! Both the parallel table build (one region per partition) and the
//! partitioned ("shuffle hash") mode start here. Three phases, no atomics:
//!
//! 1. *sink*: every chunk of rows computes its tags and a histogram of
//!    partitions (chunks run in parallel);
//! 2. *combine*: a prefix sum over (partition, chunk) gives each chunk its
//!    own disjoint range inside every partition;
//! 3. *scatter*: chunks copy `(tag, row)` into their ranges in parallel.
//!
//! The result keeps each partition contiguous and, within a partition, rows
//! in ascending order (chunks are laid out in order), so output does not
//! depend on the thread count. Rows whose key is NULL are not partitioned:
//! they are returned apart, ascending.

use arrow_buffer::NullBuffer;
use rayon::prelude::*;

use super::bloom::KeyFilter;
use crate::hugepage::huge_vec;
use crate::keys::KeySource;

/// Rows per chunk of the sink phase.
const CHUNK_ROWS: usize = 1 << 16;

/// One side's keys, grouped by partition.
#[derive(Debug, Default)]
pub(crate) struct Scattered<T> {
    /// Tags, partition after partition.
    pub tags: Vec<T>,
    /// The row of each tag.
    pub rows: Vec<u32>,
    /// `offsets[p]..offsets[p + 1]` is partition `p`.
    pub offsets: Vec<usize>,
    /// Rows whose key is NULL, ascending.
    pub null_rows: Vec<u32>,
}

impl<T> Scattered<T> {
    /// Partition `p`'s positions.
    pub(crate) fn range(&self, p: usize) -> std::ops::Range<usize> {
        self.offsets[p]..self.offsets[p + 1]
    }

    /// Number of partitions.
    pub(crate) fn partitions(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Rows in each partition.
    pub(crate) fn counts(&self) -> Vec<usize> {
        self.offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }
}

/// Bytes [`scatter`] allocates for `n` rows.
pub(crate) fn scatter_bytes<S: KeySource>(n: usize) -> usize {
    let tag = std::mem::size_of::<S::Tag>();
    // The output (tag + row), plus the tags kept by the sink for byte keys.
    n * (tag + 4 + if S::VERIFY { tag } else { 0 })
}

/// The partition of a hash: its top `bits` bits.
#[inline(always)]
pub(crate) fn partition_of(h: u64, bits: u32) -> usize {
    h.checked_shr(64 - bits).unwrap_or(0) as usize
}

/// A pointer that chunks write through at disjoint positions.
struct Out<T>(*mut T);

// SAFETY: `Out` is only used inside `scatter`, where every chunk writes a
// range of positions no other chunk writes (see the prefix sum), and the
// vectors outlive the parallel loop.
unsafe impl<T: Send> Send for Out<T> {}
// SAFETY: as above: shared between threads, written at disjoint positions.
unsafe impl<T: Send> Sync for Out<T> {}

/// Keys of one batch of a side: local row `i` is global row `base + i`.
pub(crate) struct KeyBatch<'a, S> {
    pub keys: &'a S,
    pub nulls: Option<&'a NullBuffer>,
    pub base: usize,
    pub len: usize,
}

/// One chunk of work: a range of local rows of one key batch.
struct Chunk<'a, S> {
    keys: &'a S,
    nulls: Option<&'a NullBuffer>,
    base: usize,
    range: std::ops::Range<usize>,
}

/// Partitions rows `0..n` of `keys` into `2^bits` partitions by hash.
pub(crate) fn scatter<S: KeySource>(
    keys: &S,
    n: usize,
    nulls: Option<&NullBuffer>,
    bits: u32,
) -> Scattered<S::Tag> {
    let one = KeyBatch {
        keys,
        nulls,
        base: 0,
        len: n,
    };
    scatter_batches(std::slice::from_ref(&one), bits, None)
}

/// Partitions the rows of several key batches (one side, batch after
/// batch, numbered by global row) into `2^bits` partitions by hash.
///
/// With `keep`, rows whose key the filter rules out are dropped: they are
/// neither partitioned nor listed (the other side has no such key).
pub(crate) fn scatter_batches<S: KeySource>(
    batches: &[KeyBatch<'_, S>],
    bits: u32,
    keep: Option<&KeyFilter>,
) -> Scattered<S::Tag> {
    let parts = 1usize << bits;
    let chunks: Vec<Chunk<'_, S>> = batches
        .iter()
        .flat_map(|b| {
            (0..b.len).step_by(CHUNK_ROWS).map(move |s| Chunk {
                keys: b.keys,
                nulls: b.nulls,
                base: b.base,
                range: s..(s + CHUNK_ROWS).min(b.len),
            })
        })
        .collect();

    // Sink: histograms and NULL rows per chunk.
    let sunk: Vec<Sunk<S::Tag>> = chunks
        .par_iter()
        .map(|c| crate::cpu::dispatch!(sink(c, bits, keep)))
        .collect();

    // Combine: each chunk's start position in each partition.
    let mut offsets = Vec::with_capacity(parts + 1);
    let mut starts = vec![vec![0usize; parts]; sunk.len()];
    let mut at = 0;
    for p in 0..parts {
        offsets.push(at);
        for (start, s) in starts.iter_mut().zip(&sunk) {
            start[p] = at;
            at += s.hist[p];
        }
    }
    offsets.push(at);
    let total = at;

    // Scatter.
    let mut tags: Vec<S::Tag> = huge_vec(total);
    let mut rows: Vec<u32> = huge_vec(total);
    let tag_out = Out(tags.as_mut_ptr());
    let row_out = Out(rows.as_mut_ptr());
    sunk.par_iter()
        .zip(chunks.par_iter())
        .zip(starts.into_par_iter())
        .for_each(|((s, c), mut pos)| {
            let (tag_out, row_out) = (&tag_out, &row_out);
            crate::cpu::dispatch!(write_chunk(
                s,
                c,
                keep.is_some(),
                &mut pos,
                tag_out,
                row_out
            ))
        });
    // SAFETY: every position in 0..total was written exactly once: the
    // histograms count every kept row and the ranges tile 0..total.
    unsafe {
        tags.set_len(total);
        rows.set_len(total);
    }
    let null_rows = sunk.into_iter().flat_map(|s| s.nulls).collect();
    Scattered {
        tags,
        rows,
        offsets,
        null_rows,
    }
}

/// What the sink phase keeps of one chunk.
struct Sunk<T> {
    /// Byte keys' tags (hashes), so that each string is hashed once.
    tags: Vec<T>,
    /// Each kept row's partition, so the scatter does not hash again.
    pids: Vec<u16>,
    /// With a filter: the kept rows (local), ascending.
    sel: Vec<u32>,
    hist: Vec<usize>,
    nulls: Vec<u32>,
}

/// The sink phase of one chunk: its tags' partitions and histogram, and
/// its NULL rows. Fixed-width tags are the keys themselves, cheap to read
/// again in the scatter; byte keys' tags are hashes, kept here so that each
/// string is hashed once. Compiled per instruction-set level (see
/// `crate::cpu`).
#[inline(always)]
fn sink<S: KeySource>(c: &Chunk<'_, S>, bits: u32, keep: Option<&KeyFilter>) -> Sunk<S::Tag> {
    let keep_tags = S::VERIFY;
    let mut hist = vec![0usize; 1 << bits];
    let mut tags = Vec::with_capacity(if keep_tags { c.range.len() } else { 0 });
    let mut null_list = Vec::new();
    let mut pids = Vec::with_capacity(c.range.len());
    let mut sel = Vec::new();
    for i in c.range.clone() {
        if c.nulls.is_some_and(|v| v.is_null(i)) {
            null_list.push((c.base + i) as u32);
            continue;
        }
        let t = c.keys.tag(i);
        let h = S::hash(t);
        if let Some(f) = keep {
            if !f.may_contain(h) {
                continue;
            }
            sel.push(i as u32);
        }
        let p = partition_of(h, bits);
        hist[p] += 1;
        pids.push(p as u16);
        if keep_tags {
            tags.push(t);
        }
    }
    Sunk {
        tags,
        pids,
        sel,
        hist,
        nulls: null_list,
    }
}

/// The scatter phase of one chunk: copies its kept rows' `(tag, row)` to
/// `pos[partition]` (advancing it). Compiled per instruction-set level.
#[inline(always)]
fn write_chunk<S: KeySource>(
    s: &Sunk<S::Tag>,
    c: &Chunk<'_, S>,
    filtered: bool,
    pos: &mut [usize],
    tag_out: &Out<S::Tag>,
    row_out: &Out<u32>,
) {
    let mut kept = s.tags.iter();
    let mut pid = s.pids.iter();
    let mut write = |i: usize| {
        let t = match kept.next() {
            Some(&t) => t,
            None => c.keys.tag(i),
        };
        let p = pid.next().map_or(0, |&p| p as usize);
        // SAFETY: `pos[p]` stays inside this chunk's own range of
        // partition p (its histogram count), which is inside
        // `0..total`, the capacity of both vectors.
        unsafe {
            tag_out.0.add(pos[p]).write(t);
            row_out.0.add(pos[p]).write((c.base + i) as u32);
        }
        pos[p] += 1;
    };
    if filtered {
        s.sel.iter().for_each(|&i| write(i as usize));
    } else {
        c.range
            .clone()
            .filter(|&i| !c.nulls.is_some_and(|v| v.is_null(i)))
            .for_each(write);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{KeyKind, U64Keys};
    use arrow_array::{ArrayRef, Int64Array};
    use arrow_schema::DataType;
    use std::sync::Arc;

    #[test]
    fn scatter_keeps_every_row_once_grouped_by_partition() {
        let n = 200_000usize;
        let vals: Vec<Option<i64>> = (0..n as i64)
            .map(|i| {
                if i % 97 == 0 {
                    None
                } else {
                    Some(i * 31 % 1000)
                }
            })
            .collect();
        let a: ArrayRef = Arc::new(Int64Array::from(vals.clone()));
        let kind = KeyKind::try_new(&[DataType::Int64]).unwrap();
        let keys = U64Keys::encode(&kind, std::slice::from_ref(&a)).unwrap();
        let s = scatter(&keys, n, a.nulls(), 5);
        assert_eq!(s.partitions(), 32);
        assert_eq!(
            s.null_rows.len(),
            vals.iter().filter(|v| v.is_none()).count()
        );
        let mut seen = vec![false; n];
        for p in 0..32 {
            let r = s.range(p);
            let rows = &s.rows[r.clone()];
            assert!(
                rows.windows(2).all(|w| w[0] < w[1]),
                "ascending in partition"
            );
            for (t, &row) in s.tags[r].iter().zip(rows) {
                assert_eq!(partition_of(U64Keys::hash(*t), 5), p);
                assert_eq!(Some(*t as i64), vals[row as usize]);
                assert!(!seen[row as usize]);
                seen[row as usize] = true;
            }
        }
        for &r in &s.null_rows {
            seen[r as usize] = true;
        }
        assert!(seen.iter().all(|&x| x));
    }
}
