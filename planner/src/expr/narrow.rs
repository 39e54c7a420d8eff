//! Comparisons of a column a held table keeps narrow
//! ([`held_form`](crate::exec::held_form)) with a constant, on the narrow
//! values themselves.
//!
//! A filter right above the scan of a held table sees the columns as they
//! are held (`l_quantity` as 2-byte integers, not 16-byte decimals). A
//! comparison of such a column with a literal of the column's type converts
//! the literal once into the narrow type (or, when it is outside that
//! type's range, knows the answer for every row) and compares the narrow
//! values with the CPU-dispatched kernel ([`compare_scalar`]); any other
//! use of the column widens it first ([`Operand::into_value`]).

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Decimal128Type, Int8Type, Int16Type, Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_buffer::BooleanBuffer;
use arrow_schema::{ArrowError, DataType};

use crate::exec::held_form;
use crate::expr::error::{ExprError, Result};
use crate::expr::eval::compare;
use crate::expr::physical::{CompareOp, Node, PhysicalExpr};
use crate::expr::value::Value;
use tenon_kernels::{CmpOp, ScalarCmp, compare_scalar};

/// A comparison's operand: an expression's value, or a column of the batch
/// in a narrow form of the expression's type.
#[derive(Clone)]
pub(crate) enum Operand {
    /// The value, in the expression's type.
    Value(Value),
    /// A column held narrow, and the type it stands for.
    Narrow(ArrayRef, DataType),
}

impl Operand {
    /// `e` on `batch`: a column the batch holds narrow as it is, anything
    /// else evaluated.
    pub(crate) fn of(e: &PhysicalExpr, batch: &RecordBatch) -> Result<Operand> {
        if let Node::Column(i) = &*e.node
            && let Some(c) = batch.columns().get(*i)
            && held_form::is_narrow_form(c.data_type(), &e.data_type)
        {
            return Ok(Operand::Narrow(c.clone(), e.data_type.clone()));
        }
        e.evaluate_value(batch).map(Operand::Value)
    }

    /// Whether the operand is one value for every row.
    pub(crate) fn is_scalar(&self) -> bool {
        matches!(self, Operand::Value(v) if v.is_scalar())
    }

    /// The operand in its expression's type (a narrow column widened).
    fn into_value(self, expr: &PhysicalExpr) -> Result<Value> {
        match self {
            Operand::Value(v) => Ok(v),
            Operand::Narrow(c, to) => widened_value(expr, &c, &to),
        }
    }
}

/// The narrow column `c` of `expr`'s input widened to `to`, as a value.
pub(crate) fn widened_value(expr: &PhysicalExpr, c: &ArrayRef, to: &DataType) -> Result<Value> {
    held_form::widened(c, to)
        .map(Value::Array)
        .map_err(|e| ExprError::Eval {
            expr: expr.text.to_string(),
            message: e.to_string(),
        })
}

/// `l <op> r` (the operands of `expr`), on narrow values where one side is
/// a narrow column and the other a constant, else as [`compare`] does.
pub(crate) fn compare_operands(
    expr: &PhysicalExpr,
    op: CompareOp,
    l: Operand,
    r: Operand,
) -> Result<Value> {
    let narrow = match (&l, &r) {
        (Operand::Narrow(c, t), Operand::Value(Value::Scalar(s))) => compare_narrow(op, c, t, s),
        (Operand::Value(Value::Scalar(s)), Operand::Narrow(c, t)) => {
            compare_narrow(op.flipped(), c, t, s)
        }
        (Operand::Narrow(a, ta), Operand::Narrow(b, tb)) if ta == tb => {
            compare_both_narrow(op, a, b).map_err(|e| ExprError::arrow(&expr.text, e))?
        }
        _ => None,
    };
    if let Some(out) = narrow {
        return Ok(Value::Array(std::sync::Arc::new(out)));
    }
    let scalar = l.is_scalar() && r.is_scalar();
    let (l, r) = (l.into_value(expr)?, r.into_value(expr)?);
    let out = compare(op, &l, &r).map_err(|e: ArrowError| ExprError::arrow(&expr.text, e))?;
    Ok(Value::from_kernel(std::sync::Arc::new(out), scalar))
}

