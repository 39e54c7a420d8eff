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
use datafusion_common::{DFSchema, NullEquality, Result};

use datafusion_expr::utils::{
    conjunction, disjunction, split_binary_owned, split_conjunction_owned,
};
use datafusion_expr::{
    Expr, Filter, Join, JoinConstraint, JoinType, LogicalPlan, Operator, Projection,
};

/// Moves join predicates of WHERE clauses into the inner joins below them,
/// everywhere in `plan` (subqueries included).
///
/// # Errors
/// Only if rebuilding a node fails (a bug).
pub fn push_where_into_inner_joins(plan: LogicalPlan) -> Result<LogicalPlan> {
    push_where_into_inner_joins_with(plan, &|_| None)
}

/// [`push_where_into_inner_joins`], knowing the row count of each table
/// (`table_rows(name)`), which lets a comma-join list join a filtered
/// dimension table of at most [`TINY_ROWS`] rows as soon as it connects
/// (see `connect_cross_joins`).
///
/// # Errors
/// Only if rebuilding a node fails (a bug).
pub fn push_where_into_inner_joins_with(
    plan: LogicalPlan,
    table_rows: &dyn Fn(&str) -> Option<u64>,
) -> Result<LogicalPlan> {
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
            .flat_map(|c| split_conjunction_owned(factor_or(c)))
            .map(Some)
            .collect();
        let reordered = connect_cross_joins(filter.input.as_ref(), &conjuncts, table_rows)?;
        let is_reordered = reordered.is_some();
        let input = reordered.unwrap_or_else(|| filter.input.as_ref().clone());
        let (input, moved) = push_into(input, &mut conjuncts)?;
        if !moved {
            return Ok(Transformed::no(LogicalPlan::Filter(filter)));
        }
        let mut plan = match conjunction(conjuncts.into_iter().flatten()) {
            Some(rest) => LogicalPlan::Filter(Filter::try_new(rest, Arc::new(input))?),
            None => input,
        };
        if is_reordered {
            // The columns in the order the nodes above were planned with.
            let columns = filter
                .input
                .schema()
                .columns()
                .into_iter()
                .map(Expr::Column);
            plan = LogicalPlan::Projection(Projection::try_new(columns.collect(), Arc::new(plan))?);
        }
        Ok(Transformed::yes(plan))
    })
    .map(|t| t.data)
}

/// The inputs of a tree of cross joins (`FROM a, b, c` before any
/// condition moved in), in FROM order, into `out` (a plan that is no such
/// tree is its own single input).
fn cross_leaves(plan: &LogicalPlan, out: &mut Vec<LogicalPlan>) {
    match plan {
        LogicalPlan::Join(j)
            if j.join_type == JoinType::Inner && j.on.is_empty() && j.filter.is_none() =>
        {
            cross_leaves(&j.left, out);
            cross_leaves(&j.right, out);
        }
        other => out.push(other.clone()),
    }
}

