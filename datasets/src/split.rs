//! Cutting a table into fixed-size batches.

use arrow_array::RecordBatch;

/// Splits `batch` into consecutive zero-copy slices of `batch_size` rows (the
/// last one may be shorter). An empty `batch` gives an empty `Vec`.
///
/// # Panics
/// If `batch_size` is zero.
pub fn split_batches(batch: &RecordBatch, batch_size: usize) -> Vec<RecordBatch> {
    assert!(batch_size > 0, "batch_size must be positive");
    let rows = batch.num_rows();
    (0..rows)
        .step_by(batch_size)
        .map(|offset| batch.slice(offset, batch_size.min(rows - offset)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Workload, generate};
    use arrow_array::{Array, Int64Array};

    #[test]
    fn split_batches_covers_every_row() {
        let tables = generate(Workload::M2n, 0.001, 1);
        let batch = &tables.probe;
        assert_eq!(batch.num_rows(), 1_000);
        for size in [1, 7, 100, 999, 1_000, 5_000] {
            let parts = split_batches(batch, size);
            assert_eq!(parts.len(), batch.num_rows().div_ceil(size), "size {size}");
            assert!(
                parts
                    .iter()
                    .all(|p| p.num_rows() >= 1 && p.num_rows() <= size)
            );
            assert!(parts.iter().all(|p| p.schema() == batch.schema()));
            let mut row = 0;
            for part in &parts {
                assert_eq!(part, &batch.slice(row, part.num_rows()));
                row += part.num_rows();
            }
            assert_eq!(row, batch.num_rows());
        }
    }

    #[test]
    fn split_batches_slices_share_the_original_buffers() {
        let tables = generate(Workload::FkSmall, 0.0001, 2);
        let keys = tables
            .probe
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        let parts = split_batches(&tables.probe, 64);
        let second = parts[1]
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        assert_eq!(second.values().as_ptr(), keys.values()[64..].as_ptr());
        assert_eq!(second.len(), 64);
    }

    #[test]
    fn split_batches_of_an_empty_batch_is_empty() {
        let tables = generate(Workload::Nlj, 0.001, 3);
        assert!(split_batches(&tables.probe.slice(0, 0), 10).is_empty());
    }

    #[test]
    #[should_panic(expected = "batch_size must be positive")]
    fn split_batches_rejects_zero_batch_size() {
        let tables = generate(Workload::Nlj, 0.001, 3);
        split_batches(&tables.probe, 0);
    }
}
