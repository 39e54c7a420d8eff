//! Scalar subqueries in WHERE, HAVING and SELECT lists as left joins:
//! decorrelation.
//!
//! Runs after [`decorrelate_subqueries`](super::decorrelate_subqueries)
//! (EXISTS / IN). Every `(SELECT ...)` used as a value inside a `Filter`
//! predicate (a WHERE or HAVING clause, anywhere in the expression) or a
//! SELECT list becomes a left join of the filter's (projection's) input
//! with the subquery, and the subquery expression a column of it:
//!
//! ```text
//! Filter: x < (<subquery>)                  Projection: <input's columns>
//!   <input>                          ──►      Filter: x < __sq_3.v
//!                                               Left Join: on <keys>
//!                                                 <input>
//!                                                 SubqueryAlias: __sq_3
//!                                                   <subquery, decorrelated>
//! ```
//!
//! A left join keeps every outer row: one without a subquery row sees NULL,
//! as SQL's scalar subquery gives for no rows.
//!
//! # Rules
//!
//! - **Uncorrelated**: the subquery must return at most one row, which
//!   tenon accepts when it is an aggregate without GROUP BY (under
//!   projections, aliases, ORDER BY or LIMIT): the join has no keys (one
//!   row against every outer row).
//! - **Correlated**: the subquery must be `SELECT <expression of
//!   aggregates> FROM ... WHERE ...` (aggregate, no GROUP BY), with its
//!   correlation in that WHERE clause as equalities `outer = inner` (as TPC-H
//!   Q2, Q17 and Q20 write it). The inner sides become the aggregate's
//!   GROUP BY and the join's keys: one group per outer value, computed once,
//!   instead of the subquery per outer row.
//! - The join's right side is aliased `__sq_N`, like the EXISTS / IN joins:
//!   no hint can name it. The join itself is a LEFT join like any other, so
//!   a hint of the outer block that names its outer input applies to it
//!   (docs/hints.md H14: only the IN / EXISTS joins take no hints).
//!
//! # Rejected, with [`SqlError::Unsupported`]
//!
//! - an uncorrelated subquery that is not an aggregate without GROUP BY
//!   (it could return several rows; tenon does not check at run time);
//! - correlation other than `outer = inner` conjuncts of the subquery's
//!   WHERE clause, or a correlated subquery with GROUP BY, HAVING or
//!   without an aggregate;
//! - a correlated `COUNT`: for an outer row without subquery rows SQL says
//!   0, a left join gives NULL (the "count bug");
//! - scalar subqueries anywhere but a WHERE or HAVING clause or a SELECT
//!   list (ON conditions, GROUP BY, ORDER BY).

use std::sync::Arc;

use datafusion_common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion_common::{Column, DFSchema, DataFusionError, NullEquality};
use datafusion_expr::logical_plan::Aggregate;
use datafusion_expr::utils::{conjunction, split_conjunction_owned};
use datafusion_expr::{
    Expr, Filter, Join, JoinConstraint, JoinType, LogicalPlan, Projection, Subquery, SubqueryAlias,
};

use super::error::SqlError;
use super::exists::{
    ALIAS_PREFIX, correlation_key, escaping_ref, first_expr_place, has_subquery,
    highest_alias_number, is_correlated, outer_ref_below, outer_refs, unsupported,
};

/// Rewrites every scalar subquery of a WHERE or HAVING clause or a SELECT
/// list into a left
/// join (see the module docs), then rejects the scalar subqueries left
/// elsewhere.
///
/// # Errors
/// [`SqlError::Unsupported`] for the shapes listed in the module docs;
/// [`SqlError::Plan`] if building a node fails (a bug).
pub fn scalar_subqueries_to_joins(plan: LogicalPlan) -> Result<LogicalPlan, SqlError> {
    let mut counter = highest_alias_number(&plan);
    let plan = plan
        .transform_up_with_subqueries(|node| match node {
            LogicalPlan::Filter(filter) if has_scalar(&filter.predicate) => {
                rewrite_filter(filter, &mut counter)
                    .map(Transformed::yes)
                    .map_err(|e| DataFusionError::External(Box::new(e)))
            }
            LogicalPlan::Projection(projection) if projection.expr.iter().any(has_scalar) => {
                rewrite_projection(projection, &mut counter)
                    .map(Transformed::yes)
                    .map_err(|e| DataFusionError::External(Box::new(e)))
            }
            other => Ok(Transformed::no(other)),
        })?
        .data;
    reject_remaining(&plan)?;
    Ok(plan)
}

fn has_scalar(expr: &Expr) -> bool {
    expr.exists(|e| Ok(matches!(e, Expr::ScalarSubquery(_))))
        .unwrap_or(true)
}

