//! Size estimates of join inputs that are not plain tables: through
//! filters, projections, aggregates, limits and other joins (H15).
//!
//! System R style estimates, used to pick a strategy and a build side and
//! to compare with `broadcast_threshold`. Where the catalog has column
//! statistics (`crate::statistics`: null and distinct counts, minimum and
//! maximum, for tables in memory and from Parquet footers or `ANALYZE
//! TABLE`) they decide; where it has none, fixed guesses do:
//!
//! - a filter keeps what `selectivity.rs` says: from the statistics of the
//!   column a condition compares with a constant (`1 / distinct` for an
//!   equality, the covered share of `[min, max]` for a range, the share of
//!   NULLs), else a tenth for an equality with a constant and a quarter for
//!   any other condition, the guesses' product never below a thousandth
//!   (TPC-H Q17's `p_brand = 'Brand#23' AND p_container = 'MED BOX'` keeps
//!   1% by guessing; the real figure is 0.1%, which its distinct counts
//!   give: 25 brands, 40 containers);
//! - a join on equi keys whose key columns have distinct counts produces
//!   `left rows x right rows / max(distinct left, distinct right)` per key
//!   (each side's count at most its rows; for several keys the product of
//!   those divisors, at most the larger input's rows): each key value of
//!   the side with fewer distinct values meets its share of the other's
//!   rows. This is what tells a many-to-many join (1M x 1M over 100K key
//!   values: 10M rows) from a foreign-key join (10M x 1K unique keys: 10M
//!   rows). Without distinct counts, the output is `left rows x right rows
//!   / min(left base rows, right base rows)`, where an input's *base rows*
//!   are the rows of its largest table before filters: the foreign-key
//!   join's shape, in which the smaller base table holds each key once and
//!   a filter on either side removes its share of the output (TPC-H Q9:
//!   lineitem joined with a quarter of part is a quarter of lineitem). An
//!   outer join keeps at least its preserved side(s); a join without keys
//!   as many rows as its larger input; each output row is as wide as both
//!   inputs' rows together; a semi or anti join keeps at most its preserved
//!   side;
//! - GROUP BY keeps the product of its columns' distinct counts (at most
//!   its input's rows) when they are known, else a tenth of its input's
//!   rows; a global aggregate one row;
//! - LIMIT n at most n rows; UNION ALL the sum.
//!
//! Anything else (VALUES, subquery expressions) has no estimate.
//!
//! A table's bytes count only the columns the query reads anywhere (by
//! name, over the whole statement, subqueries included; a column a
//! projection only passes on is read when its output is): the join of
//! `customer` and `orders` in TPC-H Q3 carries two and four of their
//! columns, 3% of the tables' bytes, which decides whether it may be
//! broadcast. Column sizes come from [`TableStats::column_bytes`] when
//! the session knows them, else from the column types' widths (16 bytes
//! for variable-width types).

use std::collections::HashSet;

use datafusion_common::tree_node::TreeNodeRecursion;
use datafusion_expr::{JoinType as DfJoinType, LogicalPlan};

use super::selectivity::{column_stats, plain_column, selectivity};
use crate::hints::SizeEstimate;
use crate::sql::{Catalog, CatalogTable, TableStats};

/// Fraction of rows a GROUP BY is assumed to keep.
const GROUP_BY_REDUCTION: f64 = 0.1;

fn scaled(e: SizeEstimate, f: f64) -> SizeEstimate {
    SizeEstimate {
        rows: ((e.rows as f64) * f).ceil() as u64,
        bytes: ((e.bytes as f64) * f).ceil() as u64,
    }
}

/// Size estimates for the joins of one statement.
pub(crate) struct Estimator<'a> {
    catalog: &'a Catalog,
    /// Names of the columns the statement reads anywhere.
    used: HashSet<String>,
}

impl<'a> Estimator<'a> {
    /// An estimator for the statement `plan` (after rewriting: its column
    /// references say which table columns are read).
    pub(crate) fn new(plan: &LogicalPlan, catalog: &'a Catalog) -> Self {
        Estimator {
            catalog,
            used: consumed_columns(plan),
        }
    }

    /// The estimated size of `plan`'s output, when one can be made.
    pub(crate) fn estimate(&self, plan: &LogicalPlan) -> Option<SizeEstimate> {
        self.with_base(plan).map(|(e, _)| e)
    }

    /// A table's rows, and its bytes in the columns the statement reads.
    fn table(&self, table: &CatalogTable) -> Option<SizeEstimate> {
        let e = table_estimate(&table.stats, &table.schema)?;
        let fields = table.schema.fields();
        let weights: Vec<u64> = if table.stats.column_bytes.len() == fields.len() {
            table.stats.column_bytes.clone()
        } else {
            fields.iter().map(|f| field_width(f.data_type())).collect()
        };
        let total: u64 = weights.iter().sum();
        let read: u64 = fields
            .iter()
            .zip(&weights)
            .filter(|(f, _)| self.used.contains(f.name()))
            .map(|(_, w)| w)
            .sum();
        if total == 0 || read >= total {
            return Some(e);
        }
        Some(SizeEstimate {
            rows: e.rows,
            bytes: ((e.bytes as f64) * read as f64 / total as f64).ceil() as u64,
        })
    }

