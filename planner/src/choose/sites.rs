//! Each join of a query block as hint resolution sees it ([`JoinSite`]:
//! its inputs' names, size estimates and sortedness, its type and
//! condition), and the planned join made of its decision.

use std::collections::HashSet;

use datafusion_common::NullEquality;
use datafusion_expr::{Expr, Join, JoinType as DfJoinType, LogicalPlan};

use super::JoinEstimates;
use super::block_hints::block_hints;
use super::estimate::Estimator;
use super::{PlanError, PlannedJoin, allows_adaptive_build_side};
use crate::hints::{BlockInput, BlockJoins, Hint, JoinDecision, JoinSite, SiteInput};
use crate::sql::{
    Catalog, InputKind, JoinInput, JoinRef, QueryBlock, SqlError, TableStats, TimeJoin, node_at,
};
use tenon_kernels::{JoinType, Strategy};

/// Prefix of the aliases the front end gives `IN` / `NOT IN` subqueries it
/// plans as semi / anti joins (`crate::sql::in_subqueries_to_joins`).
const SUBQUERY_ALIAS_PREFIX: &str = "__sq_";

/// One block's joins as hint resolution sees them, with their logical
/// nodes, ready to be resolved.
pub(super) struct BlockToDecide<'a> {
    block: &'a QueryBlock,
    /// The block's query hints.
    pub(super) hints: Vec<Hint>,
    /// The block's inputs and joins, for [`crate::hints::resolve_block`].
    pub(super) joins: BlockJoins,
    /// The logical node of each join.
    nodes: Vec<Join>,
}

/// Collects a block's hints and describes each of its joins ([`JoinSite`],
/// numbered by `global_id`).
///
/// `shared` holds the aggregates computed once for several places (no
/// runtime filter reaches them: they are not taken for a decorrelated
/// subquery's grouped input, H15 rule 3).
pub(super) fn describe_block<'a>(
    block: &'a QueryBlock,
    plan: &LogicalPlan,
    global_id: &dyn Fn(usize) -> usize,
    catalog: &Catalog,
    estimator: &Estimator<'_>,
    shared: &HashSet<LogicalPlan>,
) -> Result<BlockToDecide<'a>, PlanError> {
    let hints = block_hints(block)?;
    let mut sites = Vec::with_capacity(block.joins.len());
    let mut nodes = Vec::with_capacity(block.joins.len());
    for (j, jref) in block.joins.iter().enumerate() {
        let join = match node_at(plan, &jref.path) {
            Some(LogicalPlan::Join(join)) => join,
            _ => {
                return Err(SqlError::Plan(format!(
                    "internal: no join at {:?} of block {}",
                    jref.path, block.id
                ))
                .into());
            }
        };
        sites.push(join_site(
            global_id(j),
            jref,
            &join,
            (catalog, estimator),
            shared,
        )?);
        nodes.push(join);
    }
    Ok(BlockToDecide {
        block,
        hints,
        joins: BlockJoins {
            inputs: block_inputs(block),
            joins: sites,
        },
        nodes,
    })
}

