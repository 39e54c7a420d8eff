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

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::time_join::is_time_join;

use datafusion_common::tree_node::{Transformed, TreeNode};
use datafusion_common::{Column, DFSchema, NullEquality, Result, TableReference};

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
/// Estimated sizes do not decide the order: without distinct counts the
/// estimates cannot tell a foreign-key join from a join on a
/// low-cardinality column, and an order chosen by them can join two large
/// tables first (TPC-H Q5 and Q7 ran many times slower that way).
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
    let index = InputIndex::new(leaves.iter());
    // The inputs of each movable conjunct (first input with each column, as
    // `has_column` finds it), `None` when a column is in none of them.
    let inputs_of: Vec<Option<Vec<usize>>> = conjuncts
        .iter()
        .flatten()
        .map(|c| {
            let mut inputs: Vec<usize> = Vec::new();
            for column in c.column_refs() {
                let i = index.first(column)?;
                if !inputs.contains(&i) {
                    inputs.push(i);
                }
            }
            Some(inputs)
        })
        .collect();
    // The inputs of each conjunct over two or more of them.
    let relations: Vec<Vec<usize>> = conjuncts
        .iter()
        .flatten()
        .zip(&inputs_of)
        .filter(|(c, _)| !c.is_volatile() && !has_subquery_or_outer_ref(c))
        .filter_map(|(_, inputs)| inputs.clone().filter(|inputs| inputs.len() >= 2))
        .collect();
    // Inputs with a conjunct of their own, over a table of at most
    // TINY_ROWS rows.
    let mut own_conjunct = vec![false; leaves.len()];
    for inputs in inputs_of.iter().flatten() {
        if let [i] = inputs.as_slice() {
            own_conjunct[*i] = true;
        }
    }
    let tiny: Vec<bool> = leaves
        .iter()
        .zip(&own_conjunct)
        .map(|(leaf, &own)| {
            own && scanned_table(leaf)
                .and_then(table_rows)
                .is_some_and(|rows| rows <= TINY_ROWS)
        })
        .collect();
    // An input is connected when a relation has it as its only input not
    // joined yet: each relation counts its inputs not joined.
    let mut relations_of: Vec<Vec<usize>> = vec![Vec::new(); leaves.len()];
    for (r, inputs) in relations.iter().enumerate() {
        for &i in inputs {
            relations_of[i].push(r);
        }
    }
    let mut remaining: Vec<usize> = relations.iter().map(Vec::len).collect();
    let mut joined = vec![false; leaves.len()];
    let mut unjoined: BTreeSet<usize> = (0..leaves.len()).collect();
    let mut connected: BTreeSet<usize> = BTreeSet::new();
    let mut connected_tiny: BTreeSet<usize> = BTreeSet::new();
    let mut order = Vec::with_capacity(leaves.len());
    let mut next = 0;
    loop {
        joined[next] = true;
        unjoined.remove(&next);
        connected.remove(&next);
        connected_tiny.remove(&next);
        order.push(next);
        for &r in &relations_of[next] {
            remaining[r] -= 1;
            if remaining[r] == 1
                && let Some(&last) = relations[r].iter().find(|&&x| !joined[x])
            {
                connected.insert(last);
                if tiny[last] {
                    connected_tiny.insert(last);
                }
            }
        }
        let Some(&first) = connected_tiny
            .first()
            .or_else(|| connected.first())
            .or_else(|| unjoined.first())
        else {
            break;
        };
        next = first;
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
///
/// Each conjunct goes to the one join it is a join predicate of (see
/// `is_join_predicate`): the lowest join with all its inputs below it and
/// some on each side. It is found by the conjunct's inputs' positions (left
/// to right) in the tree, not by trying every join's schemas, so a tree of
/// `n` inputs with `n` conjuncts costs about `n²` comparisons of positions
/// rather than `n²` schema searches (`n³` column comparisons). Conjuncts
/// with unqualified columns are checked join by join, as before.
fn push_into(plan: LogicalPlan, conjuncts: &mut [Option<Expr>]) -> Result<(LogicalPlan, bool)> {
    if !matches!(&plan, LogicalPlan::Join(j) if j.join_type == JoinType::Inner && !is_time_join(j))
    {
        return Ok((plan, false));
    }
    let mut leaves = Vec::new();
    let mut joins = Vec::new();
    inner_join_tree(&plan, &mut leaves, &mut joins);
    let index = InputIndex::new(leaves.iter().copied());
    let mut assigned: Vec<Vec<Expr>> = vec![Vec::new(); joins.len()];
    for slot in conjuncts.iter_mut() {
        let Some(c) = slot.as_ref() else {
            continue;
        };
        if c.is_volatile() || has_subquery_or_outer_ref(c) {
            continue;
        }
        let target = match index.span(c) {
            Span::Inputs(min, max) => joins
                .iter()
                .position(|j| j.lo <= min && min < j.mid && j.mid <= max && max < j.hi),
            Span::Missing => None,
            Span::Unsure => joins
                .iter()
                .position(|j| is_join_predicate(c, j.join.left.schema(), j.join.right.schema())),
        };
        if let Some(t) = target {
            assigned[t].extend(slot.take());
        }
    }
    let mut next = 0;
    rebuild_inner_joins(plan, &mut assigned, &mut next)
}

/// A join of an inner-join tree: its inputs are `lo..hi` of the tree's
/// inputs (left to right), those of its left side `lo..mid`.
struct TreeJoin<'a> {
    join: &'a Join,
    lo: usize,
    mid: usize,
    hi: usize,
}

