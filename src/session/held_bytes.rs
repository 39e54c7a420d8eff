//! The bytes rows held in memory count for: what a table in memory is
//! charged to each query's budget, and its statistics' sizes.

use arrow_array::{Array, ArrayRef};
use tenon_planner::exec::TableData;

/// The bytes `data`'s rows hold ([`value_bytes`] of every column).
pub(super) fn held_bytes(data: &TableData) -> u64 {
    data.batches
        .iter()
        .flat_map(|b| b.columns().iter().map(value_bytes))
        .sum()
}

/// The bytes `column`'s rows hold: for string and binary views, the views
/// and the out-of-line values they point to (not the whole buffers, which
/// the batches of a Parquet file share: counting those per batch made
/// TPC-H's `customer` look three times its size); for other types, the
/// memory of the rows the array covers.
pub(super) fn value_bytes(column: &ArrayRef) -> u64 {
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType;
    let views = |lengths: &mut dyn Iterator<Item = u32>, n: usize| -> u64 {
        16 * n as u64 + lengths.filter(|&len| len > 12).map(u64::from).sum::<u64>()
    };
    match column.data_type() {
        DataType::Utf8View => {
            let a = column.as_string_view();
            views(&mut a.views().iter().map(|v| *v as u32), a.len())
        }
        DataType::BinaryView => {
            let a = column.as_binary_view();
            views(&mut a.views().iter().map(|v| *v as u32), a.len())
        }
        _ => column
            .to_data()
            .get_slice_memory_size()
            .unwrap_or_else(|_| column.get_array_memory_size()) as u64,
    }
}
