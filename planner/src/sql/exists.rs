//! `EXISTS` / `NOT EXISTS` and correlated `IN` / `NOT IN` subqueries in
//! WHERE as semi / anti joins (J03): decorrelation.
//!
//! Runs after [`in_subqueries_to_joins`](super::in_subqueries_to_joins),
//! which has already turned the *uncorrelated* `IN` / `NOT IN` conjuncts
//! into joins; this rewrite takes every other `EXISTS` / `IN` subquery that
//! is a top-level conjunct (of `AND`) of a WHERE clause:
//!
//! ```text
//! Filter: p AND EXISTS (<subquery>)           Filter: p
//!   <input>                             ──►     LeftSemi Join: on <keys> filter <filter>
//!                                                 <input>
//!                                                 SubqueryAlias: __sq_2
//!                                                   Filter: <uncorrelated conjuncts>
//!                                                     <subquery's FROM>
//! ```
//!
//! # Rules
//!
//! - `EXISTS` → `LeftSemi`, `NOT EXISTS` → `LeftAnti`, correlated `x IN` →
//!   `LeftSemi` with the key `x = __sq_N.<value>`, correlated `x NOT IN` →
//!   null-aware `LeftAnti` (`Join.null_aware`, as for the uncorrelated
//!   `NOT IN`). The subquery side is aliased `__sq_N` (N after the highest
//!   `__sq_` alias already in the plan): the hint chooser takes no hints on
//!   these joins (docs/hints.md H14) and recognises them by that prefix.
//! - **Correlation** is taken from the subquery's top `Filter` only: the one
//!   directly under its SELECT (for `EXISTS` also under `DISTINCT`,
//!   `ORDER BY`, `LIMIT n` with n ≥ 1 and a derived-table alias, which do not
//!   change whether a row exists; for `IN` under `DISTINCT` and `ORDER BY`).
//!   Its conjuncts that refer to the outer query
//!   (`Expr::OuterReferenceColumn`) leave the subquery:
//!   - `outer_expr = inner_expr` (one side only outer columns, the other only
//!     the subquery's) becomes an equi key of the join (`Join.on`; key types
//!     are coerced later by [`extract_join_keys`](super::extract_join_keys));
//!   - every other correlated conjunct goes to the join's filter, with the
//!     outer references as plain columns of the join's left input;
//!   - the rest of the Filter (the subquery's own conditions and its block
//!     marker) stays in the subquery.
//! - **`NOT IN` with correlation**: the null-aware anti join takes exactly
//!   one key (the `IN` value; the kernels' rule). The correlated conjuncts
//!   all go to the filter, each as `(<conjunct>) IS TRUE`: the null-aware
//!   join treats an unknown filter result as a possible match (SQL's
//!   three-valued `NOT IN`), but a correlation that is unknown (a NULL
//!   correlated column) means the subquery row is not in the subquery's
//!   result at all, so it must count as no match.
//! - The subquery's SELECT list does not matter for `EXISTS` (it is
//!   dropped); for `IN` the single select expression becomes the right key.
//! - An uncorrelated `EXISTS` is a semi / anti join without keys or filter
//!   (a nested-loop "cross" semi join), on the subquery as written.
//!
//! # Rejected, with [`SqlError::Unsupported`]
//!
//! - an outer reference anywhere but the subquery's top Filter: in its
//!   SELECT list (`IN`), in a JOIN's ON condition inside it, under a GROUP
//!   BY / aggregate, LIMIT, window function, UNION or derived table;
//! - an outer reference to a query more than one level out, directly or
//!   from a subquery nested inside the correlated one;
//! - `EXISTS` / `IN (subquery)` that is not a top-level AND conjunct of a
//!   WHERE clause: under `OR` / `NOT` / `CASE`, in the SELECT list, in an
//!   ON condition, in HAVING, GROUP BY or ORDER BY.
//!
//! Scalar subqueries and `x > ANY (subquery)` are left as they are.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion_common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion_common::{Column, DFSchema, DataFusionError, NullEquality, Result};
use datafusion_expr::logical_plan::{Distinct, FetchType, SkipType};
use datafusion_expr::utils::{conjunction, split_conjunction_owned};
use datafusion_expr::{
    BinaryExpr, Expr, Filter, Join, JoinConstraint, JoinType, LogicalPlan, Operator, Projection,
    Subquery, SubqueryAlias,
    expr::{Exists, InSubquery},
};

