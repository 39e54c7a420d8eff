//! The form in which a table held in memory keeps its rows: integer,
//! decimal and date columns in the narrowest signed integer type that holds
//! every value of the batch, and string columns of a few short values as a
//! dictionary with one-byte keys, widened back to the table's type morsel
//! by morsel as scans read them ([`widen`]).
//!
//! A scan of a held table is bound by the bytes it reads from memory, not
//! by the work per row: TPC-H's `lineitem` holds its prices, quantities and
//! discounts as 16-byte `DECIMAL(15, 2)` values whose unscaled values fit
//! in 4, 2 and 1 bytes. Held narrow, a filter over them reads a quarter of
//! the bytes from memory; the widened copy of a morsel (a few hundred KiB
//! at the default batch size) is written and read in the cache, in buffers
//! the allocator hands back morsel after morsel.
//!
//! Only the representation changes: the narrow value is the same integer
//! (a decimal's unscaled value, a date's days), so widening restores every
//! value and NULL exactly. A batch whose column needs the full width keeps
//! it as it is.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::UInt8Type;
use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Decimal128Type, Int8Type, Int16Type, Int32Type, Int64Type,
};
use arrow_array::{
    Array, ArrayRef, DictionaryArray, PrimitiveArray, RecordBatch, RecordBatchOptions,
    StringViewArray, UInt8Array,
};
use arrow_schema::{DataType, Field, Schema};
use rayon::prelude::*;

use crate::exec::{ExecError, Result};

/// `batches` in the held form: each column of a type [`narrowed`] handles
/// in the narrowest signed integer type that holds its values, batch by
/// batch (each batch's original dropped once its narrow copy is made, so
/// that the peak is one form of the table, not two).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Array, Decimal128Array, RecordBatch};
/// use arrow_schema::DataType;
/// use tenon_planner::exec::held_form::{compact, widen};
///
/// let prices = Decimal128Array::from(vec![Some(1_999), None, Some(25)])
///     .with_precision_and_scale(15, 2)
///     .unwrap();
/// let batch = RecordBatch::try_from_iter([("price", Arc::new(prices) as _)]).unwrap();
/// let held = compact(vec![batch.clone()]);
/// assert_eq!(held[0].column(0).data_type(), &DataType::Int16);
/// let widened = widen(held[0].clone(), batch.schema().fields()).unwrap();
/// assert_eq!(widened, batch);
/// ```
pub fn compact(batches: Vec<RecordBatch>) -> Vec<RecordBatch> {
    batches.into_par_iter().map(compact_batch).collect()
}

/// One batch in the held form ([`compact`]).
fn compact_batch(batch: RecordBatch) -> RecordBatch {
    let narrow: Vec<Option<ArrayRef>> = batch.columns().iter().map(narrowed).collect();
    if narrow.iter().all(Option::is_none) {
        return batch;
    }
    let schema = batch.schema();
    let (fields, columns): (Vec<Field>, Vec<ArrayRef>) = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .zip(narrow)
        .map(|((f, c), n)| match n {
            Some(n) => (f.as_ref().clone().with_data_type(n.data_type().clone()), n),
            None => (f.as_ref().clone(), Arc::clone(c)),
        })
        .unzip();
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    // The narrow columns have the rows and NULLs of the originals, so the
    // batch is valid; should it not be, the original is kept as it is.
    RecordBatch::try_new_with_options(schema, columns, &options).unwrap_or(batch)
}

/// `column` in the narrowest signed integer type that holds its values,
/// when that is narrower than its own: for Int16, Int32, Int64, Date32 and
/// Decimal128 columns; a Utf8View column of few short values as a
/// dictionary ([`dictionary`]). Others, and those that need their width:
/// `None`.
pub fn narrowed(column: &ArrayRef) -> Option<ArrayRef> {
    match column.data_type() {
        DataType::Int16 => narrow(column.as_primitive::<Int16Type>()),
        DataType::Int32 => narrow(column.as_primitive::<Int32Type>()),
        DataType::Int64 => narrow(column.as_primitive::<Int64Type>()),
        DataType::Date32 => narrow(column.as_primitive::<Date32Type>()),
        DataType::Decimal128(_, _) => narrow(column.as_primitive::<Decimal128Type>()),
        DataType::Utf8View => dictionary(column.as_string_view()),
        _ => None,
    }
}

