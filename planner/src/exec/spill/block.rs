//! Joining two spilled inputs block by block: a partition of a spilled
//! equality join that cannot be split (one key with more rows than the
//! memory holds), or the inputs of a nested-loop join that do not fit.
//!
//! The build side's rows are read in blocks that fit the budget; each
//! block is joined (an INNER join with the join's keys, ranges and
//! residual filter: [`Blocked::inner`]) with every probe row, read again
//! from its file for each block. Every row carries its number in an extra
//! column, so the join's pairs say which rows matched: a block's build
//! rows are decided once the whole probe side has passed it (an outer
//! join's unmatched rows, a semi join's matched ones), the probe rows once
//! every block has passed them. (NOT IN without keys, whose predicate may
//! be unknown, runs NOT IN itself per block instead, and keeps the left
//! rows every block keeps.) Its cost is blocks x probe rows: the worst
//! case of a join that does not fit, never a wrong result.

use std::sync::Arc;
use std::sync::Mutex;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use rayon::prelude::*;

use super::file::SpillFile;
#[cfg(doc)]
use super::hash_join::expansion;
use super::hash_join::{other, tracks};
use crate::exec::plan::PhysicalPlan;
use crate::exec::run::{Run, Sink, lock};
use crate::exec::{ExecError, Result};
use tenon_kernels::{Join, JoinInput, JoinKernel, JoinOptions, JoinSide, JoinType, batch_bytes};

/// The name of the row-number column added to both sides.
const ROW: &str = "__tenon_spill_row";

/// The output of a spilling join: its node (the output schema) and its
/// kernel's options (the projections of both sides).
#[derive(Clone, Copy)]
pub(super) struct Shape<'a> {
    pub(super) plan: &'a PhysicalPlan,
    pub(super) options: &'a JoinOptions,
}

/// A join run block by block.
pub(super) struct Blocked<'a> {
    pub(super) shape: Shape<'a>,
    /// The join's type, as the block join decides it: NOT IN with keys
    /// has its NULL rules settled before (an anti join over an INNER
    /// kernel); NOT IN without keys has NOT IN itself as its inner kernel
    /// over blocks of the right side (a left row is output when every
    /// block keeps it).
    pub(super) join_type: JoinType,
    /// The side read in blocks.
    pub(super) build_side: JoinSide,
    /// The INNER join of the same keys and conditions, without
    /// projections: a hash join building [`Blocked::build_side`] that takes
    /// the probe rows batch by batch, or a kernel that takes a block and
    /// some probe rows collected.
    pub(super) inner: Join,
    /// What `(bytes, rows)` of build rows are charged as they join a
    /// block: for a fed inner join, the hash join's [`expansion`]; for a
    /// collected one, room for the kernel's memory over the block and over
    /// a chunk of probe rows no larger than the block.
    pub(super) cost: &'a (dyn Fn(usize, usize) -> usize + Sync),
    /// Whether a collected inner join's chunks of probe rows are no
    /// larger than the block (a kernel that holds both sides); else they
    /// are the larger of the batch size and 8,192 rows.
    pub(super) small_chunks: bool,
}

/// What a join type outputs of one side's rows on their own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Keep {
    /// The rows without a match; NULL-extended (outer) or alone (anti).
    Unmatched { null_extend: bool },
    /// The rows with a match, each once (semi).
    Matched,
}

pub(super) fn side_keep(join_type: JoinType, side: JoinSide) -> Option<Keep> {
    use JoinType::*;
    match (side, join_type) {
        (JoinSide::Left, Left | Full) | (JoinSide::Right, Right | Full) => {
            Some(Keep::Unmatched { null_extend: true })
        }
        (JoinSide::Left, LeftSemi) | (JoinSide::Right, RightSemi) => Some(Keep::Matched),
        (JoinSide::Left, LeftAnti | LeftAntiNullAware) | (JoinSide::Right, RightAnti) => {
            Some(Keep::Unmatched { null_extend: false })
        }
        _ => None,
    }
}

/// `schema` with the row-number column last.
fn numbered_schema(schema: &SchemaRef) -> SchemaRef {
    let mut fields: Vec<Arc<Field>> = schema.fields().iter().cloned().collect();
    fields.push(Arc::new(Field::new(ROW, DataType::UInt64, false)));
    Arc::new(Schema::new(fields))
}

/// `batch` with its rows numbered from `first`.
fn numbered(batch: &RecordBatch, schema: &SchemaRef, first: u64) -> Result<RecordBatch> {
    let n = batch.num_rows() as u64;
    let mut columns = batch.columns().to_vec();
    columns.push(Arc::new(UInt64Array::from_iter_values(first..first + n)));
    RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| ExecError::arrow("numbering a spilled join's rows", e))
}

