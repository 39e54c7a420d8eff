//! `+`, `-` and `*` of Decimal128 values that cannot overflow, without a
//! checked 128-bit operation per row.
//!
//! Arrow's decimal kernels check every operation (even their "wrapping"
//! variants), and a checked 128-bit multiply is a library call: in TPC-H
//! Q1, `l_extendedprice * (1 - l_discount) * (1 + l_tax)` over 6M rows
//! checked that way is a large part of the query. SQL's typing makes those checks mostly useless:
//! the result precision Arrow gives `p1 + p2 + 1` for a product, `max(s1,
//! s2) + max(p1 - s1, p2 - s2) + 1` for a sum, holds every result unless
//! it was capped at 38. It is capped often only because of how constants
//! are typed (the `1` of `1 - x` is `DECIMAL(20, 0)`, so `1 - x` is
//! `DECIMAL(23, 2)`, so `y * (1 - x)` is capped), so the test uses the
//! precision of the largest value each operand actually holds.
//!
//! When the result fits, it is computed here with plain (wrapping, here
//! exact) arithmetic and given exactly the type Arrow would give it;
//! otherwise [`try_arith`] says `None` and Arrow's checked kernels run.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Decimal128Type;
use arrow_array::{Array, ArrayRef, PrimitiveArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DECIMAL128_MAX_PRECISION, DECIMAL128_MAX_SCALE, DataType};

use crate::expr::physical::ArithOp;
use crate::expr::value::Value;

/// `l op r` for Decimal128 operands whose result cannot overflow, in the
/// type Arrow gives it; `None` for anything else (other types, operators,
/// NULL constants, results that might not fit).
pub(crate) fn try_arith(op: ArithOp, l: &Value, r: &Value) -> Option<ArrayRef> {
    let (&DataType::Decimal128(p1, s1), &DataType::Decimal128(p2, s2)) =
        (l.data_type(), r.data_type())
    else {
        return None;
    };
    if !matches!(op, ArithOp::Add | ArithOp::Sub | ArithOp::Mul) {
        return None;
    }
    let (la, ra) = (
        l.inner().as_primitive::<Decimal128Type>(),
        r.inner().as_primitive::<Decimal128Type>(),
    );
    for (v, a) in [(l, la), (r, ra)] {
        if v.is_scalar() && (a.len() != 1 || a.is_null(0)) {
            return None;
        }
    }
    // Arrow's result type.
    let (scale, uncapped) = match op {
        ArithOp::Mul => (i16::from(s1) + i16::from(s2), exact(op, p1, s1, p2, s2)),
        _ => (i16::from(s1.max(s2)), exact(op, p1, s1, p2, s2)),
    };
    if scale > i16::from(DECIMAL128_MAX_SCALE) || scale < i16::from(i8::MIN) {
        return None;
    }
    let precision = uncapped.min(i32::from(DECIMAL128_MAX_PRECISION));
    let fits = |p1: u8, p2: u8| exact(op, p1, s1, p2, s2) < i32::from(DECIMAL128_MAX_PRECISION);
    if !fits(p1, p2) && !fits(held_precision(la, p1, s1), held_precision(ra, p2, s2)) {
        return None;
    }
    let (lm, rm) = match op {
        ArithOp::Mul => (1, 1),
        _ => (pow10(scale - i16::from(s1))?, pow10(scale - i16::from(s2))?),
    };
    let f = |a: i128, b: i128| match op {
        ArithOp::Add => a.wrapping_mul(lm).wrapping_add(b.wrapping_mul(rm)),
        ArithOp::Sub => a.wrapping_mul(lm).wrapping_sub(b.wrapping_mul(rm)),
        _ => a.wrapping_mul(b),
    };
    let (values, nulls): (Vec<i128>, Option<NullBuffer>) = match (l.is_scalar(), r.is_scalar()) {
        (false, true) => {
            let b = ra.value(0);
            (
                la.values().iter().map(|&a| f(a, b)).collect(),
                la.nulls().cloned(),
            )
        }
        (true, false) => {
            let a = la.value(0);
            (
                ra.values().iter().map(|&b| f(a, b)).collect(),
                ra.nulls().cloned(),
            )
        }
        _ if la.len() != ra.len() => return None,
        _ => (
            la.values()
                .iter()
                .zip(ra.values())
                .map(|(&a, &b)| f(a, b))
                .collect(),
            NullBuffer::union(la.nulls(), ra.nulls()),
        ),
    };
    let out = PrimitiveArray::<Decimal128Type>::new(values.into(), nulls)
        .with_precision_and_scale(precision as u8, scale as i8)
        .ok()?;
    Some(Arc::new(out))
}

/// Arrow's precision of the result before it is capped at the maximum.
fn exact(op: ArithOp, p1: u8, s1: i8, p2: u8, s2: i8) -> i32 {
    let (p1, s1, p2, s2) = (i32::from(p1), i32::from(s1), i32::from(p2), i32::from(s2));
    match op {
        ArithOp::Mul => p1 + p2 + 1,
        _ => s1.max(s2) + (p1 - s1).max(p2 - s2) + 1,
    }
}

/// The precision of the largest value `a` holds at scale `s`, or one digit
/// more ([`magnitude_bound`]; at most the declared `p`; NULL slots count
/// with whatever they hold, which can only make it larger).
fn held_precision(a: &PrimitiveArray<Decimal128Type>, p: u8, s: i8) -> u8 {
    let largest = magnitude_bound(a.values());
    let digits = largest.checked_ilog10().map_or(1, |d| d + 1);
    let scale = u32::try_from(s).unwrap_or(0);
    digits.max(scale).min(u32::from(p)) as u8
}

