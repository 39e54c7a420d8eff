//! Nested data for the expansion benchmarks (`UNNEST`): one table of
//! arrays.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, ListArray, RecordBatch};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema};

use crate::rng::{SplitMix64, Stream};

/// The rows of [`arrays`] at scale 1.0.
pub const ARRAYS_FULL_ROWS: usize = 10_000_000;

/// Rows generated from one random stream chunk.
const CHUNK: usize = 1 << 16;

/// A table of `rows` rows: `id: Int64` (the row's index) and `arr:
/// List<Int64>`, an array of 0 to 10 elements (uniform, mean 5) drawn
/// uniformly from 0..1000; one row in 20 (at random) is NULL. A NULL row
/// keeps elements of its own under it in the values, as pyarrow's
/// `ListArray.from_arrays(..., mask=...)` writes them, so that a reader
/// must skip them rather than find them absent.
///
/// Deterministic in `(rows, seed)`: each chunk of 65536 rows has its own
/// random stream.
///
/// ```
/// use arrow_array::Array;
/// let t = tenon_datasets::arrays(1000, 42);
/// assert_eq!(t.num_rows(), 1000);
/// assert!(t.column(1).null_count() > 0);
/// ```
pub fn arrays(rows: usize, seed: u64) -> RecordBatch {
    let mut offsets: Vec<i32> = Vec::with_capacity(rows + 1);
    offsets.push(0);
    let mut values: Vec<i64> = Vec::with_capacity(rows * 5 + 16);
    let mut valid: Vec<bool> = Vec::with_capacity(rows);
    for (chunk, start) in (0..rows).step_by(CHUNK).enumerate() {
        let mut rng = SplitMix64::for_chunk(seed, Stream::Arrays, chunk as u64);
        for _ in start..(start + CHUNK).min(rows) {
            let len = rng.below(11);
            valid.push(rng.below(20) != 0);
            for _ in 0..len {
                values.push(rng.below(1000) as i64);
            }
            // 10 elements a row at most: 2^31 values are 200M rows away
            offsets.push(i32::try_from(values.len()).unwrap_or(i32::MAX));
        }
    }
    let item = Arc::new(Field::new("item", DataType::Int64, true));
    let arr = ListArray::new(
        Arc::clone(&item),
        OffsetBuffer::new(offsets.into()),
        Arc::new(Int64Array::from(values)),
        Some(NullBuffer::from(valid)),
    );
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("arr", DataType::List(item), true),
    ]);
    let id = Int64Array::from_iter_values(0..rows as i64);
    let columns: Vec<ArrayRef> = vec![Arc::new(id), Arc::new(arr)];
    RecordBatch::try_new(Arc::new(schema), columns).expect("columns match the schema")
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;

    use super::*;

    #[test]
    fn arrays_have_the_documented_shape_and_repeat() {
        let t = arrays(100_000, 7);
        assert_eq!(t, arrays(100_000, 7));
        assert_ne!(t, arrays(100_000, 8));
        let arr = t.column(1).as_list::<i32>();
        let nulls = arr.null_count() as f64 / 100_000.0;
        assert!((0.04..0.06).contains(&nulls), "{nulls}");
        let lens: Vec<usize> = (0..arr.len())
            .map(|r| arr.value_length(r) as usize)
            .collect();
        assert!(lens.iter().all(|&l| l <= 10));
        let mean = lens.iter().sum::<usize>() as f64 / lens.len() as f64;
        assert!((4.9..5.1).contains(&mean), "{mean}");
        // NULL rows keep values of their own
        assert!((0..arr.len()).any(|r| arr.is_null(r) && arr.value_length(r) > 0));
        let values = arr.values().as_primitive::<arrow_array::types::Int64Type>();
        assert!(values.values().iter().all(|&v| (0..1000).contains(&v)));
    }
}
