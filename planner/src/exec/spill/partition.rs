//! Splitting batches into partitions by a hash of their join keys.
//!
//! Both sides of a join are split by the same function of the same key
//! hash ([`key_hashes`]: equal keys, equal hashes), so every matching pair
//! lands in one partition. Each recursion level mixes the hash with a
//! salt of its own, so a partition split again spreads over all the
//! partitions of the next level instead of landing in one of them.

use arrow_array::{ArrayRef, RecordBatch, UInt32Array};

use crate::exec::{ExecError, Result};
use tenon_kernels::{hash_u64, key_hashes};

/// Partitions per split: 2^5. Enough that a build side a few times the
/// memory fits after one split, few enough that one file per partition
/// and side stays cheap to keep open.
pub(super) const PARTITION_BITS: u32 = 5;

/// Partitions per split.
pub(super) const PARTITIONS: usize = 1 << PARTITION_BITS;

/// How one side's batches are split at one level.
#[derive(Debug, Clone)]
pub(super) struct Splitter {
    /// The key columns of this side, in key order.
    pub(super) keys: Vec<usize>,
    /// Whether NULL keys match each other.
    pub(super) null_equal: bool,
    /// The recursion level (0: the first split).
    pub(super) level: u32,
}

/// One batch split: the rows of each partition, and which rows had a NULL
/// in a key column.
pub(super) struct Split {
    /// `(partition, its rows)`, only partitions with rows.
    pub(super) parts: Vec<(usize, RecordBatch)>,
    /// Rows with a NULL key column.
    pub(super) null_keys: usize,
}

impl Splitter {
    /// The partition of each row of `batch`.
    fn partitions(&self, batch: &RecordBatch) -> Result<(Vec<u32>, usize)> {
        let cols: Vec<ArrayRef> = self
            .keys
            .iter()
            .map(|&k| {
                batch.columns().get(k).cloned().ok_or_else(|| {
                    ExecError::Unsupported(format!(
                        "internal: spilled join key column {k} is not in the batch"
                    ))
                })
            })
            .collect::<Result<_>>()?;
        let null_keys = cols
            .iter()
            .map(|c| c.logical_nulls())
            .fold(None::<arrow_buffer::NullBuffer>, |acc, n| {
                arrow_buffer::NullBuffer::union(acc.as_ref(), n.as_ref())
            })
            .map_or(0, |n| n.null_count());
        let parts = key_hashes(&cols, self.null_equal)?
            .into_iter()
            .map(|h| partition_of(h, self.level))
            .collect();
        Ok((parts, null_keys))
    }

    /// Splits `batch` into its partitions' rows (the batch itself when all
    /// of it falls in one).
    pub(super) fn split(&self, batch: &RecordBatch) -> Result<Split> {
        let (parts, null_keys) = self.partitions(batch)?;
        Ok(Split {
            parts: split_by(batch, &parts)?,
            null_keys,
        })
    }
}

/// The partition of a row whose key hashes to `hash`, at recursion
/// `level` (the hash mixed with the level's salt: a partition split again
/// spreads over all the next level's partitions).
pub(super) fn partition_of(hash: u64, level: u32) -> u32 {
    let salt = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(u64::from(level) + 1);
    (hash_u64(hash ^ salt) >> (64 - PARTITION_BITS)) as u32
}

/// The rows of `batch` grouped by their partition `parts[row]`: `(partition,
/// its rows)` for the partitions with rows, in partition order (the batch
/// itself when all of it falls in one).
pub(super) fn split_by(batch: &RecordBatch, parts: &[u32]) -> Result<Vec<(usize, RecordBatch)>> {
    let mut counts = [0u32; PARTITIONS];
    for &p in parts {
        counts[p as usize] += 1;
    }
    if let Some(p) = counts
        .iter()
        .position(|&c| c as usize == batch.num_rows() && c > 0)
    {
        return Ok(vec![(p, batch.clone())]);
    }
    let mut starts = [0u32; PARTITIONS];
    let mut at = 0;
    for (s, c) in starts.iter_mut().zip(counts) {
        *s = at;
        at += c;
    }
    let mut order = vec![0u32; parts.len()];
    let mut next = starts;
    for (row, &p) in parts.iter().enumerate() {
        order[next[p as usize] as usize] = row as u32;
        next[p as usize] += 1;
    }
    let order = UInt32Array::from(order);
    let mut out = Vec::new();
    for p in 0..PARTITIONS {
        if counts[p] == 0 {
            continue;
        }
        let idx = order.slice(starts[p] as usize, counts[p] as usize);
        let rows = arrow_select::take::take_record_batch(batch, &idx)
            .map_err(|e| ExecError::arrow("splitting spilled rows", e))?;
        out.push((p, rows));
    }
    Ok(out)
}

/// A batch split with some partitions kept together: see
/// [`Splitter::split_keep`].
pub(super) type KeptSplit = (Option<RecordBatch>, Vec<(usize, RecordBatch)>, usize);

impl Splitter {
    /// Splits `batch`, keeping the rows of every partition `p` with
    /// `keep[p]` together in one batch (the partitions joined in memory):
    /// those rows (if any), the other partitions' rows, and the count of
    /// rows with a NULL key column.
    pub(super) fn split_keep(
        &self,
        batch: &RecordBatch,
        keep: &[bool; PARTITIONS],
    ) -> Result<KeptSplit> {
        let (parts, null_keys) = self.partitions(batch)?;
        let mut kept = Vec::new();
        let mut counts = [0u32; PARTITIONS];
        for (row, &p) in parts.iter().enumerate() {
            if keep[p as usize] {
                kept.push(row as u32);
            } else {
                counts[p as usize] += 1;
            }
        }
        let take = |idx: &UInt32Array| {
            arrow_select::take::take_record_batch(batch, idx)
                .map_err(|e| ExecError::arrow("splitting a spilled join's rows", e))
        };
        let kept = match kept.len() {
            0 => None,
            n if n == batch.num_rows() => Some(batch.clone()),
            _ => Some(take(&UInt32Array::from(kept))?),
        };
        if let Some(p) = counts
            .iter()
            .position(|&c| c as usize == batch.num_rows() && c > 0)
        {
            return Ok((kept, vec![(p, batch.clone())], null_keys));
        }
        let mut others = Vec::new();
        let mut lists: Vec<Vec<u32>> = counts
            .iter()
            .map(|&c| Vec::with_capacity(c as usize))
            .collect();
        for (row, &p) in parts.iter().enumerate() {
            if !keep[p as usize] {
                lists[p as usize].push(row as u32);
            }
        }
        for (p, list) in lists.into_iter().enumerate() {
            if !list.is_empty() {
                others.push((p, take(&UInt32Array::from(list))?));
            }
        }
        Ok((kept, others, null_keys))
    }
}
