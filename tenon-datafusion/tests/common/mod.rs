//! What the tests of this crate share: result rows as sorted text.

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;

/// The rows of `batches` as the pretty table prints them, sorted (the
/// engines give rows in no particular order).
pub fn sorted(batches: &[RecordBatch]) -> Vec<String> {
    let mut rows: Vec<String> = pretty_format_batches(batches)
        .unwrap()
        .to_string()
        .lines()
        .skip(3)
        .filter(|l| !l.starts_with('+'))
        .map(str::to_string)
        .collect();
    rows.sort();
    rows
}
