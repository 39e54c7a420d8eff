//! Filter pushdown: each conjunct of a `Filter` (and the single-side
//! conjuncts of a join's ON condition) as far down the plan as is correct.
//!
//! Runs after the subquery rewrites and *before*
//! [`extract_join_keys`](super::extract_join_keys), so that a WHERE
//! conjunct that becomes part of an inner join's condition is split into
//! keys and residual like any ON condition.
//!
//! # Rules
//!
//! A conjunct moves only when it is deterministic (no volatile function:
//! `random()` stays, `now()` moves: it is fixed per query, J05) and holds
//! no subquery and no outer reference. The query block markers
//! (`__tenon_query_block`, a volatile function) therefore never move: each
//! stays in its block's WHERE Filter right above the block's joins, which is
//! what [`attribute`](super::blocks) relies on.
//!
//! - **Filter**: its conjuncts join those pushed from above; the ones that
//!   may move go on down, the rest (and whatever could not go further) form
//!   one Filter where this one was.
//! - **SubqueryAlias**: through, with the alias's qualifiers rewritten to
//!   the columns of its input.
//! - **Projection**: through when every column the conjunct uses is a plain
//!   column of the input passed through (possibly renamed); otherwise the
//!   conjunct stays above the projection.
//! - **Distinct** (`SELECT DISTINCT`): through.
//! - **Join**, conjuncts from above (WHERE):
//!   - `INNER` / `CROSS`: a conjunct over one input's columns goes to that
//!     input; one over both becomes part of the join condition;
//!   - `LEFT`, `LEFT SEMI`, `LEFT ANTI` (also null-aware): left-only
//!     conjuncts go to the left input; `RIGHT`, `RIGHT SEMI/ANTI`: right-only
//!     to the right; everything else stays above (a right-side conjunct of a
//!     LEFT join filters the NULL-extended rows after the join; below the
//!     join it would not);
//!   - `FULL`: nothing moves.
//! - **Join**, conjuncts of its own ON filter that use one input only: to
//!   that input when the join never emits that input's rows unmatched:
//!   `INNER` both sides; `LEFT` the right side; `RIGHT` the left side;
//!   `LEFT SEMI` both; `LEFT ANTI` the right side; `RIGHT SEMI` both;
//!   `RIGHT ANTI` the left side. A left-only ON conjunct of a LEFT join stays
//!   (a left row that fails it is still emitted, NULL-extended, J02).
//!   Null-aware anti joins (`NOT IN`) and FULL joins keep their condition.
//! - **Join**, a conjunct over both inputs that is an OR (from above or of
//!   its own ON condition) whose every branch has conditions over one
//!   input's columns only: it stays where it is, and the OR of those
//!   conditions, which it implies, also goes to that input by the rules
//!   above for a one-input conjunct (TPC-H Q7: `(n1.n_name = 'FRANCE' AND
//!   n2.n_name = 'GERMANY') OR (n1.n_name = 'GERMANY' AND n2.n_name =
//!   'FRANCE')` also filters `n1` by `n1.n_name = 'FRANCE' OR n1.n_name =
//!   'GERMANY'`, and `n2` likewise). A row of that input that fails the
//!   derived condition makes the whole OR false or NULL, so it cannot
//!   reach the output either way; filtering it early only saves work.
//! - **TableScan**: the Filter stays directly on the scan (the executor
//!   fuses them); nothing goes into `TableScan.filters`.
//! - **Aggregate, Limit, Sort, Window, Union** and every other node: nothing
//!   passes; their inputs (and the plans of subquery expressions) are
//!   processed on their own.

use std::sync::Arc;

use datafusion_common::tree_node::{Transformed, TreeNode};
use datafusion_common::{Column, DFSchema, Result};
use datafusion_expr::logical_plan::Distinct;
use datafusion_expr::utils::{
    conjunction, disjunction, split_conjunction, split_conjunction_owned,
};
use datafusion_expr::{Expr, Filter, Join, JoinType, LogicalPlan, Projection, SubqueryAlias};

