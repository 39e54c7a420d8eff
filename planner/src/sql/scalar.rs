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
//! # The empty group ("count bug")
//!
//! A correlated aggregate subquery has a value even for an outer row that
//! no subquery row matches: its aggregates over the empty group (`count` 0,
//! the others NULL) put through its SELECT expression, so
//! `(SELECT coalesce(max(v), -1) ...)` is -1 and `(SELECT count(*) ...)` is
//! 0 there, where the grouped left join has no row at all. When that
//! expression over the empty group is not NULL, the subquery side carries
//! a marker column (`__sq_present`, true in every group) and the subquery's
//! value becomes `CASE WHEN __sq_N.__sq_present IS NULL THEN <value over
//! the empty group> ELSE __sq_N.<value> END`.
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
//! - scalar subqueries anywhere but a WHERE or HAVING clause or a SELECT
//!   list (ON conditions, GROUP BY, ORDER BY).

use std::sync::Arc;

use datafusion_common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion_common::{Column, DFSchema, DataFusionError, NullEquality, ScalarValue};
use datafusion_expr::expr::Case;
use datafusion_expr::logical_plan::Aggregate;
use datafusion_expr::utils::{conjunction, split_conjunction_owned};
use datafusion_expr::{
    Expr, Filter, Join, JoinConstraint, JoinType, LogicalPlan, Projection, Subquery, SubqueryAlias,
    lit,
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
    let (input, mut exprs) = joined(&filter.input, vec![filter.predicate], false, counter)?;
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
    let (input, exprs) = joined(&projection.input, projection.expr, true, counter)?;
    Ok(LogicalPlan::Projection(Projection::try_new(exprs, input)?))
}

/// `input` left-joined with each scalar subquery of `exprs`, and `exprs`
/// with each subquery replaced by its value. With `name_items` (a SELECT
/// list), an item that is nothing but a subquery whose value is an
/// expression (see "The empty group") keeps the value column's name.
fn joined(
    input: &Arc<LogicalPlan>,
    exprs: Vec<Expr>,
    name_items: bool,
    counter: &mut usize,
) -> Result<(Arc<LogicalPlan>, Vec<Expr>), SqlError> {
    let outer_schema = Arc::clone(input.schema());
    let mut joins = Vec::new();
    let exprs = exprs
        .into_iter()
        .map(|expr| {
            let mut item_name = None;
            let bare = name_items && matches!(expr, Expr::ScalarSubquery(_));
            let replaced = expr
                .transform_down(|e| match e {
                    Expr::ScalarSubquery(subquery) => {
                        *counter += 1;
                        let alias = format!("{ALIAS_PREFIX}{counter}");
                        let (side, value, name) =
                            subquery_side(&subquery, &outer_schema, &alias)
                                .map_err(|e| DataFusionError::External(Box::new(e)))?;
                        joins.push(side);
                        item_name = Some(name);
                        // The subquery's own subqueries were rewritten
                        // already (bottom-up): do not descend into the
                        // replacement.
                        Ok(Transformed::new(value, true, TreeNodeRecursion::Jump))
                    }
                    other => Ok(Transformed::no(other)),
                })
                .map(|t| t.data)?;
            Ok(match item_name {
                Some(name) if bare && !matches!(replaced, Expr::Column(_)) => replaced.alias(name),
                _ => replaced,
            })
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

/// Name of the marker column of a subquery side whose value over the empty
/// group is not NULL (module docs, "The empty group").
const PRESENT: &str = "__sq_present";

/// The join's right side (aliased), its keys `(outer, right column)`, the
/// value that replaces the subquery expression and the name of the side's
/// value column.
fn subquery_side(
    subquery: &Subquery,
    outer: &DFSchema,
    alias: &str,
) -> Result<(Side, Expr, String), SqlError> {
    let plan = subquery.subquery.as_ref();
    if plan.schema().fields().len() != 1 {
        return Err(unsupported(
            "scalar subquery: it must return exactly one column",
        ));
    }
    let ((right, keys), empty) = if is_correlated(plan) {
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
        ((right, Vec::new()), None)
    };
    let (qualifier, field) = right.schema().qualified_field(0);
    let name = field.name().clone();
    let column = Expr::Column(Column::from((qualifier, field)));
    let value = match empty {
        None => column,
        Some(empty) => {
            let present = Expr::Column(Column::new(Some(alias), PRESENT));
            Expr::Case(Case::new(
                None,
                vec![(Box::new(present.is_null()), Box::new(empty))],
                Some(Box::new(column)),
            ))
        }
    };
    Ok(((right, keys), value, name))
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
/// inner ...`: grouped by the inner sides, with them as extra columns, and
/// `f` over the empty group when that is not NULL (module docs).
fn correlated(
    plan: &LogicalPlan,
    outer: &DFSchema,
    alias: &str,
) -> Result<(Side, Option<Expr>), SqlError> {
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
    let empty = over_empty_group(aggregate, &projection.expr[0])?;
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
    if empty.is_some() {
        exprs.push(lit(true).alias(PRESENT));
    }
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
    Ok(((right, on), empty))
}

/// The subquery's value `item` (over the outputs of `aggregate`, which has
/// no GROUP BY) for an empty group, or `None` when it is NULL there: each
/// aggregate's output replaced by its value over no rows (a count 0, every
/// other aggregate NULL).
fn over_empty_group(aggregate: &Aggregate, item: &Expr) -> Result<Option<Expr>, SqlError> {
    let schema = aggregate.schema.as_ref();
    let mut empty_values = Vec::with_capacity(aggregate.aggr_expr.len());
    for (i, expr) in aggregate.aggr_expr.iter().enumerate() {
        let (qualifier, field) = schema.qualified_field(i);
        let counts = matches!(expr.clone().unalias(), Expr::AggregateFunction(f)
            if matches!(f.func.name(), "count" | "approx_distinct" | "regr_count"));
        let value = if counts {
            ScalarValue::new_zero(field.data_type())?
        } else {
            ScalarValue::try_from(field.data_type())?
        };
        empty_values.push((Column::from((qualifier, field)), value));
    }
    let empty = item
        .clone()
        .unalias()
        .transform(|e| {
            Ok(match e {
                Expr::Column(c) => match empty_values.iter().find(|(column, _)| *column == c) {
                    Some((_, value)) => Transformed::yes(Expr::Literal(value.clone(), None)),
                    None => Transformed::no(Expr::Column(c)),
                },
                other => Transformed::no(other),
            })
        })
        .map(|t| t.data)?;
    Ok(match &empty {
        Expr::Literal(value, _) if value.is_null() => None,
        _ => Some(empty),
    })
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
