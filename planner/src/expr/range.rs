//! Splitting range conditions out of a join's residual predicate.
//!
//! The nested-loop and sort-merge kernels can *use* a conjunct such as
//! `l.t < r.t` or `l.t BETWEEN r.lo AND r.hi` (sort one side and search)
//! instead of testing every pair with a filter. [`split_range_conditions`]
//! finds the conjuncts of that shape, plain columns of one same type that
//! [`range_type_supported`] accepts, one column from each side, and returns
//! them as [`RangeCondition`]s with the rest of the predicate.
//!
//! Semantics agree with the filter they replace for every value but one:
//! the kernels compare floats as SQL engines sort them, so `-0.0 = 0.0`,
//! where Arrow's comparison kernels order `-0.0` before `0.0`.

use arrow_schema::DataType;
use datafusion_common::{Column, DFSchema};
use datafusion_expr::expr::{Between, BinaryExpr};
use datafusion_expr::utils::{conjunction, split_conjunction};
use datafusion_expr::{Expr, Operator};
use tenon_kernels::{CmpOp, RangeCondition, range_type_supported};

/// A join predicate split into range conditions and the remaining filter.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitCondition {
    /// The conjuncts of the form `left.c <op> right.c`.
    pub ranges: Vec<RangeCondition>,
    /// The conjunction of the other conjuncts, if any.
    pub residual: Option<Expr>,
}

/// Splits `predicate`, over the join's combined `schema` (the first
/// `left_columns` fields from the left input), into range conditions and
/// the residual.
///
/// `l.c <op> r.c` (or `r.c <op> l.c`, flipped) for `<`, `<=`, `>`, `>=`,
/// and `l.c BETWEEN r.lo AND r.hi` (two conditions) qualify when both
/// columns have the same type (timestamps: the same unit) that
/// [`range_type_supported`] accepts; `NOT BETWEEN` and everything else stay
/// in the residual. A BETWEEN of which only one bound qualifies leaves the
/// other bound's comparison in the residual.
///
/// ```
/// use std::sync::Arc;
/// use arrow_schema::{DataType, Field, Schema};
/// use datafusion_common::DFSchema;
/// use datafusion_expr::{col, lit};
/// use tenon_kernels::{CmpOp, RangeCondition};
/// use tenon_planner::expr::split_range_conditions;
///
/// let l = Schema::new(vec![Field::new("t", DataType::Int64, true)]);
/// let r = Schema::new(vec![
///     Field::new("lo", DataType::Int64, true),
///     Field::new("hi", DataType::Int64, true),
/// ]);
/// let schema = DFSchema::try_from_qualified_schema("a", &l)?
///     .join(&DFSchema::try_from_qualified_schema("b", &r)?)?;
/// let pred = col("a.t").between(col("b.lo"), col("b.hi")).and(col("b.hi").gt(lit(3)));
/// let split = split_range_conditions(&pred, &schema, 1);
/// assert_eq!(split.ranges, vec![
///     RangeCondition::new(0, CmpOp::Ge, 0),
///     RangeCondition::new(0, CmpOp::Le, 1),
/// ]);
/// assert_eq!(split.residual, Some(col("b.hi").gt(lit(3))));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn split_range_conditions(
    predicate: &Expr,
    schema: &DFSchema,
    left_columns: usize,
) -> SplitCondition {
    let mut ranges = Vec::new();
    let mut rest = Vec::new();
    for conjunct in split_conjunction(predicate) {
        match conjunct {
            Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
                match range(left, *op, right, schema, left_columns) {
                    Some(r) => ranges.push(r),
                    None => rest.push(conjunct.clone()),
                }
            }
            Expr::Between(Between {
                expr,
                negated: false,
                low,
                high,
            }) => {
                for (op, bound) in [(Operator::GtEq, low), (Operator::LtEq, high)] {
                    match range(expr, op, bound, schema, left_columns) {
                        Some(r) => ranges.push(r),
                        None => rest.push(Expr::BinaryExpr(BinaryExpr::new(
                            expr.clone(),
                            op,
                            bound.clone(),
                        ))),
                    }
                }
            }
            other => rest.push(other.clone()),
        }
    }
    SplitCondition {
        ranges,
        residual: conjunction(rest),
    }
}

/// `left <op> right` as a range condition, if it is one.
fn range(
    left: &Expr,
    op: Operator,
    right: &Expr,
    schema: &DFSchema,
    left_columns: usize,
) -> Option<RangeCondition> {
    let op = match op {
        Operator::Lt => CmpOp::Lt,
        Operator::LtEq => CmpOp::Le,
        Operator::Gt => CmpOp::Gt,
        Operator::GtEq => CmpOp::Ge,
        _ => return None,
    };
    let (a, ta) = column(left, schema)?;
    let (b, tb) = column(right, schema)?;
    let same = match (ta, tb) {
        (DataType::Timestamp(x, _), DataType::Timestamp(y, _)) => x == y,
        (x, y) => x == y,
    };
    if !same || !range_type_supported(ta) {
        return None;
    }
    match (a < left_columns, b < left_columns) {
        (true, false) => Some(RangeCondition::new(a, op, b - left_columns)),
        (false, true) => Some(RangeCondition::new(b, op.flip(), a - left_columns)),
        _ => None,
    }
}

/// A plain column reference: its index and type.
fn column<'a>(e: &Expr, schema: &'a DFSchema) -> Option<(usize, &'a DataType)> {
    let c: &Column = match e {
        Expr::Column(c) => c,
        _ => return None,
    };
    let i = schema.index_of_column(c).ok()?;
    Some((i, schema.field(i).data_type()))
}