/// The row numbers in column `i` of `batch`.
fn numbers(batch: &RecordBatch, i: usize) -> Result<&UInt64Array> {
    batch
        .column(i)
        .as_any()
        .downcast_ref::<UInt64Array>()
        .ok_or_else(|| {
            ExecError::Unsupported("internal: a spilled join lost its row numbers".into())
        })
}

/// Joins `build` x `probe` block by block (see the module docs).
pub(super) fn join_blocks(
    run: &Run<'_>,
    join: &Blocked<'_>,
    build: &SpillFile,
    probe: &SpillFile,
    out: &Sink<'_>,
) -> Result<()> {
    let plan = join.shape.plan;
    let metrics = &plan.metrics;
    metrics
        .spill
        .blocks
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let join_type = join.join_type;
    let build_side = join.build_side;
    let probe_side = other(build_side);
    let t = tracks(join_type, build_side);
    let pairs = matches!(
        join_type,
        JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full
    );
    let kernel = &join.inner;
    let build_schema = numbered_schema(build.schema());
    let probe_schema = numbered_schema(probe.schema());
    let (n_left, n_right) = match build_side {
        JoinSide::Left => (build.schema().fields().len(), probe.schema().fields().len()),
        JoinSide::Right => (probe.schema().fields().len(), build.schema().fields().len()),
    };
    // Positions of the row numbers in the INNER join's output.
    let (build_col, probe_col) = match build_side {
        JoinSide::Left => (n_left, n_left + 1 + n_right),
        JoinSide::Right => (n_left + 1 + n_right, n_left),
    };
    // NOT IN without keys (the inner kernel is NOT IN itself): a left row
    // that a block of right rows (or, building the left side, a chunk of
    // them) does not keep counts as matched (it is not output). (A hash
    // join's NOT IN passes an INNER kernel, its NULL rules settled
    // before.)
    let null_aware = join.inner.join_type() == JoinType::LeftAntiNullAware;
    let fold = |kept: &Mutex<Vec<bool>>, matched: &Mutex<Vec<bool>>| {
        let mut kept = lock(kept);
        for (m, k) in lock(matched).iter_mut().zip(kept.iter_mut()) {
            *m |= !*k;
            *k = false;
        }
    };
    let probe_matched = Mutex::new(vec![false; if t.probe { probe.rows() } else { 0 }]);
    let mut reader = build.read()?;
    let mut carry: Option<RecordBatch> = None;
    let mut first = 0u64;
    loop {
        // One block: as many build rows as fit.
        let mut charge = run.budget_of(plan).try_reserve("a join block", 0)?;
        let mut block = Vec::new();
        loop {
            let b = match carry.take() {
                Some(b) => b,
                None => match reader.next() {
                    Some(b) => b?,
                    None => break,
                },
            };
            if charge
                .grow_spillable((join.cost)(batch_bytes(&b), b.num_rows()))
                .is_ok()
            {
                block.push(b);
                continue;
            }
            if block.is_empty() {
                // Not even this batch fits: as many of its rows as do.
                let mut n = b.num_rows() / 2;
                loop {
                    let head = b.slice(0, n.max(1));
                    match charge.grow_spillable((join.cost)(batch_bytes(&head), head.num_rows())) {
                        Ok(()) => break,
                        Err(e) if n <= 1 => return Err(e.into()),
                        Err(_) => n /= 2,
                    }
                }
                let n = n.max(1);
                block.push(b.slice(0, n));
                carry = Some(b.slice(n, b.num_rows() - n));
            } else {
                carry = Some(b);
            }
            break;
        }
        if block.is_empty() {
            break;
        }
        let block_bytes: usize = block.iter().map(batch_bytes).sum();
        charge.shrink(charge.size().saturating_sub(block_bytes));
        let mut numbered_block = Vec::with_capacity(block.len());
        let block_first = first;
        for b in &block {
            numbered_block.push(numbered(b, &build_schema, first)?);
            first += b.num_rows() as u64;
        }
        let block_rows = (first - block_first) as usize;
        let build_matched = Mutex::new(vec![false; if t.build { block_rows } else { 0 }]);
        // (NOT IN) the left rows kept by this block or chunk
        let kept = Mutex::new(match (null_aware, build_side) {
            (false, _) => Vec::new(),
            (true, JoinSide::Left) => vec![false; block_rows],
            (true, JoinSide::Right) => vec![false; probe.rows()],
        });
        let left_first = match build_side {
            JoinSide::Left => block_first,
            JoinSide::Right => 0,
        };
        let build_input = JoinInput::new(build_schema.clone(), numbered_block);
        let probe_input = JoinInput::new(probe_schema.clone(), Vec::new());
        let (l, r) = match build_side {
            JoinSide::Left => (&build_input, &probe_input),
            JoinSide::Right => (&probe_input, &build_input),
        };
        let sink = |b: RecordBatch| -> Result<()> {
            if null_aware {
                // The rows NOT IN keeps (left columns only).
                let ids = numbers(&b, n_left)?;
                let mut k = lock(&kept);
                for id in ids.values() {
                    k[(*id - left_first) as usize] = true;
                }
                return Ok(());
            }
            if t.build {
                let ids = numbers(&b, build_col)?;
                let mut m = lock(&build_matched);
                for id in ids.values() {
                    m[(*id - block_first) as usize] = true;
                }
            }
            if t.probe {
                let ids = numbers(&b, probe_col)?;
                let mut m = lock(&probe_matched);
                for id in ids.values() {
                    m[*id as usize] = true;
                }
            }
            if pairs {
                out(pair_output(join.shape, &b, n_left)?)?;
            }
            Ok(())
        };
        let start = std::time::Instant::now();
        let result = match kernel.fed() {
            Some(fed) => {
                let feed = |push: &(dyn Fn(RecordBatch) -> tenon_kernels::Result<()> + Sync)| {
                    let mut at = 0u64;
                    let reader = probe.read().map_err(ExecError::into_kernel)?;
                    reader
                        .map(|b| {
                            let b = b?;
                            let n = numbered(&b, &probe_schema, at);
                            at += b.num_rows() as u64;
                            n
                        })
                        .par_bridge()
                        .try_for_each(|b| push(b.map_err(ExecError::into_kernel)?))
                };
                fed.for_each_fed(l, r, &feed, &|b| sink(b).map_err(ExecError::into_kernel))
                    .map_err(ExecError::from)?;
                // (NOT IN building the left side: the whole probe side
                // passed the block at once.)
                if null_aware && build_side == JoinSide::Left {
                    fold(&kept, &build_matched);
                }
                Ok(())
            }
            None => {
                let most = if join.small_chunks {
                    (block_rows, block_bytes)
                } else {
                    (run.batch_size.max(8192), usize::MAX)
                };
                chunks(probe, &probe_schema, most, &|chunk| {
                    let chunk = JoinInput::new(probe_schema.clone(), chunk);
                    let (l, r) = match build_side {
                        JoinSide::Left => (&build_input, &chunk),
                        JoinSide::Right => (&chunk, &build_input),
                    };
                    kernel
                        .for_each(l, r, &|b| sink(b).map_err(ExecError::into_kernel))
                        .map_err(ExecError::from)?;
                    if null_aware && build_side == JoinSide::Left {
                        fold(&kept, &build_matched);
                    }
                    Ok(())
                })
            }
        };
        metrics.add_time(start.elapsed());
        result?;
        drop(build_input);
        if null_aware && build_side == JoinSide::Right {
            fold(&kept, &probe_matched);
        }
        if let Some(keep) = side_keep(join_type, build_side) {
            let matched = build_matched
                .into_inner()
                .unwrap_or_else(|e| e.into_inner());
            let mut at = 0;
            for b in &block {
                let n = b.num_rows();
                emit_side(join.shape, build_side, keep, b, &matched[at..at + n], out)?;
                at += n;
            }
        }
    }
    if let Some(keep) = side_keep(join_type, probe_side) {
        let matched = probe_matched
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        let mut at = 0;
        for b in probe.read()? {
            let b = b?;
            let n = b.num_rows();
            emit_side(join.shape, probe_side, keep, &b, &matched[at..at + n], out)?;
            at += n;
        }
    }
    Ok(())
}

