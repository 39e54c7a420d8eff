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
use crate::kernel::concat::compact_array;

/// Rows that output columns can be gathered from.
pub(crate) trait RowSource: Sync {
    /// Column `c` at `rows`.
    fn gather(&self, c: usize, rows: &UInt32Array) -> Result<ArrayRef>;
    /// The rows as one batch, when they are one batch already.
    fn as_batch(&self) -> Option<&RecordBatch>;
    /// The schema.
    fn schema(&self) -> SchemaRef;
    /// Reads the fixed-width values of `rows` in order, so that gathers
    /// from them in random order that follow hit the cache instead of
    /// memory (see [`warm_values`]). By default nothing.
    fn warm(&self, rows: std::ops::Range<usize>) {
        let _ = rows;
    }
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

/// Reads one value per cache line of `rows` of a fixed-width column without
/// NULLs (other columns are left alone). A sequential read is what the
/// hardware prefetcher streams; the same lines touched first in random
/// order each cost a miss to memory.
pub(crate) fn warm_values(data: &arrow_data::ArrayData, rows: std::ops::Range<usize>) {
    let dt = data.data_type();
    let Some(width) = dt.primitive_width().filter(|_| dt.is_primitive()) else {
        return;
    };
    if data.null_count() != 0 || rows.end > data.len() {
        return;
    }
    let bytes = data.buffers()[0].as_slice();
    let start = (data.offset() + rows.start) * width;
    let end = ((data.offset() + rows.end) * width).min(bytes.len());
    let Some(range) = bytes.get(start..end) else {
        return;
    };
    let mut acc = 0u8;
    for line in range.chunks(64) {
        acc ^= line[0];
    }
    std::hint::black_box(acc);
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

    fn warm(&self, rows: std::ops::Range<usize>) {
        for c in self.columns() {
            warm_values(&c.to_data(), rows.clone());
        }
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
    /// How a global row is located.
    locate: Locate,
}

/// How [`BatchList::locate`] finds a row's batch.
#[derive(Debug)]
enum Locate {
    /// Every batch but the last has `2^shift` rows: a shift.
    Shift(u32),
    /// Blocks of `2^shift` rows are never longer than a batch (the last
    /// batch aside): `first[row >> shift]` is the batch holding the block's
    /// first row, and the row is in it or a following one. Parquet files
    /// give such batches (8192 rows, shorter at each row group's end).
    Table { shift: u32, first: Vec<u32> },
    /// A binary search over the batch offsets.
    Search,
}

/// The smallest block for [`Locate::Table`] (smaller blocks would make the
/// table large beside the data).
const MIN_BLOCK: usize = 64;

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
        let locate = if uniform {
            Locate::Shift(first.trailing_zeros())
        } else {
            Self::table(&offsets, batches)
        };
        BatchList {
            schema,
            batches,
            offsets,
            locate,
        }
    }

    /// The block table of [`Locate::Table`], or [`Locate::Search`] when
    /// some batch (but the last) is shorter than [`MIN_BLOCK`].
    fn table(offsets: &[usize], batches: &[RecordBatch]) -> Locate {
        let shortest = batches
            .iter()
            .take(batches.len().saturating_sub(1))
            .map(|b| b.num_rows())
            .filter(|&n| n > 0)
            .min()
            .unwrap_or(usize::MAX);
        let total = *offsets.last().unwrap_or(&0);
        if shortest < MIN_BLOCK || total == 0 || total > u32::MAX as usize {
            return Locate::Search;
        }
        let block = if shortest == usize::MAX {
            total.next_power_of_two()
        } else {
            1usize << shortest.ilog2()
        };
        let shift = block.trailing_zeros();
        let first = (0..total.div_ceil(block))
            .map(|j| (offsets.partition_point(|&o| o <= j * block) - 1) as u32)
            .collect();
        Locate::Table { shift, first }
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

    /// `log2(batch rows)` when every batch but the last has the same
    /// power-of-two size (locating a row is then a shift), for loops that
    /// pick their way of locating rows once.
    pub(crate) fn shift(&self) -> Option<u32> {
        match self.locate {
            Locate::Shift(s) => Some(s),
            _ => None,
        }
    }

    /// Batch and row within it of global row `row`.
    #[inline]
    pub(crate) fn locate(&self, row: usize) -> (usize, usize) {
        match &self.locate {
            Locate::Shift(s) => (row >> s, row & ((1 << s) - 1)),
            Locate::Table { shift, first } => {
                let mut b = first[row >> shift] as usize;
                while row >= self.offsets[b + 1] {
                    b += 1;
                }
                (b, row - self.offsets[b])
            }
            Locate::Search => {
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
        Ok(compact_array(&interleave(&arrays, &at)?))
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
        for sizes in [
            vec![4, 4, 3],
            vec![3, 5, 0, 2],
            vec![1],
            vec![4, 4, 4],
            // The block table: batches of at least 64 rows, not a power of two.
            vec![100, 70, 0, 130, 5],
            vec![64, 200, 64, 1000],
            vec![90],
        ] {
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
            for r in 0..next as usize {
                let b = list.offsets.partition_point(|&o| o <= r) - 1;
                assert_eq!(
                    list.locate(r),
                    (b, r - list.offsets[b]),
                    "{sizes:?} row {r}"
                );
            }
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
