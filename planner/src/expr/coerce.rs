//! SQL type coercion: the casts inserted so that every kernel sees operands
//! of the types it needs.
//!
//! The rules are DataFusion's (`datafusion_expr::type_coercion`), so that
//! the types tenon computes agree with the types DataFusion's logical plan
//! (and its `Expr::get_type`) report: Int32 with Int64 is Int64, an integer
//! with a float is Float64, decimal results get the precision and scale of
//! Arrow's decimal kernels, Utf8 / LargeUtf8 / Utf8View meet at one string
//! type, a string literal compared with a date is read as a date, NULL takes
//! the other side's type. One departure, as in PostgreSQL: a string *column*
//! is not silently compared with a number (only a string literal is read as
//! one), since a cast of every row that fails on the first non-number is
//! rarely what the query meant.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_cast::{CastOptions, can_cast_types, cast_with_options};
use arrow_schema::{DataType, Schema};
use datafusion_expr::binary::comparison_coercion;

use crate::expr::error::{ExprError, Result};
use crate::expr::physical::{Node, PhysicalExpr};
use crate::expr::value::Value;

/// `expr` as type `to`: itself if it has that type already, a folded
/// literal for a constant, else a CAST node.
///
/// # Errors
///
/// A cast Arrow cannot perform, or a constant that does not convert
/// (`'abc'` to Int64); `context` is the enclosing expression's text.
pub(crate) fn cast_to(expr: PhysicalExpr, to: &DataType, context: &str) -> Result<PhysicalExpr> {
    if expr.data_type() == to {
        return Ok(expr);
    }
    if !can_cast_types(expr.data_type(), to) {
        return Err(ExprError::type_error(
            context,
            format!(
                "cannot convert {} (type {}) to {to}; cast it explicitly to a type that \
                 converts",
                expr.text,
                expr.data_type()
            ),
        ));
    }
    let text = format!("CAST({} AS {to})", expr.text);
    if let Node::Literal(v) = &*expr.node {
        let out = crate::expr::time_text::cast(
            v.inner(),
            to,
            &CastOptions {
                safe: false,
                ..Default::default()
            },
        )
        .map_err(|e| {
            ExprError::type_error(
                context,
                format!("cannot convert {} to {to}: {e}", expr.text),
            )
        })?;
        return Ok(PhysicalExpr::new(
            Node::Literal(Value::Scalar(out)),
            to.clone(),
            expr.text.clone(),
        ));
    }
    Ok(PhysicalExpr::new(
        Node::Cast {
            input: expr,
            safe: false,
        },
        to.clone(),
        text,
    ))
}

impl PhysicalExpr {
    /// The expression as type `to`: itself if it has that type already, a
    /// folded literal for a constant, else a CAST.
    ///
    /// # Errors
    ///
    /// A cast Arrow cannot perform, or a constant that does not convert.
    pub fn cast_to(self, to: &DataType) -> Result<PhysicalExpr> {
        let context = self.text.to_string();
        cast_to(self, to, &context)
    }
}

/// The type two operands are compared in.
///
/// # Errors
///
/// Types that do not compare, with both named.
pub(crate) fn comparison_type(
    left: &PhysicalExpr,
    right: &PhysicalExpr,
    context: &str,
) -> Result<DataType> {
    let (lt, rt) = (left.data_type(), right.data_type());
    let mismatch = || {
        ExprError::type_error(
            context,
            format!("cannot compare {lt} with {rt}; cast one side"),
        )
    };
    let string_vs_number = |s: &PhysicalExpr, n: &DataType| {
        is_string(s.data_type()) && n.is_numeric() && !s.is_literal()
    };
    if string_vs_number(left, rt) || string_vs_number(right, lt) {
        return Err(mismatch());
    }
    comparison_coercion(lt, rt).ok_or_else(mismatch)
}

