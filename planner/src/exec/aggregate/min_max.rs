//! `min(x)` and `max(x)`: per group, the least or greatest non-NULL value.
//!
//! Three accumulators by how values are held: fixed-width values in a
//! vector of natives (numbers, decimals, dates, times, timestamps,
//! durations), booleans, and strings / binaries as owned bytes (a group's
//! bytes are replaced, reusing their allocation, only when a better value
//! arrives). Floats are ordered as tenon compares them everywhere (see
//! [`canonical_floats`]): values are canonicalized first, so `-0.0` and
//! `0.0` are one value (`0.0`) and every NaN, whatever its sign bit, is one
//! NaN above `+inf` (the max of a group with a NaN is NaN).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, ArrowNativeTypeOp, ArrowPrimitiveType, BinaryArray, BinaryViewArray,
    BooleanArray, LargeBinaryArray, LargeStringArray, PrimitiveArray, StringArray, StringViewArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{ArrowError, DataType, IntervalUnit, TimeUnit};

use super::accumulate::{Accumulator, primitive};
use crate::exec::error::{ExecError, Result};
use tenon_kernels::canonical_floats;

/// A `min` (`max` when `max`) accumulator for values of `data_type`.
///
/// # Errors
///
/// [`ExecError::Unsupported`] for types without an order tenon aggregates
/// (intervals, lists, structs, ...).
pub(super) fn min_max(
    name: Arc<str>,
    data_type: &DataType,
    max: bool,
) -> Result<Box<dyn Accumulator>> {
    macro_rules! prim {
        ($t:ty) => {
            if max {
                Box::new(MinMaxAcc::<$t, true>::new(name, data_type.clone()))
                    as Box<dyn Accumulator>
            } else {
                Box::new(MinMaxAcc::<$t, false>::new(name, data_type.clone()))
                    as Box<dyn Accumulator>
            }
        };
    }
    use DataType as D;
    Ok(match data_type {
        D::Int8 => prim!(Int8Type),
        D::Int16 => prim!(Int16Type),
        D::Int32 => prim!(Int32Type),
        D::Int64 => prim!(Int64Type),
        D::UInt8 => prim!(UInt8Type),
        D::UInt16 => prim!(UInt16Type),
        D::UInt32 => prim!(UInt32Type),
        D::UInt64 => prim!(UInt64Type),
        D::Float16 => prim!(Float16Type),
        D::Float32 => prim!(Float32Type),
        D::Float64 => prim!(Float64Type),
        D::Decimal32(..) => prim!(Decimal32Type),
        D::Decimal64(..) => prim!(Decimal64Type),
        D::Decimal128(..) => prim!(Decimal128Type),
        D::Decimal256(..) => prim!(Decimal256Type),
        D::Date32 => prim!(Date32Type),
        D::Date64 => prim!(Date64Type),
        D::Time32(TimeUnit::Second) => prim!(Time32SecondType),
        D::Time32(TimeUnit::Millisecond) => prim!(Time32MillisecondType),
        D::Time64(TimeUnit::Microsecond) => prim!(Time64MicrosecondType),
        D::Time64(TimeUnit::Nanosecond) => prim!(Time64NanosecondType),
        D::Timestamp(TimeUnit::Second, _) => prim!(TimestampSecondType),
        D::Timestamp(TimeUnit::Millisecond, _) => prim!(TimestampMillisecondType),
        D::Timestamp(TimeUnit::Microsecond, _) => prim!(TimestampMicrosecondType),
        D::Timestamp(TimeUnit::Nanosecond, _) => prim!(TimestampNanosecondType),
        D::Duration(TimeUnit::Second) => prim!(DurationSecondType),
        D::Duration(TimeUnit::Millisecond) => prim!(DurationMillisecondType),
        D::Duration(TimeUnit::Microsecond) => prim!(DurationMicrosecondType),
        D::Duration(TimeUnit::Nanosecond) => prim!(DurationNanosecondType),
        D::Interval(IntervalUnit::YearMonth) => prim!(IntervalYearMonthType),
        D::Boolean if max => Box::new(MinMaxBool::<true>::default()),
        D::Boolean => Box::new(MinMaxBool::<false>::default()),
        D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary | D::BinaryView => {
            if max {
                Box::new(MinMaxBytes::<true>::new(name, data_type.clone()))
            } else {
                Box::new(MinMaxBytes::<false>::new(name, data_type.clone()))
            }
        }
        other => {
            return Err(ExecError::Unsupported(format!(
                "`{name}` over {other}: min and max take numbers, decimals, strings, \
                 binaries, booleans, dates, times, timestamps and durations"
            )));
        }
    })
}