use super::blocks::BLOCK_MARKER;
use super::error::SqlError;

/// Prefix of the aliases of subqueries planned as semi / anti joins (shared
/// with `subquery.rs` and the hint chooser).
pub(super) const ALIAS_PREFIX: &str = "__sq_";

/// Rewrites `EXISTS`, `NOT EXISTS` and correlated `IN` / `NOT IN` WHERE
/// conjuncts into semi / anti joins, everywhere in `plan` (see the module
/// docs), then rejects the `EXISTS` / `IN` subqueries that are left.
///
/// # Errors
/// [`SqlError::Unsupported`] for the shapes listed in the module docs;
/// [`SqlError::Plan`] if building a node fails (a bug).
pub fn decorrelate_subqueries(plan: LogicalPlan) -> Result<LogicalPlan, SqlError> {
    let mut counter = highest_alias_number(&plan);
    let plan = plan
        .transform_up_with_subqueries(|node| {
            let LogicalPlan::Filter(filter) = node else {
                return Ok(Transformed::no(node));
            };
            rewrite_filter(filter, &mut counter).map_err(external)
        })?
        .data;
    reject_remaining(&plan)?;
    Ok(plan)
}

fn external(e: SqlError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

pub(super) fn unsupported(message: impl Into<String>) -> SqlError {
    SqlError::Unsupported(message.into())
}

/// The highest N of a `__sq_N` alias in the plan (0 if none).
pub(super) fn highest_alias_number(plan: &LogicalPlan) -> usize {
    let mut highest = 0;
    let _ = plan.apply_with_subqueries(|node| {
        if let LogicalPlan::SubqueryAlias(sa) = node
            && let Some(n) = sa
                .alias
                .table()
                .strip_prefix(ALIAS_PREFIX)
                .and_then(|n| n.parse::<usize>().ok())
        {
            highest = highest.max(n);
        }
        Ok(TreeNodeRecursion::Continue)
    });
    highest
}

/// Whether a conjunct is a query block marker: its Filter is a WHERE clause.
pub(super) fn is_marker(expr: &Expr) -> bool {
    matches!(expr, Expr::ScalarFunction(call) if call.func.name() == BLOCK_MARKER)
}

/// A subquery predicate, normalized (`NOT EXISTS (..)` and `NOT (x IN ..)`
/// fold into `negated`).
enum Predicate {
    Exists {
        subquery: Subquery,
        negated: bool,
    },
    In {
        expr: Expr,
        subquery: Subquery,
        negated: bool,
    },
}

impl Predicate {
    fn of(expr: &Expr) -> Option<Predicate> {
        match expr {
            Expr::Exists(Exists { subquery, negated }) => Some(Predicate::Exists {
                subquery: subquery.clone(),
                negated: *negated,
            }),
            Expr::InSubquery(InSubquery {
                expr,
                subquery,
                negated,
            }) => Some(Predicate::In {
                expr: expr.as_ref().clone(),
                subquery: subquery.clone(),
                negated: *negated,
            }),
            Expr::Not(inner) => Predicate::of(inner).map(|p| match p {
                Predicate::Exists { subquery, negated } => Predicate::Exists {
                    subquery,
                    negated: !negated,
                },
                Predicate::In {
                    expr,
                    subquery,
                    negated,
                } => Predicate::In {
                    expr,
                    subquery,
                    negated: !negated,
                },
            }),
            _ => None,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Predicate::Exists { negated: false, .. } => "EXISTS",
            Predicate::Exists { negated: true, .. } => "NOT EXISTS",
            Predicate::In { negated: false, .. } => "IN (subquery)",
            Predicate::In { negated: true, .. } => "NOT IN (subquery)",
        }
    }
}

/// Rewrites the subquery conjuncts of one WHERE `Filter`.
fn rewrite_filter(
    filter: Filter,
    counter: &mut usize,
) -> Result<Transformed<LogicalPlan>, SqlError> {
    let conjuncts = split_conjunction_owned(filter.predicate.clone());
    let is_where = conjuncts.iter().any(is_marker);
    if !is_where || !conjuncts.iter().any(|c| Predicate::of(c).is_some()) {
        // Subqueries of a Filter that is not a WHERE clause (HAVING) are
        // reported by `reject_remaining`.
        return Ok(Transformed::no(LogicalPlan::Filter(filter)));
    }
    let mut input = Arc::clone(&filter.input);
    let outer_schema = Arc::clone(filter.input.schema());
    let mut rest = Vec::new();
    for conjunct in conjuncts {
        let Some(predicate) = Predicate::of(&conjunct) else {
            rest.push(conjunct);
            continue;
        };
        *counter += 1;
        let alias = format!("{ALIAS_PREFIX}{counter}");
        let join = subquery_join(predicate, input, &outer_schema, &alias)?;
        input = Arc::new(LogicalPlan::Join(join));
    }
    let plan = match conjunction(rest) {
        Some(predicate) => LogicalPlan::Filter(Filter::try_new(predicate, input)?),
        None => Arc::unwrap_or_clone(input),
    };
    Ok(Transformed::yes(plan))
}

/// The semi / anti join of `left` with one subquery.
fn subquery_join(
    predicate: Predicate,
    left: Arc<LogicalPlan>,
    outer: &DFSchema,
    alias: &str,
) -> Result<Join, SqlError> {
    let what = predicate.name();
    let (in_expr, subquery, negated) = match predicate {
        Predicate::Exists { subquery, negated } => (None, subquery, negated),
        Predicate::In {
            expr,
            subquery,
            negated,
        } => (Some(expr), subquery, negated),
    };
    if let Some(x) = &in_expr {
        if let Some(column) = first_outer_ref(x) {
            return Err(unsupported(format!(
                "{what}: the value tested, `{x}`, refers to `{column}` of an enclosing query; \
                 only columns of the query whose WHERE clause holds it can be tested"
            )));
        }
        if has_subquery(x) {
            return Err(unsupported(format!(
                "{what}: the value tested, `{x}`, holds a subquery"
            )));
        }
    }
    let is_in = in_expr.is_some();
    let plan = Arc::clone(&subquery.subquery);
    let decorrelated = if is_correlated(&plan) {
        correlated(what, &plan, is_in, negated, outer, alias)?
    } else {
        uncorrelated(&plan, alias)?
    };
    let mut on = decorrelated.keys;
    if let Some(x) = in_expr {
        let value = decorrelated
            .value
            .ok_or_else(|| SqlError::Plan(format!("internal: {what} subquery without a column")))?;
        on.insert(0, (x, value));
    }
    let join_type = if negated {
        JoinType::LeftAnti
    } else {
        JoinType::LeftSemi
    };
    // NOT IN: SQL's three-valued rules (a NULL value or subquery row)
    let null_aware = negated && is_in;
    Ok(Join::try_new(
        left,
        Arc::new(decorrelated.right),
        on,
        decorrelated.filter,
        join_type,
        JoinConstraint::On,
        NullEquality::NullEqualsNothing,
        null_aware,
    )?)
}

/// The subquery side of a join and the join's condition parts.
struct Decorrelated {
    /// The aliased subquery.
    right: LogicalPlan,
    /// For `IN`: the subquery's value as a column of `right`.
    value: Option<Expr>,
    /// Equi keys from the correlation (outer expression, subquery expression).
    keys: Vec<(Expr, Expr)>,
    /// The rest of the correlation.
    filter: Option<Expr>,
}

/// An uncorrelated subquery, as written, under the alias.
fn uncorrelated(plan: &Arc<LogicalPlan>, alias: &str) -> Result<Decorrelated, SqlError> {
    let right = LogicalPlan::SubqueryAlias(SubqueryAlias::try_new(Arc::clone(plan), alias)?);
    let value = right
        .schema()
        .fields()
        .first()
        .map(|f| Expr::Column(Column::new(Some(alias), f.name())));
    Ok(Decorrelated {
        right,
        value,
        keys: Vec::new(),
        filter: None,
    })
}

/// Whether any expression of `plan` (its own nodes, or subqueries nested in
/// them) refers to an enclosing query.
pub(super) fn is_correlated(plan: &LogicalPlan) -> bool {
    let mut found = false;
    let _ = plan.apply_with_subqueries(|node| {
        let _ = node.apply_expressions(|e| {
            found |= e.contains_outer();
            Ok(TreeNodeRecursion::Continue)
        });
        Ok(if found {
            TreeNodeRecursion::Stop
        } else {
            TreeNodeRecursion::Continue
        })
    });
    found
}

/// Decorrelates a subquery whose top Filter holds the correlation.
fn correlated(
    what: &str,
    plan: &LogicalPlan,
    is_in: bool,
    negated: bool,
    outer: &DFSchema,
    alias: &str,
) -> Result<Decorrelated, SqlError> {
    let (filter, in_value) = top_filter(what, plan, is_in)?;
    if let Some(value) = &in_value
        && let Some(column) = first_outer_ref(value)
    {
        return Err(unsupported(format!(
            "correlated {what}: the outer reference `{column}` is in the subquery's SELECT \
             list; only the subquery's WHERE clause may refer to the outer query"
        )));
    }
    let (correlation, own): (Vec<Expr>, Vec<Expr>) =
        split_conjunction_owned(filter.predicate.clone())
            .into_iter()
            .partition(Expr::contains_outer);
    for conjunct in &correlation {
        if has_subquery(conjunct) {
            return Err(unsupported(format!(
                "correlated {what}: the correlated condition `{conjunct}` holds a subquery"
            )));
        }
        for column in outer_refs(conjunct) {
            if !outer.has_column(&column) {
                return Err(unsupported(format!(
                    "correlated {what}: `{column}` refers to a query more than one level out; \
                     only references to the directly enclosing query are decorrelated"
                )));
            }
        }
    }
    let inner = match conjunction(own) {
        Some(predicate) => {
            LogicalPlan::Filter(Filter::try_new(predicate, Arc::clone(&filter.input))?)
        }
        None => filter.input.as_ref().clone(),
    };
    if let Some(problem) = outer_ref_below(&inner) {
        return Err(unsupported(format!(
            "correlated {what}: {problem}; tenon decorrelates only references in the \
             subquery's own WHERE clause (above any GROUP BY, LIMIT, window, UNION or \
             derived table)"
        )));
    }
    if let Some(column) = escaping_ref(&inner, outer) {
        return Err(unsupported(format!(
            "correlated {what}: a subquery nested inside it refers to `{column}` of the \
             outer query; only the correlated subquery's own WHERE clause may"
        )));
    }

    // The subquery side: its FROM with its own conditions, every column
    // exposed (plus the IN value), under the alias. Columns are mapped by
    // position, so names SubqueryAlias deduplicates are found too.
    let inner_schema = Arc::clone(inner.schema());
    let (right_input, value_index) = match in_value {
        None => (inner, None),
        Some(value) => match value.clone().unalias() {
            Expr::Column(c) if inner_schema.has_column(&c) => {
                let index = inner_schema.index_of_column(&c)?;
                (inner, Some(index))
            }
            _ => {
                let columns = inner_schema.columns().into_iter().map(Expr::Column);
                let mut name = "__sq_value".to_string();
                while inner_schema.fields().iter().any(|f| f.name() == &name) {
                    name.push('_');
                }
                let mut exprs: Vec<Expr> = columns.collect();
                exprs.push(value.unalias().alias(name));
                let index = exprs.len() - 1;
                (
                    LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(inner))?),
                    Some(index),
                )
            }
        },
    };
    let right = LogicalPlan::SubqueryAlias(SubqueryAlias::try_new(Arc::new(right_input), alias)?);
    let right_column =
        |index: usize| Expr::Column(Column::from(right.schema().qualified_field(index)));
    let mapping: HashMap<Column, Expr> = inner_schema
        .columns()
        .into_iter()
        .enumerate()
        .map(|(i, c)| (c, right_column(i)))
        .collect();
    let to_join = |e: Expr| -> Result<Expr, SqlError> {
        Ok(e.transform(|e| {
            Ok(match e {
                Expr::OuterReferenceColumn(_, c) => Transformed::yes(Expr::Column(c)),
                Expr::Column(c) => match mapping.get(&c) {
                    Some(mapped) => Transformed::yes(mapped.clone()),
                    None => match inner_schema.index_of_column(&c) {
                        Ok(i) => Transformed::yes(right_column(i)),
                        Err(_) => Transformed::no(Expr::Column(c)),
                    },
                },
                other => Transformed::no(other),
            })
        })?
        .data)
    };

    let mut keys = Vec::new();
    let mut filter_parts = Vec::new();
    for conjunct in correlation {
        if negated && is_in {
            // null-aware anti join: one key only, an unknown correlation is no match
            filter_parts.push(Expr::IsTrue(Box::new(to_join(conjunct)?)));
            continue;
        }
        match correlation_key(&conjunct) {
            Some((outer_side, inner_side)) => {
                keys.push((to_join(outer_side)?, to_join(inner_side)?))
            }
            None => filter_parts.push(to_join(conjunct)?),
        }
    }
    Ok(Decorrelated {
        value: value_index.map(right_column),
        right,
        keys,
        filter: conjunction(filter_parts),
    })
}