/// The operands of a comparison, each of the type it is compared in.
///
/// A column compared with a number literal that its own type holds
/// exactly (`l_quantity < 24` with `l_quantity` a DECIMAL(15, 2)) is
/// compared in the column's type, with the literal converted once: the
/// same answer as casting every row to the common type (both convert
/// exactly and in order into it), without a cast of the column per batch.
///
/// # Errors
///
/// As [`comparison_type`] and [`cast_to`].
pub(crate) fn comparison_operands(
    left: PhysicalExpr,
    right: PhysicalExpr,
    context: &str,
) -> Result<(PhysicalExpr, PhysicalExpr)> {
    let t = comparison_type(&left, &right, context)?;
    if let Some(r) = exact_literal(&right, left.data_type(), &t) {
        return Ok((left, r));
    }
    if let Some(l) = exact_literal(&left, right.data_type(), &t) {
        return Ok((l, right));
    }
    Ok((cast_to(left, &t, context)?, cast_to(right, &t, context)?))
}

/// `literal` (a non-NULL number) as type `to` (an integer or decimal
/// type other than the comparison's `common` integer or decimal type),
/// when `to` holds its value in `common` exactly: the literal converted
/// to `common`, then to `to` and back, is unchanged. A column of type
/// `to` converts exactly and in order into `common`, so comparing it with
/// that value gives what comparing both in `common` gives. A float literal
/// qualifies through its value in `common` (`0.06 + 0.01` is
/// 0.06999999999999999 as a double and 0.070000000000000 as the
/// DECIMAL(30, 15) a DECIMAL(15, 2) column is compared in); a float
/// `common` type never does, since its conversions round. `None`
/// otherwise.
pub(crate) fn exact_literal(
    literal: &PhysicalExpr,
    to: &DataType,
    common: &DataType,
) -> Option<PhysicalExpr> {
    let exact_number = |t: &DataType| t.is_integer() || t.is_decimal();
    if to == common || !exact_number(to) || !exact_number(common) {
        return None;
    }
    if !literal.data_type().is_numeric() {
        return None;
    }
    let Node::Literal(v) = &*literal.node else {
        return None;
    };
    let value = v.inner();
    if value.null_count() > 0 {
        return None;
    }
    let options = CastOptions {
        safe: false,
        ..Default::default()
    };
    let in_common = cast_with_options(value, common, &options).ok()?;
    let there = cast_with_options(&in_common, to, &options).ok()?;
    let back = cast_with_options(&there, common, &options).ok()?;
    (back.as_ref() == in_common.as_ref()).then(|| {
        PhysicalExpr::new(
            Node::Literal(Value::Scalar(there)),
            to.clone(),
            literal.text.clone(),
        )
    })
}

/// Whether `t` is one of the string types.
pub(crate) fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// Replaces a node whose inputs are all constants by its value, when it is
/// deterministic. A node that fails on its constants (`1 / 0`) stays as it
/// is: the error is raised when (and if) a row evaluates it, which keeps
/// `CASE WHEN false THEN 1 / 0 END` valid.
pub(crate) fn fold(expr: PhysicalExpr) -> PhysicalExpr {
    let node = &*expr.node;
    if matches!(node, Node::Literal(_) | Node::Column(_)) {
        return expr;
    }
    if let Node::Function { func, .. } = node
        && func.signature().volatility != datafusion_expr::Volatility::Immutable
    {
        return expr;
    }
    if !node.children().iter().all(|c| c.is_literal()) {
        return expr;
    }
    let options = RecordBatchOptions::new().with_row_count(Some(1));
    let Ok(one_row) =
        RecordBatch::try_new_with_options(Arc::new(Schema::empty()), vec![], &options)
    else {
        return expr;
    };
    match expr.evaluate_value(&one_row) {
        Ok(v) if v.inner().len() == 1 && v.data_type() == expr.data_type() => {
            let scalar = Value::Scalar(v.inner().clone());
            PhysicalExpr::new(
                Node::Literal(scalar),
                expr.data_type.clone(),
                expr.text.clone(),
            )
        }
        _ => expr,
    }
}
