//! Range conditions for the sort-merge and nested-loop kernels, taken out
//! of a join predicate.
//!
//! A conjunct `L <op> R` (`<`, `<=`, `>`, `>=`, and `=` as `>=` and `<=`)
//! or `X BETWEEN lo AND hi` whose two sides each read only one input
//! becomes a [`RangeSpec`]; each side may be an expression (`b.t - 10`),
//! which the join lowering computes into a column of its input before the
//! join. The kernels then search sorted windows instead of testing pairs.
//! Sides of different types, types the kernels cannot order, volatile
//! expressions and everything else stay in the residual predicate; a
//! BETWEEN stays whole unless both of its bounds qualify.
//!
//! Semantics agree with the filter they replace for every value but one:
//! the kernels compare floats as SQL engines sort them, so `-0.0 = 0.0`,
//! where Arrow's comparison kernels order `-0.0` before `0.0`.

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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_schema::{DataType, Field, Schema, TimeUnit};
    use datafusion_common::DFSchema;
    use datafusion_expr::{Expr, col, lit};

    use super::split_ranges;
    use crate::expr::QueryContext;
    use crate::kernels::{CmpOp, RangeCondition};

    /// `l(k, v, s)` and `r(w, u, t)`: two Int64 columns and a string.
    fn sides() -> (DFSchema, DFSchema) {
        let side = |q: &str, a: &str, b: &str, c: &str| {
            let schema = Arc::new(Schema::new(vec![
                Field::new(a, DataType::Int64, true),
                Field::new(b, DataType::Int64, true),
                Field::new(c, DataType::Utf8, true),
            ]));
            DFSchema::try_from_qualified_schema(q, &schema).unwrap()
        };
        (side("l", "k", "v", "s"), side("r", "w", "u", "t"))
    }

    /// One range as the columns of its two sides (`None`: a computed side).
    type Sides = (Option<usize>, CmpOp, Option<usize>);

    /// The split, each range as [`Sides`].
    fn split(pred: &Expr, left: &DFSchema, right: &DFSchema) -> (Vec<Sides>, Option<Expr>) {
        let (specs, residual) = split_ranges(pred, left, right, &QueryContext::new());
        let ranges = specs
            .iter()
            .map(|r| (r.left.as_column(), r.op, r.right.as_column()))
            .collect();
        (ranges, residual)
    }

    /// Ranges of plain columns as the kernels take them.
    fn conditions(ranges: &[Sides]) -> Vec<RangeCondition> {
        ranges
            .iter()
            .map(|&(l, op, r)| RangeCondition::new(l.unwrap(), op, r.unwrap()))
            .collect()
    }

    #[test]
    fn range_conditions_are_split_from_the_residual() {
        let (l, r) = sides();
        // l.k < r.w AND r.u >= l.v AND l.s = r.t
        let pred = col("l.k")
            .lt(col("r.w"))
            .and(col("r.u").gt_eq(col("l.v")))
            .and(col("l.s").eq(col("r.t")));
        let (ranges, residual) = split(&pred, &l, &r);
        assert_eq!(
            conditions(&ranges),
            vec![
                RangeCondition::new(0, CmpOp::Lt, 0),
                RangeCondition::new(1, CmpOp::Le, 1)
            ]
        );
        assert_eq!(residual, Some(col("l.s").eq(col("r.t"))));
    }

    #[test]
    fn between_with_columns_of_the_other_side_gives_two_conditions() {
        let (l, r) = sides();
        let (ranges, residual) = split(&col("r.w").between(col("l.k"), col("l.v")), &l, &r);
        assert_eq!(
            conditions(&ranges),
            vec![
                RangeCondition::new(0, CmpOp::Le, 0),
                RangeCondition::new(1, CmpOp::Ge, 0)
            ]
        );
        assert_eq!(residual, None);
    }

    #[test]
    fn between_of_the_other_sides_columns_with_a_residual() {
        // a.t BETWEEN b.lo AND b.hi AND b.hi > 3
        let a = Schema::new(vec![Field::new("t", DataType::Int64, true)]);
        let b = Schema::new(vec![
            Field::new("lo", DataType::Int64, true),
            Field::new("hi", DataType::Int64, true),
        ]);
        let a = DFSchema::try_from_qualified_schema("a", &a).unwrap();
        let b = DFSchema::try_from_qualified_schema("b", &b).unwrap();
        let pred = col("a.t")
            .between(col("b.lo"), col("b.hi"))
            .and(col("b.hi").gt(lit(3)));
        let (ranges, residual) = split(&pred, &a, &b);
        assert_eq!(
            conditions(&ranges),
            vec![
                RangeCondition::new(0, CmpOp::Ge, 0),
                RangeCondition::new(0, CmpOp::Le, 1),
            ]
        );
        assert_eq!(residual, Some(col("b.hi").gt(lit(3))));
    }

    #[test]
    fn same_side_mixed_types_and_strings_stay_residual() {
        let (l, r) = sides();
        for pred in [
            col("l.k").lt(col("l.v")),
            col("l.s").lt(col("r.t")),
            col("l.k").not_between(col("r.w"), col("r.u")),
        ] {
            let (ranges, residual) = split(&pred, &l, &r);
            assert!(ranges.is_empty(), "{pred}");
            assert_eq!(residual, Some(pred));
        }
        // Int32 against Int64 is not one type: left to the (coercing) filter
        let l = Schema::new(vec![Field::new("a", DataType::Int32, true)]);
        let r = Schema::new(vec![
            Field::new("b", DataType::Int64, true),
            Field::new("t1", DataType::Timestamp(TimeUnit::Second, None), true),
        ]);
        let l = DFSchema::try_from_qualified_schema("l", &l).unwrap();
        let r = DFSchema::try_from_qualified_schema("r", &r).unwrap();
        let (ranges, _) = split(&col("l.a").lt(col("r.b")), &l, &r);
        assert!(ranges.is_empty());
    }

    #[test]
    fn computed_sides_and_equalities_are_ranges() {
        // Unlike the column-only splitter this replaced: a side may be an
        // expression of one input (computed into a column before the join),
        // and `=` is searched as `>=` and `<=` (NEST_LOOP's folded keys).
        let (l, r) = sides();
        let (ranges, residual) = split(&(col("l.k") + lit(1i64)).lt(col("r.w")), &l, &r);
        assert_eq!(ranges, vec![(None, CmpOp::Lt, Some(0))]);
        assert_eq!(residual, None);
        let (ranges, residual) = split(&col("l.k").eq(col("r.w")), &l, &r);
        assert_eq!(
            ranges,
            vec![(Some(0), CmpOp::Ge, Some(0)), (Some(0), CmpOp::Le, Some(0))]
        );
        assert_eq!(residual, None);
    }

    #[test]
    fn between_with_one_qualifying_bound_stays_whole_in_the_residual() {
        // Unlike the column-only splitter this replaced, which took the
        // qualifying bound and left `l.k <= 3`: the BETWEEN stays whole.
        let (l, r) = sides();
        let pred = col("l.k").between(col("r.w"), lit(3i64));
        let (ranges, residual) = split(&pred, &l, &r);
        assert!(ranges.is_empty());
        assert_eq!(residual, Some(pred));
    }
}
