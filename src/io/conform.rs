//! Values cast to a table's declared column types, row by row accountable.
//!
//! A declared schema (`CREATE TABLE t (k BIGINT NOT NULL, ...)`) is
//! enforced by casting each column read from a file to its declared type
//! with Arrow's *safe* cast, which turns a value that does not fit into a
//! NULL. Comparing the NULLs before and after the cast finds those values
//! (and NULLs in NOT NULL columns) row by row: the CSV reader skips such
//! rows (`csv.ignore-parse-errors`) or names the first one's line, the other
//! formats name its row.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_cast::{CastOptions, can_cast_types, cast_with_options};
use arrow_schema::{ArrowError, Schema, SchemaRef};

/// What is wrong with one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Misfit {
    /// The value (as text) cannot be read as the column's type.
    Value(String),
    /// A NULL in a NOT NULL column.
    Null,
}

/// The first bad value of a batch: its row (in the batch) and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FirstMisfit {
    /// The row in the batch.
    pub(crate) row: usize,
    /// The column's index in the schema.
    pub(crate) column: usize,
    /// What is wrong.
    pub(crate) misfit: Misfit,
}

/// Columns cast to a schema, with the rows that did not fit.
pub(crate) struct Cast {
    /// The batch, bad rows included (their bad values are NULL; with bad
    /// rows, every column of this batch's schema is nullable).
    pub(crate) batch: RecordBatch,
    /// The schema asked for.
    schema: SchemaRef,
    /// Per row, whether some value of it did not fit; empty when none.
    bad: Vec<bool>,
    /// Per row, whether a value of a NOT NULL column did not fit (or was
    /// NULL): a row that cannot be kept with that value NULL; empty when
    /// none.
    not_null_bad: Vec<bool>,
    /// The first bad value in row order (then column order).
    pub(crate) first: Option<FirstMisfit>,
}

impl Cast {
    /// The number of bad rows.
    pub(crate) fn bad_rows(&self) -> usize {
        self.bad.iter().filter(|&&b| b).count()
    }

    /// The number of rows [`Cast::with_bad_values_null`] leaves out.
    pub(crate) fn rows_bad_in_not_null_columns(&self) -> usize {
        self.not_null_bad.iter().filter(|&&b| b).count()
    }

    /// The batch without its bad rows, in the schema asked for.
    pub(crate) fn without_bad_rows(self) -> Result<RecordBatch, ArrowError> {
        let drop = self.bad.clone();
        self.without(&drop)
    }

    /// The batch with each value that did not fit as NULL (Flink's
    /// `csv.ignore-parse-errors`: "fields are set to null in case of
    /// errors"), without the rows where that value is in a NOT NULL column,
    /// in the schema asked for.
    pub(crate) fn with_bad_values_null(self) -> Result<RecordBatch, ArrowError> {
        let drop = self.not_null_bad.clone();
        self.without(&drop)
    }

    /// The batch without the rows `drop` marks (none when it is empty),
    /// in the schema asked for.
    fn without(self, drop: &[bool]) -> Result<RecordBatch, ArrowError> {
        if self.bad.is_empty() {
            return Ok(self.batch);
        }
        let kept = if drop.is_empty() {
            self.batch
        } else {
            let keep: BooleanArray = drop.iter().map(|&b| Some(!b)).collect();
            arrow_select::filter::filter_record_batch(&self.batch, &keep)?
        };
        RecordBatch::try_new_with_options(
            self.schema,
            kept.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(kept.num_rows())),
        )
    }
}

/// How a column's text looks in a message.
fn value_text(array: &dyn Array, row: usize) -> String {
    let options = FormatOptions::default();
    match ArrayFormatter::try_new(array, &options) {
        Ok(f) => f.value(row).to_string(),
        Err(_) => "?".to_string(),
    }
}

