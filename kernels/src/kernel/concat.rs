//! One input as one batch, with string views compacted.
//!
//! Every kernel that indexes its build (or smaller) side by row number
//! wants it as one [`RecordBatch`]. Concatenating is a copy, charged to the
//! join's memory budget, except for an input that already is one batch.
//!
//! Concatenating `Utf8View` / `BinaryView` columns copies the views but
//! keeps every data buffer of every input batch (arrow's `concat` does not
//! rewrite views). Gathering rows from such a column with `take` then
//! clones the whole list of buffers into *every* output batch: with
//! hundreds of input batches, that is thousands of reference-count updates
//! per output batch, and each output batch keeps all of them alive (TPC-H
//! Q21 at scale 1 spent a quarter of its time there). A view column with
//! more than [`MAX_VIEW_BUFFERS`] data buffers is therefore compacted
//! (`gc`: its out-of-line strings copied into few new buffers) once, here.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::ByteViewType;
use arrow_array::{Array, ArrayRef, GenericByteViewArray, RecordBatch};
use arrow_buffer::{Buffer, ScalarBuffer};
use arrow_schema::DataType;
use arrow_select::concat::concat_batches;

use super::input::JoinInput;
use crate::error::Result;
pub(crate) use crate::memory::batch_bytes;
use crate::memory::{MemoryBudget, MemoryReservation};

/// A view column with more data buffers than this is compacted.
pub(crate) const MAX_VIEW_BUFFERS: usize = 16;

/// `input` as one batch: the batch itself when there is one (compacted if
/// it needs it), else a copy of all of them, reserved as `what`.
///
/// # Errors
///
/// The memory budget refuses the copy, or the batches do not match the
/// schema.
pub(crate) fn one_batch(
    input: &JoinInput,
    memory: &MemoryBudget,
    what: &'static str,
) -> Result<(RecordBatch, Option<MemoryReservation>)> {
    match input.batches() {
        [] => Ok((RecordBatch::new_empty(input.schema().clone()), None)),
        [one] => Ok((compact_views(one.clone())?, None)),
        many => {
            let bytes: usize = many.iter().map(batch_bytes).sum();
            let r = memory.try_reserve(what, bytes)?;
            let batch = concat_batches(input.schema(), many)?;
            Ok((compact_views(batch)?, Some(r)))
        }
    }
}

