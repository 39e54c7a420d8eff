//! Column statistics: what the size estimates read about a table's
//! values ([`ColumnStats`]: nulls, minimum, maximum, distinct count), and
//! how they are computed from batches ([`ColumnStatsBuilder`],
//! [`compute_column_stats`]).
//!
//! The distinct count comes from a HyperLogLog++ sketch (the
//! `cardinality-estimator` crate, precision 14: about 0.8% standard error,
//! 12 KB a column, exact up to 128 values). Its input is the hash the join
//! kernels give a key ([`tenon_kernels::key_hashes`], so values a join finds
//! equal count once: `-0.0` and `0.0`, say), mixed once more so that every
//! bit the sketch reads is uniform. Columns of a type the join cannot key
//! on (lists, structs) get no distinct count; every orderable type gets
//! its minimum and maximum, floats without NaN.
//!
//! Builders merge, so a table is summed up batch by batch in parallel, and
//! a file read in pieces (`ANALYZE TABLE`) as its batches arrive.

use arrow_arith::aggregate;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, ArrowNumericType, PrimitiveArray, RecordBatch};
use arrow_schema::DataType;
use cardinality_estimator::CardinalityEstimator;
/// The type of a column's bounds ([`ColumnStats::min`], [`ColumnStats::max`]).
pub use datafusion_common::ScalarValue;
use rayon::prelude::*;

/// What is known about one column's values. Every field is optional:
/// unknown is a valid answer.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use datafusion_common::ScalarValue;
/// use tenon_planner::statistics::compute_column_stats;
///
/// let batch = RecordBatch::try_from_iter([(
///     "k",
///     Arc::new(Int64Array::from(vec![Some(3), None, Some(1), Some(3)])) as _,
/// )])?;
/// let stats = compute_column_stats(&[batch]);
/// assert_eq!(stats[0].null_count, Some(1));
/// assert_eq!(stats[0].min, Some(ScalarValue::Int64(Some(1))));
/// assert_eq!(stats[0].max, Some(ScalarValue::Int64(Some(3))));
/// assert_eq!(stats[0].distinct_count, Some(2));
/// # Ok::<(), arrow_schema::ArrowError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnStats {
    /// Rows whose value is NULL.
    pub null_count: Option<u64>,
    /// The smallest non-NULL value (floats: the smallest that is not NaN).
    pub min: Option<ScalarValue>,
    /// The largest non-NULL value (floats: the largest that is not NaN).
    pub max: Option<ScalarValue>,
    /// Distinct non-NULL values (estimated; exact up to 128).
    pub distinct_count: Option<u64>,
}

/// The sketch: HyperLogLog++ with 2^14 registers of 6 bits. It is only
/// fed [`insert_hash`](CardinalityEstimator::insert_hash), so its hasher
/// type is never used.
type Sketch = CardinalityEstimator<u64, std::collections::hash_map::DefaultHasher, 14, 6>;

/// Accumulates one column's [`ColumnStats`] over batches.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, StringArray};
/// use arrow_schema::DataType;
/// use tenon_planner::statistics::ColumnStatsBuilder;
///
/// let mut b = ColumnStatsBuilder::new(&DataType::Utf8);
/// b.update(&(Arc::new(StringArray::from(vec!["b", "a"])) as ArrayRef));
/// b.update(&(Arc::new(StringArray::from(vec![Some("c"), None])) as ArrayRef));
/// let stats = b.finish();
/// assert_eq!(stats.distinct_count, Some(3));
/// assert_eq!(stats.null_count, Some(1));
/// ```
#[derive(Debug)]
pub struct ColumnStatsBuilder {
    nulls: u64,
    /// `None` until a value is seen; the bounds stop being tracked (and
    /// stay `None`) for a type without an order.
    bounds: Option<(ScalarValue, ScalarValue)>,
    ordered: bool,
    /// `None` once a batch's type turned out to be one the join cannot key
    /// on.
    sketch: Option<Box<Sketch>>,
}

impl ColumnStatsBuilder {
    /// A builder for a column of `data_type`, with nothing seen yet.
    pub fn new(data_type: &DataType) -> Self {
        // (A type the join cannot key on is found at the first update.)
        ColumnStatsBuilder {
            nulls: 0,
            bounds: None,
            ordered: orderable(data_type),
            sketch: Some(Box::new(Sketch::new())),
        }
    }

