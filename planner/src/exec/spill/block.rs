//! Joining a spilled partition that cannot be split (one key with more
//! build rows than the memory holds): block by block.
//!
//! The partition's build rows are read in blocks that fit the budget; each
//! block is joined (an INNER hash join with the join's residual filter)
//! with every probe row of the partition, read again from its file for
//! each block. Every row carries its number in an extra column, so the
//! join's pairs say which rows matched: a block's build rows are decided
//! once the whole probe side has passed it (an outer join's unmatched
//! rows, a semi join's matched ones), the probe rows once every block has
//! passed them. A partition that cannot be split is the worst case of a
//! hash join (its cost is blocks x probe rows), never a wrong result.

use std::sync::Arc;
use std::sync::Mutex;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use rayon::prelude::*;

use super::file::SpillFile;
use super::hash_join::{SpillJoin, expansion, other, project_side, tracks};
use crate::exec::run::{Run, Sink, lock};
use crate::exec::{ExecError, Result};
use tenon_kernels::{
    HashJoin, HashJoinMode, Join, JoinInput, JoinKernel, JoinSide, JoinType, batch_bytes,
};

/// The name of the row-number column added to both sides.
const ROW: &str = "__tenon_spill_row";

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

/// Joins the partition `build` x `probe` of `join` block by block.
pub(super) fn join_blocks(
    run: &Run<'_>,
    join: &SpillJoin<'_>,
    build: &SpillFile,
    probe: &SpillFile,
    out: &Sink<'_>,
) -> Result<()> {
    let metrics = &join.plan.metrics;
    metrics
        .spill
        .blocks
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let hash = join.hash;
    let join_type = hash.join_type();
    let build_side = hash.built_side();
    let probe_side = other(build_side);
    let t = tracks(join_type, build_side);
    let pairs = matches!(
        join_type,
        JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full
    );
    let mut kernel = HashJoin::new(JoinType::Inner, hash.on().to_vec())
        .build_side(build_side)
        .mode(HashJoinMode::Broadcast)
        .null_equal(hash.is_null_equal());
    *kernel.options_mut() = hash.options().clone();
    kernel.options_mut().left_projection = None;
    kernel.options_mut().right_projection = None;
    let kernel: Join = kernel.into();
    let Some(fed) = kernel.fed() else {
        return Err(ExecError::Unsupported(
            "internal: a block join without a fed kernel".into(),
        ));
    };
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
    let probe_matched = Mutex::new(vec![false; if t.probe { probe.rows() } else { 0 }]);
    let mut reader = build.read()?;
    let mut carry: Option<RecordBatch> = None;
    let mut first = 0u64;
    loop {
        // One block: as many build rows as fit.
        let mut charge = run
            .budget_of(join.plan)
            .try_reserve("a hash join block", 0)?;
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
                .grow_spillable(expansion(batch_bytes(&b), b.num_rows()))
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
                    match charge.grow_spillable(expansion(batch_bytes(&head), head.num_rows())) {
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
        let build_input = JoinInput::new(build_schema.clone(), numbered_block);
        let probe_input = JoinInput::new(probe_schema.clone(), Vec::new());
        let (l, r) = match build_side {
            JoinSide::Left => (&build_input, &probe_input),
            JoinSide::Right => (&probe_input, &build_input),
        };
        let sink = |b: RecordBatch| -> Result<()> {
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
                out(pair_output(join, &b, n_left)?)?;
            }
            Ok(())
        };
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
        let start = std::time::Instant::now();
        let result = fed.for_each_fed(l, r, &feed, &|b| sink(b).map_err(ExecError::into_kernel));
        metrics.add_time(start.elapsed());
        result.map_err(ExecError::from)?;
        drop(build_input);
        if let Some(keep) = side_keep(join_type, build_side) {
            let matched = build_matched
                .into_inner()
                .unwrap_or_else(|e| e.into_inner());
            let mut at = 0;
            for b in &block {
                let n = b.num_rows();
                emit_side(join, build_side, keep, b, &matched[at..at + n], out)?;
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
            emit_side(join, probe_side, keep, &b, &matched[at..at + n], out)?;
            at += n;
        }
    }
    Ok(())
}

/// An INNER output batch of numbered inputs as the join's output: the
/// projected columns of both sides, without the row numbers.
fn pair_output(join: &SpillJoin<'_>, b: &RecordBatch, n_left: usize) -> Result<RecordBatch> {
    let options = join.hash.options();
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
    RecordBatch::try_new(join.plan.schema.clone(), columns)
        .map_err(|e| ExecError::arrow("a spilled join's output", e))
}

/// The rows of `batch` (one side's, unnumbered) that `keep` selects by
/// `matched`, as the join outputs them.
pub(super) fn emit_side(
    join: &SpillJoin<'_>,
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
        return out(project_side(join, side, &rows)?);
    };
    let options = join.hash.options();
    let schema = &join.plan.schema;
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
    let batch = RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| ExecError::arrow("a spilled join's output", e))?;
    out(batch)
}
