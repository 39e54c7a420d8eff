//! A database's values to the Arrow arrays of a lookup table's declared
//! columns, and the keys of a request to the values a query binds.
//!
//! Every store gives values in a few kinds (integers, reals, text, NULL);
//! each declared type takes the kinds that fit it: an integer column
//! integers in its range, a floating column integers and reals, a text
//! column text, a boolean column 0 and 1 (or `true`/`false`, `t`/`f`), and a date,
//! timestamp or decimal column the text the database stores it as (parsed
//! as Arrow casts text) or a number. A value that does not fit is an error
//! naming the column and the value, never a silent NULL. A store that gives
//! every value as text (PostgreSQL's text output) is read the same way:
//! numbers and booleans are parsed from their text.

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float32Builder, Float64Builder, StringBuilder};
use arrow_array::{Array, ArrayRef, new_null_array};
use arrow_schema::DataType;

/// One value as a store gives it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SqlValue {
    /// NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes (no declared type takes them).
    Blob,
}

impl SqlValue {
    fn shown(&self) -> String {
        match self {
            SqlValue::Null => "NULL".into(),
            SqlValue::Int(i) => i.to_string(),
            SqlValue::Real(r) => r.to_string(),
            SqlValue::Text(t) => format!("'{t}'"),
            SqlValue::Blob => "a BLOB".into(),
        }
    }
}

/// Whether the declared type is one a lookup table can have.
pub(crate) fn supported(t: &DataType) -> bool {
    use DataType::*;
    matches!(
        t,
        Int8 | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Float32
            | Float64
            | Boolean
            | Utf8
            | LargeUtf8
            | Utf8View
            | Date32
            | Date64
            | Timestamp(_, _)
            | Decimal128(_, _)
    )
}