    /// Adds the values of `array` (of the builder's type).
    pub fn update(&mut self, array: &ArrayRef) {
        self.nulls += array.logical_null_count() as u64;
        if self.ordered
            && let Some((lo, hi)) = bounds(array.as_ref())
        {
            self.widen(lo, hi);
        }
        if let Some(sketch) = &mut self.sketch {
            match tenon_kernels::key_hashes(std::slice::from_ref(array), false) {
                Ok(hashes) => match array.logical_nulls() {
                    None => hashes.into_iter().for_each(|h| sketch.insert_hash(mix(h))),
                    Some(nulls) => nulls
                        .valid_indices()
                        .for_each(|i| sketch.insert_hash(mix(hashes[i]))),
                },
                // A type the join turned down after all: no distinct count.
                Err(_) => self.sketch = None,
            }
        }
    }

    /// Adds what `other` saw (of the same column).
    pub fn merge(&mut self, other: ColumnStatsBuilder) {
        self.nulls += other.nulls;
        if let Some((lo, hi)) = other.bounds {
            self.widen(lo, hi);
        }
        self.sketch = match (self.sketch.take(), other.sketch) {
            (Some(mut a), Some(b)) => {
                a.merge(&b);
                Some(a)
            }
            _ => None,
        };
    }

    /// The statistics of everything seen.
    pub fn finish(self) -> ColumnStats {
        let (min, max) = match self.bounds {
            Some((lo, hi)) => (Some(lo), Some(hi)),
            None => (None, None),
        };
        ColumnStats {
            null_count: Some(self.nulls),
            min,
            max,
            distinct_count: self.sketch.map(|s| s.estimate() as u64),
        }
    }

    fn widen(&mut self, lo: ScalarValue, hi: ScalarValue) {
        use std::cmp::Ordering::{Greater, Less};
        self.bounds = Some(match self.bounds.take() {
            None => (lo, hi),
            Some((a, b)) => (
                if lo.partial_cmp(&a) == Some(Less) {
                    lo
                } else {
                    a
                },
                if hi.partial_cmp(&b) == Some(Greater) {
                    hi
                } else {
                    b
                },
            ),
        });
    }
}

/// The statistics of every column of `batches` (all of one schema; none:
/// no columns), each column's batches summed up in parallel on the
/// current rayon pool.
pub fn compute_column_stats(batches: &[RecordBatch]) -> Vec<ColumnStats> {
    let Some(first) = batches.first() else {
        return Vec::new();
    };
    let schema = first.schema();
    (0..schema.fields().len())
        .map(|c| {
            let data_type = schema.field(c).data_type();
            batches
                .par_iter()
                .fold(
                    || ColumnStatsBuilder::new(data_type),
                    |mut b, batch| {
                        b.update(batch.column(c));
                        b
                    },
                )
                .reduce(
                    || ColumnStatsBuilder::new(data_type),
                    |mut a, b| {
                        a.merge(b);
                        a
                    },
                )
                .finish()
        })
        .collect()
}

/// A 64-bit finalizer (MurmurHash3's): the join's key hashes are built for
/// hash tables and need not spread every bit; the sketch reads the low bits
/// for a register and the high ones for a rank.
fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Whether [`bounds`] finds bounds for `data_type`.
fn orderable(data_type: &DataType) -> bool {
    data_type.is_primitive()
        || matches!(
            data_type,
            DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
                | DataType::Binary
                | DataType::LargeBinary
                | DataType::BinaryView
                | DataType::Boolean
        )
}