    /// The estimate and the base rows (see the module docs).
    fn with_base(&self, plan: &LogicalPlan) -> Option<(SizeEstimate, u64)> {
        let keep_base = |input: &LogicalPlan, f: &dyn Fn(SizeEstimate) -> SizeEstimate| {
            self.with_base(input).map(|(e, base)| (f(e), base))
        };
        match plan {
            LogicalPlan::TableScan(scan) => {
                let table = self.catalog.table(scan.table_name.table())?;
                let e = self.table(table)?;
                Some((e, e.rows))
            }
            LogicalPlan::Filter(f) => {
                let keep = selectivity(self.catalog, &f.input, &f.predicate);
                keep_base(&f.input, &|e| scaled(e, keep))
            }
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
                let (e, _) = self.with_base(&a.input)?;
                let out = if a.group_expr.is_empty() {
                    SizeEstimate {
                        rows: 1,
                        bytes: 8 * a.aggr_expr.len().max(1) as u64,
                    }
                } else {
                    let keep = match self.groups(a) {
                        Some(groups) => groups as f64 / e.rows.max(1) as f64,
                        None => GROUP_BY_REDUCTION,
                    };
                    scaled(e, keep.min(1.0))
                };
                // Groups are distinct: a new base.
                Some((out, out.rows))
            }
            LogicalPlan::Join(j) => {
                let (l, lbase) = self.with_base(&j.left)?;
                let (r, rbase) = self.with_base(&j.right)?;
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
                        let divisor = self
                            .key_divisor(j, l.rows, r.rows)
                            .unwrap_or(lbase.min(rbase).max(1) as f64);
                        let matched =
                            ((l.rows as f64) * (r.rows as f64) / divisor.max(1.0)).ceil() as u64;
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
                    let (e, b) = self.with_base(input)?;
                    rows = rows.saturating_add(e.rows);
                    bytes = bytes.saturating_add(e.bytes);
                    base = base.saturating_add(b);
                }
                Some((SizeEstimate { rows, bytes }, base))
            }
            _ => None,
        }
    }
}

impl Estimator<'_> {
    /// The distinct values of `plan`'s column `e` (a column, under casts),
    /// at most `rows`.
    fn distinct(&self, plan: &LogicalPlan, e: &datafusion_expr::Expr, rows: u64) -> Option<u64> {
        let (stats, _) = column_stats(self.catalog, plan, plain_column(e)?)?;
        Some(stats.distinct_count?.min(rows).max(1))
    }

    /// What an equi join's matches are divided by (module docs): the
    /// product over its keys of the larger distinct count, at most the
    /// larger input's rows; `None` when a key has no distinct count.
    fn key_divisor(&self, j: &datafusion_expr::Join, lrows: u64, rrows: u64) -> Option<f64> {
        let mut divisor = 1.0f64;
        for (l, r) in &j.on {
            let dl = self.distinct(&j.left, l, lrows)?;
            let dr = self.distinct(&j.right, r, rrows)?;
            divisor *= dl.max(dr) as f64;
        }
        Some(divisor.min(lrows.max(rrows).max(1) as f64))
    }

    /// The groups of a GROUP BY: the product of its columns' distinct
    /// counts, when every one is known (a grouping set or computed key:
    /// unknown).
    fn groups(&self, a: &datafusion_expr::logical_plan::Aggregate) -> Option<u64> {
        let (input, _) = self.with_base(&a.input)?;
        let mut groups = 1u64;
        for g in &a.group_expr {
            groups = groups.saturating_mul(self.distinct(&a.input, g, input.rows)?);
        }
        Some(groups.min(input.rows.max(1)))
    }
}

/// Names of the columns `plan` reads: those its output carries and those
/// an expression computes with (a filter, a key, an aggregate's argument,
/// a computed projection), subqueries included. A projection that only
/// passes a column on (`t.c` or `t.c AS x`) reads it only when its output
/// is read: decorrelated subqueries pass every column of the outer table
/// through such projections, and counting them would make TPC-H Q20's
/// `partsupp` look eight times its width.
fn consumed_columns(plan: &LogicalPlan) -> HashSet<String> {
    use datafusion_expr::Expr;
    let mut used: HashSet<String> = plan
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    // (output name, input column) of every pass-through projection entry.
    let mut passes: Vec<(String, String)> = Vec::new();
    // The closure never fails: the walk itself cannot either.
    let _ = plan.apply_with_subqueries(|node| {
        for expr in node.expressions() {
            let pass = match (node, &expr) {
                (LogicalPlan::Projection(_), Expr::Column(c)) => Some((c.name.clone(), c)),
                (LogicalPlan::Projection(_), Expr::Alias(a)) => match a.expr.as_ref() {
                    Expr::Column(c) => Some((a.name.clone(), c)),
                    _ => None,
                },
                _ => None,
            };
            match pass {
                Some((out, c)) => passes.push((out, c.name.clone())),
                None => used.extend(expr.column_refs().into_iter().map(|c| c.name.clone())),
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
    // A pass-through reads its column when its output is read, which may
    // be through another pass-through: repeat until nothing changes.
    loop {
        let before = used.len();
        for (out, input) in &passes {
            if used.contains(out) && !used.contains(input) {
                used.insert(input.clone());
            }
        }
        if used.len() == before {
            return used;
        }
    }
}

/// Rows and bytes from the table's statistics, deriving one from the other
/// by the schema's row width when only one is known.
fn table_estimate(stats: &TableStats, schema: &arrow_schema::SchemaRef) -> Option<SizeEstimate> {
    let width = schema
        .fields()
        .iter()
        .map(|f| field_width(f.data_type()))
        .sum::<u64>()
        .max(1);
    match (stats.row_count, stats.byte_size) {
        (Some(rows), Some(bytes)) => Some(SizeEstimate { rows, bytes }),
        (Some(rows), None) => Some(SizeEstimate {
            rows,
            bytes: rows.saturating_mul(width),
        }),
        (None, Some(bytes)) => Some(SizeEstimate {
            rows: bytes / width,
            bytes,
        }),
        (None, None) => None,
    }
}

/// A column's guessed bytes per row: its fixed width, else 16.
fn field_width(t: &arrow_schema::DataType) -> u64 {
    t.primitive_width().unwrap_or(16) as u64
}