/// A string column of at most 256 distinct values, each of at most 12
/// bytes (held inside its 16-byte view), as a dictionary of those values
/// with one-byte keys (TPC-H's flags, ship modes, priorities and
/// segments). Others: `None`.
fn dictionary(a: &StringViewArray) -> Option<ArrayRef> {
    // An inline view is the string itself (its length, then its bytes,
    // then zeros), so equal views are equal strings.
    const INLINE: u32 = 12;
    let mut distinct: ahash::AHashMap<u128, u8> = ahash::AHashMap::new();
    let mut values: Vec<u128> = Vec::new();
    let mut keys: Vec<u8> = Vec::with_capacity(a.len());
    for (i, &view) in a.views().iter().enumerate() {
        if a.is_null(i) {
            keys.push(0);
            continue;
        }
        if view as u32 > INLINE {
            return None;
        }
        let next = values.len();
        let key = *distinct.entry(view).or_insert_with(|| {
            values.push(view);
            next as u8
        });
        if values.len() > 256 {
            return None;
        }
        keys.push(key);
    }
    let values = StringViewArray::try_new(values.into(), Vec::new(), None).ok()?;
    let keys = UInt8Array::new(keys.into(), a.nulls().cloned());
    let dict = DictionaryArray::<UInt8Type>::try_new(keys, Arc::new(values)).ok()?;
    Some(Arc::new(dict))
}

/// `a`'s values in the narrowest of Int8, Int16, Int32 and Int64 that holds
/// every value that is not NULL, if narrower than `a`'s own type. (A NULL's
/// slot may hold any value; its narrow copy is truncated, and stays NULL.)
fn narrow<T>(a: &PrimitiveArray<T>) -> Option<ArrayRef>
where
    T: ArrowPrimitiveType,
    T::Native: Into<i128>,
{
    let (mut min, mut max) = (0i128, 0i128);
    let values = a.values();
    match a.nulls().filter(|n| n.null_count() > 0) {
        None => {
            for &v in values.iter() {
                let v: i128 = v.into();
                min = min.min(v);
                max = max.max(v);
            }
        }
        Some(nulls) => {
            for i in nulls.valid_indices() {
                let v: i128 = values[i].into();
                min = min.min(v);
                max = max.max(v);
            }
        }
    }
    let fits = |lo: i128, hi: i128| min >= lo && max <= hi;
    let width = if fits(i8::MIN.into(), i8::MAX.into()) {
        1
    } else if fits(i16::MIN.into(), i16::MAX.into()) {
        2
    } else if fits(i32::MIN.into(), i32::MAX.into()) {
        4
    } else if fits(i64::MIN.into(), i64::MAX.into()) {
        8
    } else {
        16
    };
    if width >= std::mem::size_of::<T::Native>() {
        return None;
    }
    // `as` truncates; every value that is not NULL fits, so only NULL
    // slots can change.
    Some(match width {
        1 => Arc::new(a.unary::<_, Int8Type>(|v| v.into() as i8)),
        2 => Arc::new(a.unary::<_, Int16Type>(|v| v.into() as i16)),
        4 => Arc::new(a.unary::<_, Int32Type>(|v| v.into() as i32)),
        _ => Arc::new(a.unary::<_, Int64Type>(|v| v.into() as i64)),
    })
}

/// `batch` (columns of a held table, some maybe in the held form) with
/// every column in the type of its field in `fields`: narrow columns are
/// widened, the others passed on as they are; the batch's own field names
/// are kept. A batch none of whose columns is narrow is returned as it is,
/// without a copy.
///
/// # Errors
///
/// [`ExecError::Unsupported`] when a column's type is neither its field's
/// nor a narrow form of it (a table whose batches do not match its schema).
pub fn widen(batch: RecordBatch, fields: &arrow_schema::Fields) -> Result<RecordBatch> {
    widen_columns(batch, fields, |_| true)
}

