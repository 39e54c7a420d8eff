//! ORDER BY under a memory limit: an external merge sort.
//!
//! The input is collected while it fits, each batch charged for its rows
//! and for what sorting them adds ([`sort_expansion`]: the encoded keys,
//! the positions, the sorted copy). When a batch does not fit, the held
//! rows are sorted in memory and written out as one sorted *run*, and
//! their memory is given back. At the end, when nothing was written, the
//! rows are sorted in memory as without a limit; otherwise the last rows
//! become a run too and the runs are merged: at most [`MAX_FAN_IN`] at once
//! (fewer when the budget cannot hold a batch of each), in passes that
//! write merged runs until one pass can merge all that are left into the
//! output.
//!
//! The order is the in-memory sort's: stable, rows with equal keys in the
//! order they arrived (runs are numbered in arrival order, and a tie goes
//! to the earlier run).

use std::sync::Mutex;

use arrow_array::RecordBatch;
use arrow_row::{RowConverter, Rows};

use super::file::SpillFile;
use crate::exec::plan::PhysicalPlan;
use crate::exec::run::{Run, Sink, lock};
use crate::exec::sort::SortExec;
use crate::exec::{ExecError, Result};
use tenon_kernels::{HeldBuffers, MemoryReservation, batch_bytes};

/// Most runs merged at once.
pub(super) const MAX_FAN_IN: usize = 64;

/// Bytes charged for `bytes` of held rows (`rows` of them) to be sorted
/// with keys of `key_bytes` a row (encoded): the rows, their sorted copy,
/// the positions and the encoded keys.
fn sort_expansion(bytes: usize, rows: usize, key_bytes: usize) -> usize {
    bytes
        .saturating_mul(2)
        .saturating_add(rows.saturating_mul(16 + key_bytes))
}

/// The collection in progress.
struct Collecting {
    batches: Vec<RecordBatch>,
    held: HeldBuffers,
    charge: MemoryReservation,
    runs: Vec<SpillFile>,
}