/// One Filter: a left join per scalar subquery, the filter over them, and
/// a projection back to the filter's columns.
fn rewrite_filter(filter: Filter, counter: &mut usize) -> Result<LogicalPlan, SqlError> {
    let outer_schema = Arc::clone(filter.input.schema());
    let (input, mut exprs) = joined(&filter.input, vec![filter.predicate], counter)?;
    let predicate = exprs.remove(0);
    let filtered = LogicalPlan::Filter(Filter::try_new(predicate, input)?);
    let columns = outer_schema
        .columns()
        .into_iter()
        .map(Expr::Column)
        .collect();
    Ok(LogicalPlan::Projection(Projection::try_new(
        columns,
        Arc::new(filtered),
    )?))
}

/// One SELECT list: a left join per scalar subquery under it.
fn rewrite_projection(
    projection: Projection,
    counter: &mut usize,
) -> Result<LogicalPlan, SqlError> {
    let (input, exprs) = joined(&projection.input, projection.expr, counter)?;
    Ok(LogicalPlan::Projection(Projection::try_new(exprs, input)?))
}

/// `input` left-joined with each scalar subquery of `exprs`, and `exprs`
/// with each subquery replaced by its value column.
fn joined(
    input: &Arc<LogicalPlan>,
    exprs: Vec<Expr>,
    counter: &mut usize,
) -> Result<(Arc<LogicalPlan>, Vec<Expr>), SqlError> {
    let outer_schema = Arc::clone(input.schema());
    let mut joins = Vec::new();
    let exprs = exprs
        .into_iter()
        .map(|expr| {
            expr.transform_down(|e| match e {
                Expr::ScalarSubquery(subquery) => {
                    *counter += 1;
                    let alias = format!("{ALIAS_PREFIX}{counter}");
                    let (side, value) = subquery_side(&subquery, &outer_schema, &alias)
                        .map_err(|e| DataFusionError::External(Box::new(e)))?;
                    joins.push(side);
                    // The subquery's own subqueries were rewritten already
                    // (bottom-up): do not descend into the replacement.
                    Ok(Transformed::new(value, true, TreeNodeRecursion::Jump))
                }
                other => Ok(Transformed::no(other)),
            })
            .map(|t| t.data)
        })
        .collect::<Result<Vec<_>, DataFusionError>>()?;
    let mut input = Arc::clone(input);
    for (right, on) in joins {
        input = Arc::new(LogicalPlan::Join(Join::try_new(
            input,
            Arc::new(right),
            on,
            None,
            JoinType::Left,
            JoinConstraint::On,
            NullEquality::NullEqualsNothing,
            false,
        )?));
    }
    Ok((input, exprs))
}

/// A join's right side (aliased) and its keys `(outer, right column)`.
type Side = (LogicalPlan, Vec<(Expr, Expr)>);

/// The join's right side (aliased), its keys `(outer, right column)` and
/// the value that replaces the subquery expression.
fn subquery_side(
    subquery: &Subquery,
    outer: &DFSchema,
    alias: &str,
) -> Result<(Side, Expr), SqlError> {
    let plan = subquery.subquery.as_ref();
    if plan.schema().fields().len() != 1 {
        return Err(unsupported(
            "scalar subquery: it must return exactly one column",
        ));
    }
    let (right, keys) = if is_correlated(plan) {
        correlated(plan, outer, alias)?
    } else {
        if !single_row(plan) {
            return Err(unsupported(
                "scalar subquery: tenon plans an uncorrelated scalar subquery only when it \
                 is an aggregate without GROUP BY (exactly one row); this one may return \
                 several rows",
            ));
        }
        let right = LogicalPlan::SubqueryAlias(SubqueryAlias::try_new(
            Arc::clone(&subquery.subquery),
            alias,
        )?);
        (right, Vec::new())
    };
    let value = Expr::Column(Column::from(right.schema().qualified_field(0)));
    Ok(((right, keys), value))
}

/// Whether `plan` returns at most one row: an aggregate without GROUP BY
/// under nodes that keep at most its one row.
fn single_row(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Aggregate(a) => a.group_expr.is_empty(),
        LogicalPlan::Projection(p) => single_row(&p.input),
        LogicalPlan::SubqueryAlias(sa) => single_row(&sa.input),
        LogicalPlan::Sort(s) => single_row(&s.input),
        // A LIMIT / OFFSET keeps at most the one row (none is NULL).
        LogicalPlan::Limit(limit) => single_row(&limit.input),
        _ => false,
    }
}

