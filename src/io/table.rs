//! The text table of [`OutputFormat::Table`](super::OutputFormat::Table):
//! arrow-cast's pretty printer, with cells longer than
//! [`MAX_TABLE_CELL_CHARS`] cut short.
//!
//! The pretty printer lays out every character of every cell (line
//! splitting, display widths, padding), which takes seconds for a cell of
//! megabytes. A table is for reading on a terminal, so a cell that long is shown as its first
//! [`MAX_TABLE_CELL_CHARS`] characters and `…`, and a note after the table
//! says how many were cut; CSV, JSON and the binary formats keep every value
//! whole. Finding the long cells costs one pass over the values that can be
//! long (strings, binaries, nested values), linear in their size.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

/// The most characters of one cell the table format prints; a longer cell
/// is cut to this many and `…`.
pub const MAX_TABLE_CELL_CHARS: usize = 1000;

/// Why the table format cannot print values of `data_type`, if it cannot.
pub(crate) fn writable_by_table(data_type: &DataType) -> Result<(), String> {
    let empty = arrow_array::new_empty_array(data_type);
    ArrayFormatter::try_new(empty.as_ref(), &FormatOptions::default())
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Whether a value of `data_type` can print longer than
/// [`MAX_TABLE_CELL_CHARS`] (numbers, dates and times cannot).
fn can_be_long(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => true,
        DataType::Dictionary(_, value) => can_be_long(value),
        DataType::RunEndEncoded(_, value) => can_be_long(value.data_type()),
        other => other.is_nested(),
    }
}

/// Whether `text` has more than [`MAX_TABLE_CELL_CHARS`] characters.
fn too_long(text: &str) -> bool {
    text.len() > MAX_TABLE_CELL_CHARS && text.chars().nth(MAX_TABLE_CELL_CHARS).is_some()
}

/// How a cell of `data_type` prints: a NULL inside a nested value as
/// `NULL` (`[3, NULL]`, `{a: NULL}`, as DuckDB prints them); a NULL cell
/// itself stays NULL (empty in the table, as for every type).
fn cell_options(data_type: &DataType) -> FormatOptions<'static> {
    use tenon_planner::expr::time_text::NESTED_TIMESTAMP_FORMAT;
    let options = FormatOptions::default()
        .with_timestamp_format(Some(NESTED_TIMESTAMP_FORMAT))
        .with_timestamp_tz_format(Some(NESTED_TIMESTAMP_FORMAT));
    if data_type.is_nested() {
        options.with_null("NULL")
    } else {
        options
    }
}

/// `array`'s nested values as text (see [`cell_options`]), NULLs staying
/// NULL: how CSV holds a list, map or struct.
pub(crate) fn nested_text(array: &dyn Array) -> Result<ArrayRef, ArrowError> {
    text_cells(array, |_| {})
}

/// Each cell of `array` as its text ([`cell_options`]), passed through
/// `edit`; NULLs stay NULL.
fn text_cells(
    array: &dyn Array,
    mut edit: impl FnMut(&mut String),
) -> Result<ArrayRef, ArrowError> {
    let formatter = ArrayFormatter::try_new(array, &cell_options(array.data_type()))?;
    let mut cells: Vec<Option<String>> = Vec::with_capacity(array.len());
    for row in 0..array.len() {
        if array.is_null(row) {
            cells.push(None);
            continue;
        }
        let mut cell = String::new();
        formatter
            .value(row)
            .write(&mut cell)
            .map_err(|e| ArrowError::ComputeError(e.to_string()))?;
        edit(&mut cell);
        cells.push(Some(cell));
    }
    Ok(Arc::new(StringArray::from(cells)))
}