/// The inputs (into `leaves`, left to right) and the joins (into `joins`,
/// in post-order) of the tree of inner joins at `plan`.
fn inner_join_tree<'a>(
    plan: &'a LogicalPlan,
    leaves: &mut Vec<&'a LogicalPlan>,
    joins: &mut Vec<TreeJoin<'a>>,
) {
    match plan {
        LogicalPlan::Join(join) if join.join_type == JoinType::Inner && !is_time_join(join) => {
            let lo = leaves.len();
            inner_join_tree(&join.left, leaves, joins);
            let mid = leaves.len();
            inner_join_tree(&join.right, leaves, joins);
            joins.push(TreeJoin {
                join,
                lo,
                mid,
                hi: leaves.len(),
            });
        }
        other => leaves.push(other),
    }
}

/// Rebuilds the inner-join tree at `plan` with the conjuncts `assigned` to
/// each join (joins numbered in post-order from `*next`); whether anything
/// moved.
fn rebuild_inner_joins(
    plan: LogicalPlan,
    assigned: &mut [Vec<Expr>],
    next: &mut usize,
) -> Result<(LogicalPlan, bool)> {
    let LogicalPlan::Join(join) = plan else {
        return Ok((plan, false));
    };
    if join.join_type != JoinType::Inner || is_time_join(&join) {
        return Ok((LogicalPlan::Join(join), false));
    }
    let Join {
        left,
        right,
        on,
        filter,
        join_type,
        join_constraint,
        schema,
        null_equality,
        null_aware,
    } = join;
    let (left, moved_left) = rebuild_inner_joins(Arc::unwrap_or_clone(left), assigned, next)?;
    let (right, moved_right) = rebuild_inner_joins(Arc::unwrap_or_clone(right), assigned, next)?;
    let mine = std::mem::take(&mut assigned[*next]);
    *next += 1;
    if mine.is_empty() && !moved_left && !moved_right {
        let join = Join {
            left: Arc::new(left),
            right: Arc::new(right),
            on,
            filter,
            join_type,
            join_constraint,
            schema,
            null_equality,
            null_aware,
        };
        return Ok((LogicalPlan::Join(join), false));
    }
    let filter = conjunction(filter.into_iter().chain(mine));
    let join = Join::try_new(
        Arc::new(left),
        Arc::new(right),
        on,
        filter,
        join_type,
        join_constraint,
        null_equality,
        null_aware,
    )?;
    Ok((LogicalPlan::Join(join), true))
}

/// Where the columns of a conjunct are among a join tree's inputs.
enum Span {
    /// Each column is in exactly one input: the first and last of them.
    Inputs(usize, usize),
    /// A column is in no input.
    Missing,
    /// A column is unqualified or in two inputs: check the schemas.
    Unsure,
}

/// The inputs of a join tree by their columns: which input has a column,
/// in one hash lookup instead of a search of every input's schema.
struct InputIndex {
    /// Qualified columns: the inputs (first, and whether another has it).
    qualified: HashMap<(TableReference, String), (usize, bool)>,
    /// Unqualified names: the first input with a field of that name.
    unqualified: HashMap<String, usize>,
}

impl InputIndex {
    fn new<'a>(inputs: impl IntoIterator<Item = &'a LogicalPlan>) -> Self {
        let mut qualified: HashMap<(TableReference, String), (usize, bool)> = HashMap::new();
        let mut unqualified = HashMap::new();
        for (i, input) in inputs.into_iter().enumerate() {
            for (qualifier, field) in input.schema().iter() {
                unqualified.entry(field.name().clone()).or_insert(i);
                if let Some(q) = qualifier {
                    qualified
                        .entry((q.clone(), field.name().clone()))
                        .and_modify(|(_, twice)| *twice = true)
                        .or_insert((i, false));
                }
            }
        }
        InputIndex {
            qualified,
            unqualified,
        }
    }

    /// The first input whose schema `has_column(column)`.
    fn first(&self, column: &Column) -> Option<usize> {
        match &column.relation {
            Some(r) => self
                .qualified
                .get(&(r.clone(), column.name.clone()))
                .map(|&(i, _)| i),
            None => self.unqualified.get(&column.name).copied(),
        }
    }

    /// Where the columns of `expr` are.
    fn span(&self, expr: &Expr) -> Span {
        let mut span: Option<(usize, usize)> = None;
        for column in expr.column_refs() {
            let Some(r) = &column.relation else {
                return Span::Unsure;
            };
            match self.qualified.get(&(r.clone(), column.name.clone())) {
                None => return Span::Missing,
                Some((_, true)) => return Span::Unsure,
                Some(&(i, false)) => {
                    span = Some(span.map_or((i, i), |(lo, hi)| (lo.min(i), hi.max(i))));
                }
            }
        }
        span.map_or(Span::Missing, |(lo, hi)| Span::Inputs(lo, hi))
    }
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
