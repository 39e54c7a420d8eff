//! Evaluation of compiled expressions on a batch, one Arrow kernel call per
//! node (never a loop over rows where a kernel exists).
//!
//! Scalars stay scalars: `a < 5` hands `5` to `arrow_ord::cmp::lt` as a
//! scalar [`Datum`](arrow_array::Datum), and a node whose inputs are all
//! scalars produces a scalar. Boolean logic, CASE, COALESCE and friends live
//! in [`logic`](super::logic) and [`conditional`](super::conditional).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Decimal256Type};
use arrow_array::{ArrayRef, BooleanArray, RecordBatch};
use arrow_cast::CastOptions;
use arrow_schema::{ArrowError, DECIMAL128_MAX_PRECISION, DataType, TimeUnit};

use crate::exec::held_form;
use crate::expr::error::{ExprError, Result};
use crate::expr::narrow::{Operand, compare_operands, widened_value};
use crate::expr::physical::{ArithOp, CompareOp, Node, PhysicalExpr};
use crate::expr::value::Value;
use crate::expr::{conditional, decimal, dictionary, logic, scalar_fn, view_compare};
use tenon_kernels::{canonical_floats, compare_scalar};

impl PhysicalExpr {
    /// Evaluates the expression on `batch`, keeping a constant result as a
    /// scalar [`Value`] instead of an array of `num_rows` copies.
    ///
    /// # Errors
    ///
    /// As [`PhysicalExpr::evaluate`].
    pub fn evaluate_value(&self, batch: &RecordBatch) -> Result<Value> {
        let arrow = |e: ArrowError| ExprError::arrow(&self.text, e);
        if let Some(v) = dictionary::evaluate(self, batch)? {
            return Ok(v);
        }
        match &*self.node {
            Node::Column(i) => self.column(batch, *i),
            Node::Literal(v) => Ok(v.clone()),
            Node::Cast { input, safe } => {
                let v = input.evaluate_value(batch)?;
                let options = CastOptions {
                    safe: *safe,
                    ..Default::default()
                };
                let out = crate::expr::time_text::cast(v.inner(), &self.data_type, &options)
                    .map_err(arrow)?;
                Ok(Value::from_kernel(out, v.is_scalar()))
            }
            Node::Compare { op, left, right } => {
                let l = Operand::of(left, batch)?;
                let r = Operand::of(right, batch)?;
                compare_operands(self, *op, l, r)
            }
            Node::Arith { op, left, right } => {
                let l = left.evaluate_value(batch)?;
                let r = right.evaluate_value(batch)?;
                let out = self.arith(*op, &l, &r)?;
                Ok(Value::from_kernel(out, l.is_scalar() && r.is_scalar()))
            }
            Node::Negate(input) => {
                let v = input.evaluate_value(batch)?;
                let out = arrow_arith::numeric::neg(v.inner().as_ref()).map_err(arrow)?;
                Ok(Value::from_kernel(out, v.is_scalar()))
            }
            Node::Like {
                input,
                pattern,
                negated,
                case_insensitive,
            } => {
                let v = input.evaluate_value(batch)?;
                let p = pattern.evaluate_value(batch)?;
                if let Some(out) = crate::expr::like::try_like(&v, &p, *negated, *case_insensitive)
                {
                    return Ok(Value::Array(Arc::new(out)));
                }
                use arrow_string::like;
                let out = match (negated, case_insensitive) {
                    (false, false) => like::like(&v, &p),
                    (true, false) => like::nlike(&v, &p),
                    (false, true) => like::ilike(&v, &p),
                    (true, true) => like::nilike(&v, &p),
                }
                .map_err(arrow)?;
                Ok(Value::from_kernel(
                    Arc::new(out),
                    v.is_scalar() && p.is_scalar(),
                ))
            }
            Node::Concat(left, right) => {
                let rows = batch.num_rows();
                let l = left.evaluate_value(batch)?;
                let r = right.evaluate_value(batch)?;
                let scalar = l.is_scalar() && r.is_scalar();
                let (l, r) = if scalar {
                    (l.inner().clone(), r.inner().clone())
                } else {
                    (
                        l.into_array(rows).map_err(arrow)?,
                        r.into_array(rows).map_err(arrow)?,
                    )
                };
                let out =
                    arrow_string::concat_elements::concat_elements_dyn(&l, &r).map_err(arrow)?;
                Ok(Value::from_kernel(out, scalar))
            }
            Node::And(..)
            | Node::Or(..)
            | Node::Not(_)
            | Node::IsNull(_)
            | Node::IsNotNull(_)
            | Node::Truth(..)
            | Node::Between { .. }
            | Node::InList { .. } => logic::evaluate(self, batch),
            Node::Case { .. } | Node::Coalesce(_) | Node::NullIf(..) => {
                conditional::evaluate(self, batch)
            }
            Node::Function { .. } => scalar_fn::evaluate(self, batch),
        }
    }

