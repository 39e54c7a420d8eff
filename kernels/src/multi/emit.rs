//! Streaming the first input of a multi-way join: each row's groups in
//! the built inputs, their combinations as row indices, gathered into
//! output batches of at most the batch size.

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_buffer::NullBuffer;
use arrow_schema::SchemaRef;

use super::MultiJoin;
use super::index::KeyIndex;
use crate::error::Result;
use crate::join_type::JoinType;
use crate::keys::{KeyKind, KeySource, key_nulls};

/// The probe of a built multi-way join, whatever its key encoding.
pub(super) trait Probe: Send + Sync {
    /// Joins a batch of the first input (see `MultiJoinTables::probe`).
    fn probe(
        &self,
        batch: &RecordBatch,
        emit: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()>;
    /// The output schema.
    fn schema(&self) -> SchemaRef;
}

/// The built inputs of a multi-way join with keys encoded as `S`.
pub(super) struct Tables<S: KeySource> {
    /// Input `i + 1`'s groups.
    pub(super) indexes: Vec<KeyIndex<S>>,
    pub(super) join: MultiJoin,
    pub(super) schemas: Vec<SchemaRef>,
    pub(super) out_schema: SchemaRef,
    pub(super) kind: KeyKind,
}

/// No row: a LEFT step's NULLs.
const NULL_ROW: u32 = u32::MAX;

/// The row indices of the output rows being gathered: one list per input.
struct Pending {
    cols: Vec<Vec<u32>>,
}

impl Pending {
    fn len(&self) -> usize {
        self.cols[0].len()
    }
}

impl<S: KeySource> Probe for Tables<S> {
    fn schema(&self) -> SchemaRef {
        self.out_schema.clone()
    }

    fn probe(
        &self,
        batch: &RecordBatch,
        emit: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        let inputs = self.join.keys.len();
        let key_cols: Vec<ArrayRef> = self.join.keys[0]
            .iter()
            .map(|&c| batch.column(c).clone())
            .collect();
        let keys = S::encode(&self.kind, &key_cols)?;
        let nulls = key_nulls(&key_cols, &self.kind, false);
        let size = self.join.batch_size;
        let mut pending = Pending {
            cols: vec![Vec::with_capacity(size); inputs],
        };
        // per step: the matching rows of the current probe row (empty:
        // none; `[NULL_ROW]`: NULLs of a LEFT step)
        let mut groups: Vec<&[u32]> = vec![&[]; inputs];
        let mut at = vec![0usize; inputs];
        let null_row: &[u32] = &[NULL_ROW];
        'rows: for row in 0..batch.num_rows() {
            let null_key = nulls.as_ref().is_some_and(|v| v.is_null(row));
            for (s, step) in self.join.steps.iter().enumerate() {
                let i = s + 1;
                let present = step.refers.iter().all(|&r| r == 0 || groups[r] != null_row);
                let found: &[u32] = if null_key || !present {
                    &[]
                } else {
                    self.indexes[s].matches(&keys, row)
                };
                groups[i] = match (found.is_empty(), step.join_type) {
                    (false, _) => found,
                    (true, JoinType::Left) => null_row,
                    (true, _) => continue 'rows,
                };
            }
            // every combination of the groups' rows: the last input's
            // group is copied as a run for each combination of the others
            let last = inputs - 1;
            at.iter_mut().for_each(|a| *a = 0);
            loop {
                let run = groups[last];
                let mut from = 0;
                while from < run.len() {
                    let n = (size - pending.len()).min(run.len() - from);
                    pending.cols[0].extend(std::iter::repeat_n(row as u32, n));
                    for i in 1..last {
                        pending.cols[i].extend(std::iter::repeat_n(groups[i][at[i]], n));
                    }
                    pending.cols[last].extend_from_slice(&run[from..from + n]);
                    from += n;
                    if pending.len() == size {
                        emit(self.gather(batch, &mut pending)?)?;
                    }
                }
                // the next combination of inputs 1..last
                let mut i = last;
                loop {
                    if i <= 1 {
                        continue 'rows;
                    }
                    i -= 1;
                    at[i] += 1;
                    if at[i] < groups[i].len() {
                        break;
                    }
                    at[i] = 0;
                }
            }
        }
        if pending.len() > 0 {
            emit(self.gather(batch, &mut pending)?)?;
        }
        Ok(())
    }
}

impl<S: KeySource> Tables<S> {
    /// The output batch of the pending rows (the lists are emptied).
    fn gather(&self, probe: &RecordBatch, pending: &mut Pending) -> Result<RecordBatch> {
        let n = pending.len();
        let mut columns: Vec<ArrayRef> = Vec::new();
        for (i, rows) in pending.cols.iter_mut().enumerate() {
            let rows = std::mem::replace(rows, Vec::with_capacity(n));
            let outer = i > 0 && self.join.steps[i - 1].join_type == JoinType::Left;
            let (source, indices) = if i == 0 {
                (probe, UInt32Array::from(rows))
            } else if outer && rows.contains(&NULL_ROW) {
                let nulls = NullBuffer::from_iter(rows.iter().map(|&r| r != NULL_ROW));
                let values: Vec<u32> = rows
                    .into_iter()
                    .map(|r| if r == NULL_ROW { 0 } else { r })
                    .collect();
                let indices = UInt32Array::new(values.into(), Some(nulls));
                (&self.indexes[i - 1].batch, indices)
            } else {
                (&self.indexes[i - 1].batch, UInt32Array::from(rows))
            };
            for c in self.join.projection(i, &self.schemas[i]) {
                columns.push(arrow_select::take::take(
                    source.column(c).as_ref(),
                    &indices,
                    None,
                )?);
            }
        }
        Ok(RecordBatch::try_new_with_options(
            self.out_schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )?)
    }
}