impl Run<'_> {
    /// Runs ORDER BY `sort` (no fetch) over `input` under a memory limit,
    /// pushing the sorted batches into `out` in order.
    pub(in crate::exec) fn external_sort(
        &self,
        plan: &PhysicalPlan,
        input: &PhysicalPlan,
        sort: &SortExec,
        out: &Sink<'_>,
    ) -> Result<()> {
        let metrics = &plan.metrics;
        // Encoded key bytes a row, measured on the first batch (arrow-row
        // encodes a string in 32-byte blocks: far more than its length).
        let key_bytes = std::sync::OnceLock::new();
        let converter = sort.converter()?;
        let measure = |b: &RecordBatch| -> Result<usize> {
            if let Some(k) = key_bytes.get() {
                return Ok(*k);
            }
            let rows = sort.encode(&converter, b)?;
            let k = rows.size().div_ceil(b.num_rows().max(1)) + 8;
            Ok(*key_bytes.get_or_init(|| k))
        };
        let state = Mutex::new(Collecting {
            batches: Vec::new(),
            held: HeldBuffers::new(),
            charge: self
                .budget_of(plan)
                .try_reserve("the rows to sort (ORDER BY)", 0)?,
            runs: Vec::new(),
        });
        // (No lock is held while a run is sorted: the sort runs on the
        // pool, whose workers may be the ones pushing into this closure.)
        self.push(input, &|b: RecordBatch| {
            let keys = measure(&b)?;
            let extra = sort_expansion(batch_bytes(&b), b.num_rows(), keys) - batch_bytes(&b);
            let (taken, taken_charge) = {
                let mut st = lock(&state);
                let st = &mut *st;
                let new = st.held.add(&b);
                if st.charge.grow_spillable(new + extra).is_ok() {
                    st.batches.push(b);
                    return Ok(());
                }
                // Full: the held rows leave, with the charge of their bytes
                // (their expansion is given back for the sort's own).
                let taken = std::mem::take(&mut st.batches);
                let held: usize = taken.iter().map(batch_bytes).sum();
                let taken_charge = st.charge.split(held);
                st.charge.shrink(st.charge.size());
                st.held = HeldBuffers::new();
                (taken, taken_charge)
            };
            let mut runs = Vec::new();
            if !taken.is_empty() {
                self.sorted_run(sort, taken, plan, &mut runs)?;
            }
            drop(taken_charge);
            let alone = {
                let mut st = lock(&state);
                let st = &mut *st;
                st.runs.append(&mut runs);
                let new = st.held.add(&b);
                if st.charge.grow_spillable(new + extra).is_ok() {
                    st.batches.push(b);
                    None
                } else {
                    Some(b)
                }
            };
            // A batch that alone does not fit is sorted as a run of its own.
            if let Some(b) = alone {
                self.sorted_run(sort, vec![b], plan, &mut runs)?;
                lock(&state).runs.append(&mut runs);
            }
            Ok(())
        })?;
        let Collecting {
            batches,
            mut charge,
            mut runs,
            held,
        } = state.into_inner().unwrap_or_else(|e| e.into_inner());
        drop(held);
        if runs.is_empty() {
            // It fitted: sorted in memory, as without a limit (the sort
            // charges its own buffers).
            let bytes: usize = batches.iter().map(batch_bytes).sum();
            charge.shrink(charge.size().saturating_sub(bytes));
            let start = std::time::Instant::now();
            let sorted = sort.run_charged(&batches, self.batch_size, &self.budget_of(plan))?;
            metrics.add_time(start.elapsed());
            drop(batches);
            return sorted.into_iter().try_for_each(out);
        }
        if !batches.is_empty() {
            let held: usize = batches.iter().map(batch_bytes).sum();
            charge.shrink(charge.size().saturating_sub(held));
            self.sorted_run(sort, batches, plan, &mut runs)?;
        }
        drop(charge);
        let start = std::time::Instant::now();
        // Passes that leave at most one fan-in of runs.
        loop {
            let fan_in = self.fan_in(&runs);
            if runs.len() <= fan_in {
                break;
            }
            let mut merged = Vec::with_capacity(runs.len().div_ceil(fan_in));
            let mut rest = runs.into_iter();
            loop {
                let group: Vec<SpillFile> = rest.by_ref().take(fan_in).collect();
                if group.is_empty() {
                    break;
                }
                let schema = group[0].schema().clone();
                let mut w = self.spill.writer(&schema, metrics)?;
                merge(sort, &converter, &group, self.batch_size, &mut |b| {
                    w.write(&b)
                })?;
                merged.push(w.finish()?);
            }
            runs = merged;
        }
        let result = merge(sort, &converter, &runs, self.batch_size, &mut |b| out(b));
        metrics.add_time(start.elapsed());
        result
    }

    /// `batches` sorted in memory and written out as one run; when the
    /// budget cannot hold their sort, each half on its own (runs of one
    /// row at the least, which need no sort).
    fn sorted_run(
        &self,
        sort: &SortExec,
        batches: Vec<RecordBatch>,
        owner: &PhysicalPlan,
        runs: &mut Vec<SpillFile>,
    ) -> Result<()> {
        let metrics = &owner.metrics;
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let sorted =
            match sort.run_charged(&batches, self.batch_size, &self.budget_of(owner)) {
                Ok(sorted) => sorted,
                // One row is its own order (other workers may hold all but
                // less than the sort of one row).
                Err(ExecError::Join(tenon_kernels::KernelError::MemoryLimitExceeded {
                    ..
                })) if rows == 1 => batches
                    .iter()
                    .filter(|b| b.num_rows() > 0)
                    .cloned()
                    .collect(),
                Err(ExecError::Join(tenon_kernels::KernelError::MemoryLimitExceeded {
                    ..
                })) if rows > 1 => {
                    let (a, b) = halves(batches, rows / 2);
                    self.sorted_run(sort, a, owner, runs)?;
                    return self.sorted_run(sort, b, owner, runs);
                }
                Err(e) => return Err(e),
            };
        drop(batches);
        let Some(first) = sorted.first() else {
            return Err(ExecError::Unsupported(
                "internal: an empty sorted run".into(),
            ));
        };
        let mut w = self.spill.writer(&first.schema(), metrics)?;
        for b in &sorted {
            w.write(b)?;
        }
        metrics
            .spill
            .partitions
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        runs.push(w.finish()?);
        Ok(())
    }

    /// Runs merged at once: as many as the budget holds a batch of each
    /// (twice: the batch and its keys), from 2 to [`MAX_FAN_IN`]. The
    /// merge's current batches are batches in flight, like a pipeline's:
    /// not charged, so a merge of two runs always makes progress, and the
    /// memory above the limit is at most two batches of each merge.
    fn fan_in(&self, runs: &[SpillFile]) -> usize {
        let per_run = runs
            .iter()
            .map(|r| r.bytes() / r.batches().max(1))
            .max()
            .unwrap_or(0)
            .saturating_mul(2)
            .max(1);
        let free = self.budget.limit().saturating_sub(self.budget.used());
        (free / per_run).clamp(2, MAX_FAN_IN)
    }
}