/// `outer = inner` or `inner = outer` with one side over outer references
/// only and the other over the subquery's columns only: `(outer, inner)`.
pub(super) fn correlation_key(conjunct: &Expr) -> Option<(Expr, Expr)> {
    let Expr::BinaryExpr(BinaryExpr {
        left,
        op: Operator::Eq,
        right,
    }) = conjunct
    else {
        return None;
    };
    if conjunct.is_volatile() {
        return None;
    }
    let outer_only = |e: &Expr| e.contains_outer() && e.column_refs().is_empty();
    let inner_only = |e: &Expr| !e.contains_outer() && !e.column_refs().is_empty();
    if outer_only(left) && inner_only(right) {
        Some((left.as_ref().clone(), right.as_ref().clone()))
    } else if inner_only(left) && outer_only(right) {
        Some((right.as_ref().clone(), left.as_ref().clone()))
    } else {
        None
    }
}

/// The subquery's top Filter (the one that may hold the correlation) and,
/// for `IN`, the value its SELECT list computes.
fn top_filter<'a>(
    what: &str,
    plan: &'a LogicalPlan,
    is_in: bool,
) -> Result<(&'a Filter, Option<Expr>), SqlError> {
    let mut node = plan;
    loop {
        node = match node {
            LogicalPlan::Filter(filter) if !is_in => return Ok((filter, None)),
            LogicalPlan::Projection(p) if is_in => {
                return match (p.expr.as_slice(), p.input.as_ref()) {
                    ([value], LogicalPlan::Filter(filter)) => Ok((filter, Some(value.clone()))),
                    ([_], other) => Err(blocked(what, other)),
                    _ => Err(unsupported(format!(
                        "{what}: the subquery must return exactly one column"
                    ))),
                };
            }
            LogicalPlan::Projection(p) => p.input.as_ref(),
            LogicalPlan::SubqueryAlias(sa) if !is_in => sa.input.as_ref(),
            LogicalPlan::Distinct(Distinct::All(input)) => input.as_ref(),
            LogicalPlan::Sort(sort) if sort.fetch.is_none() => sort.input.as_ref(),
            LogicalPlan::Limit(limit)
                if !is_in
                    && matches!(limit.get_skip_type(), Ok(SkipType::Literal(0)))
                    && matches!(limit.get_fetch_type(), Ok(FetchType::Literal(Some(n))) if n > 0) =>
            {
                limit.input.as_ref()
            }
            other => {
                return Err(blocked(what, other));
            }
        };
    }
}

