//! Range conditions for the sort-merge and nested-loop kernels, taken out
//! of a join predicate.
//!
//! A conjunct `L <op> R` (`<`, `<=`, `>`, `>=`, and `=` as `>=` and `<=`)
//! or `X BETWEEN lo AND hi` whose two sides each read only one input
//! becomes a [`RangeSpec`]; each side may be an expression (`b.t - 10`),
//! which the join lowering computes into a column of its input before the
//! join. The kernels then search sorted windows instead of testing pairs.
//!
//! A side `x ± c` (or `c + x`) with a constant `c` becomes `x` and an offset
//! of the condition instead (see [`split_constant`]): `l.t >= r.t +
//! INTERVAL '10' MINUTE` reaches the kernels as `left[t] >= right[t] +
//! 600000000` on microsecond timestamps, with no column computed per row.
//! The kernels compare such a bound exactly, so where the computed column
//! would overflow (an error) the condition gives the mathematical answer.
//! Sides of different types, types the kernels cannot order, volatile
//! expressions and everything else stay in the residual predicate; a
//! BETWEEN stays whole unless both of its bounds qualify.
//!
//! Semantics agree with the filter they replace for every value but one:
//! the kernels compare floats as SQL engines sort them, so `-0.0 = 0.0`,
//! where Arrow's comparison kernels order `-0.0` before `0.0`.

use arrow_schema::{DataType, TimeUnit};
use datafusion_common::{DFSchema, ScalarValue};
use datafusion_expr::utils::{conjunction, split_conjunction};
use datafusion_expr::{Between, BinaryExpr, Expr, Operator};

use crate::expr::{PhysicalExpr, QueryContext};
use tenon_kernels::{CmpOp, range_type_supported};

/// `left <op> right`, each side over its own input's (logical) columns.
#[derive(Debug, Clone)]
pub(super) struct RangeSpec {
    /// Over the left input.
    pub left: PhysicalExpr,
    /// The comparison, read as `left <op> right`.
    pub op: CmpOp,
    /// Over the right input.
    pub right: PhysicalExpr,
    /// Added to `right` (in units of the type's order-preserving image):
    /// the condition is `left <op> right + offset`.
    pub offset: i64,
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
/// one orderable type: with the sides' constant terms moved into the
/// offset where they convert exactly, else as written.
fn spec(
    l: &Expr,
    op: CmpOp,
    r: &Expr,
    left: &DFSchema,
    right: &DFSchema,
    ctx: &QueryContext,
) -> Option<RangeSpec> {
    offset_spec(l, op, r, left, right, ctx).or_else(|| {
        let l = PhysicalExpr::compile(l, left, ctx).ok()?;
        let r = PhysicalExpr::compile(r, right, ctx).ok()?;
        (l.data_type() == r.data_type() && range_type_supported(l.data_type())).then_some(
            RangeSpec {
                left: l,
                op,
                right: r,
                offset: 0,
            },
        )
    })
}

/// `(L + a) <op> (R + b)` as `L <op> R + (b - a)`, when at least one side
/// has a constant term, `L` and `R` have one type, and both constants
/// convert exactly to its image units.
fn offset_spec(
    l: &Expr,
    op: CmpOp,
    r: &Expr,
    left: &DFSchema,
    right: &DFSchema,
    ctx: &QueryContext,
) -> Option<RangeSpec> {
    let (lbase, lconst) = split_constant(l);
    let (rbase, rconst) = split_constant(r);
    if lconst.is_none() && rconst.is_none() {
        return None;
    }
    let lbase = PhysicalExpr::compile(lbase, left, ctx).ok()?;
    let rbase = PhysicalExpr::compile(rbase, right, ctx).ok()?;
    let t = lbase.data_type();
    if t != rbase.data_type() || !range_type_supported(t) {
        return None;
    }
    let units = |c: Option<Constant>| c.map_or(Some(0), |c| c.in_units_of(t));
    let offset = units(rconst)?.checked_sub(units(lconst)?)?;
    Some(RangeSpec {
        left: lbase,
        op,
        right: rbase,
        offset: i64::try_from(offset).ok()?,
    })
}

/// A constant term of a range side: an integer or an interval.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Constant {
    Int(i128),
    /// Months, days and nanoseconds (DataFusion's `IntervalMonthDayNano`).
    Interval(i64, i64, i128),
}