/// Pushes filters down everywhere in `plan`, subqueries included (see the
/// module docs).
///
/// # Errors
/// Only if rebuilding a node fails (a bug).
pub fn push_down_filters(plan: LogicalPlan) -> Result<LogicalPlan> {
    let (plan, above) = push(plan, Vec::new())?;
    filter_over(plan, above)
}

/// `Filter(above, plan)`, or `plan` when there is nothing to filter.
fn filter_over(plan: LogicalPlan, above: Vec<Expr>) -> Result<LogicalPlan> {
    Ok(match conjunction(above) {
        Some(predicate) => LogicalPlan::Filter(Filter::try_new(predicate, Arc::new(plan))?),
        None => plan,
    })
}

/// Pushes `preds` (conjuncts over `plan`'s output) into `plan`. Returns the
/// new plan and the conjuncts that must still be applied directly above it:
/// `Filter(preds, plan)` is `Filter(rest, new_plan)`.
fn push(plan: LogicalPlan, preds: Vec<Expr>) -> Result<(LogicalPlan, Vec<Expr>)> {
    // The plans of subquery expressions on their own.
    let plan = plan
        .map_subqueries(|sub| {
            let (sub, above) = push(sub, Vec::new())?;
            Ok(Transformed::yes(filter_over(sub, above)?))
        })?
        .data;
    match plan {
        LogicalPlan::Filter(filter) => {
            let mut all = split_conjunction_owned(filter.predicate);
            all.extend(preds);
            let movable: Vec<Expr> = all.iter().filter(|c| may_move(c)).cloned().collect();
            let (input, mut left) = push(Arc::unwrap_or_clone(filter.input), movable)?;
            // What stays, in the order written, then what a Filter below
            // left behind.
            let mut rest = Vec::with_capacity(all.len());
            for conjunct in all {
                if !may_move(&conjunct) {
                    rest.push(conjunct);
                } else if let Some(i) = left.iter().position(|l| l == &conjunct) {
                    rest.push(left.remove(i));
                }
            }
            rest.extend(left);
            Ok((input, rest))
        }
        LogicalPlan::SubqueryAlias(sa) => {
            let input_schema = Arc::clone(sa.input.schema());
            let mut down = Vec::new();
            let mut above = Vec::new();
            for pred in preds {
                match rewrite_columns(&pred, |c| {
                    let i = sa.schema.index_of_column(c).ok()?;
                    Some(Expr::Column(Column::from(input_schema.qualified_field(i))))
                }) {
                    Some(rewritten) => down.push(rewritten),
                    None => above.push(pred),
                }
            }
            let (input, left) = push(Arc::unwrap_or_clone(sa.input), down)?;
            let input = filter_over(input, left)?;
            let plan =
                LogicalPlan::SubqueryAlias(SubqueryAlias::try_new(Arc::new(input), sa.alias)?);
            Ok((plan, above))
        }
        LogicalPlan::Projection(projection) => {
            let mut down = Vec::new();
            let mut above = Vec::new();
            for pred in preds {
                match rewrite_columns(&pred, |c| {
                    let i = projection.schema.index_of_column(c).ok()?;
                    match projection.expr[i].clone().unalias() {
                        column @ Expr::Column(_) => Some(column),
                        _ => None,
                    }
                }) {
                    Some(rewritten) => down.push(rewritten),
                    None => above.push(pred),
                }
            }
            let (input, left) = push(Arc::unwrap_or_clone(projection.input), down)?;
            let input = filter_over(input, left)?;
            let plan = LogicalPlan::Projection(Projection::try_new_with_schema(
                projection.expr,
                Arc::new(input),
                projection.schema,
            )?);
            Ok((plan, above))
        }
        LogicalPlan::Distinct(Distinct::All(input)) => {
            let (input, left) = push(Arc::unwrap_or_clone(input), preds)?;
            let input = filter_over(input, left)?;
            Ok((
                LogicalPlan::Distinct(Distinct::All(Arc::new(input))),
                Vec::new(),
            ))
        }
        LogicalPlan::Join(join) => push_into_join(join, preds),
        other => {
            // Nothing passes: the inputs on their own.
            let plan = other
                .map_children(|child| {
                    let (child, above) = push(child, Vec::new())?;
                    Ok(Transformed::yes(filter_over(child, above)?))
                })?
                .data;
            Ok((plan, preds))
        }
    }
}

