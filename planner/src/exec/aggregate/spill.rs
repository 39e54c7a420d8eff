//! GROUP BY under a memory limit: the rows whose groups do not fit are
//! spilled, and aggregated a partition at a time.
//!
//! The sink charges every new group before it is made (twice: the
//! combine at the end copies the groups once more). A batch whose groups
//! do not fit is halved until its pieces do; a single row that does not
//! fit turns the aggregation to *overflow*: from then on every row is
//! written, raw, to one of [`PARTS`] spill files by the hash of its group
//! key (the hash the group tables give a key, so that a group's rows and
//! its state meet in one partition).
//!
//! At the end the partial aggregates are regrouped into one partial per
//! partition (the combine step, without finalizing), and each partition
//! is finished in turn: its spilled rows are aggregated into its partial,
//! it is finalized and output, and its memory given back before the next.
//! A group's rows may be part in a partial (before the overflow) and part
//! on disk (after); they meet in the partition's partial. When the rows of
//! one partition still do not fit, the same happens one level down: its
//! partial and the rows that did not fit are split by other bits of the
//! same hash, at most [`MAX_LEVEL`] levels deep. DISTINCT aggregates need
//! nothing of their own: their rows are spilled raw like any other.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use ahash::RandomState;
use arrow_array::{RecordBatch, UInt32Array};

use super::combine::{COMBINE_SHIFT, Partial, partition_at, regroup};
use super::groups::GroupTable;
use super::{HashAggregate, Scratch, lock};
use crate::exec::plan::OperatorMetrics;
use crate::exec::spill::{SpillFile, SpillSpace, SpillWriter};
use crate::exec::{ExecError, Result};
use tenon_kernels::{MemoryBudget, MemoryReservation};

/// Partitions of each split: 2^5.
const BITS: u32 = 5;
/// Partitions of each split.
pub(super) const PARTS: usize = 1 << BITS;
/// Levels of splits below the first.
const MAX_LEVEL: u32 = 4;

/// The first hash bit of `level`'s partitions: the combine's bits at level
/// 0, then five lower bits at each level.
fn shift(level: u32) -> u32 {
    COMBINE_SHIFT - BITS * level
}

/// Where an aggregation under a memory limit spills.
pub(super) struct Spilling {
    pub(super) space: Arc<SpillSpace>,
    pub(super) metrics: Arc<OperatorMetrics>,
    /// The query's budget, which holds the files' write buffers.
    pub(super) budget: MemoryBudget,
    /// Set once a row did not fit: every later row is spilled.
    pub(super) overflow: AtomicBool,
    /// The level-0 partition files.
    pub(super) files: Mutex<Vec<Option<SpillWriter>>>,
}

impl Spilling {
    pub(super) fn new(
        space: Arc<SpillSpace>,
        metrics: Arc<OperatorMetrics>,
        budget: MemoryBudget,
    ) -> Self {
        Spilling {
            space,
            metrics,
            budget,
            overflow: AtomicBool::new(false),
            files: Mutex::new((0..PARTS).map(|_| None).collect()),
        }
    }
}

impl HashAggregate {
    /// Sinks `batch` into `partial`, each new group charged `factor` times
    /// its size to `charge` before it is made, `charge` held to at most
    /// `cap` bytes; a piece whose groups do not fit is halved. Returns the
    /// pieces that did not fit even as one row (empty when all of `batch`
    /// was aggregated).
    pub(super) fn sink_within(
        &self,
        partial: &mut Partial,
        scratch: &mut Scratch,
        batch: &RecordBatch,
        charge: &Mutex<MemoryReservation>,
        factor: usize,
        cap: usize,
    ) -> Result<Vec<RecordBatch>> {
        let per_group = self.group_bytes(batch).saturating_mul(factor);
        let mut pieces = vec![batch.clone()];
        while let Some(b) = pieces.pop() {
            let rows = b.num_rows();
            if rows == 0 {
                continue;
            }
            let bound = per_group.saturating_mul(rows);
            let fits = {
                let mut c = lock(charge);
                c.size().saturating_add(bound) <= cap && c.grow_spillable(bound).is_ok()
            };
            if fits {
                let before = partial.table.num_groups();
                let sunk = self.sink_batch(partial, &b, scratch);
                let made = partial.table.num_groups().saturating_sub(before);
                lock(charge).shrink(bound.saturating_sub(made * per_group));
                sunk?;
            } else if rows > 1 {
                let half = rows / 2;
                pieces.push(b.slice(half, rows - half));
                pieces.push(b.slice(0, half));
            } else {
                pieces.push(b);
                pieces.reverse();
                return Ok(pieces);
            }
        }
        Ok(Vec::new())
    }

