//! The data a plan's scans read: registered tables' batches, held in
//! memory for the session or read for one query.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::kernels::MemoryReservation;

/// One registered table's data: its schema and batches.
///
/// A table read from files for one query holds only the columns its scans
/// use ([`TableData::columns`]), and the bytes it holds are charged to the
/// query's memory budget ([`TableData::charge`]) until it is dropped.
#[derive(Debug, Clone)]
pub struct TableData {
    /// The table's schema (every column, read or not).
    pub schema: SchemaRef,
    /// The rows.
    pub batches: Vec<RecordBatch>,
    /// The table columns the batches hold, in their order (`None`: all of
    /// them, in the schema's order).
    pub columns: Option<Vec<usize>>,
    /// The memory budget's reservation for the batches, given back when
    /// the last copy of this data is dropped.
    pub charge: Option<Arc<MemoryReservation>>,
}

impl TableData {
    /// Every column of `schema`, in `batches`.
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        TableData {
            schema,
            batches,
            columns: None,
            charge: None,
        }
    }

    /// The table's row count.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The bytes of the table's buffers in memory.
    pub fn num_bytes(&self) -> usize {
        self.batches
            .iter()
            .map(RecordBatch::get_array_memory_size)
            .sum()
    }

    /// Where table column `column` is in the batches, if they hold it.
    pub fn position(&self, column: usize) -> Option<usize> {
        match &self.columns {
            None => (column < self.schema.fields().len()).then_some(column),
            Some(held) => held.iter().position(|&c| c == column),
        }
    }

    /// Where each of the table columns `columns` is in the batches (`None`
    /// if one is not held): one pass over the held columns, not one per
    /// column (a scan of a 40,000-column table reads them all).
    pub fn positions(&self, columns: &[usize]) -> Option<Vec<usize>> {
        let Some(held) = &self.columns else {
            return columns.iter().map(|&c| self.position(c)).collect();
        };
        let mut at = HashMap::with_capacity(held.len());
        for (i, &c) in held.iter().enumerate() {
            at.entry(c).or_insert(i);
        }
        columns.iter().map(|c| at.get(c).copied()).collect()
    }
}

/// Registered tables by name.
pub type Tables = HashMap<String, Arc<TableData>>;
