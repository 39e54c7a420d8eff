//! `+`, `-` and `*` of columns a held table keeps narrow
//! ([`held_form`](crate::exec::held_form)) and constants, in 64-bit
//! integers, for a consumer that reads narrow values (an aggregate's
//! `sum` and `avg`).
//!
//! `sum(l_extendedprice * (1 - l_discount) * (1 + l_tax))` (TPC-H Q1) is
//! typed `DECIMAL(38, 6)`: evaluated as typed, each operator writes a
//! 16-byte decimal a row and each product is a 128-bit multiply. The
//! unscaled values it reads are held in 4 and 1 bytes, and every result
//! fits 64 bits by far. [`evaluate_narrow`] computes the unscaled result in
//! i64 when a bound on the operands' magnitudes proves that no row (NULL
//! slots included) can overflow, and returns it as an Int64 array that
//! stands for the expression's type, as a held column does; otherwise it
//! says `None` and the expression is evaluated as typed.
//!
//! The result is the value the typed evaluation gives: the scale is the
//! one the type says (an addition rescales its operands to it, a product's
//! scale is the sum of its operands'), and a value that fits 64 bits fits
//! the result's precision (at least 19 digits whenever SQL's typing caps
//! it, and otherwise large enough for any product or sum of operands that
//! fit theirs).

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Int8Type, Int16Type, Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, Int64Array, PrimitiveArray, RecordBatch};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use std::sync::Arc;

use crate::exec::held_form;
use crate::expr::error::Result;
use crate::expr::physical::{ArithOp, Node, PhysicalExpr};

/// An operand: unscaled 64-bit values (a column, or a computed result)
/// with a bound on their magnitudes, or a constant.
enum Operand {
    Ints(Vec<i64>, Option<NullBuffer>, u64),
    Constant(i64),
}

/// `e` on `batch` as unscaled 64-bit integers standing for `e`'s type
/// (Decimal128 or Int64), when `e` is a held narrow column or `+`, `-`,
/// `*` of such columns and constants whose results provably fit; `None`
/// otherwise (evaluate `e` as typed). See the module docs.
///
/// # Errors
///
/// Evaluation errors of a constant part of `e`.
pub(crate) fn evaluate_narrow(e: &PhysicalExpr, batch: &RecordBatch) -> Result<Option<ArrayRef>> {
    if scale(&e.data_type).is_none() || !matches!(*e.node, Node::Column(_) | Node::Arith { .. }) {
        return Ok(None);
    }
    if let Node::Column(i) = *e.node {
        // A held column as it is.
        return Ok(batch
            .columns()
            .get(i)
            .filter(|c| {
                c.data_type() != &e.data_type
                    && held_form::is_narrow_form(c.data_type(), &e.data_type)
            })
            .cloned());
    }
    Ok(match operand(e, batch)? {
        Some(Operand::Ints(values, nulls, _)) => {
            Some(Arc::new(Int64Array::new(values.into(), nulls)))
        }
        _ => None,
    })
}

/// The scale of a type `evaluate_narrow` computes in.
fn scale(t: &DataType) -> Option<i8> {
    match t {
        DataType::Decimal128(_, s) => Some(*s),
        DataType::Int64 => Some(0),
        _ => None,
    }
}

/// `e` as an [`Operand`], or `None`.
fn operand(e: &PhysicalExpr, batch: &RecordBatch) -> Result<Option<Operand>> {
    if scale(&e.data_type).is_none() {
        return Ok(None);
    }
    match &*e.node {
        Node::Column(i) => Ok(batch
            .columns()
            .get(*i)
            .and_then(|c| column_ints(c, &e.data_type))),
        Node::Arith { op, left, right } => arith(e, *op, left, right, batch),
        // A constant: no column read.
        _ if e.columns().is_empty() => {
            let v = e.evaluate_value(batch)?;
            let a = v.inner();
            if !v.is_scalar() || a.len() != 1 || a.is_null(0) {
                return Ok(None);
            }
            let unscaled = match a.data_type() {
                DataType::Decimal128(..) => a.as_primitive::<Decimal128Type>().value(0),
                DataType::Int64 => i128::from(a.as_primitive::<Int64Type>().value(0)),
                _ => return Ok(None),
            };
            Ok(i64::try_from(unscaled).ok().map(Operand::Constant))
        }
        _ => Ok(None),
    }
}

