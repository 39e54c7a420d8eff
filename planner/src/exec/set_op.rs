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
//! inserted), and so is the output, before it is built. Under a memory
//! limit the operation runs by module `spill::set_op`, which splits both
//! inputs by value when they do not fit.

use std::collections::HashMap;

use arrow_array::{ArrayRef, BooleanArray, RecordBatch};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::SchemaRef;

use crate::exec::{ExecError, Result};
use tenon_kernels::{MemoryBudget, MemoryReservation, batch_bytes, canonical_floats};

/// Bytes a count-table entry costs beyond its key: the boxed key's pointer
/// and length, the count, and the hash map's slot and control byte.
const ENTRY_OVERHEAD: usize = 40;
use crate::sql::SetOperator;

/// Runs `left <op> right` on collected batches of the same schema.
///
/// # Errors
/// [`ExecError::Arrow`]-style errors when a column type has no row
/// encoding; the memory limit.
pub(crate) fn run_set_operation(
    op: SetOperator,
    schema: &SchemaRef,
    left: &[RecordBatch],
    right: &[RecordBatch],
    budget: &MemoryBudget,
) -> Result<Vec<RecordBatch>> {
    let mut table = CountTable::new(op, schema, budget)?;
    for batch in right {
        table.count(batch)?;
    }
    // the output: at most every left row
    let _output = budget.try_reserve(
        "the set operation's output",
        left.iter().map(batch_bytes).sum(),
    )?;
    let mut out = Vec::with_capacity(left.len());
    for batch in left {
        let kept = table.take(batch)?;
        if kept.num_rows() > 0 {
            out.push(kept);
        }
    }
    Ok(out)
}

/// The right input's rows counted by value, charged to a budget as it
/// grows; the left input's rows then take their counts.
pub(crate) struct CountTable {
    op: SetOperator,
    converter: RowConverter,
    counts: HashMap<Box<[u8]>, usize>,
    charge: MemoryReservation,
}

impl CountTable {
    /// An empty table for `op` over rows of `schema`.
    pub(crate) fn new(op: SetOperator, schema: &SchemaRef, budget: &MemoryBudget) -> Result<Self> {
        let fields = schema
            .fields()
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect();
        let converter =
            RowConverter::new(fields).map_err(|e| ExecError::arrow(op.to_string(), e))?;
        Ok(CountTable {
            op,
            converter,
            counts: HashMap::new(),
            charge: budget.try_reserve("the set operation's count table", 0)?,
        })
    }

    /// The rows of `batch` encoded as the table compares them.
    pub(crate) fn encode(&self, batch: &RecordBatch) -> Result<Rows> {
        let cols: Vec<ArrayRef> = batch.columns().iter().map(canonical_floats).collect();
        self.converter
            .convert_columns(&cols)
            .map_err(|e| ExecError::arrow(self.op.to_string(), e))
    }

    /// Counts the rows of a right batch.
    ///
    /// # Errors
    /// The memory limit, when a row with a new value does not fit (the
    /// rows before it are counted).
    pub(crate) fn count(&mut self, batch: &RecordBatch) -> Result<()> {
        let rows = self.encode(batch)?;
        // at most one new entry per row (a key's copy and its overhead),
        // charged first; what the rows that found their value did not
        // need is given back after. When the bound of the whole batch
        // does not fit, its rows are counted in smaller runs (down to
        // one row), since most may find their value.
        let per_row = rows.size().div_ceil(rows.num_rows().max(1)) + ENTRY_OVERHEAD;
        let mut at = 0;
        let mut run = rows.num_rows();
        while at < rows.num_rows() {
            let n = run.min(rows.num_rows() - at);
            let bound = per_row * n;
            if let Err(e) = self.charge.grow(bound) {
                if n == 1 {
                    return Err(e.into());
                }
                run = n / 2;
                continue;
            }
            let before = self.counts.len();
            for i in at..at + n {
                *self.counts.entry(rows.row(i).data().into()).or_insert(0) += 1;
            }
            self.charge
                .shrink(bound - per_row * (self.counts.len() - before));
            at += n;
        }
        Ok(())
    }

    /// The rows of a left batch the operation outputs, each taking a
    /// count of its value.
    pub(crate) fn take(&mut self, batch: &RecordBatch) -> Result<RecordBatch> {
        let rows = self.encode(batch)?;
        let keep: BooleanArray = rows
            .iter()
            .map(|row| {
                let found = match self.counts.get_mut(row.data()) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        true
                    }
                    _ => false,
                };
                Some(match self.op {
                    SetOperator::IntersectAll => found,
                    SetOperator::ExceptAll => !found,
                })
            })
            .collect();
        arrow_select::filter::filter_record_batch(batch, &keep)
            .map_err(|e| ExecError::arrow(self.op.to_string(), e))
    }
}
