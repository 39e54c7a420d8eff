//! The result of evaluating an expression on a batch: an array with one
//! value per row, or one scalar standing for every row.

use arrow_array::{Array, ArrayRef, BooleanArray, Datum, cast::AsArray};
use arrow_schema::{ArrowError, DataType};
use datafusion_common::ScalarValue;
use datafusion_expr::ColumnarValue;

/// An evaluated expression.
///
/// Literals and expressions over literals only stay scalars, so that Arrow
/// kernels get them as scalar [`Datum`]s (`a < 5` compares against one
/// value, it does not expand `5` into an array).
#[derive(Debug, Clone)]
pub enum Value {
    /// One value per row of the batch.
    Array(ArrayRef),
    /// One value for every row, held as a one-element array.
    Scalar(ArrayRef),
}

impl Datum for Value {
    fn get(&self) -> (&dyn Array, bool) {
        match self {
            Value::Array(a) => (a.as_ref(), false),
            Value::Scalar(s) => (s.as_ref(), true),
        }
    }
}

impl Value {
    /// A scalar value.
    ///
    /// # Errors
    ///
    /// A value Arrow cannot represent as an array.
    pub fn scalar(value: &ScalarValue) -> Result<Value, ArrowError> {
        value
            .to_array_of_size(1)
            .map(Value::Scalar)
            .map_err(|e| ArrowError::ComputeError(e.to_string()))
    }

    /// Wraps a kernel's result: scalar when every input was scalar (the
    /// kernel then returned one row), else an array.
    pub(crate) fn from_kernel(result: ArrayRef, all_scalar: bool) -> Value {
        if all_scalar && result.len() == 1 {
            Value::Scalar(result)
        } else {
            Value::Array(result)
        }
    }

    /// Whether this is a scalar.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Value::Scalar(_))
    }

    /// The Arrow type of the value.
    pub fn data_type(&self) -> &DataType {
        self.get().0.data_type()
    }

    /// The underlying array: all rows, or the one-element array of a scalar.
    pub fn inner(&self) -> &ArrayRef {
        match self {
            Value::Array(a) => a,
            Value::Scalar(s) => s,
        }
    }

    /// The value as an array of `rows` rows (a scalar is repeated).
    ///
    /// # Errors
    ///
    /// An array that does not have `rows` rows, or a scalar Arrow cannot
    /// repeat.
    pub fn into_array(self, rows: usize) -> Result<ArrayRef, ArrowError> {
        match self {
            Value::Array(a) if a.len() == rows => Ok(a),
            Value::Array(a) => Err(ArrowError::InvalidArgumentError(format!(
                "expression produced {} rows for a batch of {rows}",
                a.len()
            ))),
            Value::Scalar(s) => {
                let v = ScalarValue::try_from_array(s.as_ref(), 0)
                    .map_err(|e| ArrowError::ComputeError(e.to_string()))?;
                v.to_array_of_size(rows)
                    .map_err(|e| ArrowError::ComputeError(e.to_string()))
            }
        }
    }

    /// The value as a boolean array of `rows` rows.
    ///
    /// # Errors
    ///
    /// A value that is not boolean (or NULL-typed), or of the wrong length.
    pub fn into_boolean(self, rows: usize) -> Result<BooleanArray, ArrowError> {
        let array = self.into_array(rows)?;
        match array.data_type() {
            DataType::Boolean => Ok(array.as_boolean().clone()),
            DataType::Null => Ok(BooleanArray::new_null(rows)),
            other => Err(ArrowError::InvalidArgumentError(format!(
                "expected a boolean result, got {other}"
            ))),
        }
    }

    /// The value as a DataFusion [`ColumnarValue`], for DataFusion's scalar
    /// functions.
    ///
    /// # Errors
    ///
    /// A scalar of a type DataFusion's `ScalarValue` does not cover.
    pub(crate) fn to_columnar(&self) -> Result<ColumnarValue, ArrowError> {
        match self {
            Value::Array(a) => Ok(ColumnarValue::Array(a.clone())),
            Value::Scalar(s) => ScalarValue::try_from_array(s.as_ref(), 0)
                .map(ColumnarValue::Scalar)
                .map_err(|e| ArrowError::ComputeError(e.to_string())),
        }
    }

    /// A DataFusion [`ColumnarValue`] as a value.
    ///
    /// # Errors
    ///
    /// A scalar Arrow cannot represent.
    pub(crate) fn from_columnar(value: ColumnarValue) -> Result<Value, ArrowError> {
        match value {
            ColumnarValue::Array(a) => Ok(Value::Array(a)),
            ColumnarValue::Scalar(s) => Value::scalar(&s),
        }
    }
}

/// `b` with NULL read as false (what a filter keeps). Arrow's
/// `prep_null_mask_filter` requires a null buffer; this does not.
pub(crate) fn null_as_false(b: &BooleanArray) -> BooleanArray {
    match b.nulls() {
        Some(n) if n.null_count() > 0 => arrow_select::filter::prep_null_mask_filter(b),
        _ => BooleanArray::new(b.values().clone(), None),
    }
}