/// A held narrow column `c` of a column of type `t` as 64-bit values.
fn column_ints(c: &ArrayRef, t: &DataType) -> Option<Operand> {
    if c.data_type() == t || !held_form::is_narrow_form(c.data_type(), t) {
        return None;
    }
    fn ints<N: arrow_array::ArrowPrimitiveType<Native: Into<i64>>>(
        a: &PrimitiveArray<N>,
    ) -> Operand {
        let values: Vec<i64> = a.values().iter().map(|&v| v.into()).collect();
        let bound = values.iter().fold(0u64, |m, v| m.max(v.unsigned_abs()));
        Operand::Ints(values, a.nulls().cloned(), bound)
    }
    Some(match c.data_type() {
        DataType::Int8 => ints(c.as_primitive::<Int8Type>()),
        DataType::Int16 => ints(c.as_primitive::<Int16Type>()),
        DataType::Int32 => ints(c.as_primitive::<Int32Type>()),
        DataType::Int64 => ints(c.as_primitive::<Int64Type>()),
        _ => return None,
    })
}

/// `left op right` of [`operand`]s, when the result's scale is what the
/// type says and its bound fits i64.
fn arith(
    e: &PhysicalExpr,
    op: ArithOp,
    left: &PhysicalExpr,
    right: &PhysicalExpr,
    batch: &RecordBatch,
) -> Result<Option<Operand>> {
    let (Some(s), Some(s1), Some(s2)) = (
        scale(&e.data_type),
        scale(&left.data_type),
        scale(&right.data_type),
    ) else {
        return Ok(None);
    };
    let (s, s1, s2) = (i32::from(s), i32::from(s1), i32::from(s2));
    // Each operand's multiplier to the result's scale.
    let (lm, rm): (i64, i64) = match op {
        ArithOp::Mul if s1 + s2 == s => (1, 1),
        ArithOp::Add | ArithOp::Sub if s1.max(s2) == s => {
            let (Some(a), Some(b)) = (pow10(s - s1), pow10(s - s2)) else {
                return Ok(None);
            };
            (a, b)
        }
        _ => return Ok(None),
    };
    let Some(l) = operand(left, batch)? else {
        return Ok(None);
    };
    let Some(r) = operand(right, batch)? else {
        return Ok(None);
    };
    let bound_of = |o: &Operand| match o {
        Operand::Ints(_, _, b) => u128::from(*b),
        Operand::Constant(c) => u128::from(c.unsigned_abs()),
    };
    let (bl, br) = (bound_of(&l), bound_of(&r));
    let bound = match op {
        ArithOp::Mul => bl.checked_mul(br),
        _ => bl
            .checked_mul(lm as u128)
            .zip(br.checked_mul(rm as u128))
            .and_then(|(a, b)| a.checked_add(b)),
    };
    let Some(bound) = bound.filter(|&b| b <= i64::MAX as u128) else {
        return Ok(None);
    };
    // Exact: every |result| is at most `bound`, which fits i64.
    let f = |a: i64, b: i64| match op {
        ArithOp::Add => a.wrapping_mul(lm).wrapping_add(b.wrapping_mul(rm)),
        ArithOp::Sub => a.wrapping_mul(lm).wrapping_sub(b.wrapping_mul(rm)),
        _ => a.wrapping_mul(b),
    };
    let (values, nulls) = match (l, r) {
        (Operand::Ints(a, na, _), Operand::Ints(b, nb, _)) => {
            if a.len() != b.len() {
                return Ok(None);
            }
            let values = a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect();
            (values, NullBuffer::union(na.as_ref(), nb.as_ref()))
        }
        (Operand::Ints(mut a, na, _), Operand::Constant(c)) => {
            a.iter_mut().for_each(|x| *x = f(*x, c));
            (a, na)
        }
        (Operand::Constant(c), Operand::Ints(mut b, nb, _)) => {
            b.iter_mut().for_each(|y| *y = f(c, *y));
            (b, nb)
        }
        (Operand::Constant(_), Operand::Constant(_)) => return Ok(None),
    };
    Ok(Some(Operand::Ints(values, nulls, bound as u64)))
}

/// `10^e` for `0 <= e <= 18`.
fn pow10(e: i32) -> Option<i64> {
    10_i64.checked_pow(u32::try_from(e).ok()?)
}
