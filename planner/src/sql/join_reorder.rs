//! Join reordering by estimates (`join_reorder = on`; docs/cli.md).
//!
//! Off by default: as in Flink (`table.optimizer.join-reorder-enabled`,
//! off by default), a query's joins run in the order its FROM clause
//! writes them, the one exception being comma lists, which join each
//! input to one it has a condition with (`implicit_join.rs`). That order
//! is the user's to choose, and the estimates behind any other are only as
//! good as the statistics: a file never analyzed has no distinct counts,
//! and an order chosen without them can join two large tables first.
//!
//! On, every chain of INNER joins (explicit `JOIN ... ON` and comma lists
//! alike; not outer, semi, anti, time or null-equal joins, which stay where
//! they are and end a chain) is rebuilt left-deep, greedily: first the two
//! connected inputs whose join is estimated smallest, then at each step the
//! connected input whose join with those before is estimated smallest
//! (an input no condition connects comes last, by its size). Each
//! condition goes to the first join where both its sides are joined, its
//! `a = b` parts as keys. A projection above keeps the chain's columns in
//! their written order. A chain of fewer than three inputs, or one with an
//! input that has no estimate, is kept as written. Hints keep their
//! meaning: they name tables, not positions.

use std::sync::Arc;

use datafusion_common::tree_node::{Transformed, TreeNode};
use datafusion_common::{Column, NullEquality, Result};
use datafusion_expr::utils::{conjunction, split_conjunction_owned};
use datafusion_expr::{
    BinaryExpr, Expr, Join, JoinConstraint, JoinType, LogicalPlan, Operator, Projection,
};

use super::catalog::Catalog;
use super::time_join::is_time_join;
use crate::choose::Estimator;

/// `plan` with its INNER join chains reordered (module docs), subqueries
/// included.
pub(crate) fn reorder_inner_joins(plan: LogicalPlan, catalog: &Catalog) -> Result<LogicalPlan> {
    let estimator = Estimator::new(&plan, catalog);
    reorder(plan, &estimator)
}

fn reorder(plan: LogicalPlan, estimator: &Estimator<'_>) -> Result<LogicalPlan> {
    if is_link(&plan) {
        let mut leaves = Vec::new();
        let mut conditions = Vec::new();
        flatten(plan.clone(), &mut leaves, &mut conditions);
        if leaves.len() >= 3 {
            let leaves = leaves
                .into_iter()
                .map(|l| reorder(l, estimator))
                .collect::<Result<Vec<_>>>()?;
            return rebuild(&plan, leaves, conditions, estimator);
        }
    }
    let plan = plan
        .map_children(|c| reorder(c, estimator).map(Transformed::yes))?
        .data;
    Ok(plan
        .map_subqueries(|s| {
            s.transform_down(|n| match n {
                LogicalPlan::Subquery(mut q) => {
                    let inner = Arc::unwrap_or_clone(q.subquery);
                    q.subquery = Arc::new(reorder(inner, estimator)?);
                    Ok(Transformed::yes(LogicalPlan::Subquery(q)))
                }
                other => Ok(Transformed::no(other)),
            })
        })?
        .data)
}

/// Whether `plan` is a link of a chain: an INNER join, not a time join,
/// NULLs matching nothing.
fn is_link(plan: &LogicalPlan) -> bool {
    matches!(plan, LogicalPlan::Join(j) if is_link_join(j))
}

fn is_link_join(j: &Join) -> bool {
    j.join_type == JoinType::Inner
        && j.null_equality == NullEquality::NullEqualsNothing
        && !is_time_join(j)
}

/// The inputs of the chain at `plan`, in written order, and its conditions.
fn flatten(plan: LogicalPlan, leaves: &mut Vec<LogicalPlan>, conditions: &mut Vec<Expr>) {
    let j = match plan {
        LogicalPlan::Join(j) if is_link_join(&j) => j,
        leaf => {
            leaves.push(leaf);
            return;
        }
    };
    for (l, r) in &j.on {
        conditions.push(Expr::BinaryExpr(BinaryExpr::new(
            Box::new(l.clone()),
            Operator::Eq,
            Box::new(r.clone()),
        )));
    }
    if let Some(f) = &j.filter {
        conditions.extend(split_conjunction_owned(f.clone()));
    }
    flatten(Arc::unwrap_or_clone(j.left), leaves, conditions);
    flatten(Arc::unwrap_or_clone(j.right), leaves, conditions);
}

/// Which of `leaves` a condition reads (by their schemas), `None` when a
/// column is in none of them (an outer reference: the condition stays with
/// the last join).
fn inputs_of(condition: &Expr, leaves: &[LogicalPlan]) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for c in condition.column_refs() {
        let i = leaves.iter().position(|l| l.schema().has_column(c))?;
        if !out.contains(&i) {
            out.push(i);
        }
    }
    Some(out)
}

