//! Implicit joins: `FROM a, b WHERE a.id = b.id` becomes an inner join on
//! `a.id = b.id`.
//!
//! `SqlToRel` plans `FROM a, b` as an inner `Join` without condition (a
//! cross join) under a `Filter` with the whole WHERE clause. The rewrite
//! moves each WHERE conjunct that refers to both sides of an inner join (and
//! only to columns of that join's inputs) into that join's condition, the
//! deepest such join first; for an inner join a condition in WHERE and one
//! in ON mean the same. [`extract_join_keys`](super::extract_join_keys) then
//! finds the equi keys among them. Conjuncts with subqueries, outer
//! references or volatile functions stay in the WHERE filter, and so does
//! every conjunct above a non-inner join. Joins are not reordered: in
//! `FROM a, b, c WHERE a.x = c.x` the condition goes to the join of
//! `(a, b)` with `c`, and `a, b` stays a cross join.

use std::sync::Arc;

use datafusion_common::tree_node::{Transformed, TreeNode};
use datafusion_common::{DFSchema, Result};
use datafusion_expr::utils::{conjunction, split_conjunction_owned};
use datafusion_expr::{Expr, Filter, Join, JoinType, LogicalPlan};

/// Moves join predicates of WHERE clauses into the inner joins below them,
/// everywhere in `plan` (subqueries included).
///
/// # Errors
/// Only if rebuilding a node fails (a bug).
pub fn push_where_into_inner_joins(plan: LogicalPlan) -> Result<LogicalPlan> {
    plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::Filter(filter) = node else {
            return Ok(Transformed::no(node));
        };
        if !matches!(filter.input.as_ref(), LogicalPlan::Join(j) if j.join_type == JoinType::Inner)
        {
            return Ok(Transformed::no(LogicalPlan::Filter(filter)));
        }
        let mut conjuncts: Vec<Option<Expr>> = split_conjunction_owned(filter.predicate.clone())
            .into_iter()
            .map(Some)
            .collect();
        let (input, moved) = push_into(filter.input.as_ref().clone(), &mut conjuncts)?;
        if !moved {
            return Ok(Transformed::no(LogicalPlan::Filter(filter)));
        }
        let plan = match conjunction(conjuncts.into_iter().flatten()) {
            Some(rest) => LogicalPlan::Filter(Filter::try_new(rest, Arc::new(input))?),
            None => input,
        };
        Ok(Transformed::yes(plan))
    })
    .map(|t| t.data)
}

/// Pushes the movable conjuncts into the inner join tree `plan`; returns the
/// new tree and whether anything moved.
fn push_into(plan: LogicalPlan, conjuncts: &mut [Option<Expr>]) -> Result<(LogicalPlan, bool)> {
    let LogicalPlan::Join(join) = plan else {
        return Ok((plan, false));
    };
    if join.join_type != JoinType::Inner {
        return Ok((LogicalPlan::Join(join), false));
    }
    let (left, moved_left) = push_into(join.left.as_ref().clone(), conjuncts)?;
    let (right, moved_right) = push_into(join.right.as_ref().clone(), conjuncts)?;
    let mut mine = Vec::new();
    for slot in conjuncts.iter_mut() {
        if slot
            .as_ref()
            .is_some_and(|c| is_join_predicate(c, left.schema(), right.schema()))
        {
            mine.extend(slot.take());
        }
    }
    if mine.is_empty() && !moved_left && !moved_right {
        return Ok((LogicalPlan::Join(join), false));
    }
    let filter = conjunction(join.filter.into_iter().chain(mine));
    let join = Join::try_new(
        Arc::new(left),
        Arc::new(right),
        join.on,
        filter,
        join.join_type,
        join.join_constraint,
        join.null_equality,
        join.null_aware,
    )?;
    Ok((LogicalPlan::Join(join), true))
}

/// A deterministic conjunct over columns of `left` and `right` only, with at
/// least one of each.
fn is_join_predicate(expr: &Expr, left: &DFSchema, right: &DFSchema) -> bool {
    if expr.is_volatile() || has_subquery_or_outer_ref(expr) {
        return false;
    }
    let columns = expr.column_refs();
    let in_left = columns.iter().filter(|c| left.has_column(c)).count();
    let in_right = columns.iter().filter(|c| right.has_column(c)).count();
    in_left > 0 && in_right > 0 && in_left + in_right == columns.len()
}

fn has_subquery_or_outer_ref(expr: &Expr) -> bool {
    expr.exists(|e| {
        Ok(matches!(
            e,
            Expr::Exists(_)
                | Expr::InSubquery(_)
                | Expr::ScalarSubquery(_)
                | Expr::SetComparison(_)
                | Expr::OuterReferenceColumn(..)
        ))
    })
    .unwrap_or(true)
}