/// A correlated `SELECT f(aggregates) FROM ... WHERE <own> AND outer =
/// inner ...`: grouped by the inner sides, with them as extra columns.
fn correlated(plan: &LogicalPlan, outer: &DFSchema, alias: &str) -> Result<Side, SqlError> {
    const SHAPE: &str = "correlated scalar subquery: tenon decorrelates `SELECT <expression of \
                         aggregates> FROM ... WHERE ...` (no GROUP BY) with the correlation as \
                         `outer = inner` conditions of its WHERE clause";
    let LogicalPlan::Projection(projection) = plan else {
        return Err(unsupported(SHAPE));
    };
    let LogicalPlan::Aggregate(aggregate) = projection.input.as_ref() else {
        return Err(unsupported(SHAPE));
    };
    if !aggregate.group_expr.is_empty() {
        return Err(unsupported(format!("{SHAPE}; this one has GROUP BY")));
    }
    let LogicalPlan::Filter(filter) = aggregate.input.as_ref() else {
        return Err(unsupported(SHAPE));
    };
    if projection.expr.iter().any(Expr::contains_outer)
        || aggregate.aggr_expr.iter().any(Expr::contains_outer)
    {
        return Err(unsupported(format!(
            "{SHAPE}; this one refers to the outer query in its SELECT list"
        )));
    }
    let is_count = |e: &Expr| matches!(e.clone().unalias(), Expr::AggregateFunction(f) if f.func.name() == "count");
    if aggregate.aggr_expr.iter().any(is_count) {
        return Err(unsupported(
            "correlated scalar subquery with COUNT: for an outer row without subquery rows \
             SQL gives 0 where a join gives NULL; not decorrelated yet",
        ));
    }
    let (correlation, own): (Vec<Expr>, Vec<Expr>) =
        split_conjunction_owned(filter.predicate.clone())
            .into_iter()
            .partition(Expr::contains_outer);
    let mut keys = Vec::new();
    for conjunct in &correlation {
        if has_subquery(conjunct) {
            return Err(unsupported(format!(
                "correlated scalar subquery: the correlated condition `{conjunct}` holds a \
                 subquery"
            )));
        }
        for column in outer_refs(conjunct) {
            if !outer.has_column(&column) {
                return Err(unsupported(format!(
                    "correlated scalar subquery: `{column}` refers to a query more than one \
                     level out; only references to the directly enclosing query are \
                     decorrelated"
                )));
            }
        }
        let Some(key) = correlation_key(conjunct) else {
            return Err(unsupported(format!(
                "{SHAPE}; `{conjunct}` is not such an equality"
            )));
        };
        keys.push(key);
    }
    let inner = match conjunction(own) {
        Some(predicate) => {
            LogicalPlan::Filter(Filter::try_new(predicate, Arc::clone(&filter.input))?)
        }
        None => filter.input.as_ref().clone(),
    };
    if let Some(problem) = outer_ref_below(&inner) {
        return Err(unsupported(format!(
            "correlated scalar subquery: {problem}; tenon decorrelates only references in \
             the subquery's own WHERE clause"
        )));
    }
    if let Some(column) = escaping_ref(&inner, outer) {
        return Err(unsupported(format!(
            "correlated scalar subquery: a subquery nested inside it refers to `{column}` of \
             the outer query"
        )));
    }
    // Group by the inner sides of the keys, named so that they cannot clash.
    let key_name = |i: usize| format!("__sq_key{i}");
    let group: Vec<Expr> = keys
        .iter()
        .enumerate()
        .map(|(i, (_, inner_side))| inner_side.clone().alias(key_name(i)))
        .collect();
    let grouped = LogicalPlan::Aggregate(Aggregate::try_new(
        Arc::new(inner),
        group,
        aggregate.aggr_expr.clone(),
    )?);
    let mut exprs = projection.expr.clone();
    exprs.extend((0..keys.len()).map(|i| Expr::Column(Column::from_name(key_name(i)))));
    let projected = LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(grouped))?);
    let right = LogicalPlan::SubqueryAlias(SubqueryAlias::try_new(Arc::new(projected), alias)?);
    let on = keys
        .into_iter()
        .enumerate()
        .map(|(i, (outer_side, _))| {
            let outer_side = outer_side
                .transform(|e| {
                    Ok(match e {
                        Expr::OuterReferenceColumn(_, c) => Transformed::yes(Expr::Column(c)),
                        other => Transformed::no(other),
                    })
                })
                .map(|t| t.data)?;
            Ok((
                outer_side,
                Expr::Column(Column::new(Some(alias), key_name(i))),
            ))
        })
        .collect::<Result<Vec<_>, DataFusionError>>()?;
    Ok((right, on))
}

/// Rejects every scalar subquery left in the plan (outside WHERE, HAVING
/// and SELECT lists).
fn reject_remaining(plan: &LogicalPlan) -> Result<(), SqlError> {
    match first_expr_place(plan, has_scalar) {
        Some((_, place)) => Err(unsupported(format!(
            "scalar subquery {place}: tenon plans scalar subqueries in WHERE and HAVING \
             clauses and SELECT lists only"
        ))),
        None => Ok(()),
    }
}
