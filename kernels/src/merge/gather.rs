//! Gathering output columns from a side held in many batches.
//!
//! The merge emits pairs in key order, so the rows gathered from a side
//! held in its own batches ([`BatchList`]) are scattered over all of them.
//! [`BatchList`]'s gather builds a `(batch, row)` list and runs Arrow's
//! `interleave`; for fixed-width columns without NULLs, [`Batches`] instead
//! copies each value straight from its batch's buffer, which halves the
//! work per row (that gather is a large part of a foreign-key merge join).
//! Every other column goes through [`BatchList`] unchanged.

use arrow_array::{Array, ArrayRef, RecordBatch, UInt32Array, make_array};
use arrow_buffer::{ArrowNativeType, Buffer};
use arrow_data::ArrayData;
use arrow_schema::SchemaRef;

use crate::error::Result;
use crate::rows::{BatchList, RowSource, warm_values};

/// A side's batches, read as one (see the module docs).
pub(crate) struct Batches<'a> {
    list: &'a BatchList<'a>,
    /// Per column: the batches' data, when the column is fixed-width
    /// without NULLs and its buffers are aligned (looked up once, not per
    /// gather).
    fixed: Vec<Option<(usize, Vec<ArrayData>)>>,
}

impl<'a> Batches<'a> {
    pub(crate) fn new(list: &'a BatchList<'a>) -> Self {
        let batches = list.batches();
        let columns = batches.first().map_or(0, |b| b.num_columns());
        let fixed = (0..columns)
            .map(|c| {
                let dt = batches[0].column(c).data_type();
                let width = dt.primitive_width().filter(|_| dt.is_primitive())?;
                if !matches!(width, 1 | 2 | 4 | 8) {
                    return None;
                }
                let data: Vec<ArrayData> = batches.iter().map(|b| b.column(c).to_data()).collect();
                let plain = data.iter().all(|d| {
                    d.null_count() == 0 && d.buffers()[0].as_ptr().align_offset(width) == 0
                });
                plain.then_some((width, data))
            })
            .collect();
        Batches { list, fixed }
    }

    /// Column `c` at `rows`, for values of type `T` (the column's width).
    fn gather_fixed<T: ArrowNativeType>(
        &self,
        data: &[ArrayData],
        rows: &UInt32Array,
    ) -> Result<ArrayRef> {
        let values: Vec<&[T]> = data.iter().map(|d| d.buffer::<T>(0)).collect();
        let rows = rows.values().iter();
        let out: Vec<T> = match self.list.shift() {
            // The common case, without the general lookup in the loop.
            Some(s) => {
                let mask = (1usize << s) - 1;
                rows.map(|&r| values[r as usize >> s][r as usize & mask])
                    .collect()
            }
            None => rows
                .map(|&r| {
                    let (b, i) = self.list.locate(r as usize);
                    values[b][i]
                })
                .collect(),
        };
        let built = ArrayData::builder(data[0].data_type().clone())
            .len(out.len())
            .add_buffer(Buffer::from_vec(out))
            .build()?;
        Ok(make_array(built))
    }
}

impl RowSource for Batches<'_> {
    fn gather(&self, c: usize, rows: &UInt32Array) -> Result<ArrayRef> {
        match self.fixed.get(c) {
            Some(Some((8, data))) => self.gather_fixed::<u64>(data, rows),
            Some(Some((4, data))) => self.gather_fixed::<u32>(data, rows),
            Some(Some((2, data))) => self.gather_fixed::<u16>(data, rows),
            Some(Some((1, data))) => self.gather_fixed::<u8>(data, rows),
            _ => self.list.gather(c, rows),
        }
    }

    fn as_batch(&self) -> Option<&RecordBatch> {
        None
    }

    fn warm(&self, rows: std::ops::Range<usize>) {
        let offsets = self.list.offsets();
        let mut b = offsets
            .partition_point(|&o| o <= rows.start)
            .saturating_sub(1);
        while b + 1 < offsets.len() && offsets[b] < rows.end {
            let local =
                rows.start.max(offsets[b]) - offsets[b]..rows.end.min(offsets[b + 1]) - offsets[b];
            for (_, data) in self.fixed.iter().flatten() {
                warm_values(&data[b], local.clone());
            }
            b += 1;
        }
    }

    fn schema(&self) -> SchemaRef {
        self.list.schema()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    use arrow_array::{Int32Array, Int64Array};
    use std::sync::Arc;

    #[test]
    fn fixed_width_gather_equals_the_batch_list_gather() {
        let batch = |a: Vec<i64>, b: Vec<Option<i32>>| {
            RecordBatch::try_from_iter([
                ("a", Arc::new(Int64Array::from(a)) as ArrayRef),
                ("b", Arc::new(Int32Array::from(b)) as ArrayRef),
            ])
            .unwrap()
        };
        let whole = batch((0..10).collect(), (0..10).map(Some).collect());
        let batches = vec![
            whole.slice(0, 4),
            whole.slice(4, 3),
            batch(vec![70, 71], vec![None, Some(1)]),
        ];
        let list = BatchList::new(whole.schema(), &batches);
        let fast = Batches::new(&list);
        let rows = UInt32Array::from(vec![8, 0, 5, 4, 3, 7, 6]);
        let a = fast.gather(0, &rows).unwrap();
        assert_eq!(
            a.as_primitive::<Int64Type>().values().to_vec(),
            vec![71, 0, 5, 4, 3, 70, 6]
        );
        // A column with NULLs takes the batch list's path.
        let b = fast.gather(1, &rows).unwrap();
        let want = list.gather(1, &rows).unwrap();
        assert_eq!(
            b.as_primitive::<Int32Type>(),
            want.as_primitive::<Int32Type>()
        );
    }
}
