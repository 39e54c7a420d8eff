//! Size estimates of join inputs that are not plain tables: through
//! filters, projections, aggregates, limits and other joins (H15).
//!
//! Deliberately simple, System R style guesses, used only to pick a build
//! side and to compare with `broadcast_threshold`:
//!
//! - a filter keeps a quarter of its input ([`FILTER_SELECTIVITY`]);
//! - a join on equi keys produces `left rows x right rows / min(left base
//!   rows, right base rows)`, where an input's *base rows* are the rows of
//!   its largest table before filters: the foreign-key join's shape, in
//!   which the smaller base table holds each key once and a filter on
//!   either side removes its share of the output (TPC-H Q9: lineitem
//!   joined with a quarter of part is a quarter of lineitem); an outer join
//!   at least its preserved side(s); a join without keys as many rows as
//!   its larger input; each output row as wide as both inputs' rows
//!   together; a semi or anti join at most its preserved side;
//! - GROUP BY keeps a tenth of its input's rows, a global aggregate one row;
//! - LIMIT n at most n rows; UNION ALL the sum.
//!
//! Anything else (VALUES, subquery expressions) has no estimate.

use datafusion_expr::{JoinType as DfJoinType, LogicalPlan};

use crate::hints::SizeEstimate;
use crate::sql::Catalog;

/// Fraction of rows a filter is assumed to keep.
pub const FILTER_SELECTIVITY: f64 = 0.25;

/// Fraction of rows a GROUP BY is assumed to keep.
const GROUP_BY_REDUCTION: f64 = 0.1;

fn scaled(e: SizeEstimate, f: f64) -> SizeEstimate {
    SizeEstimate {
        rows: ((e.rows as f64) * f).ceil() as u64,
        bytes: ((e.bytes as f64) * f).ceil() as u64,
    }
}

/// The estimated size of `plan`'s output, when one can be made.
pub(crate) fn estimate_plan(plan: &LogicalPlan, catalog: &Catalog) -> Option<SizeEstimate> {
    estimate_with_base(plan, catalog).map(|(e, _)| e)
}

/// The estimate and the base rows (see the module docs).
fn estimate_with_base(plan: &LogicalPlan, catalog: &Catalog) -> Option<(SizeEstimate, u64)> {
    let keep_base = |input: &LogicalPlan, f: &dyn Fn(SizeEstimate) -> SizeEstimate| {
        estimate_with_base(input, catalog).map(|(e, base)| (f(e), base))
    };
    match plan {
        LogicalPlan::TableScan(scan) => {
            let table = catalog.table(scan.table_name.table())?;
            let e = super::estimate(&table.stats, &table.schema)?;
            Some((e, e.rows))
        }
        LogicalPlan::Filter(f) => keep_base(&f.input, &|e| scaled(e, FILTER_SELECTIVITY)),
        LogicalPlan::Projection(p) => keep_base(&p.input, &|e| e),
        LogicalPlan::SubqueryAlias(a) => keep_base(&a.input, &|e| e),
        LogicalPlan::Sort(s) => keep_base(&s.input, &|e| e),
        LogicalPlan::Distinct(_) => keep_base(plan.inputs()[0], &|e| e),
        LogicalPlan::Limit(l) => keep_base(&l.input, &|e| match l.get_fetch_type() {
            Ok(datafusion_expr::logical_plan::FetchType::Literal(Some(n)))
                if (n as u64) < e.rows =>
            {
                scaled(e, n as f64 / e.rows.max(1) as f64)
            }
            _ => e,
        }),
        LogicalPlan::Aggregate(a) => {
            let (e, _) = estimate_with_base(&a.input, catalog)?;
            let out = if a.group_expr.is_empty() {
                SizeEstimate {
                    rows: 1,
                    bytes: 8 * a.aggr_expr.len().max(1) as u64,
                }
            } else {
                scaled(e, GROUP_BY_REDUCTION)
            };
            // Groups are distinct: a new base.
            Some((out, out.rows))
        }
        LogicalPlan::Join(j) => {
            let (l, lbase) = estimate_with_base(&j.left, catalog)?;
            let (r, rbase) = estimate_with_base(&j.right, catalog)?;
            let base = lbase.max(rbase);
            let rows = match j.join_type {
                DfJoinType::LeftSemi | DfJoinType::LeftAnti | DfJoinType::LeftMark => {
                    return Some((l, lbase));
                }
                DfJoinType::RightSemi | DfJoinType::RightAnti | DfJoinType::RightMark => {
                    return Some((r, rbase));
                }
                _ if j.on.is_empty() => l.rows.max(r.rows),
                join_type => {
                    let matched = ((l.rows as f64) * (r.rows as f64)
                        / lbase.min(rbase).max(1) as f64)
                        .ceil() as u64;
                    match join_type {
                        DfJoinType::Left => matched.max(l.rows),
                        DfJoinType::Right => matched.max(r.rows),
                        DfJoinType::Full => matched.max(l.rows).max(r.rows),
                        _ => matched,
                    }
                }
            };
            let width = l.bytes / l.rows.max(1) + r.bytes / r.rows.max(1);
            Some((
                SizeEstimate {
                    rows,
                    bytes: rows.saturating_mul(width),
                },
                base,
            ))
        }
        LogicalPlan::Union(u) => {
            let (mut rows, mut bytes, mut base) = (0u64, 0u64, 0u64);
            for input in &u.inputs {
                let (e, b) = estimate_with_base(input, catalog)?;
                rows = rows.saturating_add(e.rows);
                bytes = bytes.saturating_add(e.bytes);
                base = base.saturating_add(b);
            }
            Some((SizeEstimate { rows, bytes }, base))
        }
        _ => None,
    }
}