/// `batch` with the columns `which` says (by position) widened to the type
/// of their field in `fields`, as [`widen`] widens them; the others as they
/// are (a scan's runtime filters read their key columns widened, the filter
/// above it takes the rest narrow).
///
/// # Errors
///
/// As [`widen`].
pub fn widen_columns(
    batch: RecordBatch,
    fields: &arrow_schema::Fields,
    which: impl Fn(usize) -> bool,
) -> Result<RecordBatch> {
    let held = batch.schema();
    if held.fields().len() == fields.len()
        && held
            .fields()
            .iter()
            .zip(fields.iter())
            .enumerate()
            .all(|(i, (h, f))| h.data_type() == f.data_type() || !which(i))
    {
        return Ok(batch);
    }
    if held.fields().len() != fields.len() {
        return Err(ExecError::Unsupported(format!(
            "internal: a held batch of {} columns widened to {}",
            held.fields().len(),
            fields.len()
        )));
    }
    let (fields, columns): (Vec<Field>, Vec<ArrayRef>) = batch
        .columns()
        .iter()
        .zip(held.fields().iter().zip(fields.iter()))
        .enumerate()
        .map(|(i, (c, (h, f)))| {
            if c.data_type() == f.data_type() || !which(i) {
                return Ok((h.as_ref().clone(), Arc::clone(c)));
            }
            let column = widened(c, f.data_type())?;
            Ok((
                h.as_ref().clone().with_data_type(f.data_type().clone()),
                column,
            ))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    let schema = Arc::new(Schema::new_with_metadata(fields, held.metadata().clone()));
    RecordBatch::try_new_with_options(schema, columns, &options)
        .map_err(|e| ExecError::arrow("widening a held table's columns", e))
}

/// Whether a column of type `held` is a narrow form of type `logical`
/// (what [`compact`] makes of it): a signed integer type narrower than
/// `logical`, never as wide (a column of another type than its field's is
/// an error, not a value to convert).
pub fn is_narrow_form(held: &DataType, logical: &DataType) -> bool {
    match held {
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            matches!(
                logical,
                DataType::Int16
                    | DataType::Int32
                    | DataType::Int64
                    | DataType::Date32
                    | DataType::Decimal128(_, _)
            ) && held.primitive_width() < logical.primitive_width()
        }
        DataType::Dictionary(k, v) => {
            **k == DataType::UInt8 && **v == DataType::Utf8View && *logical == DataType::Utf8View
        }
        _ => false,
    }
}

/// The narrow column `c` in type `to` (see [`widen`]).
///
/// # Errors
///
/// [`ExecError::Unsupported`] when `c`'s type is not a narrow form of `to`.
pub fn widened(c: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
    // Each arm converts from the narrow type to `$out`'s native type with
    // `as`, which is exact: the narrow type is narrower than the target.
    macro_rules! from_narrow {
        ($out:ty) => {
            match c.data_type() {
                DataType::Int8 => Some(c.as_primitive::<Int8Type>().unary::<_, $out>(|v| v as _)),
                DataType::Int16 => Some(c.as_primitive::<Int16Type>().unary::<_, $out>(|v| v as _)),
                DataType::Int32 => Some(c.as_primitive::<Int32Type>().unary::<_, $out>(|v| v as _)),
                DataType::Int64 => Some(c.as_primitive::<Int64Type>().unary::<_, $out>(|v| v as _)),
                _ => None,
            }
        };
    }
    let out: Option<ArrayRef> = match to {
        DataType::Int16 => from_narrow!(Int16Type).map(|a| Arc::new(a) as ArrayRef),
        DataType::Int32 => from_narrow!(Int32Type).map(|a| Arc::new(a) as ArrayRef),
        DataType::Int64 => from_narrow!(Int64Type).map(|a| Arc::new(a) as ArrayRef),
        DataType::Date32 => from_narrow!(Date32Type).map(|a| Arc::new(a) as ArrayRef),
        DataType::Utf8View => match c.as_any_dictionary_opt() {
            Some(d) => Some(
                arrow_select::take::take(d.values().as_ref(), d.keys(), None)
                    .map_err(|e| ExecError::arrow("widening a held string column", e))?,
            ),
            None => None,
        },
        DataType::Decimal128(p, s) => from_narrow!(Decimal128Type)
            .map(|a| a.with_precision_and_scale(*p, *s))
            .transpose()
            .map_err(|e| ExecError::arrow("widening a held decimal column", e))?
            .map(|a| Arc::new(a) as ArrayRef),
        _ => None,
    };
    out.ok_or_else(|| {
        ExecError::Unsupported(format!(
            "internal: a held column of type {} where its table has {to}",
            c.data_type()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Date32Array, Decimal128Array, Int32Array, Int64Array, StringArray};

    fn round_trip(column: ArrayRef) -> (DataType, ArrayRef) {
        let batch = RecordBatch::try_from_iter([("c", column)]).unwrap();
        let held = compact(vec![batch.clone()]).pop().unwrap();
        let narrow = held.column(0).data_type().clone();
        let back = widen(held, batch.schema().fields()).unwrap();
        assert_eq!(back.schema(), batch.schema());
        (narrow, Arc::clone(back.column(0)))
    }

    #[test]
    fn each_column_is_held_in_the_narrowest_type_of_its_values_and_widened_exactly() {
        let cases: Vec<(ArrayRef, DataType)> = vec![
            (
                Arc::new(Int64Array::from(vec![Some(-128), None, Some(127)])),
                DataType::Int8,
            ),
            (
                Arc::new(Int64Array::from(vec![Some(-129), Some(127)])),
                DataType::Int16,
            ),
            (
                Arc::new(Int64Array::from(vec![0, 60_000_000])),
                DataType::Int32,
            ),
            (
                Arc::new(Int64Array::from(vec![0, i64::from(i32::MAX) + 1])),
                DataType::Int64,
            ),
            (
                Arc::new(Int32Array::from(vec![i32::MIN, 0])),
                DataType::Int32,
            ),
            (
                Arc::new(Date32Array::from(vec![Some(8_035), None, Some(10_591)])),
                DataType::Int16,
            ),
            (
                Arc::new(
                    Decimal128Array::from(vec![Some(10_494_950), None, Some(-90_000)])
                        .with_precision_and_scale(15, 2)
                        .unwrap(),
                ),
                DataType::Int32,
            ),
            (
                Arc::new(
                    Decimal128Array::from(vec![i128::from(i64::MAX) + 1, 0])
                        .with_precision_and_scale(38, 0)
                        .unwrap(),
                ),
                DataType::Decimal128(38, 0),
            ),
            (Arc::new(StringArray::from(vec!["a"])), DataType::Utf8),
        ];
        for (column, narrow) in cases {
            let (held, back) = round_trip(Arc::clone(&column));
            assert_eq!(held, narrow, "{column:?}");
            assert_eq!(&back, &column);
        }
    }

    #[test]
    fn a_string_column_of_few_short_values_is_held_as_a_dictionary() {
        use arrow_array::StringViewArray;
        let flags: ArrayRef = Arc::new(StringViewArray::from(vec![
            Some("R"),
            None,
            Some("twelve bytes"),
            Some("R"),
            Some(""),
        ]));
        let (held, back) = round_trip(Arc::clone(&flags));
        assert_eq!(
            held,
            DataType::Dictionary(Box::new(DataType::UInt8), Box::new(DataType::Utf8View))
        );
        assert_eq!(&back, &flags);
        // A value longer than 12 bytes, or over 256 distinct values: kept.
        let long: ArrayRef = Arc::new(StringViewArray::from(vec!["thirteen byte"]));
        assert_eq!(round_trip(long).0, DataType::Utf8View);
        let many: ArrayRef = Arc::new(StringViewArray::from_iter_values(
            (0..257).map(|i| i.to_string()),
        ));
        let (held, back) = round_trip(Arc::clone(&many));
        assert_eq!(held, DataType::Utf8View);
        assert_eq!(&back, &many);
        let most: ArrayRef = Arc::new(StringViewArray::from_iter_values(
            (0..256).map(|i| i.to_string()),
        ));
        let (held, back) = round_trip(Arc::clone(&most));
        assert!(matches!(held, DataType::Dictionary(_, _)));
        assert_eq!(&back, &most);
    }

    #[test]
    fn only_a_narrower_integer_type_is_a_narrow_form() {
        assert!(is_narrow_form(
            &DataType::Int16,
            &DataType::Decimal128(15, 2)
        ));
        assert!(is_narrow_form(&DataType::Int8, &DataType::Date32));
        assert!(is_narrow_form(&DataType::Int32, &DataType::Int64));
        assert!(!is_narrow_form(&DataType::Int64, &DataType::Int64));
        assert!(!is_narrow_form(&DataType::Int32, &DataType::Date32));
        assert!(!is_narrow_form(&DataType::Int32, &DataType::Int16));
        assert!(!is_narrow_form(&DataType::Int8, &DataType::Utf8View));
    }

    #[test]
    fn a_null_slot_holding_a_wide_value_does_not_widen_the_held_type() {
        // A NULL's slot may hold any value (here one no narrow type holds).
        let values = Int64Array::from(vec![i64::MAX, 5, -3]);
        let nulls = arrow_buffer::NullBuffer::from(vec![false, true, true]);
        let column: ArrayRef = Arc::new(Int64Array::new(values.values().clone(), Some(nulls)));
        let (held, back) = round_trip(column);
        assert_eq!(held, DataType::Int8);
        let back = back.as_primitive::<Int64Type>();
        assert!(back.is_null(0));
        assert_eq!((back.value(1), back.value(2)), (5, -3));
    }

    #[test]
    fn a_column_of_only_nulls_and_an_empty_batch_round_trip() {
        let (held, back) = round_trip(Arc::new(Int64Array::from(vec![None, None])));
        assert_eq!(held, DataType::Int8);
        assert_eq!(back.null_count(), 2);
        let (_, back) = round_trip(Arc::new(Int64Array::from(Vec::<i64>::new())));
        assert_eq!(back.len(), 0);
    }

    #[test]
    fn a_column_whose_type_is_not_a_narrow_form_of_its_field_is_an_error() {
        let batch =
            RecordBatch::try_from_iter([("c", Arc::new(StringArray::from(vec!["x"])) as _)])
                .unwrap();
        let fields = arrow_schema::Fields::from(vec![Field::new("c", DataType::Int64, true)]);
        let e = widen(batch, &fields).unwrap_err().to_string();
        assert!(e.contains("held column of type Utf8"), "{e}");
    }
}
