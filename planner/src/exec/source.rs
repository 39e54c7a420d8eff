//! The data a plan's scans read: registered tables held in memory.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

/// One registered table's data: its schema and batches.
#[derive(Debug, Clone)]
pub struct TableData {
    /// The schema of every batch.
    pub schema: SchemaRef,
    /// The rows.
    pub batches: Vec<RecordBatch>,
}

impl TableData {
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
}

/// Registered tables by name.
pub type Tables = HashMap<String, Arc<TableData>>;