    fn column(&self, batch: &RecordBatch, index: usize) -> Result<Value> {
        let column = batch.columns().get(index).ok_or_else(|| ExprError::Eval {
            expr: self.text.to_string(),
            message: format!(
                "the batch has {} columns but the expression reads column {index}; compile \
                 the expression against the batch's schema",
                batch.num_columns()
            ),
        })?;
        if column.data_type() != &self.data_type {
            // A column a held table keeps narrow, read by something other
            // than a comparison with a constant (`narrow`).
            if held_form::is_narrow_form(column.data_type(), &self.data_type) {
                return widened_value(self, column, &self.data_type);
            }
            return Err(ExprError::type_error(
                &self.text,
                format!(
                    "column {index} has type {} in the batch, but the expression was compiled \
                     for {}",
                    column.data_type(),
                    self.data_type
                ),
            ));
        }
        Ok(Value::Array(column.clone()))
    }

    fn arith(&self, op: ArithOp, l: &Value, r: &Value) -> Result<ArrayRef> {
        use arrow_arith::numeric;
        if let Some(out) = decimal::try_arith(op, l, r) {
            return Ok(out); // fits its precision by construction
        }
        super::interval::check_date_interval(l, r, &self.text)?;
        // The checked kernels: integer overflow and division by zero are
        // errors, not wrapped values (SQL semantics).
        let out = match op {
            ArithOp::Add => numeric::add(l, r),
            ArithOp::Sub => numeric::sub(l, r),
            ArithOp::Mul => numeric::mul(l, r),
            ArithOp::Div => numeric::div(l, r),
            ArithOp::Rem => numeric::rem(l, r),
        }
        .map_err(|e| {
            super::interval::out_of_range(&self.text, l.data_type(), r.data_type(), &e)
                .unwrap_or_else(|| ExprError::arrow(&self.text, e))
        })?;
        // Arrow checks decimals only against the 128/256-bit range; SQL
        // requires the result to fit its declared precision.
        let overflow = |e: ArrowError| ExprError::Overflow {
            expr: self.text.to_string(),
            detail: e.to_string(),
        };
        // Sums, differences and products of values that fit their
        // precisions fit the precision Arrow gives the result unless it
        // was capped at the maximum; then, and for quotients, every value
        // is checked (a bound check first, Arrow's check for the error).
        let exact = matches!(op, ArithOp::Add | ArithOp::Sub | ArithOp::Mul);
        match out.data_type() {
            DataType::Decimal128(p, _) if exact && *p < DECIMAL128_MAX_PRECISION => {}
            DataType::Decimal128(p, _) => {
                let values = out.as_primitive::<Decimal128Type>();
                let max = 10_i128.pow(u32::from(*p)) - 1;
                let fits = values
                    .values()
                    .iter()
                    .fold(true, |ok, &v| ok & (v <= max) & (v >= -max));
                if !fits {
                    values.validate_decimal_precision(*p).map_err(overflow)?
                }
            }
            DataType::Decimal256(p, _) => out
                .as_primitive::<Decimal256Type>()
                .validate_decimal_precision(*p)
                .map_err(overflow)?,
            _ => {}
        }
        Ok(out)
    }
}

/// One comparison kernel call.
///
/// Floats compare as SQL engines (DuckDB, PostgreSQL) compare them, and as
/// tenon's joins, GROUP BY and ORDER BY do: `-0.0 = 0.0`, NaN equals NaN
/// (whatever its sign bit or payload) and is greater than every other
/// value, `+inf` included. Arrow's kernels order floats by their total
/// order (`-0.0 < 0.0`, a negative NaN below `-inf`), so float operands
/// are canonicalized first ([`canonical_floats`]), which makes that total
/// order the SQL one.
pub(crate) fn compare(op: CompareOp, l: &Value, r: &Value) -> Result<BooleanArray, ArrowError> {
    use arrow_ord::cmp;
    if let Some(out) = view_compare::try_compare(op, l, r) {
        return Ok(out);
    }
    if let Some(out) = compare_with_scalar(op, l, r) {
        return Ok(out);
    }
    if l.inner().data_type().is_nested() {
        return compare_nested(op, l, r);
    }
    let (l, r) = (&canonical_value(l), &canonical_value(r));
    match op {
        CompareOp::Eq => cmp::eq(l, r),
        CompareOp::NotEq => cmp::neq(l, r),
        CompareOp::Lt => cmp::lt(l, r),
        CompareOp::LtEq => cmp::lt_eq(l, r),
        CompareOp::Gt => cmp::gt(l, r),
        CompareOp::GtEq => cmp::gt_eq(l, r),
        CompareOp::IsDistinctFrom => cmp::distinct(l, r),
        CompareOp::IsNotDistinctFrom => cmp::not_distinct(l, r),
    }
}

