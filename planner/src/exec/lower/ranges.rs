//! Range conditions for the sort-merge and nested-loop kernels, taken out
//! of a join predicate.
//!
//! A conjunct `L <op> R` (`<`, `<=`, `>`, `>=`, and `=` as `>=` and `<=`)
//! or `X BETWEEN lo AND hi` whose two sides each read only one input
//! becomes a [`RangeSpec`]; each side may be an expression (`b.t - 10`),
//! which the join lowering computes into a column of its input before the
//! join. The kernels then search sorted windows instead of testing pairs.
//! Sides of different types, types the kernels cannot order, volatile
//! expressions and everything else stay in the residual predicate.

use datafusion_common::DFSchema;
use datafusion_expr::utils::{conjunction, split_conjunction};
use datafusion_expr::{Between, BinaryExpr, Expr, Operator};

use crate::expr::{PhysicalExpr, QueryContext};
use crate::kernels::{CmpOp, range_type_supported};

/// `left <op> right`, each side over its own input's (logical) columns.
#[derive(Debug, Clone)]
pub(super) struct RangeSpec {
    /// Over the left input.
    pub left: PhysicalExpr,
    /// The comparison, read as `left <op> right`.
    pub op: CmpOp,
    /// Over the right input.
    pub right: PhysicalExpr,
}

/// Splits `predicate` into range conditions and the residual.
pub(super) fn split_ranges(
    predicate: &Expr,
    left: &DFSchema,
    right: &DFSchema,
    ctx: &QueryContext,
) -> (Vec<RangeSpec>, Option<Expr>) {
    let mut specs = Vec::new();
    let mut rest = Vec::new();
    for conjunct in split_conjunction(predicate) {
        match ranges_of(conjunct, left, right, ctx) {
            Some(mut found) => specs.append(&mut found),
            None => rest.push(conjunct.clone()),
        }
    }
    (specs, conjunction(rest))
}

/// Which input `e` reads: `Some(true)` only the left, `Some(false)` only
/// the right, `None` both, neither, or something volatile.
fn side_of(e: &Expr, left: &DFSchema, right: &DFSchema) -> Option<bool> {
    if e.is_volatile() {
        return None;
    }
    let columns = e.column_refs();
    if columns.is_empty() {
        return None;
    }
    if columns.iter().all(|c| left.has_column(c)) {
        Some(true)
    } else if columns.iter().all(|c| right.has_column(c)) {
        Some(false)
    } else {
        None
    }
}

fn cmp_op(op: Operator) -> Option<CmpOp> {
    Some(match op {
        Operator::Lt => CmpOp::Lt,
        Operator::LtEq => CmpOp::Le,
        Operator::Gt => CmpOp::Gt,
        Operator::GtEq => CmpOp::Ge,
        _ => return None,
    })
}

/// `l <op> r` with `l` over the left input, compiled, when both sides have
/// one orderable type.
fn spec(
    l: &Expr,
    op: CmpOp,
    r: &Expr,
    left: &DFSchema,
    right: &DFSchema,
    ctx: &QueryContext,
) -> Option<RangeSpec> {
    let l = PhysicalExpr::compile(l, left, ctx).ok()?;
    let r = PhysicalExpr::compile(r, right, ctx).ok()?;
    (l.data_type() == r.data_type() && range_type_supported(l.data_type())).then_some(RangeSpec {
        left: l,
        op,
        right: r,
    })
}

/// The range conditions one conjunct stands for, if it is one.
fn ranges_of(
    conjunct: &Expr,
    left: &DFSchema,
    right: &DFSchema,
    ctx: &QueryContext,
) -> Option<Vec<RangeSpec>> {
    match conjunct {
        Expr::BinaryExpr(BinaryExpr {
            left: a,
            op,
            right: b,
        }) => {
            let (l, r, flipped) = match (side_of(a, left, right)?, side_of(b, left, right)?) {
                (true, false) => (a, b, false),
                (false, true) => (b, a, true),
                _ => return None,
            };
            let ops: Vec<CmpOp> = match op {
                Operator::Eq => vec![CmpOp::Ge, CmpOp::Le],
                other => {
                    let op = cmp_op(*other)?;
                    vec![if flipped { op.flip() } else { op }]
                }
            };
            ops.into_iter()
                .map(|op| spec(l, op, r, left, right, ctx))
                .collect()
        }
        Expr::Between(Between {
            expr,
            negated: false,
            low,
            high,
        }) => {
            let x = side_of(expr, left, right)?;
            if side_of(low, left, right)? == x || side_of(high, left, right)? == x {
                return None;
            }
            if x {
                Some(vec![
                    spec(expr, CmpOp::Ge, low, left, right, ctx)?,
                    spec(expr, CmpOp::Le, high, left, right, ctx)?,
                ])
            } else {
                Some(vec![
                    spec(low, CmpOp::Le, expr, left, right, ctx)?,
                    spec(high, CmpOp::Ge, expr, left, right, ctx)?,
                ])
            }
        }
        _ => None,
    }
}
