//! Bounds on the strings that string-building functions make.
//!
//! `lpad(s, n [, fill])`, `rpad(...)` and `repeat(s, n)` make strings whose
//! size a literal chooses: `lpad('x', 2147483647)` asks for 2 GB in one
//! value, and a batch of such rows for thousands of times that. The
//! allocator's failure would abort the process, so before such a call runs
//! its output is bounded from its arguments: a value of more than
//! [`MAX_VALUE_BYTES`], or one evaluation (one batch of rows) making more
//! than [`MAX_CALL_BYTES`] in all, is refused with an error that names the
//! function, the row and the limit.
//!
//! The bound is an upper bound of the real size: `lpad` / `rpad` make at
//! most `n` characters, taken from `s` (at most its bytes) and from the
//! fill (at most `n` of its widest character); `repeat` makes `s`'s bytes
//! times `n`.

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

use crate::expr::error::{ExprError, Result};
use crate::expr::value::Value;

/// The most bytes one value of a string-building function may have (64 MiB).
pub const MAX_VALUE_BYTES: usize = 64 << 20;

/// The most bytes one evaluation of a string-building function (one batch of
/// rows) may make in all (256 MiB).
pub const MAX_CALL_BYTES: usize = 256 << 20;

/// Refuses a call of `name` over `args` (evaluated on a batch of `rows`
/// rows) whose output would exceed the bounds of the module docs; other
/// functions pass.
///
/// # Errors
///
/// [`ExprError::Eval`] naming the function, the row, the size and the limit.
pub(crate) fn check(text: &str, name: &str, args: &[Value], rows: usize) -> Result<()> {
    let pad = matches!(name, "lpad" | "rpad");
    if !(pad || name == "repeat") || args.len() < 2 {
        return Ok(());
    }
    let strings = array_of(&args[0]);
    let Ok(counts) = arrow_cast::cast(&array_of(&args[1]), &DataType::Int64) else {
        return Ok(());
    };
    let counts = counts.as_primitive::<Int64Type>();
    // lpad / rpad: the fill's widest character (a space by default)
    let fill_width = match args.get(2) {
        Some(fill) => widest_char(&array_of(fill)),
        None => 1,
    };
    let rows = if args.iter().all(Value::is_scalar) {
        1
    } else {
        rows
    };
    let mut total: usize = 0;
    for row in 0..rows {
        let c = if counts.len() == 1 { 0 } else { row };
        let s = if strings.len() == 1 { 0 } else { row };
        if counts.is_null(c) || strings.is_null(s) {
            continue;
        }
        let n = usize::try_from(counts.value(c)).unwrap_or(0);
        let bytes = string_bytes(&strings, s);
        let size = if pad {
            n.saturating_mul(4)
                .min(bytes.saturating_add(n.saturating_mul(fill_width)))
        } else {
            bytes.saturating_mul(n)
        };
        if size > MAX_VALUE_BYTES {
            return Err(too_large(
                text,
                name,
                format!(
                    "would make a string of up to {size} bytes (row {}), more than the \
                 {MAX_VALUE_BYTES} bytes (64 MiB) a value of {name}() may have",
                    row + 1
                ),
            ));
        }
        total = total.saturating_add(size);
        if total > MAX_CALL_BYTES {
            return Err(too_large(
                text,
                name,
                format!(
                    "would make {total} bytes of strings or more in one batch of {rows} rows, more \
                 than the {MAX_CALL_BYTES} bytes (256 MiB) one batch may make; lower batch_size \
                 (`--batch-size`) or make shorter strings"
                ),
            ));
        }
    }
    Ok(())
}

fn too_large(text: &str, name: &str, what: String) -> ExprError {
    ExprError::Eval {
        expr: text.to_string(),
        message: format!("{name}() {what}"),
    }
}

/// The value's one-row (scalar) or per-row array.
fn array_of(v: &Value) -> ArrayRef {
    match v {
        Value::Array(a) | Value::Scalar(a) => a.clone(),
    }
}

/// Bytes of the string at `row` of a string array (0 for other types).
fn string_bytes(a: &ArrayRef, row: usize) -> usize {
    match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(row).len(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(row).len(),
        DataType::Utf8View => a.as_string_view().value(row).len(),
        _ => 0,
    }
}

/// The widest character (in UTF-8 bytes) of a one-row fill string; 4 (the
/// widest there is) for a per-row fill.
fn widest_char(a: &ArrayRef) -> usize {
    if a.len() != 1 || a.is_null(0) {
        return 4;
    }
    let s = match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(0),
        DataType::LargeUtf8 => a.as_string::<i64>().value(0),
        DataType::Utf8View => a.as_string_view().value(0),
        _ => return 4,
    };
    s.chars().map(char::len_utf8).max().unwrap_or(1)
}