impl BlockToDecide<'_> {
    /// The block's hints called `name`, in written order.
    pub(super) fn hints_named(&self, name: crate::hints::HintName) -> Vec<&crate::hints::Hint> {
        self.hints.iter().filter(|h| h.name == name).collect()
    }

    /// Where the block's join `j` is in the plan.
    pub(super) fn path(&self, j: usize) -> &crate::sql::PlanPath {
        &self.block.joins[j].path
    }

    /// The logical node of the block's join `j`.
    pub(super) fn node(&self, j: usize) -> &Join {
        &self.nodes[j]
    }

    /// Whether the block's join `j` is a lookup join, and the names its
    /// lookup side goes by in hints (its alias, and its table's name).
    pub(super) fn lookup_names(&self, j: usize) -> Option<Vec<String>> {
        let time = TimeJoin::of(&self.nodes[j]).ok().flatten()?;
        if time.kind != crate::sql::TimeJoinKind::Lookup {
            return None;
        }
        let right = self.joins.joins[j].right.name.clone()?;
        let mut names = vec![right.clone()];
        if let Some(table) = self
            .joins
            .inputs
            .iter()
            .find(|i| i.name == right)
            .and_then(|i| i.aliased_table.clone())
        {
            names.push(table);
        }
        Some(names)
    }

    /// The planned join for the block's join `j`, decided by `decision`.
    pub(super) fn planned(&self, j: usize, decision: JoinDecision) -> PlannedJoin {
        let site = &self.joins.joins[j];
        let (jref, join) = (&self.block.joins[j], &self.nodes[j]);
        let time_join = TimeJoin::of(join).ok().flatten();
        let build = decision
            .build_side
            .and_then(|side| site.input(side).name.clone());
        PlannedJoin {
            block: self.block.id,
            path: jref.path.clone(),
            strategy: decision.strategy,
            join_type: site.join_type,
            build_side: decision.build_side,
            build,
            left: site.left.name.clone(),
            right: site.right.name.clone(),
            keys: key_texts(join),
            filter: time_join
                .as_ref()
                .map_or(join.filter.as_ref(), |t| t.residual.as_ref())
                .map(|f| crate::expr::readable_intervals(&f.to_string())),
            time_join: time_join.as_ref().map(TimeJoin::describe),
            lookup: None,
            reason: or_note(decision.reason, decision.strategy, join),
            adaptive_build_side: time_join.is_none()
                && allows_adaptive_build_side(&decision.source, decision.strategy),
            source: decision.source,
            ignored_hints: decision.ignored,
            multi_join: None,
            estimates: JoinEstimates {
                left: site.left.estimate,
                right: site.right.estimate,
                output: site.output,
            },
        }
    }
}

/// The names a hint of this block may use (H11, H32).
fn block_inputs(block: &QueryBlock) -> Vec<BlockInput> {
    let mut inputs: Vec<BlockInput> = Vec::new();
    for rel in &block.relations {
        let Some(name) = hintable_name(rel) else {
            continue;
        };
        let input = match (rel.kind, &rel.table) {
            (InputKind::Alias, Some(table)) => BlockInput::aliased(table.clone(), name),
            _ => BlockInput::table(name),
        };
        if !inputs.contains(&input) {
            inputs.push(input);
        }
    }
    inputs
}

/// The name hints use for an input; `None` for subtrees, unnamed inputs and
/// the front end's `IN`-subquery aliases.
fn hintable_name(input: &JoinInput) -> Option<String> {
    input
        .name
        .clone()
        .filter(|n| !n.starts_with(SUBQUERY_ALIAS_PREFIX))
}

/// The kernels' join type of a logical join (`NOT IN`:
/// [`JoinType::LeftAntiNullAware`]).
pub(crate) fn kernel_join_type(join: &Join) -> Result<JoinType, SqlError> {
    Ok(match (join.join_type, join.null_aware) {
        (DfJoinType::Inner, _) => JoinType::Inner,
        (DfJoinType::Left, _) => JoinType::Left,
        (DfJoinType::Right, _) => JoinType::Right,
        (DfJoinType::Full, _) => JoinType::Full,
        (DfJoinType::LeftSemi, _) => JoinType::LeftSemi,
        (DfJoinType::LeftAnti, false) => JoinType::LeftAnti,
        (DfJoinType::LeftAnti, true) => JoinType::LeftAntiNullAware,
        (DfJoinType::RightSemi, _) => JoinType::RightSemi,
        (DfJoinType::RightAnti, _) => JoinType::RightAnti,
        (other, _) => return Err(SqlError::Unsupported(format!("{other} join"))),
    })
}