/// The error for a correlated subquery whose correlation is below `node`.
fn blocked(what: &str, node: &LogicalPlan) -> SqlError {
    let mut column = None;
    let _ = node.apply_with_subqueries(|n| {
        let _ = n.apply_expressions(|e| {
            column = first_outer_ref(e);
            Ok(if column.is_some() {
                TreeNodeRecursion::Stop
            } else {
                TreeNodeRecursion::Continue
            })
        });
        Ok(if column.is_some() {
            TreeNodeRecursion::Stop
        } else {
            TreeNodeRecursion::Continue
        })
    });
    let column = column.map(|c| format!("`{c}`: ")).unwrap_or_default();
    unsupported(format!(
        "correlated {what}: {column}{}; tenon decorrelates only references in the \
         subquery's own WHERE clause (above any GROUP BY, LIMIT, window, UNION or derived \
         table)",
        describe_blocker(node)
    ))
}

/// Why the outer reference below `node` cannot be pulled up.
fn describe_blocker(node: &LogicalPlan) -> String {
    match node {
        LogicalPlan::Aggregate(_) => {
            "the outer reference is below a GROUP BY / aggregate function of the subquery".into()
        }
        LogicalPlan::Limit(_) => "the outer reference is below a LIMIT / OFFSET".into(),
        LogicalPlan::Sort(_) => "the outer reference is below ORDER BY ... LIMIT".into(),
        LogicalPlan::Window(_) => "the outer reference is below a window function".into(),
        LogicalPlan::Union(_) => "the subquery is a UNION".into(),
        LogicalPlan::Distinct(_) => "the outer reference is below DISTINCT ON".into(),
        LogicalPlan::SubqueryAlias(_) => "the outer reference is inside a derived table".into(),
        other => format!(
            "the subquery has the shape `{}` where its WHERE clause was expected",
            node_name(other)
        ),
    }
}

