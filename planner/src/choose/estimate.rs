//! Size estimates of join inputs that are not plain tables: through
//! filters, projections, aggregates, limits and other joins (H15).
//!
//! Deliberately simple, System R style guesses, used only to pick a build
//! side and to compare with `broadcast_threshold`:
//!
//! - a filter keeps a quarter of its input ([`FILTER_SELECTIVITY`]);
//! - an inner or outer join produces as many rows as its larger input (the
//!   foreign-key join's shape), each as wide as both inputs' rows together;
//!   a semi or anti join at most its preserved side;
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
    match plan {
        LogicalPlan::TableScan(scan) => {
            let table = catalog.table(scan.table_name.table())?;
            super::estimate(&table.stats, &table.schema)
        }
        LogicalPlan::Filter(f) => {
            estimate_plan(&f.input, catalog).map(|e| scaled(e, FILTER_SELECTIVITY))
        }
        LogicalPlan::Projection(p) => estimate_plan(&p.input, catalog),
        LogicalPlan::SubqueryAlias(a) => estimate_plan(&a.input, catalog),
        LogicalPlan::Sort(s) => estimate_plan(&s.input, catalog),
        LogicalPlan::Distinct(_) => estimate_plan(plan.inputs()[0], catalog),
        LogicalPlan::Limit(l) => {
            let e = estimate_plan(&l.input, catalog)?;
            match l.get_fetch_type() {
                Ok(datafusion_expr::logical_plan::FetchType::Literal(Some(n)))
                    if (n as u64) < e.rows =>
                {
                    Some(scaled(e, n as f64 / e.rows.max(1) as f64))
                }
                _ => Some(e),
            }
        }
        LogicalPlan::Aggregate(a) => {
            let e = estimate_plan(&a.input, catalog)?;
            if a.group_expr.is_empty() {
                Some(SizeEstimate {
                    rows: 1,
                    bytes: 8 * a.aggr_expr.len().max(1) as u64,
                })
            } else {
                Some(scaled(e, GROUP_BY_REDUCTION))
            }
        }
        LogicalPlan::Join(j) => {
            let l = estimate_plan(&j.left, catalog)?;
            let r = estimate_plan(&j.right, catalog)?;
            match j.join_type {
                DfJoinType::LeftSemi | DfJoinType::LeftAnti | DfJoinType::LeftMark => Some(l),
                DfJoinType::RightSemi | DfJoinType::RightAnti | DfJoinType::RightMark => Some(r),
                _ => {
                    let rows = l.rows.max(r.rows);
                    let width = l.bytes / l.rows.max(1) + r.bytes / r.rows.max(1);
                    Some(SizeEstimate {
                        rows,
                        bytes: rows.saturating_mul(width),
                    })
                }
            }
        }
        LogicalPlan::Union(u) => {
            u.inputs
                .iter()
                .try_fold(SizeEstimate { rows: 0, bytes: 0 }, |acc, i| {
                    let e = estimate_plan(i, catalog)?;
                    Some(SizeEstimate {
                        rows: acc.rows.saturating_add(e.rows),
                        bytes: acc.bytes.saturating_add(e.bytes),
                    })
                })
        }
        _ => None,
    }
}