/// The column's values as an array of type `to`.
///
/// # Errors
/// A value that does not fit, naming `column` (`where_` says which table).
pub(crate) fn to_array(
    values: &[SqlValue],
    to: &DataType,
    column: &str,
    where_: &str,
) -> Result<ArrayRef, String> {
    let misfit = |v: &SqlValue| {
        format!(
            "{where_}: column `{column}` holds {}, which does not fit its declared type {to}",
            v.shown()
        )
    };
    if values.iter().all(|v| *v == SqlValue::Null) {
        return Ok(new_null_array(to, values.len()));
    }
    let array: ArrayRef = match to {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => {
            let mut ints = Vec::with_capacity(values.len());
            for v in values {
                ints.push(match v {
                    SqlValue::Null => None,
                    SqlValue::Int(i) => Some(*i),
                    SqlValue::Real(r) if r.fract() == 0.0 && r.abs() < 9.0e15 => Some(*r as i64),
                    SqlValue::Text(t) => Some(t.trim().parse::<i64>().map_err(|_| misfit(v))?),
                    other => return Err(misfit(other)),
                });
            }
            let wide: ArrayRef = Arc::new(arrow_array::Int64Array::from(ints));
            narrow(&wide, to, values, &misfit)?
        }
        DataType::Float32 | DataType::Float64 => {
            let mut reals = Vec::with_capacity(values.len());
            for v in values {
                reals.push(match v {
                    SqlValue::Null => None,
                    SqlValue::Int(i) => Some(*i as f64),
                    SqlValue::Real(r) => Some(*r),
                    SqlValue::Text(t) => Some(parse_real(t).ok_or_else(|| misfit(v))?),
                    other => return Err(misfit(other)),
                });
            }
            if *to == DataType::Float32 {
                let mut b = Float32Builder::with_capacity(reals.len());
                reals
                    .iter()
                    .for_each(|r| b.append_option(r.map(|x| x as f32)));
                Arc::new(b.finish())
            } else {
                let mut b = Float64Builder::with_capacity(reals.len());
                reals.iter().for_each(|r| b.append_option(*r));
                Arc::new(b.finish())
            }
        }
        DataType::Boolean => {
            let mut b = BooleanBuilder::with_capacity(values.len());
            for v in values {
                match v {
                    SqlValue::Null => b.append_null(),
                    SqlValue::Int(0) => b.append_value(false),
                    SqlValue::Int(1) => b.append_value(true),
                    SqlValue::Text(t)
                        if ["true", "t"].iter().any(|x| t.eq_ignore_ascii_case(x)) =>
                    {
                        b.append_value(true)
                    }
                    SqlValue::Text(t)
                        if ["false", "f"].iter().any(|x| t.eq_ignore_ascii_case(x)) =>
                    {
                        b.append_value(false)
                    }
                    other => return Err(misfit(other)),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let mut b = StringBuilder::with_capacity(values.len(), values.len() * 8);
            for v in values {
                match v {
                    SqlValue::Null => b.append_null(),
                    SqlValue::Text(t) => b.append_value(t),
                    other => return Err(misfit(other)),
                }
            }
            let text: ArrayRef = Arc::new(b.finish());
            cast(&text, to, &|| misfit(&SqlValue::Text("...".into())))?
        }
        _ => {
            // dates, timestamps, decimals: from text (as stored) or numbers
            let mut b = StringBuilder::with_capacity(values.len(), values.len() * 12);
            for v in values {
                match v {
                    SqlValue::Null => b.append_null(),
                    SqlValue::Text(t) => b.append_value(t),
                    SqlValue::Int(i) if matches!(to, DataType::Decimal128(..)) => {
                        b.append_value(i.to_string())
                    }
                    SqlValue::Real(r) if matches!(to, DataType::Decimal128(..)) => {
                        b.append_value(r.to_string())
                    }
                    other => return Err(misfit(other)),
                }
            }
            let text: ArrayRef = Arc::new(b.finish());
            let first_bad = || {
                values
                    .iter()
                    .find(|v| {
                        let one = match v {
                            SqlValue::Text(t) => t.clone(),
                            other => other.shown(),
                        };
                        let a: ArrayRef = Arc::new(arrow_array::StringArray::from(vec![one]));
                        arrow_cast::cast_with_options(&a, to, &strict()).is_err()
                    })
                    .map_or_else(
                        || format!("{where_}: column `{column}`: a value does not fit {to}"),
                        misfit,
                    )
            };
            cast(&text, to, &first_bad)?
        }
    };
    Ok(array)
}

/// A real as PostgreSQL writes one (`1.5`, `NaN`, `Infinity`).
fn parse_real(t: &str) -> Option<f64> {
    match t.trim() {
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        other => other.parse().ok(),
    }
}

fn strict() -> arrow_cast::CastOptions<'static> {
    arrow_cast::CastOptions {
        safe: false,
        ..Default::default()
    }
}

fn cast(a: &ArrayRef, to: &DataType, bad: &dyn Fn() -> String) -> Result<ArrayRef, String> {
    if a.data_type() == to {
        return Ok(Arc::clone(a));
    }
    arrow_cast::cast_with_options(a, to, &strict()).map_err(|_| bad())
}

/// `wide` (Int64) as the narrower integer type `to`; a value out of its
/// range is an error naming it.
fn narrow(
    wide: &ArrayRef,
    to: &DataType,
    values: &[SqlValue],
    misfit: &dyn Fn(&SqlValue) -> String,
) -> Result<ArrayRef, String> {
    cast(wide, to, &|| {
        let a = wide.as_any().downcast_ref::<arrow_array::Int64Array>();
        let bad = a.and_then(|a| {
            (0..a.len()).find(|&i| {
                let one: ArrayRef = Arc::new(arrow_array::Int64Array::from(vec![a.value(i)]));
                a.is_valid(i) && arrow_cast::cast_with_options(&one, to, &strict()).is_err()
            })
        });
        match bad {
            Some(i) => misfit(&values[i]),
            None => misfit(&SqlValue::Null),
        }
    })
}

/// The value of `keys[row]` to bind in a query: integers and booleans as
/// integers, floats as reals, everything else as its text.
pub(crate) fn key_value(keys: &ArrayRef, row: usize) -> SqlValue {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    if keys.is_null(row) {
        return SqlValue::Null;
    }
    macro_rules! int {
        ($t:ty) => {
            SqlValue::Int(keys.as_primitive::<$t>().value(row) as i64)
        };
    }
    match keys.data_type() {
        DataType::Int8 => int!(Int8Type),
        DataType::Int16 => int!(Int16Type),
        DataType::Int32 => int!(Int32Type),
        DataType::Int64 => int!(Int64Type),
        DataType::UInt8 => int!(UInt8Type),
        DataType::UInt16 => int!(UInt16Type),
        DataType::UInt32 => int!(UInt32Type),
        DataType::UInt64 => int!(UInt64Type),
        DataType::Float32 => SqlValue::Real(keys.as_primitive::<Float32Type>().value(row) as f64),
        DataType::Float64 => SqlValue::Real(keys.as_primitive::<Float64Type>().value(row)),
        DataType::Boolean => SqlValue::Int(i64::from(keys.as_boolean().value(row))),
        _ => SqlValue::Text(
            arrow_cast::display::array_value_to_string(keys, row).unwrap_or_default(),
        ),
    }
}