/// The smallest and largest non-NULL values of `array` (floats: ignoring
/// NaN), `None` when it has none or its type has no bounds here: numbers,
/// decimals, dates, timestamps, strings, binaries and booleans.
///
/// ```
/// use arrow_array::Int32Array;
/// use datafusion_common::ScalarValue;
/// use tenon_planner::statistics::bounds;
///
/// let a = Int32Array::from(vec![Some(4), None, Some(-2)]);
/// assert_eq!(
///     bounds(&a),
///     Some((ScalarValue::Int32(Some(-2)), ScalarValue::Int32(Some(4))))
/// );
/// ```
pub fn bounds(array: &dyn Array) -> Option<(ScalarValue, ScalarValue)> {
    use arrow_array::types::*;
    macro_rules! primitive {
        ($t:ty) => {
            primitive_bounds(array.as_primitive::<$t>(), array.data_type())
        };
    }
    let strings = |lo: Option<&str>, hi: Option<&str>, t: &DataType| match (lo, hi, t) {
        (Some(lo), Some(hi), DataType::LargeUtf8) => Some((
            ScalarValue::LargeUtf8(Some(lo.into())),
            ScalarValue::LargeUtf8(Some(hi.into())),
        )),
        (Some(lo), Some(hi), DataType::Utf8View) => Some((
            ScalarValue::Utf8View(Some(lo.into())),
            ScalarValue::Utf8View(Some(hi.into())),
        )),
        (Some(lo), Some(hi), _) => Some((
            ScalarValue::Utf8(Some(lo.into())),
            ScalarValue::Utf8(Some(hi.into())),
        )),
        _ => None,
    };
    let binaries = |lo: Option<&[u8]>, hi: Option<&[u8]>| match (lo, hi) {
        (Some(lo), Some(hi)) => Some((
            ScalarValue::Binary(Some(lo.to_vec())),
            ScalarValue::Binary(Some(hi.to_vec())),
        )),
        _ => None,
    };
    let t = array.data_type();
    match t {
        DataType::Int8 => primitive!(Int8Type),
        DataType::Int16 => primitive!(Int16Type),
        DataType::Int32 => primitive!(Int32Type),
        DataType::Int64 => primitive!(Int64Type),
        DataType::UInt8 => primitive!(UInt8Type),
        DataType::UInt16 => primitive!(UInt16Type),
        DataType::UInt32 => primitive!(UInt32Type),
        DataType::UInt64 => primitive!(UInt64Type),
        DataType::Float32 => float_bounds(array.as_primitive::<Float32Type>(), |v| {
            ScalarValue::Float32(Some(v))
        }),
        DataType::Float64 => float_bounds(array.as_primitive::<Float64Type>(), |v| {
            ScalarValue::Float64(Some(v))
        }),
        DataType::Date32 => primitive!(Date32Type),
        DataType::Date64 => primitive!(Date64Type),
        DataType::Decimal128(..) => primitive!(Decimal128Type),
        DataType::Timestamp(unit, _) => {
            use arrow_schema::TimeUnit;
            match unit {
                TimeUnit::Second => primitive!(TimestampSecondType),
                TimeUnit::Millisecond => primitive!(TimestampMillisecondType),
                TimeUnit::Microsecond => primitive!(TimestampMicrosecondType),
                TimeUnit::Nanosecond => primitive!(TimestampNanosecondType),
            }
        }
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            strings(aggregate::min_string(a), aggregate::max_string(a), t)
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            strings(aggregate::min_string(a), aggregate::max_string(a), t)
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            strings(
                aggregate::min_string_view(a),
                aggregate::max_string_view(a),
                t,
            )
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            binaries(aggregate::min_binary(a), aggregate::max_binary(a))
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            binaries(aggregate::min_binary(a), aggregate::max_binary(a))
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            binaries(aggregate::min_binary_view(a), aggregate::max_binary_view(a))
        }
        DataType::Boolean => {
            let a = array.as_boolean();
            match (aggregate::min_boolean(a), aggregate::max_boolean(a)) {
                (Some(lo), Some(hi)) => Some((
                    ScalarValue::Boolean(Some(lo)),
                    ScalarValue::Boolean(Some(hi)),
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Bounds of a primitive array of an integer, decimal or time type, as
/// scalars of `data_type` (its precision and time zone kept).
fn primitive_bounds<T: ArrowNumericType>(
    a: &PrimitiveArray<T>,
    data_type: &DataType,
) -> Option<(ScalarValue, ScalarValue)> {
    let lo = ScalarValue::new_primitive::<T>(aggregate::min(a), data_type).ok()?;
    let hi = ScalarValue::new_primitive::<T>(aggregate::max(a), data_type).ok()?;
    (!lo.is_null() && !hi.is_null()).then_some((lo, hi))
}

/// Bounds of a float array without NaN (NaN sorts above every number in
/// Arrow's order, which would make every range look open-ended).
fn float_bounds<T>(
    a: &PrimitiveArray<T>,
    scalar: impl Fn(T::Native) -> ScalarValue,
) -> Option<(ScalarValue, ScalarValue)>
where
    T: ArrowNumericType,
    T::Native: num_like::Float,
{
    let mut bounds: Option<(T::Native, T::Native)> = None;
    for v in a.iter().flatten() {
        if num_like::Float::is_nan(v) {
            continue;
        }
        bounds = Some(match bounds {
            None => (v, v),
            Some((lo, hi)) => (if v < lo { v } else { lo }, if v > hi { v } else { hi }),
        });
    }
    bounds.map(|(lo, hi)| (scalar(lo), scalar(hi)))
}

/// The one float question [`float_bounds`] asks, for `f32` and `f64`.
mod num_like {
    /// Floats whose NaN [`super::float_bounds`] skips.
    pub(super) trait Float: Copy + PartialOrd {
        fn is_nan(self) -> bool;
    }
    impl Float for f32 {
        fn is_nan(self) -> bool {
            f32::is_nan(self)
        }
    }
    impl Float for f64 {
        fn is_nan(self) -> bool {
            f64::is_nan(self)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{Float64Array, Int64Array, StringArray};

    fn one(array: ArrayRef) -> ColumnStats {
        let batch = RecordBatch::try_from_iter([("c", array)]).unwrap();
        compute_column_stats(&[batch]).remove(0)
    }

    #[test]
    fn distinct_counts_are_exact_when_small_and_close_when_large() {
        let small = one(Arc::new(Int64Array::from_iter_values(
            (0..10_000).map(|i| i % 100),
        )));
        assert_eq!(small.distinct_count, Some(100));
        for n in [1_000i64, 100_000, 1_000_000] {
            let batches: Vec<RecordBatch> = (0..8)
                .map(|part| {
                    RecordBatch::try_from_iter([(
                        "c",
                        Arc::new(Int64Array::from_iter_values(
                            (0..n).filter(|v| v % 8 == part).map(|v| v * 7919),
                        )) as ArrayRef,
                    )])
                    .unwrap()
                })
                .collect();
            let d = compute_column_stats(&batches)[0].distinct_count.unwrap() as f64;
            let error = (d - n as f64).abs() / n as f64;
            assert!(error < 0.03, "{n}: estimated {d}");
        }
    }

    #[test]
    fn nulls_and_nan_are_left_out_of_bounds_and_counts() {
        let s = one(Arc::new(Float64Array::from(vec![
            Some(2.5),
            None,
            Some(f64::NAN),
            Some(-1.0),
            Some(-0.0),
            Some(0.0),
        ])));
        assert_eq!(s.null_count, Some(1));
        assert_eq!(s.min, Some(ScalarValue::Float64(Some(-1.0))));
        assert_eq!(s.max, Some(ScalarValue::Float64(Some(2.5))));
        // -0.0 and 0.0 are one key; NaN is one more
        assert_eq!(s.distinct_count, Some(4));
        let all_null = one(Arc::new(StringArray::from(vec![None::<&str>, None])));
        assert_eq!(all_null.null_count, Some(2));
        assert_eq!((all_null.min, all_null.max), (None, None));
        assert_eq!(all_null.distinct_count, Some(0));
    }

    #[test]
    fn merged_builders_equal_one_pass() {
        let a: ArrayRef = Arc::new(StringArray::from(vec!["m", "c", "x"]));
        let b: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None, Some("m")]));
        let mut left = ColumnStatsBuilder::new(&DataType::Utf8);
        left.update(&a);
        let mut right = ColumnStatsBuilder::new(&DataType::Utf8);
        right.update(&b);
        left.merge(right);
        let s = left.finish();
        assert_eq!(s.min, Some(ScalarValue::Utf8(Some("a".into()))));
        assert_eq!(s.max, Some(ScalarValue::Utf8(Some("x".into()))));
        assert_eq!(s.distinct_count, Some(4));
        assert_eq!(s.null_count, Some(1));
    }
}
