//! [`read_table_with`]: declared schemas, CSV options, bad rows skipped and
//! counted, formats named instead of found by extension.

use std::fs;
use std::sync::Arc;

use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::tests::TestDir;
use super::*;

/// A fresh directory under the system's temporary directory, removed
/// when the test ends.
fn dir(_test: &str) -> TestDir {
    TestDir::new()
}

fn schema(fields: &[(&str, DataType, bool)]) -> SchemaRef {
    Arc::new(Schema::new(
        fields
            .iter()
            .map(|(n, t, null)| Field::new(*n, t.clone(), *null))
            .collect::<Vec<_>>(),
    ))
}

fn declared(schema: SchemaRef, batch_size: usize) -> ReadOptions {
    ReadOptions {
        format: Some(FileFormat::Csv),
        schema: Some(schema),
        ..ReadOptions::new(batch_size)
    }
}

#[test]
fn csv_into_a_declared_schema_with_quotes_spanning_lines() {
    let d = dir("quotes");
    let path = d.join("t.data");
    // a quoted field over two lines: the next row's line is still right
    fs::write(&path, "id,note\n1,\"two\nlines\"\n2,x\n3,oops\n").unwrap();
    let s = schema(&[
        ("id", DataType::Int32, false),
        ("note", DataType::Utf8, true),
    ]);
    let t = read_table_with(&path, &declared(s.clone(), 2)).unwrap();
    assert_eq!(t.schema, s);
    assert_eq!(t.rows, 3);
    assert!(t.batches.iter().all(|b| b.num_rows() <= 2));
    let ids = t.batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    assert_eq!(ids.value(0), 1);
    let notes = t.batches[0]
        .column(1)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(notes.value(0), "two\nlines");
    // a bad value after the quoted field: line 5 of the file
    fs::write(&path, "id,note\n1,\"two\nlines\"\n2,x\nthree,y\n").unwrap();
    match read_table_with(&path, &declared(s, 2)).unwrap_err() {
        IoError::Parse {
            line,
            column,
            message,
            ..
        } => {
            assert_eq!((line, column.as_deref()), (Some(5), Some("id")));
            assert!(
                message.contains("`three`") && message.contains("Int32"),
                "{message}"
            );
        }
        other => panic!("{other}"),
    }
}

#[test]
fn bad_rows_are_skipped_and_counted_across_a_directory() {
    let d = dir("skip");
    fs::write(d.join("a.csv"), "k;v\n1;a\nx;b\n").unwrap();
    fs::write(d.join("b.csv"), "k;v\n2;c\n3\n4;d;e\n").unwrap();
    fs::write(d.join("c.parquet"), "not read: another format").unwrap();
    let mut options = declared(
        schema(&[("k", DataType::Int64, false), ("v", DataType::Utf8, true)]),
        100,
    );
    options.csv.delimiter = b';';
    options.csv.ignore_parse_errors = true;
    let t = read_table_with(&d, &options).unwrap();
    assert_eq!((t.rows, t.skipped_rows), (2, 3));
    // without a header row, the header is a bad row too
    options.csv.has_header = false;
    let t = read_table_with(&d, &options).unwrap();
    assert_eq!((t.rows, t.skipped_rows), (2, 5));
}

#[test]
fn null_literal_and_not_null() {
    let d = dir("nulls");
    let path = d.join("t.csv");
    fs::write(&path, "k,v\n1,NA\n2,\n3,z\n").unwrap();
    let mut options = declared(
        schema(&[("k", DataType::Int64, true), ("v", DataType::Utf8, true)]),
        100,
    );
    options.csv.null_literal = Some("NA".into());
    let t = read_table_with(&path, &options).unwrap();
    assert_eq!(t.batches[0].column(1).null_count(), 2);
    options.schema = Some(schema(&[
        ("k", DataType::Int64, true),
        ("v", DataType::Utf8, false),
    ]));
    let err = read_table_with(&path, &options).unwrap_err().to_string();
    assert!(
        err.contains("line 2, column `v`") && err.contains("NOT NULL"),
        "{err}"
    );
}

#[test]
fn other_formats_take_declared_columns_by_name_and_name_bad_rows() {
    let d = dir("parquet");
    let path = d.join("t.parquet");
    let file_schema = schema(&[("B", DataType::Int64, true), ("a", DataType::Utf8, true)]);
    let batch = RecordBatch::try_new(
        file_schema.clone(),
        vec![
            Arc::new(Int64Array::from(vec![Some(1), None, Some(70_000)])),
            Arc::new(StringArray::from(vec!["x", "y", "z"])),
        ],
    )
    .unwrap();
    write_to_path(&[batch], &file_schema, OutputFormat::Parquet, &path).unwrap();
    // by name, case-insensitive, in the declared order, cast
    let s = schema(&[("a", DataType::Utf8, true), ("b", DataType::Int32, true)]);
    let options = ReadOptions {
        schema: Some(s.clone()),
        parquet_batch_size: Some(2),
        ..ReadOptions::new(100)
    };
    let t = read_table_with(&path, &options).unwrap();
    assert_eq!(t.schema, s);
    assert_eq!(t.batches.len(), 2);
    // a value that does not fit: its row
    let narrow = schema(&[("b", DataType::Int16, true)]);
    let options = ReadOptions {
        schema: Some(narrow),
        ..ReadOptions::new(100)
    };
    match read_table_with(&path, &options).unwrap_err() {
        IoError::BadValue {
            row,
            column,
            message,
            ..
        } => {
            assert_eq!((row, column.as_str()), (3, "b"));
            assert!(
                message.contains("70000") && message.contains("Int16"),
                "{message}"
            );
        }
        other => panic!("{other}"),
    }
    // a column the file does not have
    let options = ReadOptions {
        schema: Some(schema(&[("c", DataType::Int64, true)])),
        ..ReadOptions::new(100)
    };
    let err = read_table_with(&path, &options).unwrap_err();
    assert!(matches!(err, IoError::ColumnMismatch { .. }), "{err}");
    assert!(err.to_string().contains("`B`, `a`"), "{err}");
    // statistics from the footer
    let stats = file_stats(&path, None).unwrap();
    assert_eq!(stats.rows, Some(3));
    assert!(stats.bytes > 0);
}