    /// Writes the rows of `batch` to `files`, each to its partition's at
    /// `level`.
    pub(super) fn spill_rows(
        &self,
        batch: &RecordBatch,
        state: &RandomState,
        level: u32,
        files: &mut [Option<SpillWriter>],
        to: &Spilling,
    ) -> Result<()> {
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(());
        }
        // The group tables' hash of each row's key: a table of this
        // batch's keys alone.
        let keys = self.keys(batch)?;
        let mut table = GroupTable::new(&self.key_types, state.clone())?;
        let mut ids = Vec::with_capacity(rows);
        table.intern(&keys, rows, &mut ids)?;
        let hashes = table.partition_hashes();
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); PARTS];
        for (row, &g) in ids.iter().enumerate() {
            lists[partition_at(hashes[g as usize], PARTS, shift(level))].push(row as u32);
        }
        for (p, list) in lists.into_iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            let piece = if list.len() == rows {
                batch.clone()
            } else {
                arrow_select::take::take_record_batch(batch, &UInt32Array::from(list))
                    .map_err(|e| ExecError::arrow("spilling GROUP BY rows", e))?
            };
            if files[p].is_none() {
                let w = to.space.writer(&batch.schema(), &to.metrics)?;
                files[p] = Some(w.coalescing(&to.budget));
                to.metrics.spill.partitions.fetch_add(1, Ordering::Relaxed);
            }
            if let Some(w) = &mut files[p] {
                w.write(&piece)?;
            }
        }
        Ok(())
    }

    /// Finishes an aggregation that spilled: `partials` regrouped by
    /// partition, each partition's spilled rows (`files`) aggregated into
    /// it, finalized and output in `batch_size` batches.
    pub(super) fn finish_spilled(
        &self,
        partials: Vec<Partial>,
        files: Vec<Option<SpillFile>>,
        charge: MemoryReservation,
        how: &Finishing<'_>,
        out: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        let pairs = self.aggs.iter().any(super::AggSpec::state_is_pairs);
        let fresh = || self.new_partial(how.state);
        let parts = regroup(partials, PARTS, pairs, &fresh, shift(0))?;
        // The groups were charged twice (the copy the regrouping made is
        // gone); each partition takes its share of the rest, given back
        // when it is output.
        let mut charge = charge;
        charge.shrink(charge.size() / 2);
        for ((partial, charge), file) in shares(parts, charge).into_iter().zip(files) {
            self.drain(partial, file, 0, &Mutex::new(charge), how, out)?;
        }
        Ok(())
    }

    /// One partition: its spilled rows aggregated into `partial`, which is
    /// then output; rows that do not fit go one level down.
    fn drain(
        &self,
        mut partial: Partial,
        file: Option<SpillFile>,
        level: u32,
        charge: &Mutex<MemoryReservation>,
        how: &Finishing<'_>,
        out: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        let Finishing {
            state,
            to,
            batch_size,
        } = *how;
        to.metrics
            .spill
            .depth
            .fetch_max(u64::from(level) + 1, Ordering::Relaxed);
        let mut below: Option<Vec<Option<SpillWriter>>> = None;
        // This partition may take half of the memory free now: if its rows
        // do not fit, the partitions it splits into have the other half.
        // (The last level may take all of it.)
        let cap = if level == MAX_LEVEL {
            usize::MAX
        } else {
            let c = lock(charge);
            let b = c.budget();
            c.size() + b.limit().saturating_sub(b.used()) / 2
        };
        if let Some(file) = &file {
            let mut scratch = Scratch::default();
            for b in file.read()? {
                let b = b?;
                let rest = match &below {
                    Some(_) => vec![b],
                    None => self.sink_within(&mut partial, &mut scratch, &b, charge, 1, cap)?,
                };
                if rest.is_empty() {
                    continue;
                }
                if level + 1 > MAX_LEVEL {
                    return Err(ExecError::Memory(format!(
                        "a partition of the GROUP BY's groups does not fit memory_limit even \
                         after {MAX_LEVEL} splits ({} groups held)",
                        partial.table.num_groups()
                    )));
                }
                let files = below.get_or_insert_with(|| (0..PARTS).map(|_| None).collect());
                for r in rest {
                    self.spill_rows(&r, state, level + 1, files, to)?;
                }
            }
        }
        drop(file);
        let Some(files) = below else {
            let batch = self.output(partial.finish()?)?;
            // The partition's groups are given back as they leave.
            let held = lock(charge).size();
            lock(charge).shrink(held);
            let rows = batch.num_rows();
            let mut offset = 0;
            while offset < rows {
                let len = batch_size.min(rows - offset);
                out(batch.slice(offset, len))?;
                offset += len;
            }
            return Ok(());
        };
        let files = files
            .into_iter()
            .map(|w| w.map(SpillWriter::finish).transpose())
            .collect::<Result<Vec<_>>>()?;
        let pairs = self.aggs.iter().any(super::AggSpec::state_is_pairs);
        let fresh = || self.new_partial(state);
        let subs = regroup(vec![partial], PARTS, pairs, &fresh, shift(level + 1))?;
        let held = lock(charge).split(usize::MAX);
        for ((sub, charge), file) in shares(subs, held).into_iter().zip(files) {
            self.drain(sub, file, level + 1, &Mutex::new(charge), how, out)?;
        }
        Ok(())
    }
}

/// What finishing a spilled aggregation needs besides its partials.
#[derive(Clone, Copy)]
pub(super) struct Finishing<'a> {
    /// The group tables' hashing (one for every table of the aggregation).
    pub(super) state: &'a RandomState,
    /// The spill files' space and the operator's metrics.
    pub(super) to: &'a Spilling,
    /// Rows per output batch.
    pub(super) batch_size: usize,
}

/// `parts` each with its share of `charge`, by its groups.
fn shares(parts: Vec<Partial>, mut charge: MemoryReservation) -> Vec<(Partial, MemoryReservation)> {
    let total: usize = parts.iter().map(|p| p.table.num_groups()).sum();
    let size = charge.size();
    parts
        .into_iter()
        .map(|p| {
            let share =
                (size as u128 * p.table.num_groups() as u128 / total.max(1) as u128) as usize;
            let c = charge.split(share);
            (p, c)
        })
        .collect()
}