/// Whether `v` replaces `cur` (a min keeps the least, a max the greatest).
fn better<N: ArrowNativeTypeOp, const MAX: bool>(v: N, cur: N) -> bool {
    if MAX { v.is_gt(cur) } else { v.is_lt(cur) }
}

/// Fixed-width values.
struct MinMaxAcc<T: ArrowPrimitiveType, const MAX: bool> {
    name: Arc<str>,
    data_type: DataType,
    values: Vec<T::Native>,
    seen: Vec<bool>,
}

impl<T: ArrowPrimitiveType, const MAX: bool> MinMaxAcc<T, MAX> {
    fn new(name: Arc<str>, data_type: DataType) -> Self {
        MinMaxAcc {
            name,
            data_type,
            values: Vec::new(),
            seen: Vec::new(),
        }
    }

    fn resize(&mut self, n: usize) {
        self.values.resize(n, T::Native::ZERO);
        self.seen.resize(n, false);
    }

    fn offer(&mut self, g: usize, v: T::Native) {
        if !self.seen[g] || better::<_, MAX>(v, self.values[g]) {
            self.values[g] = v;
            self.seen[g] = true;
        }
    }
}

impl<T: ArrowPrimitiveType, const MAX: bool> Accumulator for MinMaxAcc<T, MAX> {
    fn update(&mut self, groups: &[u32], values: Option<&ArrayRef>, n: usize) -> Result<()> {
        let Some(values) = values else { return Ok(()) };
        let values = canonical_floats(values);
        let values = primitive::<T>(&self.name, &values)?;
        self.resize(n);
        let it = groups.iter().zip(values.values().iter());
        match values.nulls().filter(|n| n.null_count() > 0) {
            None => it.for_each(|(&g, &v)| self.offer(g as usize, v)),
            Some(nulls) => it
                .zip(nulls.iter())
                .filter(|(_, valid)| *valid)
                .for_each(|((&g, &v), _)| self.offer(g as usize, v)),
        }
        Ok(())
    }

    fn update_all(&mut self, values: Option<&ArrayRef>, _rows: usize) -> Result<()> {
        let Some(values) = values else { return Ok(()) };
        let values = canonical_floats(values);
        let values = primitive::<T>(&self.name, &values)?;
        self.resize(1);
        let best = if MAX {
            arrow_arith::aggregate::max(values)
        } else {
            arrow_arith::aggregate::min(values)
        };
        if let Some(v) = best {
            self.offer(0, v);
        }
        Ok(())
    }

    fn state(&mut self, n: usize) -> Result<Vec<ArrayRef>> {
        Ok(vec![self.finish(n)?])
    }

    fn merge_rows(&mut self, groups: &[u32], state: &[ArrayRef], n: usize) -> Result<()> {
        self.update(groups, Some(&state[0]), n)
    }

    fn finish(&mut self, n: usize) -> Result<ArrayRef> {
        self.resize(n);
        let nulls = NullBuffer::from(std::mem::take(&mut self.seen));
        let values = std::mem::take(&mut self.values);
        let array =
            PrimitiveArray::<T>::new(values.into(), Some(nulls).filter(|n| n.null_count() > 0));
        Ok(Arc::new(array.with_data_type(self.data_type.clone())))
    }
}

/// Booleans: a min is an AND, a max an OR.
#[derive(Debug, Default)]
struct MinMaxBool<const MAX: bool> {
    values: Vec<bool>,
    seen: Vec<bool>,
}