/// The rows of `probe`, numbered from 0, passed to `join` a chunk at a
/// time: at most `most` = `(rows, bytes)` (estimated from each batch's
/// bytes a row), and at least one row.
fn chunks(
    probe: &SpillFile,
    schema: &SchemaRef,
    most: (usize, usize),
    join: &dyn Fn(Vec<RecordBatch>) -> Result<()>,
) -> Result<()> {
    let mut chunk = Vec::new();
    let (mut rows, mut bytes, mut at) = (0usize, 0usize, 0u64);
    for b in probe.read()? {
        let b = b?;
        let n = b.num_rows();
        let row_bytes = batch_bytes(&b).div_ceil(n.max(1)).max(1);
        let mut from = 0;
        while from < n {
            let room = most
                .0
                .saturating_sub(rows)
                .min(most.1.saturating_sub(bytes) / row_bytes)
                .max(usize::from(chunk.is_empty()));
            if room == 0 {
                join(std::mem::take(&mut chunk))?;
                (rows, bytes) = (0, 0);
                continue;
            }
            let take = room.min(n - from);
            chunk.push(numbered(&b.slice(from, take), schema, at)?);
            (rows, bytes, at, from) = (
                rows + take,
                bytes + take * row_bytes,
                at + take as u64,
                from + take,
            );
        }
    }
    if chunk.is_empty() {
        return Ok(());
    }
    join(chunk)
}