/// Whether any cell of `array` prints longer than [`MAX_TABLE_CELL_CHARS`].
fn has_long_cell(array: &dyn Array) -> Result<bool, ArrowError> {
    use arrow_array::cast::AsArray;
    let long = |v: Option<&str>| v.is_some_and(too_long);
    match array.data_type() {
        DataType::Utf8 => return Ok(array.as_string::<i32>().iter().any(long)),
        DataType::LargeUtf8 => return Ok(array.as_string::<i64>().iter().any(long)),
        DataType::Utf8View => return Ok(array.as_string_view().iter().any(long)),
        _ => {}
    }
    let formatter = ArrayFormatter::try_new(array, &FormatOptions::default())?;
    let mut cell = String::new();
    for row in 0..array.len() {
        if array.is_null(row) {
            continue;
        }
        cell.clear();
        formatter
            .value(row)
            .write(&mut cell)
            .map_err(|e| ArrowError::ComputeError(e.to_string()))?;
        if too_long(&cell) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `array` as the text the table prints for it, each cell cut to
/// [`MAX_TABLE_CELL_CHARS`] characters; NULLs stay NULL. Adds the cells cut
/// to `cut`.
fn shortened(array: &dyn Array, cut: &mut usize) -> Result<ArrayRef, ArrowError> {
    text_cells(array, |cell| {
        if let Some((end, _)) = cell.char_indices().nth(MAX_TABLE_CELL_CHARS) {
            cell.truncate(end);
            cell.push('…');
            *cut += 1;
        }
    })
}

/// The text table of `batches` (each of `schema`), ending in a newline,
/// with a note line after it when cells were cut short.
///
/// # Errors
///
/// A type the pretty printer cannot print (see [`writable_by_table`]).
pub(crate) fn table_text(
    batches: &[RecordBatch],
    schema: &SchemaRef,
) -> Result<String, ArrowError> {
    // The columns with a long cell in any batch: those print as text cut
    // short, in every batch, so that every batch has one schema.
    let mut long = vec![false; schema.fields().len()];
    for (i, field) in schema.fields().iter().enumerate() {
        // nested values print through `shortened` always, for their NULLs
        if field.data_type().is_nested() {
            long[i] = true;
            continue;
        }
        if !can_be_long(field.data_type()) {
            continue;
        }
        for batch in batches {
            if has_long_cell(batch.column(i).as_ref())? {
                long[i] = true;
                break;
            }
        }
    }
    let mut cut = 0;
    let text = if long.iter().any(|&l| l) {
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .zip(&long)
            .map(|(f, &l)| {
                if l {
                    Field::new(f.name(), DataType::Utf8, true)
                } else {
                    f.as_ref().clone()
                }
            })
            .collect();
        let short_schema: SchemaRef = Arc::new(Schema::new(fields));
        let mut short = Vec::with_capacity(batches.len());
        for batch in batches {
            let mut columns = Vec::with_capacity(batch.num_columns());
            for (column, &l) in batch.columns().iter().zip(&long) {
                columns.push(if l {
                    shortened(column.as_ref(), &mut cut)?
                } else {
                    Arc::clone(column)
                });
            }
            short.push(RecordBatch::try_new(short_schema.clone(), columns)?);
        }
        arrow_cast::pretty::pretty_format_batches_with_schema(short_schema, &short)?.to_string()
    } else {
        arrow_cast::pretty::pretty_format_batches_with_schema(schema.clone(), batches)?.to_string()
    };
    let mut text = text;
    text.push('\n');
    if cut > 0 {
        let cells = if cut == 1 { "cell" } else { "cells" };
        text.push_str(&format!(
            "note: {cut} {cells} longer than {MAX_TABLE_CELL_CHARS} characters cut short (…) in \
             the table format; csv, json and ndjson print every value whole\n"
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, StringViewArray};

    fn batch(values: Vec<Option<String>>) -> (RecordBatch, SchemaRef) {
        let schema: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("s", DataType::Utf8View, true),
        ]));
        let n = values.len() as i64;
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from_iter_values(0..n)),
                Arc::new(StringViewArray::from_iter(values)),
            ],
        )
        .unwrap();
        (batch, schema)
    }

    #[test]
    fn a_10mb_cell_is_cut_short_in_the_table_with_a_note() {
        let (b, schema) = batch(vec![Some("é".repeat(10_000_000)), None, Some("x".into())]);
        let text = table_text(&[b], &schema).unwrap();
        // the work is bounded by the cut: the table is about a cell wide
        assert!(text.len() < 10 * MAX_TABLE_CELL_CHARS, "{}", text.len());
        let cut = format!("{}…", "é".repeat(MAX_TABLE_CELL_CHARS));
        assert!(text.contains(&cut), "{text}");
        assert!(!text.contains(&format!("{}é", "é".repeat(MAX_TABLE_CELL_CHARS))));
        assert!(
            text.contains("note: 1 cell longer than 1000 characters"),
            "{text}"
        );
        // the short cells and the NULL print as before
        assert!(text.contains("| 2 | x "), "{text}");
        assert!(text.contains("| 1 |  "), "{text}");
    }

    #[test]
    fn cells_at_the_limit_print_whole_without_a_note() {
        let at_limit = "y".repeat(MAX_TABLE_CELL_CHARS);
        let (b, schema) = batch(vec![Some(at_limit.clone())]);
        let text = table_text(std::slice::from_ref(&b), &schema).unwrap();
        assert!(text.contains(&format!("| {at_limit} |")), "{text}");
        assert!(!text.contains("note:"));
        let plain = arrow_cast::pretty::pretty_format_batches_with_schema(schema, &[b])
            .unwrap()
            .to_string();
        assert_eq!(text, plain + "\n", "unchanged when nothing is cut");
    }
}