impl<const MAX: bool> MinMaxBool<MAX> {
    fn offer(&mut self, g: usize, v: bool) {
        if !self.seen[g] {
            self.values[g] = v;
            self.seen[g] = true;
        } else if MAX {
            self.values[g] |= v;
        } else {
            self.values[g] &= v;
        }
    }

    fn booleans(values: &ArrayRef) -> Result<&BooleanArray> {
        values.as_boolean_opt().ok_or_else(|| {
            ExecError::arrow(
                "aggregate (min/max)",
                ArrowError::InvalidArgumentError(format!(
                    "internal: expected booleans, got {}",
                    values.data_type()
                )),
            )
        })
    }
}

impl<const MAX: bool> Accumulator for MinMaxBool<MAX> {
    fn update(&mut self, groups: &[u32], values: Option<&ArrayRef>, n: usize) -> Result<()> {
        let Some(values) = values else { return Ok(()) };
        let values = Self::booleans(values)?;
        self.values.resize(n, false);
        self.seen.resize(n, false);
        for (&g, v) in groups.iter().zip(values.iter()) {
            if let Some(v) = v {
                self.offer(g as usize, v);
            }
        }
        Ok(())
    }

    fn update_all(&mut self, values: Option<&ArrayRef>, _rows: usize) -> Result<()> {
        let Some(values) = values else { return Ok(()) };
        let values = Self::booleans(values)?;
        self.values.resize(1, false);
        self.seen.resize(1, false);
        let best = if MAX {
            arrow_arith::aggregate::max_boolean(values)
        } else {
            arrow_arith::aggregate::min_boolean(values)
        };
        if let Some(v) = best {
            self.offer(0, v);
        }
        Ok(())
    }

    fn state(&mut self, n: usize) -> Result<Vec<ArrayRef>> {
        Ok(vec![self.finish(n)?])
    }

    fn merge_rows(&mut self, groups: &[u32], state: &[ArrayRef], n: usize) -> Result<()> {
        self.update(groups, Some(&state[0]), n)
    }

    fn finish(&mut self, n: usize) -> Result<ArrayRef> {
        self.values.resize(n, false);
        self.seen.resize(n, false);
        let values = std::mem::take(&mut self.values);
        let seen = std::mem::take(&mut self.seen);
        let array: BooleanArray = values
            .into_iter()
            .zip(seen)
            .map(|(v, s)| s.then_some(v))
            .collect();
        Ok(Arc::new(array))
    }
}

/// Strings and binaries, compared as bytes (UTF-8 bytes order as code
/// points do).
#[derive(Debug)]
struct MinMaxBytes<const MAX: bool> {
    name: Arc<str>,
    data_type: DataType,
    values: Vec<Option<Vec<u8>>>,
}

impl<const MAX: bool> MinMaxBytes<MAX> {
    fn new(name: Arc<str>, data_type: DataType) -> Self {
        MinMaxBytes {
            name,
            data_type,
            values: Vec::new(),
        }
    }

    fn offer(slot: &mut Option<Vec<u8>>, v: &[u8]) {
        match slot {
            Some(cur) if (MAX && v > cur.as_slice()) || (!MAX && v < cur.as_slice()) => {
                cur.clear();
                cur.extend_from_slice(v);
            }
            Some(_) => {}
            None => *slot = Some(v.to_vec()),
        }
    }
}

/// Calls `f(row, bytes)` for every non-NULL value of a string or binary
/// array.
fn for_each_bytes(values: &ArrayRef, mut f: impl FnMut(usize, &[u8])) -> Result<()> {
    macro_rules! each {
        ($a:expr, $bytes:expr) => {{
            let a = $a;
            for i in 0..a.len() {
                if a.is_valid(i) {
                    f(i, $bytes(a.value(i)));
                }
            }
        }};
    }
    match values.data_type() {
        DataType::Utf8 => each!(values.as_string::<i32>(), str::as_bytes),
        DataType::LargeUtf8 => each!(values.as_string::<i64>(), str::as_bytes),
        DataType::Utf8View => each!(values.as_string_view(), str::as_bytes),
        DataType::Binary => each!(values.as_binary::<i32>(), |b| b),
        DataType::LargeBinary => each!(values.as_binary::<i64>(), |b| b),
        DataType::BinaryView => each!(values.as_binary_view(), |b| b),
        other => {
            return Err(ExecError::arrow(
                "aggregate (min/max)",
                ArrowError::InvalidArgumentError(format!(
                    "internal: expected strings or binaries, got {other}"
                )),
            ));
        }
    }
    Ok(())
}

