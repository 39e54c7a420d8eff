//! SQL's three-valued (Kleene) logic: AND, OR, NOT, IS [NOT] NULL,
//! IS [NOT] TRUE/FALSE/UNKNOWN, BETWEEN and IN lists.
//!
//! ```text
//!  AND | T  F  N        OR | T  F  N
//!  ----+---------       ---+---------
//!   T  | T  F  N         T | T  T  T
//!   F  | F  F  F         F | T  F  N
//!   N  | N  F  N         N | T  N  N
//! ```
//!
//! AND and OR evaluate their right operand only where the left one does
//! not already decide the row (not false for AND, not true for OR) when the
//! right operand can fail, so `b <> 0 AND a / b > 1` does not divide by the
//! zeros the left side excludes.

use std::sync::Arc;

use arrow_arith::boolean::{and_kleene, is_not_null, is_null, not, or_kleene};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::ArrowError;

use crate::expr::conditional::evaluate_selected;
use crate::expr::error::{ExprError, Result};
use crate::expr::narrow::{Operand, compare_operands};
use crate::expr::physical::{CompareOp, Node, PhysicalExpr, TruthTest};
use crate::expr::value::{Value, null_as_false};

/// Evaluates a logic node of `expr`.
pub(crate) fn evaluate(expr: &PhysicalExpr, batch: &RecordBatch) -> Result<Value> {
    let arrow = |e: ArrowError| ExprError::arrow(&expr.text, e);
    let rows = batch.num_rows();
    match &*expr.node {
        Node::And(l, r) => connective(expr, l, r, batch, true),
        Node::Or(l, r) => connective(expr, l, r, batch, false),
        Node::Not(x) => {
            let v = x.evaluate_value(batch)?;
            let out = not(boolean(expr, &v)?).map_err(arrow)?;
            Ok(Value::from_kernel(Arc::new(out), v.is_scalar()))
        }
        Node::IsNull(x) | Node::IsNotNull(x) => {
            let v = x.evaluate_value(batch)?;
            let out = if matches!(*expr.node, Node::IsNull(_)) {
                is_null(v.inner().as_ref())
            } else {
                is_not_null(v.inner().as_ref())
            }
            .map_err(arrow)?;
            Ok(Value::from_kernel(Arc::new(out), v.is_scalar()))
        }
        Node::Truth(test, x) => {
            let v = x.evaluate_value(batch)?;
            let b = boolean(expr, &v)?;
            let out = match test {
                TruthTest::IsTrue => null_as_false(b),
                TruthTest::IsNotTrue => not(&null_as_false(b)).map_err(arrow)?,
                TruthTest::IsFalse => null_as_false(&not(b).map_err(arrow)?),
                TruthTest::IsNotFalse => {
                    not(&null_as_false(&not(b).map_err(arrow)?)).map_err(arrow)?
                }
                TruthTest::IsUnknown => is_null(b).map_err(arrow)?,
                TruthTest::IsNotUnknown => is_not_null(b).map_err(arrow)?,
            };
            Ok(Value::from_kernel(Arc::new(out), v.is_scalar()))
        }
        Node::Between {
            input,
            low,
            high,
            negated,
        } => {
            let v = Operand::of(input, batch)?;
            let lo = Operand::of(low, batch)?;
            let hi = Operand::of(high, batch)?;
            let ge = compare_operands(expr, CompareOp::GtEq, v.clone(), lo)?;
            let le = compare_operands(expr, CompareOp::LtEq, v, hi)?;
            let both = combine(expr, ge, le, rows, and_kleene)?;
            if *negated {
                negate(expr, both)
            } else {
                Ok(both)
            }
        }
        Node::InList {
            input,
            list,
            negated,
        } => {
            // x IN (a, b, ...) is x = a OR x = b OR ...: true if any is
            // true, else NULL if any is NULL (x itself or an element), else
            // false.
            let v = Operand::of(input, batch)?;
            let mut acc = Value::Scalar(Arc::new(BooleanArray::from(vec![false])));
            for item in list {
                let iv = Operand::of(item, batch)?;
                let eq = compare_operands(expr, CompareOp::Eq, v.clone(), iv)?;
                acc = combine(expr, acc, eq, rows, or_kleene)?;
            }
            if *negated { negate(expr, acc) } else { Ok(acc) }
        }
        _ => Err(ExprError::unsupported(
            &expr.text,
            "internal: not a logic node (please report)",
        )),
    }
}

