//! What column statistics say about a plan's columns and filters: a
//! column of any plan node traced back to the table column it comes from
//! ([`column_stats`]), and the fraction of rows a filter keeps
//! ([`selectivity`]), from the statistics where the table has them and by
//! fixed guesses where it does not.
//!
//! With statistics (`crate::statistics::ColumnStats`), per AND-ed
//! condition of a column and a constant:
//!
//! - `c = v` keeps `1 / distinct(c)` (none when `v` lies outside the
//!   column's minimum and maximum), `c <> v` the rest;
//! - `c IN (v1, ..., vn)` keeps `n / distinct(c)`;
//! - `c < v`, `c <= v`, `c > v`, `c >= v` and `c BETWEEN v1 AND v2` keep
//!   the part of `[min, max]` the range covers (numbers, decimals, dates
//!   and timestamps; values spread evenly between the bounds);
//! - `c IS NULL` keeps the column's share of NULLs, `c IS NOT NULL` the
//!   rest.
//!
//! Each such condition also drops the NULLs of its column. Any other
//! condition, or one on a column without statistics, keeps the guesses of
//! `estimate.rs` (a tenth for an equality with a constant, a quarter
//! otherwise, their product never below a thousandth).

use datafusion_common::{Column, ScalarValue};
use datafusion_expr::{Expr, LogicalPlan, Operator};

use crate::sql::Catalog;
use crate::statistics::ColumnStats;

/// Fraction of rows one condition of a filter is assumed to keep when
/// nothing is known of its column (an equality with a constant:
/// [`EQUALITY_SELECTIVITY`]).
pub const FILTER_SELECTIVITY: f64 = 0.25;

/// Fraction of rows `column = constant` is assumed to keep when nothing is
/// known of the column.
pub const EQUALITY_SELECTIVITY: f64 = 0.1;

/// The fewest rows the guessed conditions of a filter are assumed to keep,
/// however many there are.
pub const MIN_FILTER_SELECTIVITY: f64 = 0.001;

/// The statistics of the table column that `plan`'s output column `column`
/// is, with the table's rows (what the column's null count is a share
/// of), traced down through projections that pass it on (renamed or not),
/// aliases, filters, sorts, limits, joins and GROUP BY columns; `None` for
/// a computed column or a table without statistics.
pub(crate) fn column_stats(
    catalog: &Catalog,
    plan: &LogicalPlan,
    column: &Column,
) -> Option<(ColumnStats, Option<u64>)> {
    let index = plan.schema().index_of_column(column).ok()?;
    stats_at(catalog, plan, index)
}

/// [`column_stats`] of `plan`'s output column number `index`.
fn stats_at(
    catalog: &Catalog,
    plan: &LogicalPlan,
    index: usize,
) -> Option<(ColumnStats, Option<u64>)> {
    match plan {
        LogicalPlan::TableScan(scan) => {
            let table = catalog.table(scan.table_name.table())?;
            // The scan's output may be a projection of the table's columns.
            let name = scan.projected_schema.field(index).name();
            let at = table.schema.index_of(name).ok()?;
            let stats = table.stats.columns.get(at)?.clone();
            Some((stats, table.stats.row_count))
        }
        LogicalPlan::Projection(p) => match p.expr.get(index)? {
            Expr::Column(c) => column_stats(catalog, &p.input, c),
            Expr::Alias(a) => match a.expr.as_ref() {
                Expr::Column(c) => column_stats(catalog, &p.input, c),
                _ => None,
            },
            _ => None,
        },
        LogicalPlan::SubqueryAlias(a) => stats_at(catalog, &a.input, index),
        LogicalPlan::Filter(f) => stats_at(catalog, &f.input, index),
        LogicalPlan::Sort(s) => stats_at(catalog, &s.input, index),
        LogicalPlan::Limit(l) => stats_at(catalog, &l.input, index),
        LogicalPlan::Join(j) => {
            use datafusion_expr::JoinType as J;
            let left = j.left.schema().fields().len();
            match j.join_type {
                J::LeftSemi | J::LeftAnti | J::LeftMark => stats_at(catalog, &j.left, index),
                J::RightSemi | J::RightAnti | J::RightMark => stats_at(catalog, &j.right, index),
                _ if index < left => stats_at(catalog, &j.left, index),
                _ => stats_at(catalog, &j.right, index - left),
            }
        }
        LogicalPlan::Aggregate(a) => match a.group_expr.get(index)? {
            Expr::Column(c) => column_stats(catalog, &a.input, c),
            _ => None,
        },
        _ => None,
    }
}