/// `batch` with each view column (`Utf8View`, `BinaryView`) of more than
/// 16 data buffers compacted into few new ones: gathering rows from a
/// column of many buffers clones every buffer reference into each output
/// batch. The batch itself when no column needs it.
///
/// # Errors
///
/// Only if the compacted columns no longer fit the schema (a bug).
pub fn compact_views(batch: RecordBatch) -> Result<RecordBatch> {
    if !batch.columns().iter().any(needs_compaction) {
        return Ok(batch);
    }
    let columns: Vec<ArrayRef> = batch.columns().iter().map(compact_array).collect();
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

/// Whether `column` is a view column with more than [`MAX_VIEW_BUFFERS`]
/// data buffers.
fn needs_compaction(column: &ArrayRef) -> bool {
    match column.data_type() {
        DataType::Utf8View => column.as_string_view().data_buffers().len() > MAX_VIEW_BUFFERS,
        DataType::BinaryView => column.as_binary_view().data_buffers().len() > MAX_VIEW_BUFFERS,
        _ => false,
    }
}

/// `column` compacted if it needs it (see the module docs), else itself.
///
/// Gathered columns need it too: `interleave` over many batches keeps one
/// reference per batch to each buffer a gathered value lies in, even when
/// those batches all share the same buffer (rows that came from one build
/// side), so a gathered batch can carry hundreds of references to one
/// buffer, which every later `take` clones again.
pub(crate) fn compact_array(column: &ArrayRef) -> ArrayRef {
    if !needs_compaction(column) {
        return Arc::clone(column);
    }
    match column.data_type() {
        DataType::Utf8View => {
            let views = column.as_string_view();
            match shared_buffers(views) {
                Some(deduplicated) => Arc::new(deduplicated),
                None => Arc::new(views.gc()),
            }
        }
        _ => {
            let views = column.as_binary_view();
            match shared_buffers(views) {
                Some(deduplicated) => Arc::new(deduplicated),
                None => Arc::new(views.gc()),
            }
        }
    }
}

/// `array` with each of its data buffers listed once, when it has at most
/// [`MAX_VIEW_BUFFERS`] distinct ones: concatenated or gathered batches
/// that came from one build side list the same few buffers over and over,
/// and rewriting the views' buffer indexes (16 bytes a row) is much cheaper
/// than copying the strings as `gc` does. `None` when there are more
/// distinct buffers.
fn shared_buffers<T: ByteViewType + ?Sized>(
    array: &GenericByteViewArray<T>,
) -> Option<GenericByteViewArray<T>> {
    let mut distinct: Vec<Buffer> = Vec::new();
    let mut index = Vec::with_capacity(array.data_buffers().len());
    for buffer in array.data_buffers() {
        let same = distinct
            .iter()
            .position(|d| d.as_ptr() == buffer.as_ptr() && d.len() == buffer.len());
        let i = match same {
            Some(i) => i,
            None if distinct.len() < MAX_VIEW_BUFFERS => {
                distinct.push(buffer.clone());
                distinct.len() - 1
            }
            None => return None,
        };
        index.push(i as u128);
    }
    let views: ScalarBuffer<u128> = array
        .views()
        .iter()
        .map(|&view| {
            if view as u32 <= 12 {
                return view; // the value is inline
            }
            // Bits 64..96 are the buffer index. A NULL slot's view may hold
            // anything: an index out of range there becomes an empty view.
            match index.get((view >> 64) as u32 as usize) {
                Some(&i) => (view & !(u128::from(u32::MAX) << 64)) | (i << 64),
                None => 0,
            }
        })
        .collect();
    // SAFETY: every non-inline view of a valid array pointed into one of
    // its buffers; it now points at the same offset and length of a buffer
    // with the same address and length, i.e. the very same bytes, so each
    // view still describes valid (UTF-8, for strings) data in range. Inline
    // views are unchanged, and NULL slots may hold any view.
    Some(unsafe { GenericByteViewArray::new_unchecked(views, distinct, array.nulls().cloned()) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::StringViewArray;
    use arrow_schema::{Field, Schema};

    fn batch(values: &[&str]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "s",
            DataType::Utf8View,
            false,
        )]));
        let column: ArrayRef = Arc::new(StringViewArray::from_iter_values(values.iter()));
        RecordBatch::try_new(schema, vec![column]).unwrap()
    }

    #[test]
    fn many_batches_become_one_with_few_view_buffers_and_the_same_values() {
        let long = |i: usize| format!("a string longer than twelve bytes {i}");
        let batches: Vec<RecordBatch> = (0..40)
            .map(|i| batch(&[long(i).as_str(), "short"]))
            .collect();
        let input = JoinInput::new(batches[0].schema(), batches);
        let (one, _mem) = one_batch(&input, &MemoryBudget::unlimited(), "test").unwrap();
        let col = one.column(0).as_string_view();
        assert!(col.data_buffers().len() <= MAX_VIEW_BUFFERS);
        assert_eq!(col.len(), 80);
        for i in 0..40 {
            assert_eq!(col.value(2 * i), long(i));
            assert_eq!(col.value(2 * i + 1), "short");
        }
    }

    #[test]
    fn batches_sharing_their_buffers_keep_them_once_without_copying() {
        let long = |i: usize| format!("a string longer than twelve bytes {i}");
        let values: Vec<String> = (0..10).map(long).collect();
        let one = batch(&values.iter().map(String::as_str).collect::<Vec<_>>());
        let shared = one.column(0).as_string_view().data_buffers()[0].clone();
        // 40 slices of one batch: 40 references to the same buffer.
        let pieces: Vec<RecordBatch> = (0..40).map(|i| one.slice(i % 10, 1)).collect();
        let input = JoinInput::new(one.schema(), pieces);
        let (out, _mem) = one_batch(&input, &MemoryBudget::unlimited(), "test").unwrap();
        let col = out.column(0).as_string_view();
        assert_eq!(col.data_buffers().len(), 1);
        assert_eq!(col.data_buffers()[0].as_ptr(), shared.as_ptr());
        for i in 0..40 {
            assert_eq!(col.value(i), long(i % 10));
        }
    }

    #[test]
    fn a_batch_with_few_buffers_is_kept_as_it_is() {
        let b = batch(&["a string longer than twelve bytes", "x"]);
        let kept = compact_views(b.clone()).unwrap();
        assert!(Arc::ptr_eq(b.column(0), kept.column(0)));
    }
}