fn node_name(node: &LogicalPlan) -> String {
    node.display().to_string()
}

/// Where in `plan` (the subquery minus its top Filter's correlation) an
/// outer reference is left, described; `None` if there is none.
pub(super) fn outer_ref_below(plan: &LogicalPlan) -> Option<String> {
    fn walk(node: &LogicalPlan, blocker: Option<&LogicalPlan>) -> Option<String> {
        let mut found = None;
        let _ = node.apply_expressions(|e| {
            if let Some(c) = first_outer_ref(e) {
                found = Some(c);
                return Ok(TreeNodeRecursion::Stop);
            }
            Ok(TreeNodeRecursion::Continue)
        });
        if let Some(column) = found {
            let place = match (blocker, node) {
                (Some(b), _) => describe_blocker(b),
                (None, LogicalPlan::Join(_)) => {
                    "the outer reference is in a JOIN condition inside the subquery".into()
                }
                (None, LogicalPlan::Aggregate(_)) => {
                    "the outer reference is in a GROUP BY / aggregate function".into()
                }
                (None, LogicalPlan::Projection(_)) => {
                    "the outer reference is in a SELECT list inside the subquery".into()
                }
                (None, other) => format!(
                    "the outer reference is in `{}` inside the subquery",
                    node_name(other)
                ),
            };
            return Some(format!("`{column}`: {place}"));
        }
        let blocker = blocker.or(match node {
            LogicalPlan::Aggregate(_)
            | LogicalPlan::Limit(_)
            | LogicalPlan::Window(_)
            | LogicalPlan::Union(_)
            | LogicalPlan::SubqueryAlias(_) => Some(node),
            LogicalPlan::Distinct(Distinct::On(_)) => Some(node),
            _ => None,
        });
        node.inputs()
            .into_iter()
            .find_map(|child| walk(child, blocker))
    }
    walk(plan, None)
}

