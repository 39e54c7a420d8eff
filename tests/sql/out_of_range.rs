//! A timestamp no calendar can show (2^63-1 milliseconds) is an error
//! naming its column and row in the text outputs, never error text
//! printed as a value (issue 52); the binary outputs hold it.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, TimestampMillisecondArray};

use crate::cli_query::{stderr, tenon};
use crate::common::temp_dir;

#[test]
fn out_of_range_timestamps_printed_as_data() {
    let dir = temp_dir("out-of-range-ts");
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as _),
        (
            "ts",
            Arc::new(TimestampMillisecondArray::from(vec![
                Some(0),
                Some(i64::MAX),
                None,
            ])) as _,
        ),
    ])
    .unwrap();
    let path = dir.join("t.parquet");
    tenon::io::write_to_path(
        std::slice::from_ref(&batch),
        &batch.schema(),
        tenon::io::OutputFormat::Parquet,
        &path,
    )
    .unwrap();
    let table = format!("t={}", path.display());
    for format in ["json", "ndjson", "table", "csv"] {
        let out = tenon(&[
            "--table",
            &table,
            "--format",
            format,
            "SELECT id, ts FROM t ORDER BY id",
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{format}: {err}");
        assert!(
            err.contains("column `ts`")
                && err.contains("row 2")
                && err.contains("9223372036854775807"),
            "{format}: {err}"
        );
        assert!(!err.contains("Cast error"), "{format}: {err}");
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(printed.is_empty(), "{format}: {printed}");
    }
    // the binary formats hold it
    let out = tenon(&[
        "--table",
        &table,
        "--format",
        "parquet",
        "--output",
        dir.join("copy.parquet").to_str().unwrap(),
        "SELECT * FROM t",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}