/// Which inputs of a join a conjunct uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sides {
    /// No column (a constant condition) or a column of neither input.
    Neither,
    Left,
    Right,
    Both,
}

fn sides(expr: &Expr, left: &DFSchema, right: &DFSchema) -> Sides {
    let columns = expr.column_refs();
    if columns.is_empty() {
        return Sides::Neither;
    }
    let (mut l, mut r) = (false, false);
    for c in columns {
        match (left.has_column(c), right.has_column(c)) {
            (true, false) => l = true,
            (false, true) => r = true,
            // ambiguous or unknown: do not move
            _ => return Sides::Neither,
        }
    }
    match (l, r) {
        (true, true) => Sides::Both,
        (true, false) => Sides::Left,
        (false, true) => Sides::Right,
        (false, false) => Sides::Neither,
    }
}

/// Where a conjunct of the join's ON condition over one input may go:
/// `(left-only to the left, right-only to the right)`.
fn on_pushable(join: &Join) -> (bool, bool) {
    if join.null_aware {
        return (false, false);
    }
    if let Some(tj) = temporal(join) {
        // a temporal join tests its residual on the chosen version: nothing
        // goes into the versioned side; an as-of join's other conditions
        // filter the right rows before the choice, as below
        let left = join.join_type == JoinType::Inner;
        return (left, !tj);
    }
    match join.join_type {
        JoinType::Inner | JoinType::LeftSemi | JoinType::RightSemi => (true, true),
        JoinType::Left | JoinType::LeftAnti => (false, true),
        JoinType::Right | JoinType::RightAnti => (true, false),
        JoinType::Full | JoinType::LeftMark | JoinType::RightMark => (false, false),
    }
}

/// Where a conjunct from above (over the join's output) may go:
/// `(left-only to the left, right-only to the right, both into the ON)`.
fn where_pushable(join_type: JoinType) -> (bool, bool, bool) {
    match join_type {
        JoinType::Inner => (true, true, true),
        JoinType::Left | JoinType::LeftSemi | JoinType::LeftAnti | JoinType::LeftMark => {
            (true, false, false)
        }
        JoinType::Right | JoinType::RightSemi | JoinType::RightAnti | JoinType::RightMark => {
            (false, true, false)
        }
        JoinType::Full => (false, false, false),
    }
}

fn push_into_join(join: Join, preds: Vec<Expr>) -> Result<(LogicalPlan, Vec<Expr>)> {
    let left_schema = Arc::clone(join.left.schema());
    let right_schema = Arc::clone(join.right.schema());
    let (on_left, on_right) = on_pushable(&join);
    let (where_left, mut where_right, mut where_both) = where_pushable(join.join_type);
    if temporal(&join).is_some() {
        // the version is chosen before WHERE filters the joined rows
        (where_right, where_both) = (false, false);
    }

    let mut to_left = Vec::new();
    let mut to_right = Vec::new();
    let mut condition = Vec::new();
    // Conditions implied by an OR over both inputs, for one input each.
    let implied = |conjunct: &Expr, to_left: &mut Vec<Expr>, to_right: &mut Vec<Expr>, (l, r)| {
        if l && let Some(d) = implied_for(conjunct, Sides::Left, &left_schema, &right_schema) {
            to_left.push(d);
        }
        if r && let Some(d) = implied_for(conjunct, Sides::Right, &left_schema, &right_schema) {
            to_right.push(d);
        }
    };
    for conjunct in join.filter.map(split_conjunction_owned).unwrap_or_default() {
        let side = if may_move(&conjunct) {
            sides(&conjunct, &left_schema, &right_schema)
        } else {
            Sides::Neither
        };
        if side == Sides::Both {
            implied(&conjunct, &mut to_left, &mut to_right, (on_left, on_right));
        }
        match side {
            Sides::Left if on_left => to_left.push(conjunct),
            Sides::Right if on_right => to_right.push(conjunct),
            _ => condition.push(conjunct),
        }
    }
    let mut above = Vec::new();
    for pred in preds {
        let side = sides(&pred, &left_schema, &right_schema);
        if side == Sides::Both {
            implied(
                &pred,
                &mut to_left,
                &mut to_right,
                (where_left, where_right),
            );
        }
        match side {
            Sides::Left if where_left => to_left.push(pred),
            Sides::Right if where_right => to_right.push(pred),
            Sides::Both if where_both => condition.push(pred),
            _ => above.push(pred),
        }
    }
    let (left, rest) = push(Arc::unwrap_or_clone(join.left), to_left)?;
    let left = filter_over(left, rest)?;
    let (right, rest) = push(Arc::unwrap_or_clone(join.right), to_right)?;
    let right = filter_over(right, rest)?;
    let join = Join::try_new(
        Arc::new(left),
        Arc::new(right),
        join.on,
        conjunction(condition),
        join.join_type,
        join.join_constraint,
        join.null_equality,
        join.null_aware,
    )?;
    Ok((LogicalPlan::Join(join), above))
}

