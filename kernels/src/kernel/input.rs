//! One input of a join: a schema and its batches.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

/// One input of a join: a schema and its batches (possibly none).
#[derive(Debug, Clone)]
pub struct JoinInput {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl JoinInput {
    /// An input of `batches`, each of which must have `schema`'s column types.
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        JoinInput { schema, batches }
    }

    /// An input of one batch.
    pub fn from_batch(batch: RecordBatch) -> Self {
        JoinInput {
            schema: batch.schema(),
            batches: vec![batch],
        }
    }

    /// The input's schema.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The input's batches.
    pub fn batches(&self) -> &[RecordBatch] {
        &self.batches
    }

    /// Total rows.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }
}