/// `FROM a, b, c` with `a` and `b` not related by any WHERE conjunct but
/// each related to `c` would join `a` and `b` first as a cross product
/// (TPC-H Q9: part x supplier, 2 billion rows at scale 1). This orders the
/// inputs so that each one joins a conjunct to the ones before it: the
/// first input stays first, then the next input in FROM order that a
/// conjunct connects to those joined, or, when none is connected, the next
/// in FROM order (a cross join the query asks for). Otherwise FROM order is
/// kept: the order the query is written in is the join order, as in Flink.
/// One exception: among the inputs that connect, a *filtered tiny
/// dimension* (a table of at most [`TINY_ROWS`] rows with a WHERE
/// conjunct of its own) goes first, since it can only shrink every join
/// after it (TPC-H Q21: `supplier` joined with the one nation of 25 that
/// the query asks for before `lineitem`, so 400 suppliers meet lineitem,
/// not 10,000, and that join's output is 150K rows instead of 3.8M).
/// (Ordering by estimated sizes was tried and backed out: without distinct
/// counts, the estimates cannot tell a foreign-key join from a join on a
/// low-cardinality column, and TPC-H Q5 and Q7 went from 0.1 s and 0.3 s
/// to more than 10 s at scale 1.)
/// `None` when FROM order is that order already or `plan` is not a tree of
/// three or more cross-joined inputs. Explicit `JOIN ... ON` are never
/// reordered (they are leaves here).
fn connect_cross_joins(
    plan: &LogicalPlan,
    conjuncts: &[Option<Expr>],
    table_rows: &dyn Fn(&str) -> Option<u64>,
) -> Result<Option<LogicalPlan>> {
    let mut leaves = Vec::new();
    cross_leaves(plan, &mut leaves);
    if leaves.len() < 3 {
        return Ok(None);
    }
    // The inputs of each conjunct over two or more of them.
    let relations: Vec<Vec<usize>> = conjuncts
        .iter()
        .flatten()
        .filter(|c| !c.is_volatile() && !has_subquery_or_outer_ref(c))
        .filter_map(|c| {
            let mut inputs: Vec<usize> = Vec::new();
            for column in c.column_refs() {
                let i = leaves.iter().position(|l| l.schema().has_column(column))?;
                if !inputs.contains(&i) {
                    inputs.push(i);
                }
            }
            (inputs.len() >= 2).then_some(inputs)
        })
        .collect();
    // Inputs with a conjunct of their own, over a table of at most
    // TINY_ROWS rows.
    let tiny: Vec<bool> = leaves
        .iter()
        .enumerate()
        .map(|(i, leaf)| {
            let small = scanned_table(leaf)
                .and_then(table_rows)
                .is_some_and(|rows| rows <= TINY_ROWS);
            small
                && conjuncts.iter().flatten().any(|c| {
                    let refs = c.column_refs();
                    !refs.is_empty()
                        && refs.iter().all(|col| {
                            leaves.iter().position(|l| l.schema().has_column(col)) == Some(i)
                        })
                })
        })
        .collect();
    let mut order = vec![0];
    let mut joined = vec![false; leaves.len()];
    joined[0] = true;
    while order.len() < leaves.len() {
        let connected = |i: usize| {
            relations
                .iter()
                .any(|r| r.contains(&i) && r.iter().all(|&x| x == i || joined[x]))
        };
        let next = (0..leaves.len())
            .filter(|&i| !joined[i] && connected(i))
            .find(|&i| tiny[i])
            .or_else(|| {
                (0..leaves.len())
                    .filter(|&i| !joined[i])
                    .find(|&i| connected(i))
            })
            .or_else(|| (0..leaves.len()).find(|&i| !joined[i]))
            .unwrap_or(0);
        joined[next] = true;
        order.push(next);
    }
    if order.iter().enumerate().all(|(at, &i)| at == i) {
        return Ok(None);
    }
    let mut inputs = order.into_iter().map(|i| leaves[i].clone());
    let mut tree = inputs.next().unwrap_or_else(|| leaves[0].clone());
    for input in inputs {
        tree = LogicalPlan::Join(Join::try_new(
            Arc::new(tree),
            Arc::new(input),
            vec![],
            None,
            JoinType::Inner,
            JoinConstraint::On,
            NullEquality::NullEqualsNothing,
            false,
        )?);
    }
    Ok(Some(tree))
}

/// A table of at most this many rows with a filter of its own joins as
/// soon as it connects (see `connect_cross_joins`): TPC-H's `nation` (25)
/// and `region` (5), at any scale.
pub const TINY_ROWS: u64 = 1000;

/// The table a comma-join input reads, through aliases, filters and
/// projections.
fn scanned_table(plan: &LogicalPlan) -> Option<&str> {
    match plan {
        LogicalPlan::TableScan(scan) => Some(scan.table_name.table()),
        LogicalPlan::SubqueryAlias(a) => scanned_table(&a.input),
        LogicalPlan::Filter(f) => scanned_table(&f.input),
        LogicalPlan::Projection(p) => scanned_table(&p.input),
        _ => None,
    }
}

/// `(a AND b) OR (a AND c)` as `a AND (b OR c)`: conjuncts common to every
/// branch of an OR come out of it (distributivity holds in SQL's
/// three-valued logic too), so that a join key or a one-table condition
/// written in every branch (TPC-H Q19) can become a key or move to its
/// scan. A branch left with nothing makes the OR true. Volatile
/// expressions are left alone.
pub(crate) fn factor_or(expr: Expr) -> Expr {
    if !matches!(&expr, Expr::BinaryExpr(b) if b.op == Operator::Or) || expr.is_volatile() {
        return expr;
    }
    let branches: Vec<Vec<Expr>> = split_binary_owned(expr.clone(), Operator::Or)
        .into_iter()
        .map(split_conjunction_owned)
        .collect();
    let mut common: Vec<Expr> = Vec::new();
    for c in &branches[0] {
        if !common.contains(c) && branches[1..].iter().all(|b| b.contains(c)) {
            common.push(c.clone());
        }
    }
    if common.is_empty() {
        return expr;
    }
    let rest: Vec<Vec<Expr>> = branches
        .into_iter()
        .map(|b| b.into_iter().filter(|c| !common.contains(c)).collect())
        .collect();
    if rest.iter().all(|b: &Vec<Expr>| !b.is_empty()) {
        let ors = rest.into_iter().filter_map(conjunction);
        if let Some(or) = disjunction(ors) {
            common.push(or);
        }
    }
    conjunction(common).unwrap_or(expr)
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