/// AND (`is_and`) or OR.
fn connective(
    expr: &PhysicalExpr,
    left: &PhysicalExpr,
    right: &PhysicalExpr,
    batch: &RecordBatch,
    is_and: bool,
) -> Result<Value> {
    let arrow = |e: ArrowError| ExprError::arrow(&expr.text, e);
    let rows = batch.num_rows();
    let l = left.evaluate_value(batch)?;
    let lb = boolean(expr, &l)?;
    // Rows the left operand decides alone: false for AND, true for OR.
    let decided = if is_and {
        null_as_false(&not(lb).map_err(arrow)?)
    } else {
        null_as_false(lb)
    };
    let decided_rows = decided.true_count();
    if decided_rows == decided.len() {
        // Every row is decided by the left operand.
        return Ok(l);
    }
    let r = if decided_rows > 0 && right.may_fail() && !l.is_scalar() {
        let undecided = not(&decided).map_err(arrow)?;
        evaluate_selected(right, batch, &undecided)?
    } else {
        right.evaluate_value(batch)?
    };
    combine(
        expr,
        l,
        r,
        rows,
        if is_and { and_kleene } else { or_kleene },
    )
}

/// Applies a boolean kernel to two values, repeating a scalar when the
/// other is an array.
pub(crate) fn combine(
    expr: &PhysicalExpr,
    a: Value,
    b: Value,
    rows: usize,
    kernel: fn(&BooleanArray, &BooleanArray) -> Result<BooleanArray, ArrowError>,
) -> Result<Value> {
    let arrow = |e: ArrowError| ExprError::arrow(&expr.text, e);
    let scalar = a.is_scalar() && b.is_scalar();
    let (a, b): (ArrayRef, ArrayRef) = if scalar {
        (a.inner().clone(), b.inner().clone())
    } else {
        (
            a.into_array(rows).map_err(arrow)?,
            b.into_array(rows).map_err(arrow)?,
        )
    };
    let (a, b) = (as_boolean(expr, &a)?, as_boolean(expr, &b)?);
    let out = kernel(a, b).map_err(arrow)?;
    Ok(Value::from_kernel(Arc::new(out), scalar))
}

fn negate(expr: &PhysicalExpr, v: Value) -> Result<Value> {
    let out = not(boolean(expr, &v)?).map_err(|e| ExprError::arrow(&expr.text, e))?;
    Ok(Value::from_kernel(Arc::new(out), v.is_scalar()))
}

fn boolean<'a>(expr: &PhysicalExpr, v: &'a Value) -> Result<&'a BooleanArray> {
    as_boolean(expr, v.inner())
}

fn as_boolean<'a>(expr: &PhysicalExpr, a: &'a ArrayRef) -> Result<&'a BooleanArray> {
    a.as_boolean_opt().ok_or_else(|| {
        ExprError::type_error(
            &expr.text,
            format!("expected a boolean operand, got {}", a.data_type()),
        )
    })
}

impl PhysicalExpr {
    /// Whether evaluating the expression can fail on some rows (division,
    /// checked arithmetic, casts, functions), so that it is worth evaluating
    /// only on the rows that need it.
    ///
    /// A part that reads no column (`0.06 + 0.01`, `DATE '1994-01-01' +
    /// INTERVAL '1' YEAR`) fails on every row or on none, so it does not
    /// count: evaluating it on fewer rows cannot avoid an error.
    pub(crate) fn may_fail(&self) -> bool {
        match &*self.node {
            Node::Arith { .. } | Node::Negate(_) | Node::Function { .. } => self.reads_a_column(),
            Node::Cast { safe, .. } if !safe => self.reads_a_column(),
            other => other.children().iter().any(|c| c.may_fail()),
        }
    }

    /// Whether the expression reads any input column.
    fn reads_a_column(&self) -> bool {
        matches!(*self.node, Node::Column(_))
            || self.node.children().iter().any(|c| c.reads_a_column())
    }
}
