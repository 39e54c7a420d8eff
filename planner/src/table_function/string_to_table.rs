//! `string_to_table(text, delimiter)`: one row per piece of the text.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, UInt32Array};
use arrow_schema::{DataType, Field, FieldRef};

use super::{TableFunction, TableFunctionRows, TableFunctionSink};

/// `string_to_table(text, delimiter)`, as PostgreSQL's: one row (column
/// `string_to_table`, text) per piece of `text` split at each occurrence of
/// `delimiter`, in order. A NULL text gives no row; an empty delimiter gives
/// the whole text as one row; a NULL delimiter splits into characters.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, StringArray, cast::AsArray};
/// use tenon_planner::table_function::{StringToTable, TableFunction};
///
/// let text: ArrayRef = Arc::new(StringArray::from(vec![Some("a,b"), None, Some("c")]));
/// let delim: ArrayRef = Arc::new(StringArray::from(vec![","; 3]));
/// let mut pieces = Vec::new();
/// StringToTable
///     .call(&[text, delim], 8192, &mut |chunk| {
///         let col = chunk.columns[0].as_string::<i32>();
///         for (row, piece) in chunk.rows.values().iter().zip(col.iter()) {
///             pieces.push((*row, piece.unwrap().to_string()));
///         }
///         Ok(())
///     })
///     .unwrap();
/// assert_eq!(pieces, vec![(0, "a".into()), (0, "b".into()), (2, "c".into())]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct StringToTable;

impl TableFunction for StringToTable {
    fn name(&self) -> &str {
        "string_to_table"
    }

    fn columns(&self, args: &[DataType]) -> Result<Vec<FieldRef>, String> {
        let text = |t: &DataType| {
            matches!(
                t,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null
            )
        };
        match args {
            [a, b] if text(a) && text(b) => Ok(vec![Arc::new(Field::new(
                "string_to_table",
                DataType::Utf8,
                true,
            ))]),
            _ => Err(format!(
                "string_to_table(text, delimiter) takes two strings, not ({})",
                type_list(args)
            )),
        }
    }

    fn call(
        &self,
        args: &[ArrayRef],
        max_rows: usize,
        sink: &mut TableFunctionSink<'_>,
    ) -> Result<(), String> {
        let cast = |a: &ArrayRef| {
            arrow_cast::cast(a, &DataType::Utf8).map_err(|e| format!("string_to_table: {e}"))
        };
        let (text, delim) = match args {
            [a, b] => (cast(a)?, cast(b)?),
            _ => return Err("string_to_table takes two arguments".into()),
        };
        let (text, delim) = (text.as_string::<i32>(), delim.as_string::<i32>());
        let mut rows = Vec::new();
        let mut out = StringBuilder::new();
        let mut flush = |rows: &mut Vec<u32>, out: &mut StringBuilder| {
            let chunk = TableFunctionRows {
                rows: UInt32Array::from(std::mem::take(rows)),
                columns: vec![Arc::new(out.finish()) as ArrayRef],
            };
            sink(chunk)
        };
        for row in 0..text.len() {
            if text.is_null(row) {
                continue;
            }
            let t = text.value(row);
            let r = u32::try_from(row).map_err(|_| "string_to_table: too many rows".to_string())?;
            let mut push = |piece: &str| {
                rows.push(r);
                out.append_value(piece);
            };
            if delim.is_null(row) {
                t.chars().for_each(|c| push(c.encode_utf8(&mut [0; 4])));
            } else if delim.value(row).is_empty() {
                push(t);
            } else {
                t.split(delim.value(row)).for_each(push);
            }
            if rows.len() >= max_rows {
                flush(&mut rows, &mut out)?;
            }
        }
        if !rows.is_empty() {
            flush(&mut rows, &mut out)?;
        }
        Ok(())
    }
}

/// `a, b, c` of the argument types, for messages.
pub(super) fn type_list(args: &[DataType]) -> String {
    args.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