/// `op` of nested values (arrays, maps, rows), which Arrow's comparison
/// kernels do not take: row by row through a comparator of the two arrays
/// (a NULL inside a value ordered first, equal to a NULL; a NULL value
/// gives NULL, or for `IS [NOT] DISTINCT FROM` compares as a value).
fn compare_nested(op: CompareOp, l: &Value, r: &Value) -> Result<BooleanArray, ArrowError> {
    use std::cmp::Ordering;
    let (la, ra) = (l.inner(), r.inner());
    let cmp = arrow_ord::ord::make_comparator(la.as_ref(), ra.as_ref(), Default::default())?;
    let n = if l.is_scalar() { ra.len() } else { la.len() };
    let at = |v: &Value, i: usize| if v.is_scalar() { 0 } else { i };
    let out = (0..n).map(|i| {
        let (li, ri) = (at(l, i), at(r, i));
        let (ln, rn) = (la.is_null(li), ra.is_null(ri));
        match op {
            CompareOp::IsDistinctFrom | CompareOp::IsNotDistinctFrom => {
                let same = match (ln, rn) {
                    (true, true) => true,
                    (false, false) => cmp(li, ri) == Ordering::Equal,
                    _ => false,
                };
                Some(same == (op == CompareOp::IsNotDistinctFrom))
            }
            _ if ln || rn => None,
            _ => {
                let o = cmp(li, ri);
                Some(match op {
                    CompareOp::Eq => o == Ordering::Equal,
                    CompareOp::NotEq => o != Ordering::Equal,
                    CompareOp::Lt => o == Ordering::Less,
                    CompareOp::LtEq => o != Ordering::Greater,
                    CompareOp::Gt => o == Ordering::Greater,
                    _ => o != Ordering::Less,
                })
            }
        }
    });
    Ok(out.collect())
}

/// `op` of an integer, decimal or temporal column with a value of its own
/// type that is not NULL, through the kernel compiled for this CPU
/// ([`compare_scalar`]); `None` for other operands (Arrow's kernels then).
fn compare_with_scalar(op: CompareOp, l: &Value, r: &Value) -> Option<BooleanArray> {
    use arrow_array::types::*;
    let (array, scalar, op) = match (l, r) {
        (Value::Array(a), Value::Scalar(s)) => (a, s, op),
        (Value::Scalar(s), Value::Array(a)) => (a, s, op.flipped()),
        _ => return None,
    };
    if array.data_type() != scalar.data_type() || scalar.len() != 1 || scalar.is_null(0) {
        return None;
    }
    let cmp = op.scalar_cmp()?;
    macro_rules! bits {
        ($t:ty) => {
            compare_scalar(
                array.as_primitive::<$t>().values(),
                cmp,
                scalar.as_primitive::<$t>().value(0),
            )
        };
    }
    let bits = match array.data_type() {
        DataType::Int8 => bits!(Int8Type),
        DataType::Int16 => bits!(Int16Type),
        DataType::Int32 => bits!(Int32Type),
        DataType::Int64 => bits!(Int64Type),
        DataType::UInt8 => bits!(UInt8Type),
        DataType::UInt16 => bits!(UInt16Type),
        DataType::UInt32 => bits!(UInt32Type),
        DataType::UInt64 => bits!(UInt64Type),
        DataType::Date32 => bits!(Date32Type),
        DataType::Date64 => bits!(Date64Type),
        // Operands of one decimal type: their unscaled values compare.
        DataType::Decimal128(_, _) => bits!(Decimal128Type),
        DataType::Timestamp(unit, _) => match unit {
            TimeUnit::Second => bits!(TimestampSecondType),
            TimeUnit::Millisecond => bits!(TimestampMillisecondType),
            TimeUnit::Microsecond => bits!(TimestampMicrosecondType),
            TimeUnit::Nanosecond => bits!(TimestampNanosecondType),
        },
        _ => return None,
    };
    Some(BooleanArray::new(bits, array.nulls().cloned()))
}

/// `v` with its floats canonicalized (`-0.0` as `0.0`, one NaN); other
/// values as they are (a cheap clone of the array reference).
fn canonical_value(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(canonical_floats(a)),
        Value::Scalar(s) => Value::Scalar(canonical_floats(s)),
    }
}