impl<const MAX: bool> Accumulator for MinMaxBytes<MAX> {
    fn update(&mut self, groups: &[u32], values: Option<&ArrayRef>, n: usize) -> Result<()> {
        let Some(values) = values else { return Ok(()) };
        self.values.resize(n, None);
        let slots = &mut self.values;
        for_each_bytes(values, |i, v| {
            Self::offer(&mut slots[groups[i] as usize], v)
        })
    }

    fn update_all(&mut self, values: Option<&ArrayRef>, _rows: usize) -> Result<()> {
        let Some(values) = values else { return Ok(()) };
        use arrow_arith::aggregate as k;
        let best: Option<&[u8]> = match (values.data_type(), MAX) {
            (DataType::Utf8, true) => k::max_string(values.as_string::<i32>()).map(str::as_bytes),
            (DataType::Utf8, false) => k::min_string(values.as_string::<i32>()).map(str::as_bytes),
            (DataType::LargeUtf8, true) => {
                k::max_string(values.as_string::<i64>()).map(str::as_bytes)
            }
            (DataType::LargeUtf8, false) => {
                k::min_string(values.as_string::<i64>()).map(str::as_bytes)
            }
            (DataType::Utf8View, true) => {
                k::max_string_view(values.as_string_view()).map(str::as_bytes)
            }
            (DataType::Utf8View, false) => {
                k::min_string_view(values.as_string_view()).map(str::as_bytes)
            }
            (DataType::Binary, true) => k::max_binary(values.as_binary::<i32>()),
            (DataType::Binary, false) => k::min_binary(values.as_binary::<i32>()),
            (DataType::LargeBinary, true) => k::max_binary(values.as_binary::<i64>()),
            (DataType::LargeBinary, false) => k::min_binary(values.as_binary::<i64>()),
            (DataType::BinaryView, true) => k::max_binary_view(values.as_binary_view()),
            (DataType::BinaryView, false) => k::min_binary_view(values.as_binary_view()),
            _ => return self.update(&vec![0; values.len()], Some(values), 1),
        };
        self.values.resize(1, None);
        if let Some(v) = best {
            Self::offer(&mut self.values[0], v);
        }
        Ok(())
    }

    fn state(&mut self, n: usize) -> Result<Vec<ArrayRef>> {
        Ok(vec![self.finish(n)?])
    }

    fn merge_rows(&mut self, groups: &[u32], state: &[ArrayRef], n: usize) -> Result<()> {
        self.update(groups, Some(&state[0]), n)
    }

    fn finish(&mut self, n: usize) -> Result<ArrayRef> {
        self.values.resize(n, None);
        let values = std::mem::take(&mut self.values);
        let bytes = values.iter().map(|v| v.as_deref());
        let strings = || -> Result<Vec<Option<&str>>> {
            values
                .iter()
                .map(|v| v.as_deref().map(std::str::from_utf8).transpose())
                .collect::<Result<_, _>>()
                .map_err(|e| {
                    ExecError::arrow(
                        format!("aggregate `{}`", self.name),
                        ArrowError::InvalidArgumentError(format!("internal: {e}")),
                    )
                })
        };
        let array: ArrayRef = match self.data_type {
            DataType::Utf8 => Arc::new(StringArray::from(strings()?)),
            DataType::LargeUtf8 => Arc::new(LargeStringArray::from(strings()?)),
            DataType::Utf8View => Arc::new(StringViewArray::from(strings()?)),
            DataType::LargeBinary => Arc::new(LargeBinaryArray::from_iter(bytes)),
            DataType::BinaryView => Arc::new(BinaryViewArray::from_iter(bytes)),
            _ => Arc::new(BinaryArray::from_iter(bytes)),
        };
        Ok(array)
    }
}