/// `a <op> b` for two integer columns held narrow for the same type
/// (`l_commitdate < l_receiptdate`, both days as 2-byte integers): the
/// narrow integers are that type's values (a decimal's unscaled values of
/// one scale, a date's days), so they compare as the values do; the
/// narrower of two narrow types is widened to the other's, not both to the
/// logical type. `None` for other columns (dictionaries).
fn compare_both_narrow(
    op: CompareOp,
    a: &ArrayRef,
    b: &ArrayRef,
) -> std::result::Result<Option<BooleanArray>, ArrowError> {
    let integer = |t: &DataType| {
        matches!(
            t,
            DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
        )
    };
    if !integer(a.data_type()) || !integer(b.data_type()) {
        return Ok(None);
    }
    let wider = |x: &ArrayRef, than: &ArrayRef| -> std::result::Result<ArrayRef, ArrowError> {
        if x.data_type().primitive_width() < than.data_type().primitive_width() {
            arrow_cast::cast(x, than.data_type())
        } else {
            Ok(std::sync::Arc::clone(x))
        }
    };
    let (a, b) = (wider(a, b)?, wider(b, a)?);
    compare(op, &Value::Array(a), &Value::Array(b)).map(Some)
}

/// `column <op> scalar` for a narrow column standing for type `logical` and
/// a scalar of that type, or `None` when that is not the case.
fn compare_narrow(
    op: CompareOp,
    column: &ArrayRef,
    logical: &DataType,
    scalar: &ArrayRef,
) -> Option<BooleanArray> {
    if scalar.data_type() != logical || scalar.len() != 1 || scalar.is_null(0) {
        return None;
    }
    // The constant as the integer the narrow column holds (a decimal's
    // unscaled value, a date's days).
    let s: i128 = match logical {
        DataType::Int16 => scalar.as_primitive::<Int16Type>().value(0).into(),
        DataType::Int32 => scalar.as_primitive::<Int32Type>().value(0).into(),
        DataType::Int64 => scalar.as_primitive::<Int64Type>().value(0).into(),
        DataType::Date32 => scalar.as_primitive::<Date32Type>().value(0).into(),
        DataType::Decimal128(_, _) => scalar.as_primitive::<Decimal128Type>().value(0),
        _ => return None,
    };
    let cmp = op.scalar_cmp()?;
    let n = column.len();
    // A constant outside the narrow type's range: every value is below it
    // (`below`) or above it.
    let constant = |below: bool| {
        let holds = match cmp {
            ScalarCmp::Order(CmpOp::Lt | CmpOp::Le) => below,
            ScalarCmp::Order(CmpOp::Gt | CmpOp::Ge) => !below,
            ScalarCmp::Eq => false,
            ScalarCmp::NotEq => true,
        };
        if holds {
            BooleanBuffer::new_set(n)
        } else {
            BooleanBuffer::new_unset(n)
        }
    };
    macro_rules! narrow {
        ($t:ty, $native:ty) => {{
            match <$native>::try_from(s) {
                Ok(s) => compare_scalar(column.as_primitive::<$t>().values(), cmp, s),
                Err(_) => constant(s > 0),
            }
        }};
    }
    let bits = match column.data_type() {
        DataType::Int8 => narrow!(Int8Type, i8),
        DataType::Int16 => narrow!(Int16Type, i16),
        DataType::Int32 => narrow!(Int32Type, i32),
        DataType::Int64 => narrow!(Int64Type, i64),
        _ => return None,
    };
    Some(BooleanArray::new(bits, column.nulls().cloned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Decimal128Array, Int32Array, Int64Array};
    use std::sync::Arc;

    const OPS: [CompareOp; 6] = [
        CompareOp::Eq,
        CompareOp::NotEq,
        CompareOp::Lt,
        CompareOp::LtEq,
        CompareOp::Gt,
        CompareOp::GtEq,
    ];

    /// Each comparison of a narrow column with each constant, both ways
    /// round, against Arrow's comparison of the widened column.
    fn agrees_with_the_widened_column(wide: ArrayRef, constants: &[ArrayRef]) {
        let batch = RecordBatch::try_from_iter([("c", Arc::clone(&wide))]).unwrap();
        let held = held_form::compact(vec![batch]).pop().unwrap();
        let narrow = Arc::clone(held.column(0));
        assert!(held_form::is_narrow_form(
            narrow.data_type(),
            wide.data_type()
        ));
        let logical = wide.data_type().clone();
        for s in constants {
            for op in OPS {
                let want = compare(
                    op,
                    &Value::Array(Arc::clone(&wide)),
                    &Value::Scalar(s.clone()),
                )
                .unwrap();
                let got = compare_narrow(op, &narrow, &logical, s).expect("compared narrow");
                assert_eq!(got, want, "{op:?} {s:?}");
                let flipped = compare_narrow(op.flipped(), &narrow, &logical, s).unwrap();
                let want = compare(
                    op,
                    &Value::Scalar(s.clone()),
                    &Value::Array(Arc::clone(&wide)),
                )
                .unwrap();
                assert_eq!(flipped, want, "{s:?} {op:?} column");
            }
        }
    }

    #[test]
    fn narrow_comparisons_agree_with_the_widened_column_inside_and_outside_its_range() {
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![Some(-5), None, Some(0), Some(100)]));
        let constants: Vec<ArrayRef> = [-1000, -5, 0, 7, 100, 101, 1 << 40]
            .into_iter()
            .map(|v| Arc::new(Int64Array::from(vec![v])) as ArrayRef)
            .collect();
        agrees_with_the_widened_column(ints, &constants);
        let decimal = |v: Vec<Option<i128>>| -> ArrayRef {
            Arc::new(
                Decimal128Array::from(v)
                    .with_precision_and_scale(15, 2)
                    .unwrap(),
            )
        };
        let prices = decimal(vec![Some(2_400), Some(-1), None, Some(30_000)]);
        let constants: Vec<ArrayRef> = [2_400, 2_399, 40_000, -40_000, i128::from(i64::MAX) * 4]
            .into_iter()
            .map(|v| decimal(vec![Some(v)]))
            .collect();
        agrees_with_the_widened_column(prices, &constants);
    }

    #[test]
    fn two_narrow_columns_of_one_type_compare_as_their_values() {
        let wide = |v: Vec<Option<i128>>| -> ArrayRef {
            Arc::new(
                Decimal128Array::from(v)
                    .with_precision_and_scale(15, 2)
                    .unwrap(),
            )
        };
        // One column held as Int8, the other as Int16.
        let a = wide(vec![Some(5), None, Some(-100), Some(120), Some(3)]);
        let b = wide(vec![Some(7), Some(1), Some(-100), Some(30_000), None]);
        let batch = RecordBatch::try_from_iter([("a", a.clone()), ("b", b.clone())]).unwrap();
        let held = held_form::compact(vec![batch]).pop().unwrap();
        assert_ne!(held.column(0).data_type(), held.column(1).data_type());
        for op in OPS {
            let want = compare(op, &Value::Array(a.clone()), &Value::Array(b.clone())).unwrap();
            let got = compare_both_narrow(op, held.column(0), held.column(1))
                .unwrap()
                .expect("compared narrow");
            assert_eq!(got, want, "{op:?}");
        }
    }

    #[test]
    fn a_constant_of_another_type_or_null_is_not_compared_narrow() {
        let narrow: ArrayRef = Arc::new(arrow_array::Int8Array::from(vec![1, 2]));
        let null: ArrayRef = Arc::new(Int64Array::from(vec![None::<i64>]));
        let other: ArrayRef = Arc::new(Int32Array::from(vec![1]));
        assert!(compare_narrow(CompareOp::Eq, &narrow, &DataType::Int64, &null).is_none());
        assert!(compare_narrow(CompareOp::Eq, &narrow, &DataType::Int64, &other).is_none());
    }
}
