//! `INTERSECT ALL` and `EXCEPT ALL` over collected inputs.
//!
//! The right input's rows are counted by value; then each row of the left
//! input consumes one count of its value: under `INTERSECT ALL` a row is
//! kept when it found a count, under `EXCEPT ALL` when it did not. A value
//! occurring `l` times on the left and `r` times on the right so appears
//! `min(l, r)` or `max(l - r, 0)` times, as SQL wants.
//!
//! Values are compared as GROUP BY compares them (arrow-row encodings of
//! the columns with floats canonicalized by
//! [`canonical_floats`]): NULL equals NULL, `-0.0` equals `0.0`, every
//! NaN equals every NaN.
//!
//! The count table is charged to the query's memory budget as it grows
//! (each right batch's encoded rows and table entries before they are
//! inserted), and so is the output, before it is built.

use std::collections::HashMap;

use arrow_array::{ArrayRef, BooleanArray, RecordBatch};
use arrow_row::{RowConverter, SortField};
use arrow_schema::SchemaRef;

use crate::exec::{ExecError, Result};
use tenon_kernels::{MemoryBudget, batch_bytes, canonical_floats};

/// Bytes a count-table entry costs beyond its key: the boxed key's pointer
/// and length, the count, and the hash map's slot and control byte.
const ENTRY_OVERHEAD: usize = 40;
use crate::sql::SetOperator;

/// Runs `left <op> right` on collected batches of the same schema.
///
/// # Errors
/// [`ExecError::Arrow`]-style errors when a column type has no row
/// encoding.
pub(crate) fn run_set_operation(
    op: SetOperator,
    schema: &SchemaRef,
    left: &[RecordBatch],
    right: &[RecordBatch],
    budget: &MemoryBudget,
) -> Result<Vec<RecordBatch>> {
    let fields = schema
        .fields()
        .iter()
        .map(|f| SortField::new(f.data_type().clone()))
        .collect();
    let converter = RowConverter::new(fields).map_err(|e| ExecError::arrow(op.to_string(), e))?;
    let encode = |batch: &RecordBatch| {
        let cols: Vec<ArrayRef> = batch.columns().iter().map(canonical_floats).collect();
        converter
            .convert_columns(&cols)
            .map_err(|e| ExecError::arrow(op.to_string(), e))
    };
    let mut counts: HashMap<Box<[u8]>, usize> = HashMap::new();
    let mut charge = budget.try_reserve("the set operation's count table", 0)?;
    for batch in right {
        let rows = encode(batch)?;
        // at most one new entry per row (a key's copy and its overhead),
        // charged first; what the rows that found their value did not
        // need is given back after
        let per_row = rows.size().div_ceil(rows.num_rows().max(1)) + ENTRY_OVERHEAD;
        let bound = per_row * rows.num_rows();
        charge.grow(bound)?;
        let before = counts.len();
        for row in rows.iter() {
            *counts.entry(row.data().into()).or_insert(0) += 1;
        }
        charge.shrink(bound - per_row * (counts.len() - before));
    }
    // the output: at most every left row
    charge.grow(left.iter().map(batch_bytes).sum())?;
    let mut out = Vec::with_capacity(left.len());
    for batch in left {
        let rows = encode(batch)?;
        let keep: BooleanArray = rows
            .iter()
            .map(|row| {
                let found = match counts.get_mut(row.data()) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        true
                    }
                    _ => false,
                };
                Some(match op {
                    SetOperator::IntersectAll => found,
                    SetOperator::ExceptAll => !found,
                })
            })
            .collect();
        let kept = arrow_select::filter::filter_record_batch(batch, &keep)
            .map_err(|e| ExecError::arrow(op.to_string(), e))?;
        if kept.num_rows() > 0 {
            out.push(kept);
        }
    }
    Ok(out)
}