/// The join of `left` (the inputs `joined`) with leaf `next`, carrying the
/// conditions not placed yet whose inputs are all joined now.
fn join_step(
    left: LogicalPlan,
    right: LogicalPlan,
    placed: &mut [bool],
    conditions: &[(Expr, Option<Vec<usize>>)],
    joined: &[bool],
    last: bool,
) -> Result<LogicalPlan> {
    let (lschema, rschema) = (left.schema().clone(), right.schema().clone());
    let side = |e: &Expr| {
        let refs = e.column_refs();
        let all = |s: &datafusion_common::DFSchema| refs.iter().all(|c: &&Column| s.has_column(c));
        (
            !refs.is_empty() && all(&lschema),
            !refs.is_empty() && all(&rschema),
        )
    };
    let mut on = Vec::new();
    let mut filter = Vec::new();
    for (k, (c, inputs)) in conditions.iter().enumerate() {
        if placed[k] {
            continue;
        }
        let ready = match inputs {
            Some(inputs) => inputs.iter().all(|&i| joined[i]),
            None => last,
        };
        if !ready {
            continue;
        }
        placed[k] = true;
        if let Expr::BinaryExpr(b) = c
            && b.op == Operator::Eq
        {
            match (side(&b.left), side(&b.right)) {
                ((true, false), (false, true)) => {
                    on.push((*b.left.clone(), *b.right.clone()));
                    continue;
                }
                ((false, true), (true, false)) => {
                    on.push((*b.right.clone(), *b.left.clone()));
                    continue;
                }
                _ => {}
            }
        }
        filter.push(c.clone());
    }
    Ok(LogicalPlan::Join(Join::try_new(
        Arc::new(left),
        Arc::new(right),
        on,
        conjunction(filter),
        JoinType::Inner,
        JoinConstraint::On,
        NullEquality::NullEqualsNothing,
        false,
    )?))
}

/// The chain `original` rebuilt from `leaves` greedily (module docs), under
/// a projection to its written column order; `original` itself when an
/// input has no estimate.
fn rebuild(
    original: &LogicalPlan,
    leaves: Vec<LogicalPlan>,
    conditions: Vec<Expr>,
    estimator: &Estimator<'_>,
) -> Result<LogicalPlan> {
    let n = leaves.len();
    let Some(sizes) = leaves
        .iter()
        .map(|l| estimator.estimate(l).map(|e| e.rows))
        .collect::<Option<Vec<u64>>>()
    else {
        return Ok(original.clone());
    };
    let conditions: Vec<(Expr, Option<Vec<usize>>)> = conditions
        .into_iter()
        .map(|c| {
            let inputs = inputs_of(&c, &leaves);
            (c, inputs)
        })
        .collect();
    let connects = |joined: &[bool], i: usize| {
        conditions.iter().any(|(_, inputs)| {
            inputs.as_ref().is_some_and(|inputs| {
                inputs.contains(&i) && inputs.iter().any(|&x| x != i && joined[x])
            })
        })
    };
    // The estimated rows of the join of `tree` (inputs `joined`) with leaf i.
    let cost = |tree: &LogicalPlan, joined: &[bool], i: usize| -> Result<u64> {
        let mut placed = vec![false; conditions.len()];
        let mut with = joined.to_vec();
        with[i] = true;
        let j = join_step(
            tree.clone(),
            leaves[i].clone(),
            &mut placed,
            &conditions,
            &with,
            false,
        )?;
        Ok(estimator.estimate(&j).map_or(u64::MAX, |e| e.rows))
    };
    // The first pair: connected, smallest join (ties: written order).
    let mut best: Option<(u64, usize, usize)> = None;
    for a in 0..n {
        for b in (a + 1)..n {
            let mut joined = vec![false; n];
            joined[a] = true;
            if !connects(&joined, b) {
                continue;
            }
            let rows = cost(&leaves[a], &joined, b)?;
            let (first, second) = if sizes[b] > sizes[a] { (b, a) } else { (a, b) };
            if best.is_none_or(|(r, _, _)| rows < r) {
                best = Some((rows, first, second));
            }
        }
    }
    let Some((_, first, second)) = best else {
        return Ok(original.clone());
    };
    let mut joined = vec![false; n];
    let mut placed = vec![false; conditions.len()];
    joined[first] = true;
    let mut tree = leaves[first].clone();
    let mut next = second;
    for step in 1..n {
        joined[next] = true;
        tree = join_step(
            tree,
            leaves[next].clone(),
            &mut placed,
            &conditions,
            &joined,
            step == n - 1,
        )?;
        if step == n - 1 {
            break;
        }
        let mut choice: Option<(bool, u64, usize)> = None;
        for i in (0..n).filter(|&i| !joined[i]) {
            let connected = connects(&joined, i);
            let rows = if connected {
                cost(&tree, &joined, i)?
            } else {
                sizes[i]
            };
            // connected first, then the smallest
            let key = (!connected, rows, i);
            if choice.is_none_or(|c| key < c) {
                choice = Some(key);
            }
        }
        let Some((_, _, i)) = choice else { break };
        next = i;
    }
    let columns: Vec<Expr> = original
        .schema()
        .iter()
        .map(|(q, f)| Expr::Column(Column::new(q.cloned(), f.name())))
        .collect();
    Ok(LogicalPlan::Projection(Projection::try_new(
        columns,
        Arc::new(tree),
    )?))
}