/// For `expr`, an OR over both inputs of a join, the OR of each branch's
/// conditions over `side`'s columns only, which `expr` implies (module
/// docs); `None` when it is not an OR or a branch has no such condition.
fn implied_for(expr: &Expr, side: Sides, left: &DFSchema, right: &DFSchema) -> Option<Expr> {
    fn branches<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
        match e {
            Expr::BinaryExpr(b) if b.op == datafusion_expr::Operator::Or => {
                branches(&b.left, out);
                branches(&b.right, out);
            }
            other => out.push(other),
        }
    }
    let mut ors = Vec::new();
    branches(expr, &mut ors);
    if ors.len() < 2 {
        return None;
    }
    let mut derived = Vec::with_capacity(ors.len());
    for branch in ors {
        let own: Vec<Expr> = split_conjunction(branch)
            .into_iter()
            .filter(|c| sides(c, left, right) == side)
            .cloned()
            .collect();
        derived.push(conjunction(own)?);
    }
    disjunction(derived)
}

/// For a time join, whether its residual is tested after the version is
/// chosen (a temporal join: `Some(true)`) or before (an as-of join:
/// `Some(false)`); `None` for other joins.
fn temporal(join: &Join) -> Option<bool> {
    match super::time_join::TimeJoin::of(join) {
        Ok(Some(tj)) => Some(tj.kind.filters_after_choice()),
        Ok(None) => None,
        // a malformed marker is reported by the checks; keep it whole
        Err(_) => Some(true),
    }
}

/// A conjunct that may move: deterministic, without subqueries or outer
/// references (and so never a block marker, which is volatile).
fn may_move(expr: &Expr) -> bool {
    !expr.is_volatile()
        && !expr
            .exists(|e| {
                Ok(matches!(
                    e,
                    Expr::Exists(_)
                        | Expr::InSubquery(_)
                        | Expr::ScalarSubquery(_)
                        | Expr::SetComparison(_)
                        | Expr::OuterReferenceColumn(..)
                        | Expr::Placeholder(_)
                ))
            })
            .unwrap_or(true)
}

/// `expr` with every column replaced by `map(column)`; `None` when `map`
/// has no replacement for one of them.
fn rewrite_columns(expr: &Expr, map: impl Fn(&Column) -> Option<Expr>) -> Option<Expr> {
    let mut ok = true;
    let rewritten = expr
        .clone()
        .transform(|e| match e {
            Expr::Column(c) => match map(&c) {
                Some(new) => Ok(Transformed::yes(new)),
                None => {
                    ok = false;
                    Ok(Transformed::no(Expr::Column(c)))
                }
            },
            other => Ok(Transformed::no(other)),
        })
        .ok()?
        .data;
    ok.then_some(rewritten)
}
