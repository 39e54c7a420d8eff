//! From index vectors to output batches: the one place that gathers.
//!
//! Matching produces row indices; this module turns them into
//! `RecordBatch`es with Arrow's `take`, in the column order and with the
//! nullability the join type asks for (see [`crate::JoinType`]).

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, UInt32Array, new_null_array};
use arrow_schema::{Field, Schema, SchemaRef};

use crate::error::{KernelError, Result};
use crate::join_type::JoinType;
use crate::rows::RowSource;

/// Output schema and the input columns behind each output column.
#[derive(Debug, Clone)]
pub(crate) struct OutputLayout {
    pub schema: SchemaRef,
    left: Option<Vec<usize>>,
    right: Option<Vec<usize>>,
}

fn side_columns(schema: &Schema, projection: Option<&[usize]>, side: &str) -> Result<Vec<usize>> {
    match projection {
        None => Ok((0..schema.fields().len()).collect()),
        Some(p) => {
            if let Some(bad) = p.iter().find(|&&c| c >= schema.fields().len()) {
                return Err(KernelError::InvalidOptions(format!(
                    "{side} projection names column {bad}, but the {side} input has {} columns",
                    schema.fields().len()
                )));
            }
            Ok(p.to_vec())
        }
    }
}

/// The output schema of a join.
///
/// `Inner`/`Left`/`Right`/`Full`: the left columns then the right columns,
/// the NULL-extended side's fields made nullable. Semi and anti joins: the
/// kept side's columns. A projection keeps only (and orders) the listed
/// columns of its side.
///
/// # Errors
///
/// A projection index out of range.
pub fn join_schema(
    left: &Schema,
    right: &Schema,
    join_type: JoinType,
    left_projection: Option<&[usize]>,
    right_projection: Option<&[usize]>,
) -> Result<SchemaRef> {
    Ok(OutputLayout::new(left, right, join_type, left_projection, right_projection)?.schema)
}

impl OutputLayout {
    pub(crate) fn new(
        left: &Schema,
        right: &Schema,
        join_type: JoinType,
        left_projection: Option<&[usize]>,
        right_projection: Option<&[usize]>,
    ) -> Result<Self> {
        let (has_left, has_right) = join_type.output_sides();
        let lcols = side_columns(left, left_projection, "left")?;
        let rcols = side_columns(right, right_projection, "right")?;
        let mut fields: Vec<Field> = Vec::new();
        if has_left {
            for &c in &lcols {
                let f = left.field(c).clone();
                let nullable = f.is_nullable() || join_type.left_nullable();
                fields.push(f.with_nullable(nullable));
            }
        }
        if has_right {
            for &c in &rcols {
                let f = right.field(c).clone();
                let nullable = f.is_nullable() || join_type.right_nullable();
                fields.push(f.with_nullable(nullable));
            }
        }
        Ok(OutputLayout {
            schema: Arc::new(Schema::new(fields)),
            left: has_left.then_some(lcols),
            right: has_right.then_some(rcols),
        })
    }

    /// Gathers `n` output rows. For each side present in the output,
    /// `Some((batch, rows))` takes those rows, `None` gives NULLs (the
    /// NULL-extended side of an outer join).
    pub(crate) fn gather(
        &self,
        left: Option<(&dyn RowSource, &UInt32Array)>,
        right: Option<(&dyn RowSource, &UInt32Array)>,
        n: usize,
    ) -> Result<RecordBatch> {
        let mut cols: Vec<ArrayRef> = Vec::with_capacity(self.schema.fields().len());
        for (spec, input) in [(&self.left, left), (&self.right, right)] {
            let Some(spec) = spec else { continue };
            match input {
                Some((source, rows)) => {
                    for &c in spec {
                        cols.push(source.gather(c, rows)?);
                    }
                }
                None => {
                    for _ in spec {
                        let f = self.schema.field(cols.len());
                        cols.push(new_null_array(f.data_type(), n));
                    }
                }
            }
        }
        let opts = RecordBatchOptions::new().with_row_count(Some(n));
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            cols,
            &opts,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Int64Array;
    use arrow_schema::DataType;

    #[test]
    fn zero_output_columns_give_batches_that_carry_a_row_count() {
        let schema = Schema::new(vec![Field::new("a", DataType::Int64, false)]);
        let batch = RecordBatch::try_new(
            Arc::new(schema.clone()),
            vec![Arc::new(Int64Array::from(vec![1, 2, 3]))],
        )
        .unwrap();
        for jt in JoinType::ALL {
            let layout = OutputLayout::new(&schema, &schema, jt, Some(&[]), Some(&[])).unwrap();
            assert!(layout.schema.fields().is_empty());
            let rows = UInt32Array::from(vec![0, 2]);
            let out = layout
                .gather(Some((&batch, &rows)), Some((&batch, &rows)), 2)
                .unwrap();
            assert_eq!((out.num_rows(), out.num_columns()), (2, 0), "{jt}");
            let out = layout.gather(None, None, 5).unwrap();
            assert_eq!((out.num_rows(), out.num_columns()), (5, 0), "{jt}");
        }
    }
}