/// An INNER output batch of numbered inputs as the join's output: the
/// projected columns of both sides, without the row numbers.
fn pair_output(shape: Shape<'_>, b: &RecordBatch, n_left: usize) -> Result<RecordBatch> {
    let options = shape.options;
    let n_right = b.num_columns() - n_left - 2;
    let left: Vec<usize> = options
        .left_projection
        .clone()
        .unwrap_or_else(|| (0..n_left).collect());
    let right: Vec<usize> = options
        .right_projection
        .clone()
        .unwrap_or_else(|| (0..n_right).collect());
    let columns: Vec<ArrayRef> = left
        .iter()
        .map(|&i| b.column(i).clone())
        .chain(right.iter().map(|&j| b.column(n_left + 1 + j).clone()))
        .collect();
    output(shape, columns, b.num_rows())
}

/// A batch of `side`'s input as the join outputs that side alone: its
/// projected columns (a semi or anti join's output).
pub(super) fn project_side(
    shape: Shape<'_>,
    side: JoinSide,
    batch: &RecordBatch,
) -> Result<RecordBatch> {
    let projection = match side {
        JoinSide::Left => &shape.options.left_projection,
        JoinSide::Right => &shape.options.right_projection,
    };
    let columns = match projection {
        Some(p) => p.iter().map(|&i| batch.column(i).clone()).collect(),
        None => batch.columns().to_vec(),
    };
    output(shape, columns, batch.num_rows())
}

/// An output batch of `rows` rows (which a join without output columns,
/// under a `count(*)`, still has).
fn output(shape: Shape<'_>, columns: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    RecordBatch::try_new_with_options(
        shape.plan.schema.clone(),
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| ExecError::arrow("a spilled join's output", e))
}

/// The rows of `batch` (one side's, unnumbered) that `keep` selects by
/// `matched`, as the join outputs them.
pub(super) fn emit_side(
    shape: Shape<'_>,
    side: JoinSide,
    keep: Keep,
    batch: &RecordBatch,
    matched: &[bool],
    out: &Sink<'_>,
) -> Result<()> {
    let mask: BooleanArray = matched
        .iter()
        .map(|&m| Some(if keep == Keep::Matched { m } else { !m }))
        .collect();
    if mask.true_count() == 0 {
        return Ok(());
    }
    let rows = arrow_select::filter::filter_record_batch(batch, &mask)
        .map_err(|e| ExecError::arrow("a spilled join's output", e))?;
    let Keep::Unmatched { null_extend: true } = keep else {
        return out(project_side(shape, side, &rows)?);
    };
    let options = shape.options;
    let schema = &shape.plan.schema;
    let n_left_out = match &options.left_projection {
        Some(p) => p.len(),
        None => match side {
            JoinSide::Left => rows.num_columns(),
            JoinSide::Right => schema.fields().len() - rows.num_columns(),
        },
    };
    let projection = match side {
        JoinSide::Left => &options.left_projection,
        JoinSide::Right => &options.right_projection,
    };
    let own: Vec<ArrayRef> = match projection {
        Some(p) => p.iter().map(|&i| rows.column(i).clone()).collect(),
        None => rows.columns().to_vec(),
    };
    let n = rows.num_rows();
    let nulls = |range: std::ops::Range<usize>| -> Vec<ArrayRef> {
        range
            .map(|i| arrow_array::new_null_array(schema.field(i).data_type(), n))
            .collect()
    };
    let columns = match side {
        JoinSide::Left => own
            .into_iter()
            .chain(nulls(n_left_out..schema.fields().len()))
            .collect(),
        JoinSide::Right => nulls(0..n_left_out).into_iter().chain(own).collect(),
    };
    out(output(shape, columns, n)?)
}