/// `e` under its casts.
fn uncast(e: &Expr) -> &Expr {
    let mut e = e;
    while let Expr::Cast(c) = e {
        e = &c.expr;
    }
    e
}

/// A column under casts, `None` for anything else.
pub(super) fn plain_column(e: &Expr) -> Option<&Column> {
    match uncast(e) {
        Expr::Column(c) => Some(c),
        _ => None,
    }
}

/// A constant under casts, `None` for anything else.
fn constant(e: &Expr) -> Option<&ScalarValue> {
    match uncast(e) {
        Expr::Literal(v, _) => Some(v),
        _ => None,
    }
}

/// A scalar as a point on a line, for interpolating between a column's
/// bounds: numbers, decimals (scaled), dates and timestamps (in their
/// units); `None` for other types and NULL.
fn position(v: &ScalarValue) -> Option<f64> {
    use ScalarValue as S;
    let x = match v {
        S::Int8(Some(x)) => *x as f64,
        S::Int16(Some(x)) => *x as f64,
        S::Int32(Some(x)) => *x as f64,
        S::Int64(Some(x)) => *x as f64,
        S::UInt8(Some(x)) => *x as f64,
        S::UInt16(Some(x)) => *x as f64,
        S::UInt32(Some(x)) => *x as f64,
        S::UInt64(Some(x)) => *x as f64,
        S::Float32(Some(x)) => *x as f64,
        S::Float64(Some(x)) => *x,
        S::Decimal128(Some(x), _, scale) => *x as f64 / 10f64.powi(i32::from(*scale)),
        S::Date32(Some(x)) => *x as f64,
        S::Date64(Some(x)) => *x as f64,
        S::TimestampSecond(Some(x), _)
        | S::TimestampMillisecond(Some(x), _)
        | S::TimestampMicrosecond(Some(x), _)
        | S::TimestampNanosecond(Some(x), _) => *x as f64,
        _ => return None,
    };
    x.is_finite().then_some(x)
}

/// What the statistics say of one condition `column op constant`.
struct Known<'a> {
    stats: ColumnStats,
    /// The table's rows (the share of NULLs is of these), when known.
    rows: Option<u64>,
    value: &'a ScalarValue,
}

impl Known<'_> {
    /// The constant in the column's type, as a point (see [`position`]).
    fn point(&self) -> Option<f64> {
        let t = self.stats.min.as_ref()?.data_type();
        position(&self.value.cast_to(&t).ok()?)
    }

    fn bounds(&self) -> Option<(f64, f64)> {
        Some((
            position(self.stats.min.as_ref()?)?,
            position(self.stats.max.as_ref()?)?,
        ))
    }

    /// The share of rows that are not NULL.
    fn not_null(&self) -> f64 {
        match (self.stats.null_count, self.rows) {
            (Some(n), Some(rows)) if rows > 0 => 1.0 - (n as f64 / rows as f64).min(1.0),
            _ => 1.0,
        }
    }

    /// `1 / distinct`, of the non-NULL rows.
    fn one_value(&self) -> Option<f64> {
        let d = self.stats.distinct_count?.max(1);
        if let (Some((lo, hi)), Some(x)) = (self.bounds(), self.point())
            && (x < lo || x > hi)
        {
            return Some(0.0);
        }
        Some(self.not_null() / d as f64)
    }

    /// The share of `[min, max]` in `[from, to]`, of the non-NULL rows.
    fn range(&self, from: Option<f64>, to: Option<f64>) -> Option<f64> {
        let (lo, hi) = self.bounds()?;
        let from = from.unwrap_or(lo).max(lo);
        let to = to.unwrap_or(hi).min(hi);
        let share = if to < from {
            0.0
        } else if hi > lo {
            (to - from) / (hi - lo)
        } else {
            1.0
        };
        // a range that holds some value keeps at least one value's share
        let floor = self
            .stats
            .distinct_count
            .filter(|_| to >= from)
            .map_or(0.0, |d| 1.0 / d.max(1) as f64);
        Some(share.clamp(floor, 1.0) * self.not_null())
    }
}