/// Casts `columns` (one per field of `schema`, in order, all of one
/// length) to `schema`'s types and finds the values that do not fit.
///
/// # Errors
/// A message when a column's type cannot be cast to the declared type at
/// all (a list to an integer, say), naming the column and both types.
pub(crate) fn cast_to_schema(columns: &[ArrayRef], schema: &SchemaRef) -> Result<Cast, String> {
    let rows = columns.first().map_or(0, |c| c.len());
    let mut out = Vec::with_capacity(columns.len());
    let mut bad: Vec<bool> = Vec::new();
    let mut not_null_bad: Vec<bool> = Vec::new();
    let mut first: Option<FirstMisfit> = None;
    let options = CastOptions {
        safe: true,
        ..CastOptions::default()
    };
    for (c, (array, field)) in columns.iter().zip(schema.fields()).enumerate() {
        let target = field.data_type();
        let cast = if array.data_type() == target {
            Arc::clone(array)
        } else if can_cast_types(array.data_type(), target) {
            cast_with_options(array, target, &options).map_err(|e| {
                format!(
                    "column `{}`: cannot convert {} to {target}: {e}",
                    field.name(),
                    array.data_type()
                )
            })?
        } else {
            return Err(format!(
                "column `{}` holds {} values, which cannot be read as the declared {target}",
                field.name(),
                array.data_type()
            ));
        };
        if cast.null_count() > 0 {
            for row in 0..rows {
                if !cast.is_null(row) {
                    continue;
                }
                let misfit = if array.is_valid(row) {
                    Misfit::Value(value_text(array.as_ref(), row))
                } else if !field.is_nullable() {
                    Misfit::Null
                } else {
                    continue;
                };
                if bad.is_empty() {
                    bad = vec![false; rows];
                }
                bad[row] = true;
                if !field.is_nullable() {
                    if not_null_bad.is_empty() {
                        not_null_bad = vec![false; rows];
                    }
                    not_null_bad[row] = true;
                }
                if first.as_ref().is_none_or(|f| row < f.row) {
                    first = Some(FirstMisfit {
                        row,
                        column: c,
                        misfit,
                    });
                }
            }
        }
        out.push(cast);
    }
    // bad rows may hold NULLs in NOT NULL columns: until they are left
    // out, the batch's columns are all nullable
    let batch_schema = if bad.is_empty() {
        Arc::clone(schema)
    } else {
        let fields: Vec<_> = schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
    };
    let batch = RecordBatch::try_new_with_options(
        batch_schema,
        out,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| e.to_string())?;
    Ok(Cast {
        batch,
        schema: Arc::clone(schema),
        bad,
        not_null_bad,
        first,
    })
}

/// The columns of `batch` that `declared` names, found by name (exactly,
/// else ignoring case), in the declared order.
///
/// # Errors
/// A message naming the first declared column the batch does not have,
/// and listing the columns it has.
pub(crate) fn columns_by_name(
    batch: &RecordBatch,
    declared: &Schema,
) -> Result<Vec<ArrayRef>, String> {
    let schema = batch.schema();
    declared
        .fields()
        .iter()
        .map(|f| {
            let index = schema.index_of(f.name()).ok().or_else(|| {
                schema
                    .fields()
                    .iter()
                    .position(|g| g.name().eq_ignore_ascii_case(f.name()))
            });
            match index {
                Some(i) => Ok(Arc::clone(batch.column(i))),
                None => Err(format!(
                    "no column `{}`: the file's columns are {}",
                    f.name(),
                    schema
                        .fields()
                        .iter()
                        .map(|g| format!("`{}`", g.name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        })
        .collect()
}

/// The message for one bad value of column `name` declared as `ty`.
pub(crate) fn misfit_message(misfit: &Misfit, name: &str, ty: &arrow_schema::DataType) -> String {
    match misfit {
        Misfit::Value(v) => {
            format!("cannot read `{v}` as {ty}, the declared type of column `{name}`")
        }
        Misfit::Null => format!("NULL in column `{name}`, which is declared NOT NULL"),
    }
}
