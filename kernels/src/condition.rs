//! Range conditions: comparisons between one column of each side.
//!
//! A join condition such as `a.v < b.v` or `a.t BETWEEN b.lo AND b.hi` is a
//! conjunction of [`RangeCondition`]s. Unlike an opaque [`crate::JoinFilter`],
//! a kernel can *use* a range condition: sort one side on its column and
//! find the matching rows of the other by binary search or a merge, instead
//! of testing every pair. A constant offset is part of the condition
//! (`a.t >= b.t + 600_000_000`, see [`RangeCondition::with_offset`]); other
//! expressions such as `b.t * 2` are the planner's to compute into a column
//! of their side before the join.
//!
//! Values are compared through one order-preserving `i64` image per row
//! ([`ordered_values`]), so the kernels' sorting and comparing code is
//! written once for every supported type.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, DurationMicrosecondType, DurationMillisecondType,
    DurationNanosecondType, DurationSecondType, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrowPrimitiveType, PrimitiveArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, TimeUnit};

use crate::error::{KernelError, Result};

/// A comparison operator, read as `left <op> right`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator with its operands swapped: `a < b` is `b > a`.
    ///
    /// ```
    /// use tenon_kernels::CmpOp;
    /// assert_eq!(CmpOp::Lt.flip(), CmpOp::Gt);
    /// assert_eq!(CmpOp::Ge.flip(), CmpOp::Le);
    /// ```
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
        }
    }

    /// Whether `a <op> b` holds.
    #[inline]
    pub fn holds<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

impl std::fmt::Display for CmpOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        })
    }
}

/// `left.column(left) <op> right.column(right) + offset`: a comparison
/// between a column of the left input and a column of the right input,
/// shifted by a constant.
///
/// Both columns must have the same type, one of: the integer types, Float32
/// and Float64, Date32/Date64, Time32/Time64, Timestamp and Duration (same
/// unit; timestamps compare as instants whatever their time zone). A pair
/// where either value is NULL does not satisfy the condition. Floats compare
/// as SQL engines sort them: `-0.0 = 0.0`, and NaN equals NaN and is greater
/// than every other value.
///
/// The `offset` is in units of the column's order-preserving image
/// ([`ordered_values`]): microseconds for `Timestamp(Microsecond)`, days for
/// `Date32`, the value itself for integers. The sum is exact (no wrapping):
/// a bound beyond the type's range compares as the mathematical value it
/// stands for. Float columns take no offset (their image is not linear).
///
/// ```
/// use tenon_kernels::{CmpOp, RangeCondition};
/// // a.t BETWEEN b.lo AND b.hi, with a.t in left column 3 and b.lo, b.hi in
/// // right columns 1 and 2:
/// let band = [
///     RangeCondition::new(3, CmpOp::Ge, 1),
///     RangeCondition::new(3, CmpOp::Le, 2),
/// ];
/// assert_eq!(band[0].to_string(), "left[3] >= right[1]");
/// // a.t < b.t + 10 minutes, on microsecond timestamps:
/// let window = RangeCondition::new(0, CmpOp::Lt, 0).with_offset(600_000_000);
/// assert_eq!(window.to_string(), "left[0] < right[0] + 600000000");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RangeCondition {
    /// Column index in the left input.
    pub left: usize,
    /// The operator, read as `left <op> right`.
    pub op: CmpOp,
    /// Column index in the right input.
    pub right: usize,
    /// Added to the right value before comparing, in units of the column's
    /// order-preserving image; 0 for a plain comparison.
    pub offset: i64,
}

impl RangeCondition {
    /// `left[left] <op> right[right]` (offset 0).
    pub fn new(left: usize, op: CmpOp, right: usize) -> Self {
        RangeCondition {
            left,
            op,
            right,
            offset: 0,
        }
    }

    /// The same condition with `right[right] + offset` as its right side:
    /// how an interval join's constant bound (`b.t + INTERVAL '10' MINUTE`)
    /// reaches a kernel without a column computed per row.
    pub fn with_offset(mut self, offset: i64) -> Self {
        self.offset = offset;
        self
    }

    /// Whether `l <op> r + offset` holds for images `l` and `r`, computed
    /// exactly (no overflow).
    #[inline]
    pub fn holds(&self, l: i64, r: i64) -> bool {
        self.op
            .holds(i128::from(l), i128::from(r) + i128::from(self.offset))
    }
}

impl std::fmt::Display for RangeCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "left[{}] {} right[{}]", self.left, self.op, self.right)?;
        match self.offset {
            0 => Ok(()),
            o if o < 0 => write!(f, " - {}", o.unsigned_abs()),
            o => write!(f, " + {o}"),
        }
    }
}