/// An outer reference in a subquery nested in `plan` that names a column of
/// `outer` and of no node of `plan` (so it escapes the correlated
/// subquery).
pub(super) fn escaping_ref(plan: &LogicalPlan, outer: &DFSchema) -> Option<Column> {
    let mut schemas = Vec::new();
    let _ = plan.apply_with_subqueries(|node| {
        schemas.push(Arc::clone(node.schema()));
        Ok(TreeNodeRecursion::Continue)
    });
    let mut escaping = None;
    let _ = plan.apply_with_subqueries(|node| {
        let _ = node.apply_expressions(|e| {
            for column in outer_refs(e) {
                if outer.has_column(&column) && !schemas.iter().any(|s| s.has_column(&column)) {
                    escaping = Some(column);
                    return Ok(TreeNodeRecursion::Stop);
                }
            }
            Ok(TreeNodeRecursion::Continue)
        });
        Ok(if escaping.is_some() {
            TreeNodeRecursion::Stop
        } else {
            TreeNodeRecursion::Continue
        })
    });
    escaping
}

pub(super) fn outer_refs(expr: &Expr) -> Vec<Column> {
    let mut columns = Vec::new();
    let _ = expr.apply(|e| {
        if let Expr::OuterReferenceColumn(_, c) = e {
            columns.push(c.clone());
        }
        Ok(TreeNodeRecursion::Continue)
    });
    columns
}

