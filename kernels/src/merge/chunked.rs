//! The merge against a small side: the larger side is sorted chunk by chunk
//! (consecutive rows) and every chunk is merged with the whole sorted
//! smaller side.
//!
//! # Why
//!
//! The range-partitioned merge ([`super::exec`]) emits pairs in key order,
//! so the rows it gathers from the larger side are spread over all of it: a
//! random read beyond the caches per output row. With a smaller side of a
//! few thousand rows (a foreign-key join against a dimension table, fk_small
//! in the benches) that gather dominates the join. Here a
//! chunk's output rows all come from that chunk (one partition's worth of
//! consecutive rows, in L2), and the larger side is never scattered into
//! partitions: its entries exist one chunk per worker at a time.
//!
//! The price is merging the smaller side once per chunk, so the mode is
//! taken only while the smaller side is at most a quarter of a chunk (see
//! [`chunk_rows`]).

use std::sync::Mutex;

use rayon::prelude::*;

use super::emit::{Pairs, RunEmitter};
use super::exec::PARTITION_ENTRIES;
use super::order::{OrderSpec, SideKeys, SortKey};
use super::runs::merge;
use super::sort::{Entry, sort_entries};
use crate::error::Result;

/// The smaller side's largest row count for the chunked merge (debug
/// builds: 16, so that the tests' small inputs take this path too).
const SMALL_MAX: usize = if cfg!(debug_assertions) { 16 } else { 16384 };
/// The smallest chunk (debug builds: 8): two partitions' worth, 512 KiB
/// of entries; larger chunks gained nothing end to end (figures:
/// `benches/README.md`, "Kernel design notes (history)").
const MIN_CHUNK: usize = if cfg!(debug_assertions) {
    8
} else {
    2 * PARTITION_ENTRIES
};

/// Rows of the larger side per chunk when the sides have `small` and `big`
/// rows, or `None` when the chunked merge does not apply: the smaller side
/// is at most [`SMALL_MAX`] rows and a quarter of a chunk, and the larger
/// side is at least two chunks.
pub(crate) fn chunk_rows(small: usize, big: usize) -> Option<usize> {
    let chunk = MIN_CHUNK.max(4 * small);
    (small <= SMALL_MAX && big >= 2 * chunk).then_some(chunk)
}

/// A worker's reusable buffers.
#[derive(Default)]
struct Worker<K> {
    entries: Vec<Entry<K>>,
    scratch: Vec<Entry<K>>,
    pairs: Pairs,
}

/// The larger side and how to merge it with the smaller one.
pub(crate) struct Chunked<'a, S: SortKey> {
    /// The larger side's keys.
    pub big: &'a SideKeys<'a, S>,
    /// Whether the larger side is the join's left input.
    pub big_is_left: bool,
    /// Whether the larger side is declared sorted (checked already): its
    /// chunks then need no sort.
    pub big_presorted: bool,
    /// The smaller side's keys.
    pub small: &'a SideKeys<'a, S>,
    /// The smaller side's non-NULL entries, sorted.
    pub small_sorted: &'a [Entry<S::K>],
    /// How sort keys are made.
    pub spec: OrderSpec,
    /// Rows per chunk (from [`chunk_rows`]).
    pub chunk: usize,
}

impl<S: SortKey> Chunked<'_, S> {
    /// Merges every chunk, in parallel, into `runs`; returns the larger
    /// side's rows whose key is NULL, ascending.
    pub(crate) fn run(&self, runs: &RunEmitter<'_>) -> Result<Vec<u32>> {
        let n = self.big.num_rows();
        // One set of buffers per pool thread, kept across chunks: buffers
        // made per rayon split would be fresh memory (page faults) again
        // and again. A thread that finds its set taken (it started another
        // chunk while waiting inside one) makes a temporary set.
        let workers: Vec<Mutex<Worker<S::K>>> = (0..rayon::current_num_threads())
            .map(|_| Mutex::default())
            .collect();
        let nulls = (0..n.div_ceil(self.chunk))
            .into_par_iter()
            .map(|c| {
                let rows = c * self.chunk..((c + 1) * self.chunk).min(n);
                let slot = rayon::current_thread_index().and_then(|t| workers.get(t));
                match slot.and_then(|m| m.try_lock().ok()) {
                    Some(mut w) => self.chunk_run(&mut w, rows, runs),
                    None => self.chunk_run(&mut Worker::default(), rows, runs),
                }
            })
            .collect::<Result<Vec<Vec<u32>>>>()?;
        Ok(nulls.into_iter().flatten().collect())
    }

    /// One chunk: its entries, sorted, merged with the smaller side.
    fn chunk_run(
        &self,
        w: &mut Worker<S::K>,
        rows: std::ops::Range<usize>,
        runs: &RunEmitter<'_>,
    ) -> Result<Vec<u32>> {
        let big = self.big;
        let offsets = big.list.offsets();
        w.entries.clear();
        let mut nulls = Vec::new();
        // The last batch starting at or before the chunk's first row.
        let mut b = offsets.partition_point(|&o| o <= rows.start) - 1;
        let mut at = rows.start;
        while at < rows.end {
            let base = offsets[b];
            let end = offsets[b + 1].min(rows.end);
            let keys = &big.keys[b];
            let local = at - base..end - base;
            match big.nulls[b].as_ref() {
                None => w.entries.extend(local.map(|i| Entry {
                    key: S::local_key(keys, i, &self.spec),
                    row: (base + i) as u32,
                })),
                Some(valid) => {
                    for i in local {
                        if valid.is_null(i) {
                            nulls.push((base + i) as u32);
                        } else {
                            w.entries.push(Entry {
                                key: S::local_key(keys, i, &self.spec),
                                row: (base + i) as u32,
                            });
                        }
                    }
                }
            }
            at = end;
            b += 1;
        }
        if !self.big_presorted {
            sort_entries(&mut w.entries, big, &mut w.scratch, false);
        }
        runs.warm(self.big_is_left, rows);
        let Worker { entries, pairs, .. } = w;
        if self.big_is_left {
            merge(entries, big, self.small_sorted, self.small, |l, r| {
                runs.run(l, r, pairs)
            })?;
        } else {
            merge(self.small_sorted, self.small, entries, big, |l, r| {
                runs.run(l, r, pairs)
            })?;
        }
        runs.flush(pairs)?;
        Ok(nulls)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_rows_takes_small_sides_against_much_larger_ones() {
        assert_eq!(chunk_rows(2, 10 * MIN_CHUNK), Some(MIN_CHUNK));
        assert_eq!(chunk_rows(SMALL_MAX + 1, usize::MAX / 8), None);
        // The larger side must be at least two chunks.
        assert_eq!(chunk_rows(2, MIN_CHUNK), None);
        // A quarter of a chunk at most: larger smaller sides make larger chunks.
        assert_eq!(chunk_rows(SMALL_MAX, 8 * SMALL_MAX), Some(4 * SMALL_MAX));
    }
}