/// Whether a column type can take part in a [`RangeCondition`].
pub fn range_type_supported(t: &DataType) -> bool {
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
            | Date32
            | Date64
            | Time32(_)
            | Time64(_)
            | Timestamp(_, _)
            | Duration(_)
    )
}

/// Checks that a range condition's columns exist and have the same,
/// supported type. `index` is the condition's position, for the message.
pub(crate) fn check_condition(
    index: usize,
    cond: &RangeCondition,
    left: &arrow_schema::Schema,
    right: &arrow_schema::Schema,
) -> Result<()> {
    let lf = left.fields().get(cond.left).ok_or_else(|| {
        KernelError::InvalidOptions(format!(
            "range condition {index} ({cond}) names left column {}, but the left input has {} \
             columns",
            cond.left,
            left.fields().len()
        ))
    })?;
    let rf = right.fields().get(cond.right).ok_or_else(|| {
        KernelError::InvalidOptions(format!(
            "range condition {index} ({cond}) names right column {}, but the right input has {} \
             columns",
            cond.right,
            right.fields().len()
        ))
    })?;
    let same = match (lf.data_type(), rf.data_type()) {
        (DataType::Timestamp(a, _), DataType::Timestamp(b, _)) => a == b,
        (a, b) => a == b,
    };
    if !same {
        return Err(KernelError::InvalidOptions(format!(
            "range condition {index} ({cond}) compares {} with {}; cast one side so that both \
             have the same type",
            lf.data_type(),
            rf.data_type()
        )));
    }
    if !range_type_supported(lf.data_type()) {
        return Err(KernelError::InvalidOptions(format!(
            "range condition {index} ({cond}) is on type {}, which range conditions do not \
             support; pass the comparison as a join filter instead",
            lf.data_type()
        )));
    }
    if cond.offset != 0 && matches!(lf.data_type(), DataType::Float32 | DataType::Float64) {
        return Err(KernelError::InvalidOptions(format!(
            "range condition {index} ({cond}) has an offset on type {}, and float columns take \
             none; compute the shifted value into a column instead",
            lf.data_type()
        )));
    }
    Ok(())
}

/// Order-preserving `i64` images of a column's values, and its validity.
///
/// For values `a`, `b` of the column, `a < b` exactly when
/// `image(a) < image(b)` (and likewise for `=`), with the float rules of
/// [`RangeCondition`]. The image of a NULL is unspecified: check the
/// validity. Besides the types of [`range_type_supported`], `Decimal128`
/// of precision at most 18 is taken: its unscaled values fit an `i64`
/// exactly (values of one column share one scale, so they order as their
/// unscaled integers).
///
/// # Errors
///
/// A type for which [`range_type_supported`] is false (other than
/// `Decimal128` of precision at most 18), a `Decimal128` of larger
/// precision, or a `Decimal128` value outside its precision.
pub fn ordered_values(array: &dyn Array) -> Result<(Vec<i64>, Option<NullBuffer>)> {
    use DataType::*;
    fn widen<T: ArrowPrimitiveType>(a: &dyn Array, f: impl Fn(T::Native) -> i64) -> Vec<i64> {
        let p: &PrimitiveArray<T> = a.as_primitive::<T>();
        p.values().iter().map(|&v| f(v)).collect()
    }
    let values = match array.data_type() {
        Int8 => widen::<Int8Type>(array, i64::from),
        Int16 => widen::<Int16Type>(array, i64::from),
        Int32 => widen::<Int32Type>(array, i64::from),
        Int64 => widen::<Int64Type>(array, |v| v),
        UInt8 => widen::<UInt8Type>(array, i64::from),
        UInt16 => widen::<UInt16Type>(array, i64::from),
        UInt32 => widen::<UInt32Type>(array, i64::from),
        // Flipping the top bit maps u64 order onto i64 order.
        UInt64 => widen::<UInt64Type>(array, |v| (v ^ (1 << 63)) as i64),
        Float32 => widen::<Float32Type>(array, |v| ordered_f64(f64::from(v))),
        Float64 => widen::<Float64Type>(array, ordered_f64),
        Date32 => widen::<Date32Type>(array, i64::from),
        Date64 => widen::<Date64Type>(array, |v| v),
        Time32(TimeUnit::Second) => widen::<Time32SecondType>(array, i64::from),
        Time32(_) => widen::<Time32MillisecondType>(array, i64::from),
        Time64(TimeUnit::Microsecond) => widen::<Time64MicrosecondType>(array, |v| v),
        Time64(_) => widen::<Time64NanosecondType>(array, |v| v),
        Timestamp(TimeUnit::Second, _) => widen::<TimestampSecondType>(array, |v| v),
        Timestamp(TimeUnit::Millisecond, _) => widen::<TimestampMillisecondType>(array, |v| v),
        Timestamp(TimeUnit::Microsecond, _) => widen::<TimestampMicrosecondType>(array, |v| v),
        Timestamp(TimeUnit::Nanosecond, _) => widen::<TimestampNanosecondType>(array, |v| v),
        Duration(TimeUnit::Second) => widen::<DurationSecondType>(array, |v| v),
        Duration(TimeUnit::Millisecond) => widen::<DurationMillisecondType>(array, |v| v),
        Duration(TimeUnit::Microsecond) => widen::<DurationMicrosecondType>(array, |v| v),
        Duration(TimeUnit::Nanosecond) => widen::<DurationNanosecondType>(array, |v| v),
        Decimal128(precision, _) => decimal_images(array, *precision)?,
        other => {
            return Err(KernelError::InvalidOptions(format!(
                "range conditions do not support type {other}; pass the comparison as a join \
                 filter instead"
            )));
        }
    };
    Ok((values, array.logical_nulls()))
}

