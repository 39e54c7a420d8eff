//! Output of nested values and of a type a format cannot hold: CSV prints
//! lists, maps and structs as text and refuses a union before writing.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use super::super::*;
use super::{plain_schema, rich_batch};

/// A batch with a union column `u` (which CSV cannot hold).
pub(super) fn union_batch() -> RecordBatch {
    use arrow_array::UnionArray;
    use arrow_schema::{UnionFields, UnionMode};
    let fields = UnionFields::try_new(
        vec![0, 1],
        vec![
            Field::new("i", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
        ],
    )
    .unwrap();
    let children: Vec<ArrayRef> = vec![
        Arc::new(arrow_array::Int64Array::from(vec![1, 0])),
        Arc::new(arrow_array::StringArray::from(vec!["a", "b"])),
    ];
    let union = UnionArray::try_new(fields.clone(), vec![0i8, 1].into(), None, children).unwrap();
    let schema = Schema::new(vec![Field::new(
        "u",
        DataType::Union(fields, UnionMode::Sparse),
        false,
    )]);
    RecordBatch::try_new(Arc::new(schema), vec![Arc::new(union)]).unwrap()
}

#[test]
fn csv_of_a_union_writes_nothing_not_even_the_header() {
    let union = union_batch();
    let mut out = Vec::new();
    let err = write_batches(
        std::slice::from_ref(&union),
        &union.schema(),
        OutputFormat::Csv,
        &mut out,
    )
    .unwrap_err();
    assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
    let text = err.to_string();
    // the formats that can hold the union are offered
    assert!(text.contains("Union") && text.contains("arrow"), "{text}");
    assert!(check_writable(&plain_schema(), OutputFormat::Csv).is_ok());
}

#[test]
fn csv_holds_a_nested_value_as_its_text() {
    let rich = rich_batch();
    assert!(check_writable(&rich.schema(), OutputFormat::Csv).is_ok());
    let mut out = Vec::new();
    write_batches(
        std::slice::from_ref(&rich),
        &rich.schema(),
        OutputFormat::Csv,
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].ends_with(",\"[1, 2]\""), "{text}");
    // a NULL list is an empty cell, an empty list `[]`
    assert!(lines[2].ends_with(','), "{text}");
    assert!(lines[3].ends_with(",[]"), "{text}");
}