impl Constant {
    /// The constant of a literal (or of a negated one).
    fn of(e: &Expr) -> Option<Constant> {
        let v = match e {
            Expr::Literal(v, _) => v,
            Expr::Negative(inner) => return Constant::of(inner)?.negate(),
            _ => return None,
        };
        use ScalarValue as S;
        Some(match v {
            S::Int8(Some(x)) => Constant::Int(i128::from(*x)),
            S::Int16(Some(x)) => Constant::Int(i128::from(*x)),
            S::Int32(Some(x)) => Constant::Int(i128::from(*x)),
            S::Int64(Some(x)) => Constant::Int(i128::from(*x)),
            S::UInt8(Some(x)) => Constant::Int(i128::from(*x)),
            S::UInt16(Some(x)) => Constant::Int(i128::from(*x)),
            S::UInt32(Some(x)) => Constant::Int(i128::from(*x)),
            S::UInt64(Some(x)) => Constant::Int(i128::from(*x)),
            S::IntervalMonthDayNano(Some(i)) => Constant::Interval(
                i64::from(i.months),
                i64::from(i.days),
                i128::from(i.nanoseconds),
            ),
            S::IntervalDayTime(Some(i)) => {
                Constant::Interval(0, i64::from(i.days), i128::from(i.milliseconds) * 1_000_000)
            }
            S::IntervalYearMonth(Some(m)) => Constant::Interval(i64::from(*m), 0, 0),
            _ => return None,
        })
    }

    fn negate(self) -> Option<Constant> {
        Some(match self {
            Constant::Int(x) => Constant::Int(-x),
            Constant::Interval(m, d, n) => Constant::Interval(-m, -d, -n),
        })
    }

    /// The constant in units of `t`'s order-preserving image, when adding
    /// it to a value of `t` is exactly adding that many units: integers to
    /// integer columns; intervals without months (calendar arithmetic) to
    /// timestamps (in the timestamp's unit, exactly; days only without a
    /// time zone, where a day is 24 hours) and whole days to dates. Time of
    /// day wraps at midnight and takes no offset.
    fn in_units_of(self, t: &DataType) -> Option<i128> {
        use DataType as D;
        const DAY_NS: i128 = 86_400_000_000_000;
        match (self, t) {
            (
                Constant::Int(x),
                D::Int8
                | D::Int16
                | D::Int32
                | D::Int64
                | D::UInt8
                | D::UInt16
                | D::UInt32
                | D::UInt64,
            ) => Some(x),
            (Constant::Interval(0, days, nanos), D::Timestamp(unit, tz)) => {
                if tz.is_some() && days != 0 {
                    return None;
                }
                let ns = i128::from(days) * DAY_NS + nanos;
                let per = match unit {
                    TimeUnit::Second => 1_000_000_000,
                    TimeUnit::Millisecond => 1_000_000,
                    TimeUnit::Microsecond => 1_000,
                    TimeUnit::Nanosecond => 1,
                };
                (ns % per == 0).then_some(ns / per)
            }
            (Constant::Interval(0, days, 0), D::Date32) => Some(i128::from(days)),
            (Constant::Interval(0, days, 0), D::Date64) => Some(i128::from(days) * 86_400_000),
            _ => None,
        }
    }
}