/// An upper bound of the largest magnitude among `values`, less than twice
/// it (plus one): the OR of the magnitudes (one less for negative values),
/// which is branch-free and runs in vector registers, where the exact
/// maximum of 128-bit magnitudes is a compare and a branch per value.
pub(crate) fn magnitude_bound(values: &[i128]) -> u128 {
    let (mut lo, mut hi) = (0u64, 0u64);
    for &v in values {
        let high = (v >> 64) as i64;
        // All ones for a negative value: `v ^ sign` is then `-v - 1`.
        let sign = (high >> 63) as u64;
        lo |= (v as u64) ^ sign;
        hi |= (high as u64) ^ sign;
    }
    ((u128::from(hi) << 64) | u128::from(lo)).saturating_add(1)
}

/// `10^e` for `0 <= e <= 38`.
fn pow10(e: i16) -> Option<i128> {
    10_i128.checked_pow(u32::try_from(e).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound is at least every magnitude and less than twice the
    /// largest plus two, for positive, negative and extreme values.
    #[test]
    fn magnitude_bound_bounds_the_largest_magnitude() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut cases: Vec<Vec<i128>> = vec![
            vec![],
            vec![0],
            vec![-1],
            vec![i128::MIN],
            vec![i128::MAX, -5],
            vec![-1_000_000, 999_999],
        ];
        for _ in 0..200 {
            let bits = next() % 127;
            let n = (next() % 50) as usize;
            cases.push(
                (0..n)
                    .map(|_| {
                        let v = ((u128::from(next()) << 64) | u128::from(next())) >> (127 - bits);
                        if next() % 2 == 0 {
                            v as i128
                        } else {
                            -(v as i128)
                        }
                    })
                    .collect(),
            );
        }
        for values in cases {
            let largest = values.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0);
            let bound = magnitude_bound(&values);
            assert!(bound >= largest, "{values:?}: {bound} < {largest}");
            assert!(
                bound <= largest.saturating_mul(2).saturating_add(1),
                "{values:?}: {bound} vs {largest}"
            );
        }
    }
    use arrow_array::Decimal128Array;

    fn arr(values: &[Option<i128>], p: u8, s: i8) -> Value {
        let a = Decimal128Array::from(values.to_vec())
            .with_precision_and_scale(p, s)
            .unwrap();
        Value::Array(Arc::new(a))
    }

    fn scalar(v: i128, p: u8, s: i8) -> Value {
        let a = Decimal128Array::from(vec![v])
            .with_precision_and_scale(p, s)
            .unwrap();
        Value::Scalar(Arc::new(a))
    }

    fn arrow(op: ArithOp, l: &Value, r: &Value) -> ArrayRef {
        use arrow_arith::numeric;
        match op {
            ArithOp::Add => numeric::add(l, r),
            ArithOp::Sub => numeric::sub(l, r),
            _ => numeric::mul(l, r),
        }
        .unwrap()
    }

    #[test]
    fn agrees_with_arrow_in_values_nulls_and_type() {
        let price = arr(
            &[Some(999_999_999), None, Some(-1), Some(0), Some(12_345)],
            15,
            2,
        );
        let disc = arr(&[Some(5), Some(10), None, Some(0), Some(99)], 15, 2);
        // 1 - disc is DECIMAL(23, 2): price * (1 - disc) is capped at 38.
        let one = scalar(1, 20, 0);
        for op in [ArithOp::Add, ArithOp::Sub, ArithOp::Mul] {
            let pairs = [
                (price.clone(), disc.clone()),
                (one.clone(), disc.clone()),
                (disc.clone(), one.clone()),
                (price.clone(), scalar(-7, 3, 1)),
            ];
            for (l, r) in pairs {
                let ours = try_arith(op, &l, &r).expect("fits");
                assert_eq!(ours.as_ref(), arrow(op, &l, &r).as_ref(), "{op:?}");
            }
        }
        let one_minus = Value::Array(arrow(ArithOp::Sub, &one, &disc));
        assert_eq!(one_minus.data_type(), &DataType::Decimal128(23, 2));
        let ours = try_arith(ArithOp::Mul, &price, &one_minus).expect("values are small");
        assert_eq!(
            ours.as_ref(),
            arrow(ArithOp::Mul, &price, &one_minus).as_ref()
        );
        assert_eq!(ours.data_type(), &DataType::Decimal128(38, 4));
    }

    #[test]
    fn results_that_might_not_fit_are_left_to_arrow() {
        let big = arr(&[Some(10_i128.pow(30))], 38, 0);
        assert!(try_arith(ArithOp::Mul, &big, &big).is_none());
        // 10^30 + 1 fits 38 digits whatever the declared types say.
        let one = arr(&[Some(1)], 38, 0);
        assert!(try_arith(ArithOp::Add, &big, &one).is_some());
        let huge = arr(&[Some(9 * 10_i128.pow(37))], 38, 0);
        assert!(try_arith(ArithOp::Add, &huge, &huge).is_none());
        let small = arr(&[Some(1)], 10, 0);
        assert!(try_arith(ArithOp::Div, &small, &small).is_none());
        let null = Value::Scalar(Arc::new(
            Decimal128Array::from(vec![None::<i128>])
                .with_precision_and_scale(10, 0)
                .unwrap(),
        ));
        assert!(try_arith(ArithOp::Add, &small, &null).is_none());
    }
}