pub(super) fn first_outer_ref(expr: &Expr) -> Option<Column> {
    outer_refs(expr).into_iter().next()
}

pub(super) fn has_subquery(expr: &Expr) -> bool {
    expr.exists(|e| {
        Ok(matches!(
            e,
            Expr::Exists(_)
                | Expr::InSubquery(_)
                | Expr::ScalarSubquery(_)
                | Expr::SetComparison(_)
        ))
    })
    .unwrap_or(true)
}

/// The first expression in `plan` (subqueries included) for which `found`
/// holds, with where it is ("in the SELECT list", ...): what the
/// rejections of subqueries left after their rewrites report.
pub(super) fn first_expr_place(
    plan: &LogicalPlan,
    found: impl Fn(&Expr) -> bool,
) -> Option<(Expr, String)> {
    let mut hit = None;
    let _ = plan.apply_with_subqueries(|node| {
        let _ = node.apply_expressions(|e| {
            if !found(e) {
                return Ok(TreeNodeRecursion::Continue);
            }
            let place = match node {
                LogicalPlan::Filter(f)
                    if split_conjunction_owned(f.predicate.clone())
                        .iter()
                        .any(is_marker) =>
                {
                    "inside OR, NOT, CASE or another expression of a WHERE clause".to_string()
                }
                LogicalPlan::Filter(_) => "in HAVING (or another non-WHERE filter)".into(),
                LogicalPlan::Projection(_) => "in the SELECT list".into(),
                LogicalPlan::Join(_) => "in a JOIN's ON condition".into(),
                LogicalPlan::Aggregate(_) => "in GROUP BY or an aggregate function".into(),
                LogicalPlan::Sort(_) => "in ORDER BY".into(),
                other => format!("in `{}`", node_name(other)),
            };
            hit = Some((e.clone(), place));
            Ok(TreeNodeRecursion::Stop)
        });
        Ok(if hit.is_some() {
            TreeNodeRecursion::Stop
        } else {
            TreeNodeRecursion::Continue
        })
    });
    hit
}

/// Rejects every `EXISTS` / `IN (subquery)` left in the plan, saying where
/// it is.
fn reject_remaining(plan: &LogicalPlan) -> Result<(), SqlError> {
    let predicate = |e: &Expr| {
        e.exists(|e| Ok(matches!(e, Expr::Exists(_) | Expr::InSubquery(_))))
            .unwrap_or(false)
    };
    match first_expr_place(plan, predicate) {
        Some((e, place)) => Err(unsupported(format!(
            "{} {place}: a subquery predicate is planned only as a top-level AND \
             conjunct of a WHERE clause (it becomes a semi / anti join there)",
            first_subquery_predicate(&e)
        ))),
        None => Ok(()),
    }
}

/// "EXISTS" / "IN (subquery)" ... for the first subquery predicate in `expr`.
fn first_subquery_predicate(expr: &Expr) -> &'static str {
    let mut name = "a subquery predicate";
    let _ = expr.apply(|e| {
        name = match e {
            Expr::Exists(Exists { negated: false, .. }) => "EXISTS",
            Expr::Exists(Exists { negated: true, .. }) => "NOT EXISTS",
            Expr::InSubquery(InSubquery { negated: false, .. }) => "IN (subquery)",
            Expr::InSubquery(InSubquery { negated: true, .. }) => "NOT IN (subquery)",
            _ => return Ok(TreeNodeRecursion::Continue),
        };
        Ok(TreeNodeRecursion::Stop)
    });
    name
}
