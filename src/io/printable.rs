//! Whether a result's dates and times can be printed as text (the table,
//! CSV, JSON and NDJSON outputs): a timestamp of 2^63-1 milliseconds is a
//! valid Arrow value that no calendar date matches, and the writers would
//! print the text of their error in its place (or stop halfway). Checked
//! before anything is written, so such a value is an error naming its
//! column and row, never error text printed as a value.

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, SchemaRef};

use super::IoError;
use super::write::OutputFormat;

/// Whether values of `t` (or of a field nested in it) can fail to print.
fn has_time(t: &DataType) -> bool {
    use DataType::*;
    match t {
        Timestamp(..) | Date32 | Date64 | Time32(_) | Time64(_) => true,
        List(f)
        | LargeList(f)
        | ListView(f)
        | LargeListView(f)
        | FixedSizeList(f, _)
        | Map(f, _) => has_time(f.data_type()),
        Struct(fields) => fields.iter().any(|f| has_time(f.data_type())),
        Dictionary(_, v) => has_time(v),
        _ => false,
    }
}

/// Discards what is written: only whether formatting succeeds matters.
struct Sink;

impl std::fmt::Write for Sink {
    fn write_str(&mut self, _: &str) -> std::fmt::Result {
        Ok(())
    }
}

/// Checks that every date and time of `batches` (columns named by
/// `schema`) prints in `format`; binary formats hold any value.
///
/// # Errors
/// [`IoError::Unprintable`] for the first value that does not, by column
/// and row (counted from 1 over the whole result).
pub(super) fn check_printable(
    batches: &[RecordBatch],
    schema: &SchemaRef,
    format: OutputFormat,
) -> Result<(), IoError> {
    if format.is_binary() {
        return Ok(());
    }
    let options = FormatOptions::default().with_display_error(false);
    for (c, field) in schema.fields().iter().enumerate() {
        if !has_time(field.data_type()) {
            continue;
        }
        let mut before = 0usize;
        for batch in batches {
            let Some(array) = batch.columns().get(c) else {
                continue;
            };
            let bad = |row: usize, raw: Option<i64>| IoError::Unprintable {
                format,
                column: field.name().clone(),
                row: before + row + 1,
                why: match raw {
                    Some(v) => format!(
                        "its value {v} ({}) is outside the dates tenon can print (years \
                         -262143 to 262142)",
                        field.data_type()
                    ),
                    None => "a date or time in it is outside the dates tenon can print (years \
                             -262143 to 262142)"
                        .to_string(),
                },
            };
            let Ok(formatter) = ArrayFormatter::try_new(array.as_ref(), &options) else {
                // a type the writers cannot print at all: check_writable's
                continue;
            };
            let prints =
                |row: usize| array.is_null(row) || formatter.value(row).write(&mut Sink).is_ok();
            // a flat column: its smallest and largest values tell (the
            // printable values are one range); the first bad row is looked
            // for only when one of them fails
            let raw = arrow_cast::cast(array.as_ref(), &DataType::Int64).ok();
            let ints = raw
                .as_ref()
                .filter(|a| a.data_type() == &DataType::Int64)
                .map(|a| a.as_primitive::<Int64Type>());
            if let Some(ints) = ints {
                let mut low: Option<(usize, i64)> = None;
                let mut high: Option<(usize, i64)> = None;
                for (row, v) in ints.iter().enumerate() {
                    let Some(v) = v else { continue };
                    if low.is_none_or(|(_, l)| v < l) {
                        low = Some((row, v));
                    }
                    if high.is_none_or(|(_, h)| v > h) {
                        high = Some((row, v));
                    }
                }
                let ends_print = [low, high].iter().flatten().all(|&(row, _)| prints(row));
                if !ends_print && let Some(row) = (0..array.len()).find(|&r| !prints(r)) {
                    return Err(bad(row, ints.is_valid(row).then(|| ints.value(row))));
                }
            } else if let Some(row) = (0..array.len()).find(|&r| !prints(r)) {
                return Err(bad(row, None));
            }
            before += array.len();
        }
    }
    Ok(())
}
