//! Where output rows are gathered from: one batch, or a list of batches
//! addressed by a global row number.
//!
//! The partitioned mode addresses the probe side by global row numbers and
//! gathers from its batches where they are, instead of first copying them
//! into one batch (a copy of every column, done on one thread, that cost
//! more than the join itself on a 10M-row probe side).

use arrow_array::{Array, ArrayRef, RecordBatch, UInt32Array};
use arrow_schema::SchemaRef;
use arrow_select::interleave::interleave;
use arrow_select::take::take;

use crate::error::Result;

/// Rows that output columns can be gathered from.
pub(crate) trait RowSource: Sync {
    /// Column `c` at `rows`.
    fn gather(&self, c: usize, rows: &UInt32Array) -> Result<ArrayRef>;
    /// The rows as one batch, when they are one batch already.
    fn as_batch(&self) -> Option<&RecordBatch>;
    /// The schema.
    fn schema(&self) -> SchemaRef;
    /// Every column at `rows`, as a batch.
    fn gather_batch(&self, rows: &UInt32Array) -> Result<RecordBatch> {
        let cols = (0..self.schema().fields().len())
            .map(|c| self.gather(c, rows))
            .collect::<Result<Vec<_>>>()?;
        let opts = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows.len()));
        Ok(RecordBatch::try_new_with_options(
            self.schema(),
            cols,
            &opts,
        )?)
    }
}

/// The first row when `rows` is `first, first + 1, ...` with no gaps.
fn contiguous(rows: &[u32]) -> Option<usize> {
    let first = *rows.first()?;
    let consecutive = rows
        .iter()
        .enumerate()
        .all(|(i, &r)| r.wrapping_sub(first) as usize == i);
    consecutive.then_some(first as usize)
}

impl RowSource for RecordBatch {
    fn gather(&self, c: usize, rows: &UInt32Array) -> Result<ArrayRef> {
        let col = self.column(c);
        // A run of consecutive rows (every probe row of a foreign-key join
        // matching once) is a zero-copy slice.
        Ok(match contiguous(rows.values()) {
            Some(first) => col.slice(first, rows.len()),
            None => take(col.as_ref(), rows, None)?,
        })
    }

    fn as_batch(&self) -> Option<&RecordBatch> {
        Some(self)
    }

    fn schema(&self) -> SchemaRef {
        RecordBatch::schema(self)
    }
}

/// Batches read as one: global row `r` is row `r - offsets[i]` of batch `i`.
#[derive(Debug)]
pub(crate) struct BatchList<'a> {
    schema: SchemaRef,
    batches: &'a [RecordBatch],
    offsets: Vec<usize>,
    /// `log2(batch rows)` when every batch but the last has the same
    /// power-of-two size, so that locating a row is a shift.
    shift: Option<u32>,
}

impl<'a> BatchList<'a> {
    pub(crate) fn new(schema: SchemaRef, batches: &'a [RecordBatch]) -> Self {
        let mut offsets = Vec::with_capacity(batches.len() + 1);
        let mut at = 0;
        for b in batches {
            offsets.push(at);
            at += b.num_rows();
        }
        offsets.push(at);
        let first = batches.first().map_or(0, |b| b.num_rows());
        let uniform = first.is_power_of_two()
            && batches.iter().rev().skip(1).all(|b| b.num_rows() == first)
            && batches.last().is_some_and(|b| b.num_rows() <= first);
        BatchList {
            schema,
            batches,
            offsets,
            shift: uniform.then(|| first.trailing_zeros()),
        }
    }

    /// All rows.
    pub(crate) fn num_rows(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }

    /// The batches.
    pub(crate) fn batches(&self) -> &[RecordBatch] {
        self.batches
    }

    /// The global row of each batch's first row.
    pub(crate) fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Batch and row within it of global row `row`.
    #[inline]
    pub(crate) fn locate(&self, row: usize) -> (usize, usize) {
        match self.shift {
            Some(s) => (row >> s, row & ((1 << s) - 1)),
            None => {
                let b = self.offsets.partition_point(|&o| o <= row) - 1;
                (b, row - self.offsets[b])
            }
        }
    }
}

impl RowSource for BatchList<'_> {
    fn gather(&self, c: usize, rows: &UInt32Array) -> Result<ArrayRef> {
        let arrays: Vec<&dyn Array> = self.batches.iter().map(|b| b.column(c).as_ref()).collect();
        let at: Vec<(usize, usize)> = rows
            .values()
            .iter()
            .map(|&r| self.locate(r as usize))
            .collect();
        Ok(interleave(&arrays, &at)?)
    }

    fn as_batch(&self) -> Option<&RecordBatch> {
        match self.batches {
            [one] => Some(one),
            _ => None,
        }
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Int64Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use std::sync::Arc;

    fn batch(v: Vec<i64>) -> RecordBatch {
        RecordBatch::try_from_iter([("a", Arc::new(Int64Array::from(v)) as ArrayRef)]).unwrap()
    }

    #[test]
    fn contiguous_rows_are_recognized() {
        assert_eq!(contiguous(&[4, 5, 6]), Some(4));
        assert_eq!(contiguous(&[4, 6]), None);
        assert_eq!(contiguous(&[5, 4]), None);
        assert_eq!(contiguous(&[]), None);
    }

    #[test]
    fn batch_list_locates_rows_with_uniform_and_ragged_batches() {
        for sizes in [vec![4, 4, 3], vec![3, 5, 0, 2], vec![1], vec![4, 4, 4]] {
            let mut next = 0;
            let batches: Vec<RecordBatch> = sizes
                .iter()
                .map(|&n| {
                    let b = batch((next..next + n as i64).collect());
                    next += n as i64;
                    b
                })
                .collect();
            let list = BatchList::new(batches[0].schema(), &batches);
            let rows = UInt32Array::from((0..next as u32).rev().collect::<Vec<_>>());
            let got = list.gather(0, &rows).unwrap();
            let want: Vec<i64> = (0..next).rev().collect();
            assert_eq!(
                got.as_primitive::<Int64Type>().values().to_vec(),
                want,
                "{sizes:?}"
            );
        }
    }
}