/// `e` as its non-constant part and its constant term: `x + c`, `c + x`
/// and `x - c` give `(x, ±c)`; anything else `(e, None)`.
fn split_constant(e: &Expr) -> (&Expr, Option<Constant>) {
    if let Expr::BinaryExpr(BinaryExpr { left, op, right }) = e {
        match op {
            Operator::Plus => {
                if let Some(c) = Constant::of(right) {
                    return (left, Some(c));
                }
                if let Some(c) = Constant::of(left) {
                    return (right, Some(c));
                }
            }
            Operator::Minus => {
                if let Some(c) = Constant::of(right).and_then(Constant::negate) {
                    return (left, Some(c));
                }
            }
            _ => {}
        }
    }
    (e, None)
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

    use arrow_buffer::IntervalMonthDayNano;
    use arrow_schema::{DataType, Field, Schema, TimeUnit};
    use datafusion_common::{DFSchema, ScalarValue};
    use datafusion_expr::{Expr, col, lit};

    use super::split_ranges;
    use crate::expr::QueryContext;
    use tenon_kernels::{CmpOp, RangeCondition};

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
        let (ranges, residual) = split(&(col("l.k") * lit(2i64)).lt(col("r.w")), &l, &r);
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

    /// `l(t)` and `r(t)`: one timestamp column each, of `unit` and `tz`.
    fn times(unit: TimeUnit, tz: Option<&str>) -> (DFSchema, DFSchema) {
        let side = |q: &str| {
            let t = DataType::Timestamp(unit, tz.map(Into::into));
            let schema = Arc::new(Schema::new(vec![Field::new("t", t, true)]));
            DFSchema::try_from_qualified_schema(q, &schema).unwrap()
        };
        (side("l"), side("r"))
    }

    fn interval(months: i32, days: i32, nanos: i64) -> Expr {
        lit(ScalarValue::IntervalMonthDayNano(Some(
            IntervalMonthDayNano::new(months, days, nanos),
        )))
    }

    /// The split's ranges as (left column, op, right column, offset).
    fn with_offsets(
        pred: &Expr,
        left: &DFSchema,
        right: &DFSchema,
    ) -> Vec<(Option<usize>, CmpOp, Option<usize>, i64)> {
        let (specs, residual) = split_ranges(pred, left, right, &QueryContext::new());
        assert_eq!(residual, None, "{pred}");
        specs
            .iter()
            .map(|r| (r.left.as_column(), r.op, r.right.as_column(), r.offset))
            .collect()
    }

    const MINUTE_NS: i64 = 60_000_000_000;

    #[test]
    fn constant_intervals_become_offsets_in_the_columns_unit() {
        let (l, r) = times(TimeUnit::Microsecond, None);
        // l.t >= r.t + 10 minutes
        let pred = col("l.t").gt_eq(col("r.t") + interval(0, 0, 10 * MINUTE_NS));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Ge, Some(0), 600_000_000)]
        );
        // l.t - 5 s < r.t is l.t < r.t + 5 s
        let pred = (col("l.t") - interval(0, 0, 5_000_000_000)).lt(col("r.t"));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Lt, Some(0), 5_000_000)]
        );
        // r.t - 10 s <= l.t (flipped), a negated interval, and c + col
        let pred = (col("r.t") - interval(0, 0, 10_000_000_000)).lt_eq(col("l.t"));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Ge, Some(0), -10_000_000)]
        );
        let pred = col("l.t").lt(Expr::Negative(Box::new(interval(0, 1, 0))) + col("r.t"));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Lt, Some(0), -86_400_000_000)]
        );
        // BETWEEN r.t - 10 s AND r.t + 5 s
        let pred = col("l.t").between(
            col("r.t") - interval(0, 0, 10_000_000_000),
            col("r.t") + interval(0, 0, 5_000_000_000),
        );
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![
                (Some(0), CmpOp::Ge, Some(0), -10_000_000),
                (Some(0), CmpOp::Le, Some(0), 5_000_000)
            ]
        );
        // seconds: 90 minutes is 5400 units
        let (l, r) = times(TimeUnit::Second, None);
        let pred = col("l.t").lt(col("r.t") + interval(0, 0, 90 * MINUTE_NS));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Lt, Some(0), 5400)]
        );
    }

    #[test]
    fn intervals_that_do_not_convert_exactly_stay_computed_columns() {
        let (l, r) = times(TimeUnit::Microsecond, None);
        // months are calendar arithmetic; 1 ns is no whole microsecond
        for c in [interval(1, 0, 0), interval(0, 0, 1)] {
            let pred = col("l.t").lt(col("r.t") + c);
            assert_eq!(
                with_offsets(&pred, &l, &r),
                vec![(Some(0), CmpOp::Lt, None, 0)]
            );
        }
        // with a time zone a day is not always 24 hours; an hour is
        let (l, r) = times(TimeUnit::Millisecond, Some("Europe/Berlin"));
        let pred = col("l.t").lt(col("r.t") + interval(0, 1, 0));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Lt, None, 0)]
        );
        let pred = col("l.t").lt(col("r.t") + interval(0, 0, 60 * MINUTE_NS));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Lt, Some(0), 3_600_000)]
        );
    }

    #[test]
    fn integer_constants_become_offsets_and_overflowing_ones_do_not() {
        let (l, r) = sides();
        let pred = (col("l.k") + lit(3i64)).lt(col("r.w") - lit(4i64));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Lt, Some(0), -7)]
        );
        // -(i64::MIN) does not fit an offset: computed, not wrapped
        let pred = col("l.k").lt(col("r.w") - lit(i64::MIN));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Lt, None, 0)]
        );
        let pred = (col("l.k") + lit(1i64)).lt(col("r.w") + lit(i64::MAX));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Lt, Some(0), i64::MAX - 1)]
        );
    }

    #[test]
    fn whole_days_are_date_offsets() {
        let side = |q: &str| {
            let schema = Arc::new(Schema::new(vec![Field::new("d", DataType::Date32, true)]));
            DFSchema::try_from_qualified_schema(q, &schema).unwrap()
        };
        let (l, r) = (side("l"), side("r"));
        let pred = col("l.d").lt_eq(col("r.d") + interval(0, 3, 0));
        assert_eq!(
            with_offsets(&pred, &l, &r),
            vec![(Some(0), CmpOp::Le, Some(0), 3)]
        );
        // a time of day makes the side a timestamp: not the date's type
        let pred = col("l.d").lt_eq(col("r.d") + interval(0, 0, 3_600_000_000_000));
        let (specs, _) = split_ranges(&pred, &l, &r, &QueryContext::new());
        assert!(specs.iter().all(|s| s.offset == 0), "{specs:?}");
    }
}