/// The unscaled values of a `Decimal128` column of precision at most 18,
/// which fit an `i64` exactly (`|v| < 10^18 < 2^63`).
fn decimal_images(array: &dyn Array, precision: u8) -> Result<Vec<i64>> {
    if precision > 18 {
        return Err(KernelError::InvalidOptions(format!(
            "Decimal128({precision}, _) values cannot be compared exactly here: only precision up \
             to 18 is supported; cast the column to a decimal of precision 18 or less, or to an \
             integer"
        )));
    }
    let p = array.as_primitive::<Decimal128Type>();
    let nulls = p.nulls();
    p.values()
        .iter()
        .enumerate()
        .map(|(i, &v)| match i64::try_from(v) {
            Ok(v) => Ok(v),
            // A NULL slot may hold any value; its image is unspecified.
            Err(_) if nulls.is_some_and(|n| n.is_null(i)) => Ok(0),
            Err(_) => Err(KernelError::InvalidOptions(format!(
                "Decimal128({precision}, _) column holds the unscaled value {v} at row {i}, \
                 which exceeds its precision; fix the data or cast the column to a wider type"
            ))),
        })
        .collect()
}

/// The total-order image of a double: `-0.0` and `0.0` map to the same
/// value, every NaN to the largest.
fn ordered_f64(v: f64) -> i64 {
    let v = if v == 0.0 {
        0.0
    } else if v.is_nan() {
        f64::NAN
    } else {
        v
    };
    let bits = v.to_bits() as i64;
    // Negative doubles order in reverse of their bits: flip all but the sign.
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, UInt64Array};

    #[test]
    fn float_images_keep_sql_order() {
        let vals = [
            f64::NEG_INFINITY,
            -2.5,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            3.0,
            f64::INFINITY,
            f64::NAN,
        ];
        let (img, _) = ordered_values(&Float64Array::from(vals.to_vec())).unwrap();
        for w in img.windows(2).enumerate() {
            let (i, w) = w;
            if i == 3 {
                assert_eq!(w[0], w[1], "-0.0 and 0.0");
            } else {
                assert!(w[0] < w[1], "{} < {}", vals[i], vals[i + 1]);
            }
        }
        let (nan2, _) = ordered_values(&Float64Array::from(vec![-f64::NAN])).unwrap();
        assert_eq!(nan2[0], img[8]);
    }

    #[test]
    fn unsigned_images_keep_order() {
        let (img, _) = ordered_values(&UInt64Array::from(vec![0, 1, 1 << 63, u64::MAX])).unwrap();
        assert!(img.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn decimal_images_keep_order_up_to_precision_18() {
        use arrow_array::Decimal128Array;
        let big = 999_999_999_999_999_999i128;
        let a = Decimal128Array::from(vec![-big, -5, 0, 7, big])
            .with_precision_and_scale(18, 2)
            .unwrap();
        let (img, _) = ordered_values(&a).unwrap();
        assert!(img.windows(2).all(|w| w[0] < w[1]));
        let wide = Decimal128Array::from(vec![1i128])
            .with_precision_and_scale(19, 0)
            .unwrap();
        let err = ordered_values(&wide).unwrap_err().to_string();
        assert!(err.contains("precision up to 18"), "{err}");
    }

    #[test]
    fn unsupported_type_is_an_error() {
        let a = arrow_array::StringArray::from(vec!["x"]);
        let err = ordered_values(&a).unwrap_err().to_string();
        assert!(err.contains("Utf8"), "{err}");
    }
}