/// One join as hint resolution sees it.
fn join_site(
    id: usize,
    jref: &JoinRef,
    join: &Join,
    (catalog, estimator): (&Catalog, &Estimator<'_>),
    shared: &HashSet<LogicalPlan>,
) -> Result<JoinSite, PlanError> {
    let join_type = kernel_join_type(join)?;
    let from_subquery = matches!(
        join_type,
        JoinType::LeftSemi | JoinType::LeftAnti | JoinType::LeftAntiNullAware
    ) && jref
        .right
        .name
        .as_deref()
        .is_some_and(|n| n.starts_with(SUBQUERY_ALIAS_PREFIX));
    let left_keys: Vec<&Expr> = join.on.iter().map(|(l, _)| l).collect();
    let right_keys: Vec<&Expr> = join.on.iter().map(|(_, r)| r).collect();
    let mut site = JoinSite::new(
        id,
        join_type,
        site_input(
            &jref.left,
            (catalog, estimator),
            &left_keys,
            &join.left,
            shared,
        ),
        site_input(
            &jref.right,
            (catalog, estimator),
            &right_keys,
            &join.right,
            shared,
        ),
    );
    site = site.with_output(estimator.estimate(&LogicalPlan::Join(join.clone())));
    if !join.on.is_empty() && has_band(join) {
        site = site.with_band();
    }
    if crate::sql::is_time_join(join) {
        site = site.time_join();
    } else if join.on.is_empty() {
        site = site.non_equi();
    }
    if from_subquery {
        site = site.from_subquery();
    }
    Ok(site)
}

/// Whether `join`'s filter bounds an expression of one input by one of
/// the other with `<`, `<=`, `>`, `>=` or `BETWEEN` (a band).
fn has_band(join: &Join) -> bool {
    let Some(filter) = &join.filter else {
        return false;
    };
    // 1: only the left input's columns, 2: only the right's, 0: neither
    // or both
    let side = |e: &Expr| {
        let refs = e.column_refs();
        if refs.is_empty() {
            0
        } else if refs.iter().all(|c| join.left.schema().has_column(c)) {
            1
        } else if refs.iter().all(|c| join.right.schema().has_column(c)) {
            2
        } else {
            0
        }
    };
    let across = |a: &Expr, b: &Expr| {
        let (x, y) = (side(a), side(b));
        x != 0 && y != 0 && x != y
    };
    datafusion_expr::utils::split_conjunction(filter)
        .into_iter()
        .any(|c| match c {
            Expr::BinaryExpr(b) => {
                use datafusion_expr::Operator as O;
                matches!(b.op, O::Lt | O::LtEq | O::Gt | O::GtEq) && across(&b.left, &b.right)
            }
            Expr::Between(b) => !b.negated && across(&b.expr, &b.low) && across(&b.expr, &b.high),
            _ => false,
        })
}

/// One input: its name, size estimate and sortedness.
fn site_input(
    input: &JoinInput,
    (catalog, estimator): (&Catalog, &Estimator<'_>),
    keys: &[&Expr],
    plan: &LogicalPlan,
    shared: &HashSet<LogicalPlan>,
) -> SiteInput {
    let mut site = SiteInput {
        name: hintable_name(input),
        ..SiteInput::default()
    };
    let table = match input.kind {
        InputKind::Table => input.name.as_deref(),
        InputKind::Alias => input.table.as_deref(),
        _ => None,
    };
    if let Some(table) = table.and_then(|t| catalog.table(t)) {
        site.sorted_on_keys = sorted_on_keys(&table.stats, keys);
    }
    site.estimate = estimator.estimate(plan);
    site.grouped_on_keys = grouped_on_keys(plan, keys, shared);
    site
}

/// Whether `plan` is an aggregate whose group columns include every one of
/// `keys` (plain columns of `plan`'s output), seen through projections
/// that pass the key columns on and through aliases: the shape of a
/// decorrelated subquery (H15). A filter above the aggregate (HAVING)
/// stops the walk: it makes the input small by itself; so does an
/// aggregate in `shared` (computed once for several places, where no
/// runtime filter reaches).
fn grouped_on_keys(plan: &LogicalPlan, keys: &[&Expr], shared: &HashSet<LogicalPlan>) -> bool {
    let mut at: Vec<usize> = Vec::with_capacity(keys.len());
    for key in keys {
        let Expr::Column(c) = key else {
            return false;
        };
        match plan.schema().index_of_column(c) {
            Ok(i) => at.push(i),
            Err(_) => return false,
        }
    }
    if at.is_empty() {
        return false;
    }
    let mut node = plan;
    loop {
        match node {
            LogicalPlan::SubqueryAlias(a) => node = &a.input,
            LogicalPlan::Projection(p) => {
                for i in &mut at {
                    let mut e = &p.expr[*i];
                    while let Expr::Alias(a) = e {
                        e = &a.expr;
                    }
                    let Expr::Column(c) = e else {
                        return false;
                    };
                    match p.input.schema().index_of_column(c) {
                        Ok(j) => *i = j,
                        Err(_) => return false,
                    }
                }
                node = &p.input;
            }
            LogicalPlan::Aggregate(a) => {
                if shared.contains(node) {
                    return false;
                }
                if a.group_expr
                    .iter()
                    .any(|e| matches!(e, Expr::GroupingSet(_)))
                {
                    return false;
                }
                let groups = a.group_expr.len();
                return at.iter().all(|&i| i < groups);
            }
            _ => return false,
        }
    }
}

/// Whether `sorted_on` starts with the key columns, in order.
fn sorted_on_keys(stats: &TableStats, keys: &[&Expr]) -> bool {
    if keys.is_empty() || keys.len() > stats.sorted_on.len() {
        return false;
    }
    keys.iter().zip(&stats.sorted_on).all(|(key, sorted)| {
        let mut e = *key;
        while let Expr::Cast(c) = e {
            e = &c.expr;
        }
        matches!(e, Expr::Column(c) if &c.name == sorted)
    })
}

/// `reason`, with a note when a NEST_LOOP join's condition is an OR whose
/// every branch has an equality of the two sides (`a.x = b.x OR a.y =
/// b.y`): each branch would be a hash join on its own, but tenon does not
/// split an OR into a union of joins, so every pair of rows is tested.
fn or_note(reason: String, strategy: Strategy, join: &Join) -> String {
    use datafusion_expr::utils::{find_valid_equijoin_key_pair, split_conjunction};
    let Some(filter) = join
        .filter
        .as_ref()
        .filter(|_| strategy == Strategy::NestLoop)
    else {
        return reason;
    };
    if !join.on.is_empty() {
        return reason;
    }
    let (left, right) = (join.left.schema(), join.right.schema());
    let mut branches = Vec::new();
    let mut stack = vec![filter];
    while let Some(e) = stack.pop() {
        match e {
            Expr::BinaryExpr(b) if b.op == datafusion_expr::Operator::Or => {
                stack.push(&b.left);
                stack.push(&b.right);
            }
            other => branches.push(other),
        }
    }
    let has_key = |branch: &Expr| {
        split_conjunction(branch).into_iter().any(|c| match c {
            Expr::BinaryExpr(b) if b.op == datafusion_expr::Operator::Eq => {
                matches!(
                    find_valid_equijoin_key_pair(&b.left, &b.right, left, right),
                    Ok(Some(_))
                )
            }
            _ => false,
        })
    };
    if branches.len() < 2 || !branches.iter().all(|b| has_key(b)) {
        return reason;
    }
    format!(
        "{reason}; the ON condition is an OR of {} branches with a different equi key each: \
         tenon does not split an OR into one hash join per branch, so every pair of rows is \
         tested",
        branches.len()
    )
}

/// The equi keys as text (`IS NOT DISTINCT FROM` for null-equal keys).
pub(super) fn key_texts(join: &Join) -> Vec<String> {
    let op = match join.null_equality {
        NullEquality::NullEqualsNothing => "=",
        NullEquality::NullEqualsNull => "IS NOT DISTINCT FROM",
    };
    join.on
        .iter()
        .map(|(l, r)| format!("{l} {op} {r}"))
        .collect()
}