/// `batches` split after their first `at` rows.
fn halves(batches: Vec<RecordBatch>, at: usize) -> (Vec<RecordBatch>, Vec<RecordBatch>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut seen = 0;
    for batch in batches {
        let n = batch.num_rows();
        if seen + n <= at {
            a.push(batch);
        } else if seen >= at {
            b.push(batch);
        } else {
            let k = at - seen;
            a.push(batch.slice(0, k));
            b.push(batch.slice(k, n - k));
        }
        seen += n;
    }
    (a, b)
}

/// One run being read: its current batch and that batch's keys.
struct Cursor<I> {
    batches: I,
    batch: RecordBatch,
    keys: Rows,
    row: usize,
    /// The batch's place in the merge's list of source batches.
    source: usize,
}

/// Merges sorted `runs` into batches of `batch_size` rows, in order,
/// passing each to `emit`.
fn merge(
    sort: &SortExec,
    converter: &RowConverter,
    runs: &[SpillFile],
    batch_size: usize,
    emit: &mut dyn FnMut(RecordBatch) -> Result<()>,
) -> Result<()> {
    let mut sources: Vec<RecordBatch> = Vec::new();
    let mut cursors = Vec::with_capacity(runs.len());
    for r in runs {
        let mut batches = r.read()?;
        if let Some(batch) = batches.next() {
            let batch = batch?;
            let keys = sort.encode(converter, &batch)?;
            sources.push(batch.clone());
            cursors.push(Cursor {
                batches,
                batch,
                keys,
                row: 0,
                source: sources.len() - 1,
            });
        }
    }
    let Some(schema) = sources.first().map(RecordBatch::schema) else {
        return Ok(());
    };
    let mut picked: Vec<(usize, usize)> = Vec::with_capacity(batch_size);
    let mut live: Vec<usize> = (0..cursors.len()).collect();
    while !live.is_empty() {
        // The least current row; a tie goes to the earlier run.
        let mut best = live[0];
        for &c in &live[1..] {
            let (a, b) = (&cursors[c], &cursors[best]);
            if a.keys.row(a.row) < b.keys.row(b.row) {
                best = c;
            }
        }
        let cur = &mut cursors[best];
        picked.push((cur.source, cur.row));
        cur.row += 1;
        if picked.len() == batch_size {
            emit(gathered(&schema, &sources, &picked)?)?;
            picked.clear();
            // Keep only the batches the cursors still read.
            sources = cursors.iter().map(|c| c.batch.clone()).collect();
            for (i, c) in cursors.iter_mut().enumerate() {
                c.source = i;
            }
        }
        let cur = &mut cursors[best];
        if cur.row == cur.batch.num_rows() {
            match cur.batches.next() {
                Some(next) => {
                    let next = next?;
                    let keys = sort.encode(converter, &next)?;
                    cur.batch = next.clone();
                    cur.keys = keys;
                    cur.row = 0;
                    sources.push(next);
                    cur.source = sources.len() - 1;
                }
                None => live.retain(|&c| c != best),
            }
        }
    }
    if !picked.is_empty() {
        emit(gathered(&schema, &sources, &picked)?)?;
    }
    Ok(())
}

/// The rows at `picked` ((source batch, row) pairs) as one batch.
fn gathered(
    schema: &arrow_schema::SchemaRef,
    sources: &[RecordBatch],
    picked: &[(usize, usize)],
) -> Result<RecordBatch> {
    let columns = (0..schema.fields().len())
        .map(|c| {
            let arrays: Vec<&dyn arrow_array::Array> =
                sources.iter().map(|b| b.column(c).as_ref()).collect();
            arrow_select::interleave::interleave(&arrays, picked)
        })
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| ExecError::arrow("merging sorted runs (ORDER BY)", e))?;
    RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(picked.len())),
    )
    .map_err(|e| ExecError::arrow("merging sorted runs (ORDER BY)", e))
}