/// The fraction of `input`'s rows that `predicate` keeps (module docs).
pub(crate) fn selectivity(catalog: &Catalog, input: &LogicalPlan, predicate: &Expr) -> f64 {
    let mut guessed = 1.0;
    let mut measured = 1.0;
    for c in datafusion_expr::utils::split_conjunction(predicate) {
        match from_stats(catalog, input, c) {
            Some(keep) => measured *= keep,
            None => guessed *= guess(c),
        }
    }
    guessed.max(MIN_FILTER_SELECTIVITY) * measured
}

/// The guess for a condition nothing is known about.
fn guess(c: &Expr) -> f64 {
    match c {
        Expr::BinaryExpr(b) if b.op == Operator::Eq => {
            match (plain_column(&b.left), constant(&b.right)) {
                (Some(_), Some(_)) => EQUALITY_SELECTIVITY,
                _ => match (constant(&b.left), plain_column(&b.right)) {
                    (Some(_), Some(_)) => EQUALITY_SELECTIVITY,
                    _ => FILTER_SELECTIVITY,
                },
            }
        }
        _ => FILTER_SELECTIVITY,
    }
}

/// What the statistics of its column say of condition `c`, when they say
/// something.
fn from_stats(catalog: &Catalog, input: &LogicalPlan, c: &Expr) -> Option<f64> {
    let known = |col: &Column, value| {
        let (stats, rows) = column_stats(catalog, input, col)?;
        Some(Known { stats, rows, value })
    };
    const NULL: ScalarValue = ScalarValue::Null;
    match c {
        Expr::BinaryExpr(b) => {
            let (col, op, value) = match (plain_column(&b.left), constant(&b.right)) {
                (Some(col), Some(v)) => (col, b.op, v),
                _ => (plain_column(&b.right)?, b.op.swap()?, constant(&b.left)?),
            };
            let k = known(col, value)?;
            match op {
                Operator::Eq => k.one_value(),
                Operator::NotEq => Some((k.not_null() - k.one_value()?).max(0.0)),
                Operator::Lt | Operator::LtEq => k.range(None, Some(k.point()?)),
                Operator::Gt | Operator::GtEq => k.range(Some(k.point()?), None),
                _ => None,
            }
        }
        Expr::Between(b) if !b.negated => {
            let col = plain_column(&b.expr)?;
            let k = known(col, constant(&b.low)?)?;
            let high = Known {
                stats: k.stats.clone(),
                rows: k.rows,
                value: constant(&b.high)?,
            };
            k.range(Some(k.point()?), Some(high.point()?))
        }
        Expr::InList(l) if !l.negated && l.list.iter().all(|v| constant(v).is_some()) => {
            let k = known(plain_column(&l.expr)?, &NULL)?;
            let d = k.stats.distinct_count?.max(1) as f64;
            Some((l.list.len() as f64 / d).min(1.0) * k.not_null())
        }
        Expr::IsNull(e) => Some(1.0 - known(plain_column(e)?, &NULL)?.not_null()),
        Expr::IsNotNull(e) => Some(known(plain_column(e)?, &NULL)?.not_null()),
        _ => None,
    }
}
